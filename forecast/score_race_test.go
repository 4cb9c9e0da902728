//go:build race

package forecast

// raceDetector is true under the race detector, which makes the long
// statistical simulations (pure computation on one goroutine) ten times
// slower without checking anything more; they skip themselves then.
const raceDetector = true
