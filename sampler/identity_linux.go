package sampler

import (
	"io/fs"
	"syscall"
)

// fileIdentity is what the describe cache keys a file on besides its
// size and mtime: device, inode and ctime (nanoseconds). ok is false
// when the platform gives none of them.
func fileIdentity(fi fs.FileInfo) (dev, ino uint64, ctime int64, ok bool) {
	st, isStat := fi.Sys().(*syscall.Stat_t)
	if !isStat {
		return 0, 0, 0, false
	}
	return uint64(st.Dev), uint64(st.Ino), st.Ctim.Sec*1e9 + st.Ctim.Nsec, true
}
