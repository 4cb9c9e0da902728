package main

import (
	"os"
	"syscall"
)

// stdoutClosedAtStart reports whether the shell started evalcal with
// stdout closed (evalcal ... >&-). The Go runtime then opens /dev/null
// read-write on descriptor 1 before main runs (runtime.checkfds), so a
// write would succeed and the document would vanish with exit 0. A shell
// redirection to /dev/null (>/dev/null) opens it write-only, so /dev/null
// open read-write on descriptor 1 is taken as "closed"; only the rare
// 1<>/dev/null is mistaken for it, and then evalcal exits 1 instead of
// writing the document nowhere.
func stdoutClosedAtStart() bool {
	flags, _, errno := syscall.Syscall(syscall.SYS_FCNTL, 1, syscall.F_GETFL, 0)
	if errno != 0 {
		return errno == syscall.EBADF
	}
	if int(flags)&syscall.O_ACCMODE != syscall.O_RDWR {
		return false
	}
	out, err := os.Stdout.Stat()
	if err != nil {
		return false
	}
	null, err := os.Stat(os.DevNull)
	return err == nil && os.SameFile(out, null)
}
