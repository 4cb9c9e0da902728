//go:build linux

package inputfile

import (
	"context"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// waitPipe waits until the named pipe f (path), opened for reading
// without blocking, has something to read: data, or the end of a writer
// that came and left (until then a read would see end of file at once).
// It keeps f open rather than opening the pipe again: between a close and
// a second open, a writer could write, close and be gone, its data lost
// and the second open waiting for a writer that never comes.
//
// On Linux, poll(2) reports POLLHUP on a FIFO opened for reading only
// once a writer has opened it since (fs/pipe.c keeps the writer count at
// the open), and POLLIN as soon as data is there; the runtime poller
// parks the wait, which the end of ctx releases through a read deadline.
func waitPipe(ctx context.Context, f *os.File, _ string) (*os.File, error) {
	rc, err := f.SyscallConn()
	if err != nil {
		f.Close()
		return nil, err
	}
	stop := context.AfterFunc(ctx, func() { _ = f.SetReadDeadline(time.Unix(1, 0)) })
	var perr error
	err = rc.Read(func(fd uintptr) bool {
		pfd := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		for {
			_, e := unix.Poll(pfd, 0)
			switch {
			case e == unix.EINTR:
				continue
			case e != nil:
				perr = e
				return true
			}
			return pfd[0].Revents != 0
		}
	})
	if !stop() || ctx.Err() != nil {
		f.Close()
		return nil, ctx.Err()
	}
	if err == nil {
		err = perr
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}
