// Package reporttest builds synthetic calibration reports for the tests of
// report and its subpackages, with the real stages (comparator, aggregate,
// advisor). It is test scaffolding: only _test.go files import it
// (internal/archtest checks that). report's own internal tests cannot
// import it (it imports report), so the report tests that need a fixture
// are external (package report_test).
package reporttest

import (
	"fmt"

	"github.com/evalcal/evalcal/inspection"
	"github.com/evalcal/evalcal/report"

	"github.com/evalcal/evalcal/advisor"
	"github.com/evalcal/evalcal/comparator"
	"github.com/evalcal/evalcal/runner"
	"github.com/evalcal/evalcal/sampler"
	"github.com/evalcal/evalcal/statistician/aggregate"
)

// Run is one synthetic run: both inspections in brief.
type Run struct {
	ID, System     string
	LV, DV         string
	LRF, LTE       float64
	DRF, DTE       float64
	LFlags, DFlags []string
	Critical       bool // deep's flags are critical
}

// fixtureRuns is a fixed synthetic calibration: 14 runs over three
// systems with every disagreement type, both risky confusion cells and an
// optimistic light eval.
var fixtureRuns = []Run{
	{"20250101-100000-aaa001", "alpha", "pass", "pass", 82, 78, 80, 75, nil, nil, false},
	{"20250101-100000-aaa002", "alpha", "pass", "pass", 85, 80, 84, 79, nil, nil, false},
	{"20250101-100000-aaa003", "alpha", "pass", "fail", 80, 72, 35, 30, nil, []string{"missing-binding"}, true},
	{"20250101-100000-aaa004", "alpha", "partial", "partial", 60, 55, 58, 50, []string{"slow"}, []string{"slow"}, false},
	{"20250101-100000-bbb001", "beta", "pass", "partial", 78, 74, 65, 52, nil, []string{"placeholder-output"}, false},
	{"20250101-100000-bbb002", "beta", "fail", "fail", 30, 20, 25, 15, []string{"no-end"}, []string{"no-end"}, true},
	{"20250101-100000-bbb003", "beta", "pass", "pass", 75, 71, 70, 72, []string{"style"}, nil, false},
	{"20250101-100000-bbb004", "beta", "fail", "pass", 35, 38, 72, 74, []string{"error-file"}, nil, false},
	{"20250101-100000-bbb005", "beta", "pass", "pass", 84, 79, 76, 70, nil, []string{"wrong-order"}, false},
	{"20250101-100000-ccc001", "gamma", "partial", "fail", 55, 45, 30, 20, nil, []string{"truncated-log"}, true},
	{"20250101-100000-ccc002", "gamma", "pass", "pass", 80, 76, 79, 74, nil, nil, false},
	{"20250101-100000-ccc003", "gamma", "fail", "fail", 20, 10, 15, 5, nil, nil, false},
	{"20250101-100000-ccc004", "gamma", "partial", "partial", 65, 50, 62, 48, nil, nil, false},
	{"20250101-100000-ccc005", "gamma", "pass", "pass", 83, 77, 81, 78, nil, nil, false},
}

func fixtureFlags(ids []string, sev string) []inspection.Flag {
	out := []inspection.Flag{}
	for _, id := range ids {
		out = append(out, inspection.Flag{ID: id, Severity: sev, Description: "flag " + id, Evidence: "log line"})
	}
	return out
}

// buildReport runs the real stages (comparator, aggregate, advisor) on
// synthetic inspections and lays the result out as the run command does.
func buildReport(runs []Run) *report.Report {
	var pairs []runner.Pair
	comp := sampler.Composition{Systems: map[string]int{}, Eras: map[string]int{"era3": len(runs)},
		Statuses: map[string]int{"completed": len(runs), "failed": 0, "incomplete": 0}, SizeTerciles: map[string]int{}}
	var sample []report.SampleRun
	for _, fr := range runs {
		sev := "warning"
		if fr.Critical {
			sev = "critical"
		}
		l := inspection.Inspection{RunID: fr.ID, System: fr.System, Depth: "light", Verdict: fr.LV,
			RuntimeFidelity: fr.LRF, TaskEffectiveness: fr.LTE, Flags: fixtureFlags(fr.LFlags, "warning")}
		d := inspection.Inspection{RunID: fr.ID, System: fr.System, Depth: "deep", Verdict: fr.DV,
			RuntimeFidelity: fr.DRF, TaskEffectiveness: fr.DTE, Flags: fixtureFlags(fr.DFlags, sev)}
		pairs = append(pairs, runner.Pair{Light: l, Deep: d})
		comp.Systems[fr.System]++
		sample = append(sample, report.SampleRun{ID: fr.ID, System: fr.System, Era: "era3", Status: "completed", Services: 3, SizeBytes: 4096})
	}
	comp.Discovered, comp.Valid, comp.Sampled = len(runs), len(runs), len(runs)
	comp.SuccessFailure = sampler.SuccessFailure{Success: len(runs), SuccessPercent: 100}
	cs := comparator.Compare(pairs)
	st := aggregate.Compute(cs, aggregate.DefaultOptions())
	var f, all report.Report // the report's sections of st, and of ComputeAll's
	f.SetStatistics(st)
	all.SetStatistics(aggregate.ComputeAll(aggregate.Input{Comparisons: cs}, aggregate.DefaultOptions()))
	return &report.Report{
		SchemaVersion: report.SchemaVersion,
		GeneratedBy:   "evalcal 0.1.0",
		Inputs: report.Inputs{Paths: []string{"testdata/synthetic"}, Inspector: "synthetic", Seed: 1, Bins: 10,
			ContentHash: fmt.Sprintf("sha256:%064d", len(runs)), CommandLine: []string{"run", "testdata/synthetic"}},
		SampleSize:            st.SampleSize,
		Sample:                report.Sample{Composition: comp, Runs: sample, Invalid: []report.Invalid{{ID: "20250101-100000-zzz999", Reason: "no log"}}},
		AgreementRate:         f.AgreementRate,
		ScoreCorrelation:      f.ScoreCorrelation,
		MeanScoreDelta:        f.MeanScoreDelta,
		BiasDirection:         st.BiasDirection,
		DisagreementBreakdown: f.DisagreementBreakdown,
		Confidence:            st.Confidence,
		Preliminary:           st.Preliminary,
		Kappa:                 f.Kappa,
		AgreementRobust:       all.AgreementRobust,
		Confusion:             f.Confusion,
		Forecast:              f.Forecast,
		Disagreements:         st.Disagreements,
		Comparisons:           cs,
		Failures:              []inspection.Failure{{RunID: "20250101-100000-ddd001", Depth: "deep", Attempts: 2, Reason: "timeout after 10m0s | exit status 1"}},
		Partial:               true,
		Recommendations:       advisor.Advise(advisor.Input{Comparisons: cs, Stats: st}),
		Warnings:              append(st.Warnings, "1 inspection failed; statistics cover 14 of 15 sampled runs"),
	}
}

// generatedRuns makes n runs of which the first `agree` have matching
// verdicts; light overstates scores by `gap` points on disagreeing runs.
func generatedRuns(n, agree int, gap float64, prefix string) []Run {
	var out []Run
	for i := 0; i < n; i++ {
		base := 30 + float64((i*37)%60)
		fr := Run{ID: fmt.Sprintf("%s-%03d", prefix, i), System: []string{"alpha", "beta", "gamma"}[i%3],
			LRF: base, LTE: base - 5, DRF: base - 1 + float64(i%3), DTE: base - 6 + float64(i%2)}
		fr.LV = verdictFor(fr.LRF, fr.LTE)
		fr.DV = verdictFor(fr.DRF, fr.DTE)
		if i >= agree {
			fr.LRF, fr.LTE = min(85, fr.LRF+gap), min(80, fr.LTE+gap)
			fr.LV = "pass"
			fr.DV = "fail"
			fr.DRF, fr.DTE = 20, 15
		}
		out = append(out, fr)
	}
	return out
}

func verdictFor(rf, te float64) string {
	switch {
	case rf < 40 || te < 40:
		return "fail"
	case rf >= 70 && te >= 70:
		return "pass"
	}
	return "partial"
}

// Fixture is the report of the first n fixture runs (all 14 when n <= 0
// or n is larger): testdata/render/synthetic.yaml is Fixture(0).
func Fixture(n int) *report.Report {
	if n <= 0 || n > len(fixtureRuns) {
		n = len(fixtureRuns)
	}
	return buildReport(fixtureRuns[:n])
}

// FixtureFrom is the report of the fixture runs from index from on.
func FixtureFrom(from int) *report.Report { return buildReport(fixtureRuns[from:]) }

// Runs returns a copy of the 14 fixture runs.
func Runs() []Run { return append([]Run(nil), fixtureRuns...) }

// Generated is the report of n generated runs of which the first agree
// have matching verdicts; light overstates scores by gap points on the
// disagreeing ones; run ids start with prefix.
func Generated(n, agree int, gap float64, prefix string) *report.Report {
	return buildReport(generatedRuns(n, agree, gap, prefix))
}

// OfRuns is the report of runs (nil: a report over no runs).
func OfRuns(runs []Run) *report.Report { return buildReport(runs) }

// Large is a calibration report over n synthetic runs: the fixture runs
// repeated with new ids and shifted scores.
func Large(n int) *report.Report {
	runs := make([]Run, n)
	for i := range runs {
		fr := fixtureRuns[i%len(fixtureRuns)]
		fr.ID = fmt.Sprintf("20250101-%06d-%06x", i/1000, i)
		shift := float64(i%7) - 3
		fr.LRF, fr.DRF = fr.LRF+shift, fr.DRF-shift
		runs[i] = fr
	}
	return buildReport(runs)
}
