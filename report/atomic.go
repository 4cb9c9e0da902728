// Package report holds the calibration report's data model and its
// renderers (YAML canonical, JSON, Markdown, HTML). Renderers compute no
// statistics; they only lay out what the model holds.
package report

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// maxSymlinkHops bounds how many symbolic links WriteFileAtomic follows
// (Linux's limit, ELOOP past it).
const maxSymlinkHops = 40

// WriteFileAtomic writes data to path so that readers see either the old
// file or the whole new one: it writes a temporary file in the same
// directory, syncs and closes it (checking both errors), then renames it
// over path.
//
// Mode: a file that exists keeps its permission bits (owner and group
// are not changed, so a file another user owns becomes the writer's); a
// new file gets 0666 minus the process umask, as any file created by a
// shell redirection would (the temporary file is created with that mode,
// so the kernel applies the umask and the directory's default ACL).
//
// Symbolic links are always followed, dangling ones included, as a
// shell's `>` does: the link stays and the file it finally points to is
// replaced, or created when it does not exist yet (its directory must
// exist). A chain longer than 40 links or a loop is an error, and nothing
// is written.
//
// When the final path exists and is not a regular file (a device such as
// /dev/null or /dev/stdout, a named pipe), atomicity means nothing and a
// rename would replace the device with a file: data is written to it
// directly instead. A directory is an error.
func WriteFileAtomic(path string, data []byte) (err error) {
	target, err := followLinks(path)
	if err != nil {
		return fmt.Errorf("report: write %s: %w", path, err)
	}
	path = target
	perm := fs.FileMode(0o666) // before the umask
	keepMode := false
	switch fi, err := os.Stat(path); {
	case err == nil && fi.IsDir():
		return fmt.Errorf("report: write %s: is a directory", path)
	case err == nil && !fi.Mode().IsRegular():
		return writeSpecial(path, data)
	case err == nil:
		perm, keepMode = fi.Mode().Perm(), true
	case !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("report: write %s: %w", path, err)
	}
	f, err := createTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-", perm)
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
	if keepMode {
		// The umask may have cleared bits of the old mode at creation.
		if err = f.Chmod(perm); err != nil {
			f.Close()
			return fmt.Errorf("report: chmod %s: %w", path, err)
		}
	}
	if err = f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("report: sync %s: %w", path, err)
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("report: close %s: %w", path, err)
	}
	if err = os.Rename(tmp, path); err != nil {
		return fmt.Errorf("report: rename into %s: %w", path, err)
	}
	return nil
}

// followLinks follows path while it is a symbolic link and returns the
// first path that is not one, existing or not. A relative link target is
// taken from the link's directory, without lexical cleaning, so that
// ".." after a linked directory means what the kernel says it means.
func followLinks(path string) (string, error) {
	for range maxSymlinkHops {
		fi, err := os.Lstat(path)
		if errors.Is(err, fs.ErrNotExist) {
			return path, nil
		}
		if err != nil {
			return "", err
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			return path, nil
		}
		target, err := os.Readlink(path)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(target) {
			target = filepath.Dir(path) + string(filepath.Separator) + target
		}
		path = target
	}
	return "", fmt.Errorf("more than %d symbolic links (a loop?)", maxSymlinkHops)
}

// createTemp creates a new file in dir named prefix + 16 random hex
// digits, with mode perm before the umask.
func createTemp(dir, prefix string, perm fs.FileMode) (*os.File, error) {
	for range 100 {
		var b [8]byte
		if _, err := rand.Read(b[:]); err != nil {
			return nil, err
		}
		f, err := os.OpenFile(filepath.Join(dir, prefix+hex.EncodeToString(b[:])), os.O_RDWR|os.O_CREATE|os.O_EXCL, perm)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return f, err
	}
	return nil, fmt.Errorf("no free temporary name in %s", dir)
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
