//go:build !race

package drift

// raceEnabled reports whether the test binary runs the race detector.
const raceEnabled = false
