//go:build race

package statistician

// raceEnabled reports whether the test binary runs the race detector,
// which slows the coverage simulation tenfold.
const raceEnabled = true
