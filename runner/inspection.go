// Package runner calls an inspector at light then deep depth for each run,
// concurrently across runs with a bound, with retries, timeouts and an
// on-disk cache keyed by inspector identity, depth and run content. The
// vocabulary it schedules (inspections, the inspector protocol and its
// errors) is package inspection's.
package runner

import "github.com/evalcal/evalcal/inspection"

// Pair is a run's light and deep inspections.
type Pair struct {
	Run   inspection.Run        `yaml:"-" json:"-"`
	Light inspection.Inspection `yaml:"light" json:"light"`
	Deep  inspection.Inspection `yaml:"deep" json:"deep"`
	// LightRepeats and DeepRepeats hold every repeat when --repeat K > 1;
	// Light and Deep are then their Consolidate.
	LightRepeats []inspection.Inspection `yaml:"light_repeats,omitempty" json:"light_repeats,omitempty"`
	DeepRepeats  []inspection.Inspection `yaml:"deep_repeats,omitempty" json:"deep_repeats,omitempty"`
}
