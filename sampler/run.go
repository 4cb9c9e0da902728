// Package sampler discovers OpenProse run directories, validates and
// describes them, and picks a diverse subset for calibration.
package sampler

import "github.com/evalcal/evalcal/inspection"

// Transitional alias: the run descriptor is inspection.Run (the domain
// package); these names serve sampler's own files until they say
// inspection.X; no other package uses them (internal/archtest checks it).
type (
	Run    = inspection.Run
	Status = inspection.Status
	Era    = inspection.Era
)

// Transitional alias: see inspection's run statuses and eras.
const (
	StatusCompleted  = inspection.StatusCompleted
	StatusFailed     = inspection.StatusFailed
	StatusIncomplete = inspection.StatusIncomplete
	StatusUnknown    = inspection.StatusUnknown

	EraStateMDv1  = inspection.EraStateMDv1
	EraStateMDv2  = inspection.EraStateMDv2
	EraVMLogForme = inspection.EraVMLogForme
	EraReactor    = inspection.EraReactor
	EraUnknown    = inspection.EraUnknown
	EraSaved      = inspection.EraSaved
)
