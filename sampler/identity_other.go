//go:build !linux

package sampler

import "io/fs"

// fileIdentity offers no device, inode or ctime outside Linux: the
// describe cache then keys files on path, size and mtime only (see
// DiscoverOptions.HashCache for what that misses).
func fileIdentity(fs.FileInfo) (dev, ino uint64, ctime int64, ok bool) { return 0, 0, 0, false }
