//go:build !race

package calibrate

// raceEnabled reports whether the test binary runs the race detector,
// which slows the coverage simulations about tenfold: they are skipped
// then, as under -short, and run in a plain `go test ./calibrate`.
const raceEnabled = false
