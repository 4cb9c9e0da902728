//go:build !unix

package sampler

// openNonBlocking is 0 where the platform has no O_NONBLOCK; the Stat
// before every open still refuses what is not a regular file.
const openNonBlocking = 0

// openNoFollow is 0 here; readCacheFile's fstat still refuses what is not
// a regular file.
const openNoFollow = 0
