// Package atomicfile writes a cache entry so that a reader sees the old
// file or the new one, never a part: the data goes to a temporary file in
// the same directory, which is then renamed over the name.
package atomicfile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// Write writes data to name atomically, creating name's directory (0755)
// when it is missing. The temporary file is ".tmp-*" in that directory and
// is removed when anything fails. Errors name the file they concern.
// (Reports go through report.WriteFileAtomic, which also keeps a
// replaced file's mode and follows links.)
func Write(name string, data []byte) error {
	dir := filepath.Dir(name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("write %s: %w", tmp.Name(), err)
	}
	if err := os.Rename(tmp.Name(), name); err != nil {
		_ = os.Remove(tmp.Name())
		return err
	}
	return nil
}
