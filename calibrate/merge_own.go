package calibrate

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/evalcal/evalcal/inspection"
	"github.com/evalcal/evalcal/report"
	"github.com/evalcal/evalcal/sampler"
)

// ownScope gathers, for Merge, what shards that read their own runs only
// (inputs.shard_scope "own") each counted of their own part of the
// sample, to describe the whole.
type ownScope struct {
	discovered, invalidCount int
	invalid                  []report.Invalid
}

// add checks that shard report r's own sampled runs, mine, are what its
// inputs.content_hash names, and counts its part.
func (w *ownScope) add(r *report.Report, mine []report.SampleRun, name string) error {
	if len(mine) != len(r.Sample.Runs) || reportSampleHash(mine) != r.Inputs.ContentHash {
		return fmt.Errorf("merge: %s: its sampled runs (%d) are not the ones its inputs.content_hash names: a shard report edited or of another job", name, len(mine))
	}
	w.discovered += r.Sample.Composition.Discovered
	w.invalidCount += r.Sample.Composition.Invalid
	w.invalid = append(w.invalid, r.Sample.Invalid...)
	return nil
}

// check refuses a whole sample smaller than an unsharded run accepts
// (sampler.MinRuns).
func (w *ownScope) check(sample []report.SampleRun) error {
	if len(sample) < sampler.MinRuns {
		return fmt.Errorf("merge: the shards sampled %d valid runs together, need at least %d: %w", len(sample), sampler.MinRuns, sampler.ErrInsufficientRuns)
	}
	slices.SortStableFunc(w.invalid, func(a, b report.Invalid) int { return cmp.Or(cmp.Compare(a.ID, b.ID), cmp.Compare(a.Path, b.Path)) })
	return nil
}

// composition is the whole sample's composition: every valid run is
// sampled in a job whose shards read their own runs only.
func (w *ownScope) composition(sample []report.SampleRun) sampler.Composition {
	runs := make([]inspection.Run, len(sample))
	for i, s := range sample {
		runs[i] = inspection.Run{ID: s.ID, System: s.System, Era: inspection.Era(s.Era), Status: inspection.Status(s.Status),
			SizeBytes: s.SizeBytes, ServicesDeclared: make([]string, s.Services)}
	}
	return sampler.Compose(runs, w.discovered, w.invalidCount)
}
