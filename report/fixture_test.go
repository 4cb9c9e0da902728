package report

import (
	"fmt"
	"github.com/evalcal/evalcal/internal/testutil"
	"path/filepath"
	"testing"

	"github.com/evalcal/evalcal/advisor"
	"github.com/evalcal/evalcal/comparator"
	"github.com/evalcal/evalcal/runner"
	"github.com/evalcal/evalcal/sampler"
	"github.com/evalcal/evalcal/statistician/aggregate"
)

// update rewrites the golden files of this package's tests.

// fixtureRun is one synthetic run: both inspections in brief.
type fixtureRun struct {
	id, system     string
	lv, dv         string
	lrf, lte       float64
	drf, dte       float64
	lflags, dflags []string
	critical       bool // deep's flags are critical
}

// fixtureRuns is a fixed synthetic calibration: 14 runs over three
// systems with every disagreement type, both risky confusion cells and an
// optimistic light eval.
var fixtureRuns = []fixtureRun{
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

func fixtureFlags(ids []string, sev string) []runner.Flag {
	out := []runner.Flag{}
	for _, id := range ids {
		out = append(out, runner.Flag{ID: id, Severity: sev, Description: "flag " + id, Evidence: "log line"})
	}
	return out
}

// buildReport runs the real stages (comparator, aggregate, advisor) on
// synthetic inspections and lays the result out as the run command does.
func buildReport(runs []fixtureRun) *Report {
	var pairs []runner.Pair
	comp := sampler.Composition{Systems: map[string]int{}, Eras: map[string]int{"era3": len(runs)},
		Statuses: map[string]int{"completed": len(runs), "failed": 0, "incomplete": 0}, SizeTerciles: map[string]int{}}
	var sample []SampleRun
	for _, fr := range runs {
		sev := "warning"
		if fr.critical {
			sev = "critical"
		}
		l := runner.Inspection{RunID: fr.id, System: fr.system, Depth: "light", Verdict: fr.lv,
			RuntimeFidelity: fr.lrf, TaskEffectiveness: fr.lte, Flags: fixtureFlags(fr.lflags, "warning")}
		d := runner.Inspection{RunID: fr.id, System: fr.system, Depth: "deep", Verdict: fr.dv,
			RuntimeFidelity: fr.drf, TaskEffectiveness: fr.dte, Flags: fixtureFlags(fr.dflags, sev)}
		pairs = append(pairs, runner.Pair{Light: l, Deep: d})
		comp.Systems[fr.system]++
		sample = append(sample, SampleRun{ID: fr.id, System: fr.system, Era: "era3", Status: "completed", Services: 3, SizeBytes: 4096})
	}
	comp.Discovered, comp.Valid, comp.Sampled = len(runs), len(runs), len(runs)
	comp.SuccessFailure = sampler.SuccessFailure{Success: len(runs), SuccessPercent: 100}
	cs := comparator.Compare(pairs)
	st := aggregate.Compute(cs, aggregate.DefaultOptions())
	robust := aggregate.ComputeAll(aggregate.Input{Comparisons: cs}, aggregate.DefaultOptions()).AgreementRobust
	return &Report{
		SchemaVersion: SchemaVersion,
		GeneratedBy:   "evalcal 0.1.0",
		Inputs: Inputs{Paths: []string{"testdata/synthetic"}, Inspector: "synthetic", Seed: 1, Bins: 10,
			ContentHash: fmt.Sprintf("sha256:%064d", len(runs)), CommandLine: []string{"run", "testdata/synthetic"}},
		SampleSize:            st.SampleSize,
		Sample:                Sample{Composition: comp, Runs: sample, Invalid: []Invalid{{ID: "20250101-100000-zzz999", Reason: "no log"}}},
		AgreementRate:         st.AgreementRate,
		ScoreCorrelation:      st.ScoreCorrelation,
		MeanScoreDelta:        st.MeanScoreDelta,
		BiasDirection:         st.BiasDirection,
		DisagreementBreakdown: st.DisagreementBreakdown,
		Confidence:            st.Confidence,
		Preliminary:           st.Preliminary,
		Kappa:                 st.Kappa,
		AgreementRobust:       &robust,
		Confusion:             st.Confusion,
		Forecast:              st.Forecast,
		Disagreements:         st.Disagreements,
		Comparisons:           cs,
		Failures:              []runner.Failure{{RunID: "20250101-100000-ddd001", Depth: "deep", Attempts: 2, Reason: "timeout after 10m0s | exit status 1"}},
		Partial:               true,
		Recommendations:       advisor.Advise(advisor.Input{Comparisons: cs, Stats: st}),
		Warnings:              append(st.Warnings, "1 inspection failed; statistics cover 14 of 15 sampled runs"),
	}
}

// checkGolden compares got with the golden file at path relative to the
// repository root (testutil.CheckGolden: -update rewrites it, a mismatch
// writes path+".got").
func checkGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	testutil.CheckGolden(t, filepath.Join("..", path), path, got)
}

// TestSyntheticReportFileIsCurrent keeps testdata/render/synthetic.yaml,
// the input of the render golden tests, in step with the stages.
func TestSyntheticReportFileIsCurrent(t *testing.T) {
	b, err := buildReport(fixtureRuns).YAML()
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "testdata/render/synthetic.yaml", b)
}

// generatedRuns makes n runs of which the first `agree` have matching
// verdicts; light overstates scores by `gap` points on disagreeing runs.
func generatedRuns(n, agree int, gap float64, prefix string) []fixtureRun {
	var out []fixtureRun
	for i := 0; i < n; i++ {
		base := 30 + float64((i*37)%60)
		fr := fixtureRun{id: fmt.Sprintf("%s-%03d", prefix, i), system: []string{"alpha", "beta", "gamma"}[i%3],
			lrf: base, lte: base - 5, drf: base - 1 + float64(i%3), dte: base - 6 + float64(i%2)}
		fr.lv = verdictFor(fr.lrf, fr.lte)
		fr.dv = verdictFor(fr.drf, fr.dte)
		if i >= agree {
			fr.lrf, fr.lte = min(85, fr.lrf+gap), min(80, fr.lte+gap)
			fr.lv = "pass"
			fr.dv = "fail"
			fr.drf, fr.dte = 20, 15
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
