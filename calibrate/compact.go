package calibrate

import (
	"path/filepath"

	"github.com/evalcal/evalcal/inspection"
	"github.com/evalcal/evalcal/report"
	"github.com/evalcal/evalcal/runner"
)

// sampleListing is the report's listing of runs (report.Sample.Runs), in
// their order.
func sampleListing(runs []inspection.Run) []report.SampleRun {
	out := make([]report.SampleRun, 0, len(runs)) // sized once: growing a million was 4% of the CPU
	for _, r := range runs {
		out = append(out, report.SampleRun{
			ID: r.ID, System: r.System, Era: string(r.Era), Status: string(r.Status),
			Services: len(r.ServicesDeclared), SizeBytes: r.SizeBytes, Path: filepath.ToSlash(r.Path),
			ContentHash: r.ContentHash, Warnings: r.Warnings,
		})
	}
	return out
}

// compactRuns are the runs the runner inspects kept as the report lists
// them (sampleListing) and their metadata: a million inspection.Run
// structs are 320 MB, and the listing is made anyway (issue 26). At
// builds each run back as it was (compactable).
type compactRuns struct {
	listing  []report.SampleRun
	metadata []inspection.Metadata
}

func (c compactRuns) Len() int { return len(c.listing) }

func (c compactRuns) At(i int) inspection.Run {
	r := &c.listing[i]
	return inspection.Run{ID: r.ID, Path: r.Path, Era: inspection.Era(r.Era), System: r.System, Status: inspection.Status(r.Status),
		Metadata: c.metadata[i], SizeBytes: r.SizeBytes, ContentHash: r.ContentHash, Valid: true, Warnings: r.Warnings}
}

// compactable says compactRuns.At gives r back as it is: a valid run with
// no files, services or bindings of its own (saved and imported runs, not
// run directories) and a path already in slash form.
func compactable(r *inspection.Run) bool {
	return r.Valid && r.Invalid == "" && r.Files == 0 && r.Path == filepath.ToSlash(r.Path) &&
		r.ServicesDeclared == nil && r.ServicesCompleted == nil && r.ServicesErrored == nil && r.ServicesSkipped == nil &&
		r.BindingsPresent == nil && r.BindingsMissing == nil && r.ErrorFiles == nil
}

// compact returns the runs the runner is to inspect: compactRuns over
// listing (sampleListing(runs)) when every run is compactable and no side
// test asks for the runs again (then the caller lets runs go), else runs
// as they are.
func (cfg Config) compact(runs []inspection.Run, listing []report.SampleRun) runner.Runs {
	if len(cfg.Perturb) > 0 || cfg.Pairwise != nil {
		return runner.Slice(runs)
	}
	md := make([]inspection.Metadata, len(runs))
	for i := range runs {
		if !compactable(&runs[i]) {
			return runner.Slice(runs)
		}
		md[i] = runs[i].Metadata
	}
	return compactRuns{listing: listing, metadata: md}
}
