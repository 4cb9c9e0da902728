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
// over path. A symbolic link is followed, so the file it points to is
// replaced, not the link. When path exists and is not a regular file (a
// device such as /dev/null or /dev/stdout, a named pipe), atomicity means
// nothing and a rename would replace the device with a file: data is
// written to it directly instead.
func WriteFileAtomic(path string, data []byte) (err error) {
	if resolved, err := filepath.EvalSymlinks(path); err == nil {
		path = resolved
	}
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() {
		if fi.IsDir() {
			return fmt.Errorf("report: write %s: is a directory", path)
		}
		return writeSpecial(path, data)
	}
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

// writeSpecial writes data to an existing non-regular file (a device or a
// named pipe) without creating or replacing anything.
func writeSpecial(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("report: write %s: %w", path, err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("report: write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("report: close %s: %w", path, err)
	}
	return nil
}
