// Package report holds the calibration report's data model and its
// renderers (YAML canonical, JSON, Markdown, HTML). Renderers compute no
// statistics; they only lay out what the model holds.
package report

import (
	"fmt"
	"os"
	"path/filepath"
)

// WriteFileAtomic writes data to path so that readers see either the old
// file or the whole new one: it writes a temporary file in the same
// directory, syncs and closes it (checking both errors), then renames it
// over path.
func WriteFileAtomic(path string, data []byte) (err error) {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("report: write %s: %w", path, err)
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			os.Remove(tmp)
		}
	}()
	if _, err = f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("report: write %s: %w", path, err)
	}
	if err = f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("report: sync %s: %w", path, err)
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("report: close %s: %w", path, err)
	}
	if err = os.Chmod(tmp, 0o644); err != nil {
		return fmt.Errorf("report: chmod %s: %w", path, err)
	}
	if err = os.Rename(tmp, path); err != nil {
		return fmt.Errorf("report: rename into %s: %w", path, err)
	}
	return nil
}
