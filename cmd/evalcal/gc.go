package main

import "runtime/debug"

// Garbage collector settings of `evalcal run`. Most of what a run
// allocates is short-lived (HTTP bodies, parsed lines, encoded chunks), and
// collecting four times less often saves a third of the CPU of an LLM
// calibration (BenchmarkLLMOverhead: 1.5 -> 1.0 ms a call); the soft memory
// limit makes the collector work harder before the heap passes it, so peak
// memory stays where the default setting would put it for large inputs
// (BenchmarkRunCorpus, testdata/bench/run/run.sh: 20,000 runs under 500 MB).
// Other commands keep Go's defaults: `score` holds its forecasts live, and
// collecting more often keeps 5M of them under 150 MB.
const (
	gcPercent   = 400
	memoryLimit = 400 << 20
)

// tuneGC applies the settings above unless the user chose their own
// (GOGC, GOMEMLIMIT), and returns what puts the previous ones back: run
// is also called in-process (tests, benchmarks), where the settings must
// not outlive it.
func tuneGC(getenv func(string) string) (restore func()) {
	prevPercent, prevLimit := debug.SetGCPercent(-1), debug.SetMemoryLimit(-1)
	debug.SetGCPercent(prevPercent) // SetGCPercent(-1) turned the collector off; SetMemoryLimit(-1) only read
	if getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
	if getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(memoryLimit)
	}
	return func() {
		debug.SetGCPercent(prevPercent)
		debug.SetMemoryLimit(prevLimit)
	}
}
