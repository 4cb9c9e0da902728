package runner

import "github.com/evalcal/evalcal/inspection"

// Runs are the runs to inspect, by position: a slice (Slice), or a
// source that builds each run when asked, so that a caller need not hold
// a million 320-byte inspection.Run structs while they are inspected
// (calibrate keeps them compact; issue 26). At must return the same run
// for the same i, and be safe for concurrent use.
type Runs interface {
	Len() int
	At(i int) inspection.Run
}

// Slice is a slice of runs as Runs.
type Slice []inspection.Run

func (s Slice) Len() int                { return len(s) }
func (s Slice) At(i int) inspection.Run { return s[i] }
