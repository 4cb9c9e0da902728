//go:build race

package drift

// raceEnabled reports whether the test binary runs the race detector,
// which slows the simulations tenfold (they run on one goroutine).
const raceEnabled = true
