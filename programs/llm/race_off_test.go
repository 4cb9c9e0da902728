//go:build !race

package llm

// raceSlowdown scales time bounds under the race detector.
const raceSlowdown = 1
