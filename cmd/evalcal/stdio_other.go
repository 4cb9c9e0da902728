//go:build !linux

package main

// stdoutClosedAtStart is only detected on Linux (see stdio_linux.go);
// elsewhere a closed stdout is written to whatever the runtime put there.
func stdoutClosedAtStart() bool { return false }
