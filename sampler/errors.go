package sampler

import "errors"

// Sample errors (docs/DESIGN.md exit code 2).
var (
	// ErrInsufficientRuns: fewer than 3 valid runs.
	ErrInsufficientRuns = errors.New("insufficient-runs")
	// ErrHomogeneousSample: all valid runs are from one system.
	ErrHomogeneousSample = errors.New("homogeneous-sample")
)
