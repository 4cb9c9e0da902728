package execinspector_test

import (
	"os"
	"testing"
)

// TestMain keeps race-enabled reapers (this test binary re-executed) from
// sleeping the race runtime's default second at exit: every call would
// take a second longer under -race. Programs inherit it; none is a Go
// race binary.
func TestMain(m *testing.M) {
	if _, set := os.LookupEnv("GORACE"); !set {
		os.Setenv("GORACE", "atexit_sleep_ms=0")
	}
	os.Exit(m.Run())
}
