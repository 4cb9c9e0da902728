package aggregate

import (
	"fmt"
	"math"
	"testing"

	"github.com/evalcal/evalcal/comparator"
	"github.com/evalcal/evalcal/inspection"
	"github.com/evalcal/evalcal/runner"
)

// comps builds n comparisons; the first `split` have light pass / deep
// fail, the rest agree on pass. Light scores are 80/75 with deep lower by
// rfDrop and teDrop on every run.
func comps(n, split int, rfDrop, teDrop float64) []comparator.Comparison {
	var pairs []runner.Pair
	for i := 0; i < n; i++ {
		deepV := inspection.VerdictPass
		if i < split {
			deepV = inspection.VerdictFail
		}
		id := fmt.Sprintf("r%02d", i)
		// vary scores so correlations are defined
		l := inspection.Inspection{RunID: id, System: "s", Verdict: inspection.VerdictPass, RuntimeFidelity: 60 + float64(i), TaskEffectiveness: 50 + float64(2*i%7)}
		d := l
		d.Verdict = deepV
		d.RuntimeFidelity -= rfDrop
		d.TaskEffectiveness -= teDrop
		pairs = append(pairs, runner.Pair{Light: l, Deep: d})
	}
	return comparator.Compare(pairs)
}

func TestAgreementRateIsPercentWithWilsonInPercent(t *testing.T) {
	s := Compute(comps(10, 3, 0, 0), DefaultOptions())
	a := s.AgreementRate
	if a.Matches != 7 || a.N != 10 || a.Value() != 70 {
		t.Fatalf("agreement = %+v, want 7/10 = 70%%", a)
	}
	// Wilson 7/10 at z=1.96: 0.3968..0.8922 (Newcombe 1998, Table I, row 81/263 style; hand-worked).
	if math.Abs(a.Wilson95.Lower-39.68) > 0.01 || math.Abs(a.Wilson95.Upper-89.22) > 0.01 {
		t.Errorf("wilson95 = %+v, want about [39.68, 89.22]", a.Wilson95)
	}
	if s.DisagreementBreakdown.VerdictSplit != 3 || len(s.Disagreements) != 3 {
		t.Errorf("breakdown %+v, %d disagreements; want 3 verdict splits", s.DisagreementBreakdown, len(s.Disagreements))
	}
	if got := s.Confusion.LightPassDeepFail; len(got) != 3 || got[0] != "r00" {
		t.Errorf("light pass / deep fail cell = %v", got)
	}
	if s.Confusion.Counts[2][0] != 3 || s.Confusion.Counts[2][2] != 7 {
		t.Errorf("confusion counts = %v (rows light, cols deep, fail..pass)", s.Confusion.Counts)
	}
}

func TestBiasDirectionUsesMeanOverBothScores(t *testing.T) {
	tests := []struct {
		rfDrop, teDrop float64
		want           string
	}{
		{6, 6, Optimistic},    // deep lower by 6: delta -6
		{10, 0, Neutral},      // mean over both scores -5 is not below -5
		{10.5, 0, Optimistic}, // -5.25
		{-6, -6, Pessimistic}, // deep higher
		{0, 0, Neutral},
	}
	for _, tt := range tests {
		s := Compute(comps(8, 0, tt.rfDrop, tt.teDrop), DefaultOptions())
		if s.BiasDirection != tt.want {
			t.Errorf("drops %v/%v: bias %q, want %q", tt.rfDrop, tt.teDrop, s.BiasDirection, tt.want)
		}
	}
	s := Compute(comps(8, 0, 10, 0), DefaultOptions())
	if s.MeanScoreDelta.RuntimeFidelity.Direction != Optimistic || s.MeanScoreDelta.TaskEffectiveness.Direction != Neutral {
		t.Errorf("per-score directions = %s, %s", s.MeanScoreDelta.RuntimeFidelity.Direction, s.MeanScoreDelta.TaskEffectiveness.Direction)
	}
}

func TestConfidenceLevelsAtTheirEdges(t *testing.T) {
	tests := []struct {
		n, split int
		want     string
		prelim   bool
	}{
		{20, 1, ConfidenceHigh, false},   // 95%
		{20, 2, ConfidenceMedium, false}, // exactly 90% is not > 90
		{19, 0, ConfidenceMedium, false}, // 100% but under 20 runs
		{10, 2, ConfidenceMedium, false}, // 80%
		{12, 3, ConfidenceLow, false},    // exactly 75%
		{9, 0, ConfidenceLow, false},
		{5, 0, ConfidenceLow, true},
		{3, 0, ConfidenceLow, true},
		{6, 0, ConfidenceLow, false},
	}
	for _, tt := range tests {
		s := Compute(comps(tt.n, tt.split, 0, 0), DefaultOptions())
		if s.Confidence != tt.want || s.Preliminary != tt.prelim {
			t.Errorf("n=%d split=%d: confidence %s preliminary %v, want %s %v", tt.n, tt.split, s.Confidence, s.Preliminary, tt.want, tt.prelim)
		}
	}
}

func TestCorrelationIsInsufficientUnderFiveRuns(t *testing.T) {
	s := Compute(comps(4, 0, 1, 1), DefaultOptions())
	c := s.ScoreCorrelation.RuntimeFidelity
	if c.R != nil || c.Insufficient == "" || c.N != 4 {
		t.Errorf("4 runs: %+v, want insufficient with no r", c)
	}
	s = Compute(comps(5, 0, 1, 1), DefaultOptions())
	c = s.ScoreCorrelation.RuntimeFidelity
	if c.R == nil || math.Abs(*c.R-1) > 1e-12 {
		t.Errorf("5 runs shifted by a constant: r = %v, want 1", c.R)
	}
}

func TestZeroVarianceCorrelationIsUndefinedNotNaN(t *testing.T) {
	var pairs []runner.Pair
	for i := 0; i < 6; i++ {
		in := inspection.Inspection{RunID: fmt.Sprint(i), Verdict: "pass", RuntimeFidelity: 80, TaskEffectiveness: 70 + float64(i)}
		pairs = append(pairs, runner.Pair{Light: in, Deep: in})
	}
	s := Compute(comparator.Compare(pairs), DefaultOptions())
	c := s.ScoreCorrelation.RuntimeFidelity
	if c.R != nil || c.Undefined == "" {
		t.Errorf("constant scores: %+v, want undefined with a reason", c)
	}
}

func TestEmptyInputGivesReasonsNotNaN(t *testing.T) {
	s := Compute(nil, DefaultOptions())
	if s.SampleSize != 0 || s.Kappa.Unweighted.Reason == "" || s.BiasDirection != Neutral {
		t.Errorf("empty: %+v", s)
	}
}

func TestLightScoreAsForecastOfDeepPass(t *testing.T) {
	// Two runs: light mean score 0.8 with deep pass, 0.6 with deep fail.
	pairs := []runner.Pair{
		{Light: inspection.Inspection{RunID: "a", Verdict: "pass", RuntimeFidelity: 85, TaskEffectiveness: 75}, Deep: inspection.Inspection{RunID: "a", Verdict: "pass"}},
		{Light: inspection.Inspection{RunID: "b", Verdict: "pass", RuntimeFidelity: 60, TaskEffectiveness: 60}, Deep: inspection.Inspection{RunID: "b", Verdict: "fail"}},
	}
	f := Compute(comparator.Compare(pairs), DefaultOptions()).Forecast
	// Brier = ((0.8-1)^2 + (0.6-0)^2)/2 = (0.04 + 0.36)/2 = 0.20; calibration = (1 - 0.2/0.25)*100 = 20.
	if f.Brier == nil || math.Abs(*f.Brier-0.20) > 1e-12 || math.Abs(*f.Calibration-20) > 1e-9 {
		t.Fatalf("forecast = %+v, want brier 0.20, calibration 20", f)
	}
	if f.DeepPasses != 1 || f.BaseRate != 0.5 || f.CORP == nil || f.Reliability == nil {
		t.Errorf("forecast = %+v", f)
	}
}
