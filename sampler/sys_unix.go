//go:build unix

package sampler

import "syscall"

// openNonBlocking is or-ed into every read-only open: a named pipe that
// slips in between the Stat and the open returns at once instead of
// waiting for a writer (it is then refused by fstat). It has no effect
// on regular files and directories.
const openNonBlocking = syscall.O_NONBLOCK

// openNoFollow makes open fail on a symlink (cache entries are never
// followed).
const openNoFollow = syscall.O_NOFOLLOW
