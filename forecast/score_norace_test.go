//go:build !race

package forecast

// raceDetector is false without the race detector (see the race build).
const raceDetector = false
