package aggregate

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/evalcal/evalcal/comparator"
	"github.com/evalcal/evalcal/inspection"
	"github.com/evalcal/evalcal/runner"
	"github.com/evalcal/evalcal/statistician"
)

// referenceRuns reads testdata/runs.json: per run its system and, per
// side, [verdict, runtime_fidelity, task_effectiveness].
func referenceRuns(t *testing.T) []comparator.Comparison {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "runs.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Runs []struct {
			ID, System  string
			Light, Deep [3]any
		}
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	side := func(id, system string, v [3]any) inspection.Inspection {
		return inspection.Inspection{RunID: id, System: system, Verdict: v[0].(string),
			RuntimeFidelity: v[1].(float64), TaskEffectiveness: v[2].(float64)}
	}
	var pairs []runner.Pair
	for _, r := range doc.Runs {
		pairs = append(pairs, runner.Pair{Light: side(r.ID, r.System, r.Light), Deep: side(r.ID, r.System, r.Deep)})
	}
	return comparator.Compare(pairs)
}

// referenceFigures is testdata/reference.json, written by
// testdata/reference.py with scipy and statsmodels from the same runs.
type referenceFigures struct {
	Agreement struct {
		Matches, N int
		Percent    float64
		Wilson95   [2]float64
	}
	BySystem []struct {
		System                 string
		Matches, N             int
		Tested                 bool
		Wilson95, Simultaneous *[2]float64
	} `json:"by_system"`
	Confusion [][]int
	Kappa     struct {
		Unweighted, Linear, Quadratic refKappa
		RawAgreement                  float64 `json:"raw_agreement"`
		PABAK                         float64 `json:"pabak"`
	}
	Leniency struct {
		LightPassDeepNot int     `json:"light_pass_deep_not"`
		DeepPassLightNot int     `json:"deep_pass_light_not"`
		McNemarP         float64 `json:"mcnemar_p"`
		LightPassRate    float64 `json:"light_pass_rate"`
		DeepPassRate     float64 `json:"deep_pass_rate"`
	}
	Clustered struct {
		Percent  float64
		CI95     *[2]float64
		Clusters int
	}
	Scores map[string]struct {
		Pearson struct {
			R, P float64
			CI95 [2]float64
		}
		Spearman float64
		Delta    struct {
			Mean, SD float64
			CI95     [2]float64
		}
		BlandAltman struct {
			Bias, SD, Lower, Upper float64
			BiasCI                 [2]float64 `json:"bias_ci"`
			LowerCI                [2]float64 `json:"lower_ci"`
			UpperCI                [2]float64 `json:"upper_ci"`
		} `json:"bland_altman"`
		CCC refKappa
	}
}

type refKappa struct {
	Value, SE float64
	CI95      [2]float64
}

// TestFiguresMatchScipyAndStatsmodels computes every paired figure of the
// report's statistics section from 30 hand-made runs and compares it with
// what scipy 1.10 and statsmodels 0.13 compute from the same runs
// (testdata/reference.py; the calls are named there). Tolerance 1e-9
// relative: the references are closed forms or exact tests, so only
// rounding differs.
func TestFiguresMatchScipyAndStatsmodels(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "reference.json"))
	if err != nil {
		t.Fatal(err)
	}
	var want referenceFigures
	if err := json.Unmarshal(data, &want); err != nil {
		t.Fatal(err)
	}
	s := ComputeAll(Input{Comparisons: referenceRuns(t)}, DefaultOptions())
	near := func(what string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-9*math.Max(1, math.Abs(want)) {
			t.Errorf("%s = %.15g, reference %.15g", what, got, want)
		}
	}
	interval := func(what string, got statistician.Interval, want [2]float64) {
		t.Helper()
		near(what+".lower", got.Lower, want[0])
		near(what+".upper", got.Upper, want[1])
	}

	a := s.AgreementRate
	if a.Matches != want.Agreement.Matches || a.N != want.Agreement.N || a.Wilson95 == nil {
		t.Fatalf("agreement %+v, reference %+v", a, want.Agreement)
	}
	near("agreement.percent", a.Value(), want.Agreement.Percent)
	interval("agreement.wilson95", *a.Wilson95, want.Agreement.Wilson95)

	if len(s.AgreementBySystem) != len(want.BySystem) {
		t.Fatalf("%d systems, reference %d", len(s.AgreementBySystem), len(want.BySystem))
	}
	for i, w := range want.BySystem {
		g := s.AgreementBySystem[i]
		if g.System != w.System || g.Matches != w.Matches || g.N != w.N {
			t.Errorf("system %d = %s %d/%d, reference %s %d/%d", i, g.System, g.Matches, g.N, w.System, w.Matches, w.N)
		}
		if !w.Tested {
			if g.Wilson95 != nil || g.Simultaneous != nil || g.Reason == "" {
				t.Errorf("untested system %s: %+v, want no interval and a reason", w.System, g)
			}
			continue
		}
		if g.Wilson95 == nil || g.Simultaneous == nil || w.Wilson95 == nil || w.Simultaneous == nil {
			t.Fatalf("tested system %s: %+v, reference %+v", w.System, g, w)
		}
		interval(w.System+".wilson95", *g.Wilson95, *w.Wilson95)
		interval(w.System+".simultaneous", *g.Simultaneous, *w.Simultaneous)
	}

	for i, row := range want.Confusion {
		for j, n := range row {
			if s.Confusion.Counts[i][j] != n {
				t.Errorf("confusion[%d][%d] = %d, reference %d", i, j, s.Confusion.Counts[i][j], n)
			}
		}
	}
	for _, k := range []struct {
		name string
		got  statistician.Kappa
		want refKappa
	}{{"unweighted", s.Kappa.Unweighted, want.Kappa.Unweighted}, {"linear", s.Kappa.Linear, want.Kappa.Linear},
		{"quadratic", s.Kappa.Quadratic, want.Kappa.Quadratic}} {
		if k.got.Reason != "" {
			t.Fatalf("kappa %s: %s", k.name, k.got.Reason)
		}
		near("kappa."+k.name, k.got.Value, k.want.Value)
		near("kappa."+k.name+".se", k.got.SE, k.want.SE)
		interval("kappa."+k.name+".ci95", k.got.CI95, k.want.CI95)
	}
	near("kappa.raw_agreement", s.Kappa.RawAgreement, want.Kappa.RawAgreement)
	near("kappa.pabak", s.Kappa.PABAK, want.Kappa.PABAK)

	l := s.Leniency
	if l.LightPassDeepNot != want.Leniency.LightPassDeepNot || l.DeepPassLightNot != want.Leniency.DeepPassLightNot ||
		l.McNemarP == nil || l.LightPassRate == nil || l.DeepPassRate == nil {
		t.Fatalf("leniency %+v, reference %+v", l, want.Leniency)
	}
	near("leniency.mcnemar_p", *l.McNemarP, want.Leniency.McNemarP)
	near("leniency.light_pass_rate", *l.LightPassRate, want.Leniency.LightPassRate)
	near("leniency.deep_pass_rate", *l.DeepPassRate, want.Leniency.DeepPassRate)

	// Three systems: no clustered interval (fewer than
	// statistician.MinClusters clusters), the percent kept.
	c := s.AgreementClustered
	if c.Reason == "" || c.CI95 != nil || c.DesignEffect != nil || c.Percent == nil || c.Clusters != want.Clustered.Clusters ||
		want.Clustered.CI95 != nil {
		t.Fatalf("clustered %+v, reference %+v", c, want.Clustered)
	}
	near("clustered.percent", *c.Percent, want.Clustered.Percent)

	for name, got := range map[string]struct {
		corr  Correlation
		delta ScoreDelta
	}{
		"runtime_fidelity":   {s.ScoreCorrelation.RuntimeFidelity, s.MeanScoreDelta.RuntimeFidelity},
		"task_effectiveness": {s.ScoreCorrelation.TaskEffectiveness, s.MeanScoreDelta.TaskEffectiveness},
	} {
		w, ok := want.Scores[name]
		if !ok {
			t.Fatalf("no reference for %s", name)
		}
		if got.corr.R == nil || got.corr.P == nil || got.corr.CI95 == nil || got.corr.Spearman == nil || got.delta.CI95 == nil {
			t.Fatalf("%s: undefined figures: %+v %+v", name, got.corr, got.delta)
		}
		near(name+".pearson.r", *got.corr.R, w.Pearson.R)
		near(name+".pearson.p", *got.corr.P, w.Pearson.P)
		interval(name+".pearson.ci95", *got.corr.CI95, w.Pearson.CI95)
		near(name+".spearman", *got.corr.Spearman, w.Spearman)
		near(name+".delta.mean", got.delta.Mean, w.Delta.Mean)
		near(name+".delta.sd", got.delta.SD, w.Delta.SD)
		interval(name+".delta.ci95", *got.delta.CI95, w.Delta.CI95)
		ba := got.delta.BlandAltman
		near(name+".bland_altman.bias", ba.Bias, w.BlandAltman.Bias)
		near(name+".bland_altman.sd", ba.SD, w.BlandAltman.SD)
		near(name+".bland_altman.lower", ba.Lower, w.BlandAltman.Lower)
		near(name+".bland_altman.upper", ba.Upper, w.BlandAltman.Upper)
		interval(name+".bland_altman.bias_ci", ba.BiasCI, w.BlandAltman.BiasCI)
		interval(name+".bland_altman.lower_ci", ba.LowerCI, w.BlandAltman.LowerCI)
		interval(name+".bland_altman.upper_ci", ba.UpperCI, w.BlandAltman.UpperCI)
		near(name+".ccc", got.delta.CCC.Value, w.CCC.Value)
		near(name+".ccc.se", got.delta.CCC.SE, w.CCC.SE)
		interval(name+".ccc.ci95", got.delta.CCC.CI95, w.CCC.CI95)
	}
}

// TestFourRunsWorkedByHand: light passes all but one run, deep passes one.
// Worked by hand: light pass / deep fail on 2 runs, both pass on 1, both
// fail on 1.
//
//	agreement 2/4 = 50%
//	McNemar b = 2, c = 0: P = 2 P(X <= 0), X ~ Bin(2, 1/2) = 2/4 = 0.5
//	pass rates: light 3/4 = 75%, deep 1/4 = 25%
//	kappa: p_o = 2/4, p_e = (1/4)(3/4) + (3/4)(1/4) = 3/8,
//	       kappa = (1/2 - 3/8)/(1 - 3/8) = 0.2; partial is unused, so the
//	       linear and quadratic weights (1 on the diagonal, 0 between
//	       fail and pass) give 0.2 too
//	PABAK = (3 p_o - 1)/(3 - 1) = 0.25
func TestFourRunsWorkedByHand(t *testing.T) {
	in := func(id, v string) inspection.Inspection {
		return inspection.Inspection{RunID: id, System: "s", Verdict: v, RuntimeFidelity: 50, TaskEffectiveness: 50}
	}
	pairs := []runner.Pair{
		{Light: in("a", inspection.VerdictPass), Deep: in("a", inspection.VerdictFail)},
		{Light: in("b", inspection.VerdictPass), Deep: in("b", inspection.VerdictFail)},
		{Light: in("c", inspection.VerdictPass), Deep: in("c", inspection.VerdictPass)},
		{Light: in("d", inspection.VerdictFail), Deep: in("d", inspection.VerdictFail)},
	}
	s := ComputeAll(Input{Comparisons: comparator.Compare(pairs)}, DefaultOptions())
	if s.AgreementRate.Value() != 50 {
		t.Errorf("agreement %v, want 50", s.AgreementRate.Value())
	}
	l := s.Leniency
	if l.LightPassDeepNot != 2 || l.DeepPassLightNot != 0 || l.Direction != Lenient || l.Significant ||
		l.McNemarP == nil || *l.McNemarP != 0.5 || *l.LightPassRate != 75 || *l.DeepPassRate != 25 {
		t.Errorf("leniency %+v (p %v), want 2 vs 0, lenient, p = 0.5, rates 75 and 25", l, l.McNemarP)
	}
	for name, k := range map[string]statistician.Kappa{"unweighted": s.Kappa.Unweighted, "linear": s.Kappa.Linear, "quadratic": s.Kappa.Quadratic} {
		if math.Abs(k.Value-0.2) > 1e-12 {
			t.Errorf("%s kappa %v, want 0.2", name, k.Value)
		}
	}
	if math.Abs(s.Kappa.PABAK-0.25) > 1e-12 || math.Abs(s.Kappa.RawAgreement-0.5) > 1e-12 {
		t.Errorf("pabak %v, raw %v; want 0.25 and 0.5", s.Kappa.PABAK, s.Kappa.RawAgreement)
	}
	if got := s.Confusion.LightPassDeepFail; len(got) != 2 || got[0] != "a" || got[1] != "b" {
		t.Errorf("light pass / deep fail = %v, want [a b]", got)
	}
}
