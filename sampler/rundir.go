package sampler

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Errors of RunDir and of the sampler's file readers.
var (
	// ErrNotRegular: the name is a directory, a named pipe, a socket or a
	// device. Such a file is never opened for reading (a pipe would block).
	ErrNotRegular = errors.New("not a regular file")
	// ErrOutsideRun: the name is, or passes through, a symlink whose
	// target is absolute or leaves the run directory. It is never
	// followed for reading.
	ErrOutsideRun = errors.New("symlink leads outside the run directory")
)

// RunDir is an open run directory. Every read goes through it, so that
// nothing outside the run is ever read and nothing but a regular file is
// ever opened:
//
//   - names are slash-separated and relative to the run directory;
//   - a symlink inside the run is followed when its target is relative
//     and stays inside the run (resolution is done by os.Root, so a link
//     swapped while it is resolved cannot escape either); an absolute
//     target or one that leaves the run fails with ErrOutsideRun;
//   - a name that is not a regular file fails with ErrNotRegular, checked
//     with Lstat/Stat before opening, and again with fstat on the opened
//     file, which is opened non-blocking, so a named pipe that slips in
//     between the two cannot block.
//
// A RunDir is safe for concurrent use. Close releases it.
type RunDir struct {
	root *os.Root
	path string
}

// OpenRunDir opens the run directory dir. A symlink naming dir itself is
// followed (it is the caller's choice of directory, not the run's
// content). The error names dir; it is non-nil when dir is not a
// directory.
func OpenRunDir(dir string) (*RunDir, error) {
	// "dir/." makes open(2) fail with ENOTDIR on a pipe instead of
	// blocking, and still follows a symlink to a directory.
	root, err := os.OpenRoot(dir + string(filepath.Separator) + ".")
	if err != nil {
		return nil, fmt.Errorf("sampler: open run directory %s: %w", dir, unwrapPath(err))
	}
	return &RunDir{root: root, path: dir}, nil
}

// Path is the directory as given to OpenRunDir.
func (d *RunDir) Path() string { return d.path }

// Close releases the directory.
func (d *RunDir) Close() error { return d.root.Close() }

// full is name joined to the run directory, for messages.
func (d *RunDir) full(name string) string { return filepath.Join(d.path, filepath.FromSlash(name)) }

// unwrapPath drops an *fs.PathError's own path so the caller's message
// can name the file once.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// isEscape says whether err is os.Root's refusal to leave its directory
// (an absolute symlink, or one climbing above the root). os does not
// export that error, so its text is matched; the sampler's tests pin it.
func isEscape(err error) bool {
	return err != nil && strings.Contains(unwrapPath(err).Error(), "escapes from parent")
}

// classify turns an os.Root error into the sampler's: ErrOutsideRun for
// an escape, the error itself otherwise (fs.ErrNotExist stays testable).
func classify(err error) error {
	if isEscape(err) {
		return ErrOutsideRun
	}
	return unwrapPath(err)
}

// Lstat describes name without following a final symlink.
func (d *RunDir) Lstat(name string) (fs.FileInfo, error) {
	fi, err := d.root.Lstat(filepath.FromSlash(name))
	if err != nil {
		return nil, fmt.Errorf("sampler: stat %s: %w", d.full(name), classify(err))
	}
	return fi, nil
}

// Stat describes name, following symlinks that stay inside the run; it
// fails with ErrOutsideRun for one that does not.
func (d *RunDir) Stat(name string) (fs.FileInfo, error) {
	fi, err := d.root.Stat(filepath.FromSlash(name))
	if err != nil {
		return nil, fmt.Errorf("sampler: stat %s: %w", d.full(name), classify(err))
	}
	return fi, nil
}

// IsRegular says whether name is a regular file, directly or through a
// symlink that stays inside the run.
func (d *RunDir) IsRegular(name string) bool {
	fi, err := d.Stat(name)
	return err == nil && fi.Mode().IsRegular()
}

// Open opens the regular file name for reading and returns it with its
// fstat information. Errors (naming the file): fs.ErrNotExist,
// ErrOutsideRun, ErrNotRegular, or the system's.
func (d *RunDir) Open(name string) (*os.File, fs.FileInfo, error) {
	fi, err := d.Stat(name)
	if err != nil {
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, nil, fmt.Errorf("sampler: open %s: %w (%s)", d.full(name), ErrNotRegular, fi.Mode().Type())
	}
	f, err := d.root.OpenFile(filepath.FromSlash(name), os.O_RDONLY|openNonBlocking, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("sampler: open %s: %w", d.full(name), classify(err))
	}
	return checkOpened(f, d.full(name))
}

// checkOpened refuses an opened file that fstat says is not regular.
func checkOpened(f *os.File, name string) (*os.File, fs.FileInfo, error) {
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("sampler: stat %s: %w", name, unwrapPath(err))
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, nil, fmt.Errorf("sampler: open %s: %w (%s)", name, ErrNotRegular, fi.Mode().Type())
	}
	return f, fi, nil
}

// openRegular opens a file named by an ordinary path (not inside a run):
// symlinks are followed, but only a regular file is opened, non-blocking,
// and checked again with fstat.
func openRegular(name string) (*os.File, fs.FileInfo, error) {
	fi, err := os.Stat(name)
	if err != nil {
		return nil, nil, fmt.Errorf("sampler: open %s: %w", name, unwrapPath(err))
	}
	if !fi.Mode().IsRegular() {
		return nil, nil, fmt.Errorf("sampler: open %s: %w (%s)", name, ErrNotRegular, fi.Mode().Type())
	}
	f, err := os.OpenFile(name, os.O_RDONLY|openNonBlocking, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("sampler: open %s: %w", name, unwrapPath(err))
	}
	return checkOpened(f, name)
}

// ReadFile reads at most limit bytes of the regular file name. whole is
// false when the file is longer (data then holds its first limit bytes).
// Memory is bounded by limit whatever the file's size.
func (d *RunDir) ReadFile(ctx context.Context, name string, limit int64) (data []byte, whole bool, err error) {
	f, fi, err := d.Open(name)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	return readLimited(ctx, f, fi.Size(), limit, d.full(name))
}

func readLimited(ctx context.Context, r io.Reader, size, limit int64, name string) ([]byte, bool, error) {
	capHint := min(max(size, 0), limit) + 1
	buf := make([]byte, 0, min(capHint, 1<<20))
	b, err := readAllCtx(ctx, io.LimitReader(r, limit+1), buf)
	if err != nil {
		return nil, false, fmt.Errorf("sampler: read %s: %w", name, err)
	}
	if int64(len(b)) > limit {
		return b[:limit], false, nil
	}
	return b, true, nil
}

// readAllCtx is io.ReadAll that checks ctx between reads.
func readAllCtx(ctx context.Context, r io.Reader, b []byte) ([]byte, error) {
	cr := ctxReader{ctx: ctx, r: r}
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := cr.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
	}
}

// ctxReader fails reads with ctx's error once ctx is done, so a long read
// stops within one buffer of a cancellation.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	if len(p) > 1<<20 {
		p = p[:1<<20]
	}
	return c.r.Read(p)
}

// LogFile is the run log's name (state.md or vm.log.md, in that order):
// the first that is a regular file (through an in-run symlink at most);
// "" when there is none.
func (d *RunDir) LogFile() string {
	for _, n := range logFiles {
		if d.IsRegular(n) {
			return n
		}
	}
	return ""
}

// ParseLog opens the log name and parses it with ParseLog, checking ctx
// between reads; the error names the file. At most MaxLogBytes are read.
func (d *RunDir) ParseLog(ctx context.Context, name string) (Log, error) {
	f, _, err := d.Open(name)
	if err != nil {
		return Log{Events: []Event{}}, err
	}
	defer f.Close()
	l, err := ParseLog(ctxReader{ctx: ctx, r: f})
	if err != nil {
		return l, fmt.Errorf("sampler: %s: %w", d.full(name), err)
	}
	return l, nil
}
