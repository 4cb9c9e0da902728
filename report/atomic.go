// Package report holds the calibration report's data model, its schema and
// its precision rule. The streaming encoders that write it (YAML
// canonical, JSON; the runs file) are internal/reportenc, the Markdown and
// HTML renderers report/render, and the reader that validates a report
// file against the schema report/reportio: a program that only computes
// reports (as calibrate does) links neither plotting nor a JSON Schema
// validator. A program outside this module encodes a Report with yaml.v3
// or encoding/json: the same keys and order, with floats unrounded.
package report

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
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
func WriteFileAtomic(path string, data []byte) error {
	return WriteFileAtomicFunc(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// WriteFileAtomicFunc is WriteFileAtomic for a document that write
// streams, so that memory does not grow with it: write gets the temporary
// file (or the special file, written in place), and only when it returns
// nil is the temporary file synced and renamed over path. When it returns
// an error, the temporary file is removed, path is as it was (a special
// file keeps what was written), and that error is returned.
func WriteFileAtomicFunc(path string, write func(io.Writer) error) error {
	a, err := createAtomic(path)
	if err != nil {
		return err
	}
	if err := write(a); err != nil {
		a.abort()
		return err
	}
	return a.commit()
}

// atomicFile is a document being written in place of a file.
type atomicFile struct {
	f    *os.File
	path string // the final path, links followed
	tmp  string // the temporary file; "" when writing a special file in place
	perm fs.FileMode
	keep bool // an existing file's mode to restore after the umask
	err  error
}

// createAtomic starts writing path by WriteFileAtomic's rules: links
// followed, a directory refused, a special file opened in place, else a
// new temporary file in the same directory with the existing file's
// permission bits or 0666 minus the umask.
func createAtomic(path string) (*atomicFile, error) {
	target, err := followLinks(path)
	if err != nil {
		return nil, fmt.Errorf("report: write %s: %w", path, err)
	}
	a := &atomicFile{path: target, perm: 0o666} // before the umask
	switch fi, err := os.Stat(target); {
	case err == nil && fi.IsDir():
		return nil, fmt.Errorf("report: write %s: is a directory", target)
	case err == nil && !fi.Mode().IsRegular():
		if a.f, err = os.OpenFile(target, os.O_WRONLY, 0); err != nil {
			return nil, fmt.Errorf("report: write %s: %w", target, err)
		}
		return a, nil
	case err == nil:
		a.perm, a.keep = fi.Mode().Perm(), true
	case !errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("report: write %s: %w", target, err)
	}
	if a.f, err = createTemp(filepath.Dir(target), "."+filepath.Base(target)+".tmp-", a.perm); err != nil {
		return nil, fmt.Errorf("report: write %s: %w", target, err)
	}
	a.tmp = a.f.Name()
	return a, nil
}

// Write writes to the file; the first error sticks.
func (a *atomicFile) Write(p []byte) (int, error) {
	if a.err != nil {
		return 0, a.err
	}
	n, err := a.f.Write(p)
	if err != nil {
		a.err = fmt.Errorf("report: write %s: %w", a.path, err)
	}
	return n, a.err
}

// commit restores the mode, syncs, closes and renames the temporary file
// over the final path, checking every step; on error the temporary file
// is removed and the final path is as it was. A special file is closed.
func (a *atomicFile) commit() error {
	if a.tmp == "" {
		if err := a.f.Close(); err != nil && a.err == nil {
			return fmt.Errorf("report: close %s: %w", a.path, err)
		}
		return a.err
	}
	err := a.err
	if err == nil && a.keep {
		// The umask may have cleared bits of the old mode at creation.
		if cerr := a.f.Chmod(a.perm); cerr != nil {
			err = fmt.Errorf("report: chmod %s: %w", a.path, cerr)
		}
	}
	if err == nil {
		if serr := a.f.Sync(); serr != nil {
			err = fmt.Errorf("report: sync %s: %w", a.path, serr)
		}
	}
	if cerr := a.f.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("report: close %s: %w", a.path, cerr)
	}
	if err == nil {
		if rerr := os.Rename(a.tmp, a.path); rerr != nil {
			err = fmt.Errorf("report: rename into %s: %w", a.path, rerr)
		}
	}
	if err != nil {
		_ = os.Remove(a.tmp)
	}
	return err
}

// abort closes and removes the temporary file; the final path is as it
// was (a special file written in place keeps what was written).
func (a *atomicFile) abort() {
	_ = a.f.Close()
	if a.tmp != "" {
		_ = os.Remove(a.tmp)
	}
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
