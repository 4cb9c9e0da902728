package main

import (
	"runtime/debug"
	"testing"
)

// tuneGC sets evalcal's collector settings unless the environment chose
// its own, and its restore puts back whatever was there before.
func TestTuneGCRestores(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(150))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(1 << 40))
	restore := tuneGC(func(string) string { return "" })
	if got := debug.SetGCPercent(gcPercent); got != gcPercent {
		t.Errorf("GC percent %d, want %d", got, gcPercent)
	}
	if got := debug.SetMemoryLimit(-1); got != memoryLimit {
		t.Errorf("memory limit %d, want %d", got, memoryLimit)
	}
	restore()
	if got := debug.SetGCPercent(150); got != 150 {
		t.Errorf("after restore: GC percent %d, want 150", got)
	}
	if got := debug.SetMemoryLimit(-1); got != 1<<40 {
		t.Errorf("after restore: memory limit %d, want %d", got, 1<<40)
	}
	env := map[string]string{"GOGC": "80", "GOMEMLIMIT": "1GiB"}
	restore = tuneGC(func(k string) string { return env[k] })
	if got := debug.SetGCPercent(150); got != 150 {
		t.Errorf("with GOGC set: GC percent %d, want it left at 150", got)
	}
	if got := debug.SetMemoryLimit(-1); got != 1<<40 {
		t.Errorf("with GOMEMLIMIT set: memory limit %d, want it left", got)
	}
	restore()
}
