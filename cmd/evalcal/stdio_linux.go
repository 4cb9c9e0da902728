package main

import (
	"syscall"
)

// stdoutClosedAtStart reports whether descriptor 1 is closed at start.
//
// When a shell starts evalcal with stdout closed (evalcal ... >&-), the
// Go runtime opens /dev/null read-write on descriptor 1 before main runs
// (runtime.checkfds), and that cannot be told from the /dev/null a
// wrapper opens read-write on purpose (Python's subprocess.DEVNULL,
// Node's stdio 'ignore'): same file, same flags. evalcal does not guess
// (issue 27): it writes the document there and exits 0, so a CI wrapper
// that discards stdout and gates on the exit code works. Only a
// descriptor really closed (EBADF, which the runtime leaves only in a
// library build) counts as closed.
func stdoutClosedAtStart() bool {
	_, _, errno := syscall.Syscall(syscall.SYS_FCNTL, 1, syscall.F_GETFL, 0)
	return errno == syscall.EBADF
}
