//go:build !linux

package inputfile

import (
	"context"
	"os"
	"syscall"
	"time"
)

// waitPipe gives the named pipe path, opened for reading without blocking
// as f, a writer: it closes f and opens the pipe again, blocking until a
// writer comes or ctx ends (openPipe). What a writer wrote and closed
// between the two opens is lost: Linux avoids that (pipe_linux.go).
func waitPipe(ctx context.Context, f *os.File, path string) (*os.File, error) {
	f.Close()
	return openPipe(ctx, path)
}

// openPipe opens the named pipe path for reading, waiting for a writer
// until ctx ends; then it releases the waiting open(2) by opening the
// pipe's write end itself, which succeeds because a reader is waiting.
func openPipe(ctx context.Context, path string) (*os.File, error) {
	type opened struct {
		f   *os.File
		err error
	}
	ch := make(chan opened, 1)
	go func() {
		f, err := os.Open(path)
		ch <- opened{f, err}
	}()
	select {
	case o := <-ch:
		return o.f, o.err
	case <-ctx.Done():
	}
	for {
		if w, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close()
		}
		select {
		case o := <-ch:
			if o.f != nil {
				o.f.Close()
			}
			return nil, ctx.Err()
		case <-time.After(10 * time.Millisecond):
			// The opener had not reached open(2) yet: try again.
		}
	}
}
