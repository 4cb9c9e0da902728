// Package inputfile opens an input named by the user without ever blocking
// past a context: regular files, character devices and named pipes.
package inputfile

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
	"time"
)

// Open opens path for reading without ever blocking past ctx: a
// regular file; a character device (/dev/stdin on a terminal, /dev/zero:
// the size limits stop it); or a named pipe (a shell's <(...), mkfifo),
// whose open(2) waits for a writer in a goroutine that ctx can release.
// Directories, sockets and other special files are refused with an error
// wrapping fs.ErrInvalid. The returned stop function must be called when
// reading is done; until then, the end of ctx makes a blocked read on a
// pipe or terminal fail with os.ErrDeadlineExceeded. Errors do not name
// path: every caller does ("saved: open PATH: no such file or directory",
// never "open PATH: open PATH: ..."); errors.Is(err, fs.ErrNotExist) still
// holds.
func Open(ctx context.Context, path string) (*os.File, func(), error) {
	// O_NONBLOCK: open(2) of a pipe without a writer returns at once, so
	// that a file swapped for a pipe after a Stat cannot hang us.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, withoutPath(err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, withoutPath(err)
	}
	switch m := fi.Mode(); {
	case m.IsRegular(), m&fs.ModeCharDevice != 0:
	case m&fs.ModeNamedPipe != 0:
		// A nonblocking pipe without a writer reads as empty: wait for
		// one (waitPipe), until ctx ends.
		if f, err = waitPipe(ctx, f, path); err != nil {
			return nil, nil, err
		}
	case m.IsDir():
		f.Close()
		return nil, nil, fmt.Errorf("%w: is a directory", fs.ErrInvalid)
	default:
		f.Close()
		return nil, nil, fmt.Errorf("%w: not a regular file, pipe or character device (%v)", fs.ErrInvalid, m.Type())
	}
	stop := context.AfterFunc(ctx, func() {
		// Wakes a read parked in the runtime poller (pipes, terminals);
		// regular files never block and answer ErrNoDeadline.
		_ = f.SetReadDeadline(time.Unix(1, 0))
	})
	return f, func() { stop() }, nil
}

// withoutPath drops an *fs.PathError's operation and path, keeping the
// underlying error (syscall.ENOENT, ...).
func withoutPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// ReadError turns a read interrupted by Open's deadline into ctx's
// error.
func ReadError(ctx context.Context, err error) error {
	if errors.Is(err, os.ErrDeadlineExceeded) && ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}
