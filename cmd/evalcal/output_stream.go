package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/evalcal/evalcal/report"
)

// reportEncoder returns the function that writes rep in format: YAML and
// JSON as they are encoded (report.WriteYAMLContext, WriteJSONContext:
// memory does not grow with the document, and ctx stops them), Markdown
// and HTML rendered first (they are a page, not the per-run listing). A
// ctx done before or while it writes is its error, so that an interrupted
// run never replaces the -o file.
func reportEncoder(ctx context.Context, format string, rep *report.Report) func(io.Writer) error {
	return func(w io.Writer) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := encodeReport(ctx, w, format, rep); err != nil {
			return err
		}
		// Interrupted while writing: the -o file is not replaced.
		return ctx.Err()
	}
}

func encodeReport(ctx context.Context, w io.Writer, format string, rep *report.Report) error {
	var render func(*report.Report) ([]byte, error)
	switch format {
	case "yaml":
		return report.WriteYAMLContext(ctx, w, rep)
	case "json":
		return report.WriteJSONContext(ctx, w, rep)
	case "markdown", "md":
		render = report.Markdown
	case "html":
		render = report.HTML
	default:
		return fmt.Errorf("report: unknown format %q", format)
	}
	data, err := render(rep)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	_, err = w.Write(data)
	return err
}

// stream writes the document encode produces: to stdout as it is
// produced, or to the -o file atomically (a temporary file in the same
// directory, synced and renamed over the file once encode has returned
// without error; see createAtomic). When encode fails the -o file is left
// as it was; on stdout the part already written stays (an encoder fails
// only when interrupted, or on a figure no document can hold).
func (o *outputOptions) stream(stdout io.Writer, encode func(io.Writer) error) error {
	if !o.toFile() {
		return encode(stdoutWriter{stdout})
	}
	f, err := createAtomic(o.Path)
	if err != nil {
		return err
	}
	if err := encode(f); err != nil {
		f.abort()
		return err
	}
	return f.commit()
}

// stdoutWriter is stdout for a streamed document: a short write is an
// error, and errors say they were stdout's.
type stdoutWriter struct{ w io.Writer }

func (s stdoutWriter) Write(p []byte) (int, error) {
	n, err := s.w.Write(p)
	if err == nil && n < len(p) {
		err = io.ErrShortWrite
	}
	if err != nil {
		return n, fmt.Errorf("write stdout: %w", err)
	}
	return n, nil
}

// maxSymlinkHops bounds how many symbolic links createAtomic follows
// (Linux's limit, ELOOP past it), as report.WriteFileAtomic does.
const maxSymlinkHops = 40

// atomicFile is a document being written in place of a file: the
// streaming form of report.WriteFileAtomic, with the same rules.
type atomicFile struct {
	f    *os.File
	path string // the final path, links followed
	tmp  string // the temporary file; "" when writing a special file in place
	perm fs.FileMode
	keep bool // an existing file's mode to restore after the umask
	err  error
}

// createAtomic starts writing path the way report.WriteFileAtomic writes
// it: symbolic links are followed (dangling ones too, at most 40, as a
// shell's > does); a directory is an error; an existing file that is not
// a regular one (a device such as /dev/null, a named pipe) is written in
// place, since a rename would replace it; otherwise the document goes to
// a new temporary file in the same directory, created with the existing
// file's permission bits or 0666 minus the umask, which commit syncs and
// renames over path.
func createAtomic(path string) (*atomicFile, error) {
	target, err := followLinks(path)
	if err != nil {
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	a := &atomicFile{path: target, perm: 0o666}
	switch fi, err := os.Stat(target); {
	case err == nil && fi.IsDir():
		return nil, fmt.Errorf("write %s: is a directory", target)
	case err == nil && !fi.Mode().IsRegular():
		if a.f, err = os.OpenFile(target, os.O_WRONLY, 0); err != nil {
			return nil, fmt.Errorf("write %s: %w", target, err)
		}
		return a, nil
	case err == nil:
		a.perm, a.keep = fi.Mode().Perm(), true
	case !errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("write %s: %w", target, err)
	}
	if a.f, err = createTemp(filepath.Dir(target), "."+filepath.Base(target)+".tmp-", a.perm); err != nil {
		return nil, fmt.Errorf("write %s: %w", target, err)
	}
	a.tmp = a.f.Name()
	return a, nil
}

// Write writes to the temporary file; the first error sticks.
func (a *atomicFile) Write(p []byte) (int, error) {
	if a.err != nil {
		return 0, a.err
	}
	n, err := a.f.Write(p)
	if err != nil {
		a.err = fmt.Errorf("write %s: %w", a.path, err)
	}
	return n, a.err
}

// commit restores the mode, syncs, closes and renames the temporary file
// over the final path, checking every step; on error the temporary file
// is removed and the final path is as it was.
func (a *atomicFile) commit() error {
	if a.tmp == "" {
		if err := a.f.Close(); err != nil {
			return fmt.Errorf("close %s: %w", a.path, err)
		}
		return a.err
	}
	err := a.err
	if err == nil && a.keep {
		// The umask may have cleared bits of the old mode at creation.
		if cerr := a.f.Chmod(a.perm); cerr != nil {
			err = fmt.Errorf("chmod %s: %w", a.path, cerr)
		}
	}
	if err == nil {
		if serr := a.f.Sync(); serr != nil {
			err = fmt.Errorf("sync %s: %w", a.path, serr)
		}
	}
	if cerr := a.f.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("close %s: %w", a.path, cerr)
	}
	if err == nil {
		if rerr := os.Rename(a.tmp, a.path); rerr != nil {
			err = fmt.Errorf("rename into %s: %w", a.path, rerr)
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
// first path that is not one, existing or not; a relative target is taken
// from the link's directory without lexical cleaning (as the kernel does).
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
