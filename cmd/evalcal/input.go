package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
)

// maxDocumentBytes bounds a document that render, merge or --baseline
// reads whole (a report, a score or calls document, a --terms file): 256
// MiB, far above any report evalcal writes for a corpus that fits in
// memory.
const maxDocumentBytes = 256 << 20

// errNotRegular is matched by the error of an input that is not a regular
// file (a FIFO, a device, a directory), which is never opened for reading.
var errNotRegular = errors.New("not a regular file")

// openRegular opens path for reading only if it is a regular file (after
// following symlinks): a FIFO or a device is refused before it is opened,
// and the open is non-blocking with a check of the opened file, so a FIFO
// swapped in between cannot block either. When path cannot be stat'ed the
// open is tried and fails with its own error ("open PATH: no such file or
// directory").
func openRegular(path string) (*os.File, error) {
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() {
		return nil, notRegular(path, fi)
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = notRegular(path, fi)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// checkRegular is openRegular's check without the open: nil when path is
// a regular file or cannot be stat'ed (the caller's open then says why).
func checkRegular(path string) error {
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() {
		return notRegular(path, fi)
	}
	return nil
}

// isDir reports whether path is a directory (following symlinks).
func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

// notRegular is the error of an input that is not a regular file; for a
// pipe (a shell's <(...)) it says how to give it instead.
func notRegular(path string, fi os.FileInfo) error {
	err := fmt.Errorf("%s: %w (%s)", path, errNotRegular, fileKind(fi))
	if fi.Mode()&os.ModeNamedPipe != 0 {
		err = fmt.Errorf("%w; to read a pipe, give - and pipe it to stdin", err)
	}
	return err
}

// fileKind names a file's type for an error message.
func fileKind(fi os.FileInfo) string {
	m := fi.Mode()
	switch {
	case m.IsDir():
		return "a directory"
	case m&os.ModeNamedPipe != 0:
		return "a named pipe"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeDevice != 0:
		return "a device"
	}
	return m.Type().String()
}

// readDocument reads a whole document of at most maxDocumentBytes from
// path (a regular file, see openRegular) or, for "-", from stdin. Reading
// stops with ctx.Err() as soon as ctx is done, even while stdin blocks.
func readDocument(ctx context.Context, path string, stdin io.Reader) ([]byte, error) {
	var r io.Reader
	name := path
	if path == "-" {
		r, name = cancelableReader(ctx, stdin), "stdin"
	} else {
		f, err := openRegular(path)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		r = f
	}
	data, err := readAllContext(ctx, io.LimitReader(r, maxDocumentBytes+1))
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	if len(data) > maxDocumentBytes {
		return nil, fmt.Errorf("read %s: larger than the %d MiB limit of a document", name, maxDocumentBytes>>20)
	}
	return data, nil
}

// readAllContext is io.ReadAll that checks ctx between reads.
func readAllContext(ctx context.Context, r io.Reader) ([]byte, error) {
	buf := make([]byte, 0, 64<<10)
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// cancelableReader returns a reader of r whose Read returns ctx.Err() as
// soon as ctx is done, even while a Read of r blocks (stdin on a terminal
// or a pipe that never closes). A goroutine copies r through a pipe; if
// ctx ends first it stays blocked in r's Read until the process exits,
// which evalcal does right after a cancelled command.
func cancelableReader(ctx context.Context, r io.Reader) io.Reader {
	pr, pw := io.Pipe()
	done := make(chan struct{})
	go func() {
		_, err := io.Copy(pw, r)
		close(done)
		pw.CloseWithError(err) // nil: EOF
	}()
	go func() {
		select {
		case <-ctx.Done():
			pr.CloseWithError(ctx.Err())
		case <-done:
		}
	}()
	return pr
}

// untilDone runs fn, a computation that takes no context, in a goroutine
// and returns its result, or ctx.Err() as soon as ctx is done: Ctrl-C
// stops the command within moments whatever fn is doing. fn then runs on
// unobserved until the process exits.
func untilDone[T any](ctx context.Context, fn func() (T, error)) (T, error) {
	type result struct {
		v   T
		err error
	}
	ch := make(chan result, 1)
	go func() {
		v, err := fn()
		ch <- result{v, err}
	}()
	select {
	case r := <-ch:
		return r.v, r.err
	case <-ctx.Done():
		var zero T
		return zero, ctx.Err()
	}
}
