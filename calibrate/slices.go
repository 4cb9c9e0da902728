package calibrate

import (
	"fmt"

	"github.com/evalcal/evalcal/inspection"
	"github.com/evalcal/evalcal/report"
	"github.com/evalcal/evalcal/segment"
	"github.com/evalcal/evalcal/statistician/aggregate"
)

// DefaultBy is what the slices section slices by without --by.
var DefaultBy = []string{inspection.SystemField}

// slicesOf slices the runs of data by each of by (DefaultBy when empty):
// every compared run with both verdicts, and every light-only run with
// light's verdict and forecast (deep's pass rate of a slice is then
// corrected by PPI++), with its recorded inclusion probability. A
// cascade's deep subset (escalation mode cascade) is not random, and one of
// whole clusters (--deep-policy cluster) is not a random subset of runs.
func slicesOf(data Data, in report.Inputs) []segment.Field {
	by := in.By
	if len(by) == 0 {
		by = DefaultBy
	}
	var opts segment.Options
	switch {
	case in.Escalation != nil && in.Escalation.Mode == report.EscalationCascade:
		opts.NotRandom = "deep inspected the runs light was unsure of (--escalate), not a random subset"
	case in.DeepSubset != nil && in.DeepSubset.Policy == PolicyCluster:
		opts.NotRandom = "deep labelled whole clusters (--deep-policy cluster), not a random subset of runs; see the estimate section's clustered estimates"
	}
	pi := map[string]float64{}
	for _, i := range data.Inclusion {
		if i.Pi != nil {
			pi[i.RunID] = *i.Pi
		}
	}
	runs := make([]segment.Run, 0, len(data.Comparisons)+len(data.LightOnly))
	for _, c := range data.Comparisons {
		f, _ := aggregate.LightForecast(c)
		runs = append(runs, segment.Run{ID: c.RunID, System: c.System, Metadata: c.Metadata,
			LightVerdict: c.LightVerdict, DeepVerdict: c.DeepVerdict, Forecast: f, Pi: pi[c.RunID]})
	}
	for _, l := range data.LightOnly {
		runs = append(runs, segment.Run{ID: l.RunID, System: l.System, Metadata: l.Metadata, LightVerdict: l.LightVerdict,
			Forecast: (l.Light.RuntimeFidelity + l.Light.TaskEffectiveness) / 200, Pi: pi[l.RunID]})
	}
	return segment.ComputeWith(runs, by, opts)
}

// sliceWarnings says which --by fields no run has, and how many runs lack
// a field they are sliced by.
func sliceWarnings(fields []segment.Field) []string {
	var out []string
	for _, f := range fields {
		switch {
		case f.Runs == 0:
			out = append(out, fmt.Sprintf("--by %s: no run has this field; see README \"Input formats\" for run metadata", f.Field))
		case f.Missing > 0:
			out = append(out, fmt.Sprintf("--by %s: %d runs have no %s and are in no slice", f.Field, f.Missing, f.Field))
		}
	}
	return out
}
