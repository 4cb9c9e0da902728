package forecast

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/evalcal/evalcal/statistician"
)

// binaryGroup returns n forecasts of p by agent with hits coming true.
func binaryGroup(agent string, p float64, n, hits int) []Forecast {
	fs := make([]Forecast, n)
	for i := range fs {
		fs[i] = Forecast{Agent: agent, Kind: Binary, Confidence: p}
		if i < hits {
			fs[i].Outcome = 1
		}
	}
	return fs
}

func scoreOf(t *testing.T, fs []Forecast, opts ScoreOptions) map[string]ScoredGroup {
	t.Helper()
	rep, err := Score(fs, opts)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]ScoredGroup{}
	for _, g := range rep.Groups {
		out[g.Key] = g
	}
	return out
}

// The worked examples of issue 2 (calibration = clamp01(1 - BS/0.25) x 100,
// BS by hand).
func TestScoreWorkedExamples(t *testing.T) {
	var fs []Forecast
	fs = append(fs, binaryGroup("seventy", 0.7, 5, 4)...)
	fs = append(fs, binaryGroup("sixty", 0.6, 10, 6)...)
	fs = append(fs, binaryGroup("eighty", 0.8, 10, 8)...)
	fs = append(fs, binaryGroup("ninety", 0.9, 10, 9)...)
	fs = append(fs, binaryGroup("overconfident", 0.9, 10, 6)...)
	fs = append(fs, binaryGroup("half", 0.5, 10, 3)...)
	groups := scoreOf(t, fs, DefaultScoreOptions())
	want := map[string][2]float64{
		"seventy": {0.17, 32}, "sixty": {0.24, 4}, "eighty": {0.16, 36},
		"ninety": {0.09, 64}, "overconfident": {0.33, 0}, "half": {0.25, 0},
	}
	for key, w := range want {
		g := groups[key]
		if g.Brier == nil || math.Abs(*g.Brier-w[0]) > 1e-12 {
			t.Errorf("%s: brier %v, want %v", key, g.Brier, w[0])
		}
		if g.Calibration == nil || math.Abs(*g.Calibration-w[1]) > 1e-9 {
			t.Errorf("%s: calibration %v, want %v", key, g.Calibration, w[1])
		}
	}
	// A constant forecast cannot discriminate: never supported.
	for key, g := range groups {
		if g.Label == LabelSupported {
			t.Errorf("%s: constant forecasts labelled supported", key)
		}
	}
	if g := groups["seventy"]; g.Label != LabelCandidate {
		t.Errorf("seventy (n = 5): label %q, want candidate", g.Label)
	}
}

func TestScoreGroupsSortedAndCalibrationNullBelowMinResolved(t *testing.T) {
	fs := append(binaryGroup("zeta", 0.7, 3, 2), binaryGroup("alpha", 0.7, 6, 4)...)
	rep, err := Score(fs, DefaultScoreOptions())
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Groups) != 2 || rep.Groups[0].Key != "alpha" || rep.Groups[1].Key != "zeta" {
		t.Fatalf("groups %v, want alpha then zeta", rep.Groups)
	}
	z := rep.Groups[1]
	if z.Calibration != nil || z.CalibrationReason == "" || z.Brier == nil {
		t.Errorf("zeta (n = 3 < 5): calibration %v reason %q brier %v; want null with a reason, brier kept", z.Calibration, z.CalibrationReason, z.Brier)
	}
}

// sharpForecasts discriminate: 0.9 comes true 9 times in 10, 0.1 once.
func sharpForecasts(agent string, reps int) []Forecast {
	var fs []Forecast
	for range reps {
		fs = append(fs, binaryGroup(agent, 0.9, 10, 9)...)
		fs = append(fs, binaryGroup(agent, 0.1, 10, 1)...)
	}
	return fs
}

func TestScoreLabelsDiscriminatingForecastsSupported(t *testing.T) {
	g := scoreOf(t, sharpForecasts("sharp", 5), DefaultScoreOptions())["sharp"]
	// By hand: BS = 0.09, base rate 0.5, BSS = 1 - 0.09/0.25 = 0.64;
	// PAV keeps the two values apart: DSC = 0.25 - 0.09 = 0.16.
	if g.BSS == nil || math.Abs(*g.BSS-0.64) > 1e-12 || g.CORP == nil || math.Abs(g.CORP.DSC-0.16) > 1e-12 {
		t.Fatalf("bss %v corp %+v, want 0.64 and DSC 0.16", g.BSS, g.CORP)
	}
	if g.Label != LabelSupported || g.BSSCI95 == nil || !(g.BSSCI95.Lower > 0) {
		t.Errorf("label %q (%s), ci %+v; want supported", g.Label, g.LabelReason, g.BSSCI95)
	}
}

func TestScoreAgainstAFrozenBaselineRate(t *testing.T) {
	opts := DefaultScoreOptions()
	b := 0.9
	opts.BaselineRate = &b
	g := scoreOf(t, sharpForecasts("sharp", 5), opts)["sharp"]
	// BSS = 1 - 0.09/(0.9*0.1) = 0: no skill over always saying 0.9.
	if g.BSS == nil || math.Abs(*g.BSS) > 1e-12 || g.Label != LabelIndistinguish {
		t.Errorf("bss %v label %q, want 0 and indistinguishable_from_luck", g.BSS, g.Label)
	}
	if g.BaselineRate == nil || *g.BaselineRate != 0.9 {
		t.Errorf("baseline rate %v, want 0.9", g.BaselineRate)
	}
}

func TestScoreIsDeterministicForASeed(t *testing.T) {
	fs := sharpForecasts("a", 1)
	fs[3].Outcome = 0
	r1, err1 := Score(fs, DefaultScoreOptions())
	r2, err2 := Score(fs, DefaultScoreOptions())
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	if d := cmp.Diff(r1, r2); d != "" {
		t.Errorf("same seed, different reports:\n%s", d)
	}
}

func TestScoreByAnyFieldWarnsAboutForecastsWithoutIt(t *testing.T) {
	fs := binaryGroup("a", 0.6, 4, 2)
	fs[0].Fields = map[string]string{"team": "red"}
	fs[1].Fields = map[string]string{"team": "red"}
	opts := DefaultScoreOptions()
	opts.By = "team"
	rep, err := Score(fs, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Groups) != 1 || rep.Groups[0].Key != "red" || rep.Groups[0].N != 2 {
		t.Errorf("groups %+v, want red with 2", rep.Groups)
	}
	if len(rep.Warnings) != 1 {
		t.Errorf("warnings %q, want one about 2 forecasts without team", rep.Warnings)
	}
}

func TestScoreOrdinalForecastsGetRPSAndMismatchedCategoriesAWarning(t *testing.T) {
	fs := []Forecast{
		{Agent: "a", Kind: Ordinal, Probs: []float64{0, 0, 1}, Outcome: 0},
		{Agent: "a", Kind: Ordinal, Probs: []float64{0, 1, 0}, Outcome: 0},
		{Agent: "a", Kind: Ordinal, Probs: []float64{0.5, 0.5}, Outcome: 0},
	}
	g := scoreOf(t, fs, DefaultScoreOptions())["a"]
	// By hand: RPS 1 and 0.5; climatology is [1, 0, 0], which scores 0.
	want := &RPSScores{N: 2, Categories: 3, Mean: 0.75, Baseline: []float64{1, 0, 0}, BaselineRPS: 0}
	if d := cmp.Diff(want, g.RPS, cmpopts.IgnoreFields(RPSScores{}, "RPSSReason")); d != "" {
		t.Errorf("rps (-want +got):\n%s", d)
	}
	if g.RPS.RPSSReason == "" || len(g.Warnings) != 1 || g.Brier != nil || g.Label != LabelCandidate {
		t.Errorf("group %+v: want an rpss reason, one warning, null brier, candidate", g)
	}
}

func TestScoreOptionsValidateNamesTheOption(t *testing.T) {
	bad := 1.0
	for _, mut := range []func(*ScoreOptions){
		func(o *ScoreOptions) { o.By = "" },
		func(o *ScoreOptions) { o.Bins = 0 },
		func(o *ScoreOptions) { o.MinResolved = -1 },
		func(o *ScoreOptions) { o.Binning = "quantile" },
		func(o *ScoreOptions) { o.BaselineRate = &bad },
		func(o *ScoreOptions) { o.Resamples = 0 },
	} {
		o := DefaultScoreOptions()
		mut(&o)
		if _, err := Score(nil, o); err == nil {
			t.Errorf("options %+v: no error", o)
		}
	}
	if _, err := Score(nil, DefaultScoreOptions()); err != nil {
		t.Errorf("default options: %v", err)
	}
}

func TestScoreBinnedTableHasNullRatesForEmptyFixedBins(t *testing.T) {
	opts := DefaultScoreOptions()
	opts.Binning = statistician.FixedBins
	g := scoreOf(t, binaryGroup("a", 0.95, 6, 5), opts)["a"]
	for i, row := range g.Murphy.Binned.Table {
		if (row.Count == 0) != (row.ObservedRate == nil) || (row.Count == 0 && row.Reason == "") {
			t.Errorf("bin %d: %+v", i, row)
		}
	}
}
