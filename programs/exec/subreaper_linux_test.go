package execinspector_test

import (
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

func isSubreaper(t *testing.T) bool {
	t.Helper()
	var v int32
	if err := unix.Prctl(unix.PR_GET_CHILD_SUBREAPER, uintptr(unsafe.Pointer(&v)), 0, 0, 0); err != nil {
		t.Fatal(err)
	}
	return v != 0
}
