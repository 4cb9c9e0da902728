//go:build unix

package testutil

import (
	"syscall"
	"time"
)

// CPUTimes returns the user + system CPU of this process and of its
// waited-for descendants (getrusage RUSAGE_SELF and RUSAGE_CHILDREN).
func CPUTimes() (self, children time.Duration) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		self = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	if syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru) == nil {
		children = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	return self, children
}
