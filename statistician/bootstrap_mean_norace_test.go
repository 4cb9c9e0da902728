//go:build !race

package statistician

// raceDetector is false without the race detector (see the race build).
const raceDetector = false
