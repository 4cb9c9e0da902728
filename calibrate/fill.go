package calibrate

import (
	"fmt"

	"github.com/evalcal/evalcal/advisor"
	"github.com/evalcal/evalcal/comparator"
	"github.com/evalcal/evalcal/inspection"
	"github.com/evalcal/evalcal/report"
	"github.com/evalcal/evalcal/statistician/aggregate"
)

// Data is everything a report's statistics are computed from: the per-run
// results. run computes them from inspections; merge unions them from shard
// reports. Fill recomputes every statistic from Data alone, which is why
// merged shards equal one unsharded run.
type Data struct {
	Comparisons []comparator.Comparison
	Failures    []inspection.Failure
	LightOnly   []report.LightOnlyRun
	Inclusion   []report.Inclusion
	Repeats     []report.RunRepeats
	Cost        report.Cost
}

// Fill computes everything that follows from data into rep: statistics,
// estimates, repeatability, cost per run, recommendations and warnings.
// rep's inputs and sample must already be set. The summary is written by
// Finish, after the trend and the gates.
func Fill(rep *report.Report, data Data) {
	in := aggregate.Input{Comparisons: data.Comparisons, LightOnly: data.LightOnly, Repeats: data.Repeats}
	if rep.Inputs.DeepSubset != nil {
		in.Design, in.Assumed = rep.Inputs.DeepSubset.HowChosen, rep.Inputs.DeepSubset.Assumed
		if rep.Inputs.DeepSubset.Policy == PolicyStratified {
			in.StrataBy = rep.Inputs.By // the design's strata (design.selectStratified)
		}
		in.Pi = map[string]float64{}
		for _, i := range data.Inclusion {
			if i.Pi != nil {
				in.Pi[i.RunID] = *i.Pi
			}
		}
	}
	var unclustered int
	in.ClusterField = rep.Inputs.Cluster
	in.Clusters, unclustered = clusterMap(rep.Inputs.Cluster, data)
	in.WholeClusters = rep.Inputs.DeepSubset != nil && rep.Inputs.DeepSubset.Policy == PolicyCluster
	st := aggregate.ComputeAll(in, aggregate.Options{Bins: rep.Inputs.Bins})
	rep.SetStatistics(st)
	rep.Slices = slicesOf(data, rep.Inputs)
	rep.Comparisons = nonNil(data.Comparisons)
	rep.LightOnly = data.LightOnly
	rep.Inclusion = data.Inclusion
	rep.Repeats = data.Repeats
	rep.Failures = nonNil(data.Failures)
	rep.Partial = len(data.Failures) > 0
	rep.Cost = withPerRun(data.Cost)
	rep.Recommendations = advisor.Advise(advisor.Input{Comparisons: data.Comparisons, Stats: st,
		LightSpec: rep.Inputs.Light.Spec, DeepSpec: rep.Inputs.Deep.Spec})
	rep.RecommendationsNote, rep.Sample.ReadInPart = "", 0
	rep.Derive()
	rep.Warnings = append([]string{}, st.Warnings...)
	rep.Warnings = append(rep.Warnings, sliceWarnings(rep.Slices)...)
	if rep.Partial {
		failed := map[string]bool{}
		for _, f := range data.Failures {
			failed[f.RunID] = true
		}
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("partial: %d inspections of %d runs failed; statistics cover %d runs",
			len(data.Failures), len(failed), len(data.Comparisons)))
	}
	if data.Cost.BudgetStopped {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("the --max-cost budget of %s stopped the calls; runs not inspected are listed under failures",
			usd(data.Cost.BudgetUSD)))
	}
	if rep.Inputs.Shard != "" {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("shard %s: statistics cover this shard only; combine all shards with evalcal merge", rep.Inputs.Shard))
	}
	if n := rep.Sample.ReadInPart; n > 0 {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("%d sampled runs could be read only in part; see sample.runs[].warnings", n))
	}
	if n, got := rep.Inputs.SampleLimit, rep.Sample.Composition.Sampled; n > got { // a shard lists its own runs only
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("--sample %d asked for more runs than the %d valid ones; all were taken", n, got))
	}
	for _, line := range rep.Sample.Rejected {
		rep.Warnings = append(rep.Warnings, "rejected line with no readable run_id and depth: "+line)
	}
	if unclustered > 0 {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("%d runs have no metadata.%s: each is a cluster of its own", unclustered, rep.Inputs.Cluster))
	}
	if w := sameSourceWarning(rep.Inputs, data.Comparisons); w != "" {
		rep.Warnings = append(rep.Warnings, w)
	}
	rep.Escalation = escalationSection(rep, data)
	if len(data.Comparisons) > 0 {
		rep.Bias = biasSection(rep, data)
	}
}

// sameSourceWarning warns when light and deep are one inspector (the same
// identity) that gave the same verdict and scores on every compared run,
// as `--light inspect:x.json --deep inspect:x.json` does: the agreement is
// then 100% by construction (issue 28). One inspector at two depths that
// inspects differently (builtin, an LLM judge's light and deep prompts) is
// a comparison like any other and gets no warning.
func sameSourceWarning(in report.Inputs, comparisons []comparator.Comparison) string {
	if in.Light.Identity == "" || in.Light.Identity != in.Deep.Identity || len(comparisons) == 0 {
		return ""
	}
	for _, c := range comparisons {
		if c.LightVerdict != c.DeepVerdict || c.Light != c.Deep {
			return ""
		}
	}
	return fmt.Sprintf("light and deep are the same source (%s) and gave the same verdict and scores on every run: the agreement is 100%% by construction and says nothing about light standing in for deep; give --deep a different inspector or labels", in.Light.Identity)
}

// withPerRun fills each side's cost per run and the deep-to-light ratio.
func withPerRun(c report.Cost) report.Cost {
	perRun := func(s *report.SideCost) {
		s.PerRun = nil
		if s.USD != nil && s.Inspections > 0 {
			v := *s.USD / float64(s.Inspections)
			s.PerRun = &v
		}
	}
	perRun(&c.Light)
	perRun(&c.Deep)
	c.DeepToLightPerRun = nil
	if c.Light.PerRun != nil && c.Deep.PerRun != nil && *c.Light.PerRun > 0 {
		v := *c.Deep.PerRun / *c.Light.PerRun
		c.DeepToLightPerRun = &v
	}
	return c
}

func usd(x *float64) string {
	if x == nil {
		return "an unknown amount"
	}
	return fmt.Sprintf("$%.2f", *x)
}
