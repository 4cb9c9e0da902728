package forecast

import (
	"context"
	"math"
	"testing"

	"github.com/evalcal/evalcal/statistician"
)

// Five forecasts at 0.7, four right: squared errors 0.09 x4 and 0.49,
// Brier 0.17, deviations -0.08 x4 and 0.32, sum of squares 0.128,
// SE = sqrt(0.128 / 4 / 5) = 0.08 (hand-worked).
func TestBrierSEHandWorked(t *testing.T) {
	var s statistician.BinarySample
	for _, y := range []int{1, 1, 1, 1, 0} {
		if err := s.Add(0.7, y); err != nil {
			t.Fatal(err)
		}
	}
	sorted, err := s.Sorted(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got := sorted.BrierSE(0.17); math.Abs(got-0.08) > 1e-12 {
		t.Errorf("BrierSE = %v, want 0.08", got)
	}
}

func group(key string, brier, se float64, n int) ScoredGroup {
	cal := math.Max(0, 1-brier/0.25) * 100
	return ScoredGroup{Key: key, Binary: n, N: n, Brier: &brier, BrierSE: &se, Calibration: &cal}
}

func TestScoreTrendTellsNoiseFromARealChange(t *testing.T) {
	prev := &ScoreReport{Inputs: []ScoreInput{{Path: "before.jsonl"}}, Groups: []ScoredGroup{
		group("alpha", 0.20, 0.01, 100), group("beta", 0.20, 0.01, 100), group("gone", 0.1, 0.01, 50)}}
	cur := &ScoreReport{Groups: []ScoredGroup{
		group("alpha", 0.19, 0.01, 100), // -0.01 with SE 0.014: noise
		group("beta", 0.15, 0.01, 100),  // -0.05: real
		group("new", 0.1, 0.01, 50)}}
	tr := CompareScoreReports(prev, cur)
	if len(tr.Groups) != 2 || tr.Groups[0].Key != "alpha" || tr.Groups[1].Key != "beta" {
		t.Fatalf("groups = %+v", tr.Groups)
	}
	a, b := tr.Groups[0], tr.Groups[1]
	if a.Brier.Distinguishable || !a.Brier.CI95.Contains(0) || math.Abs(*a.Brier.Difference+0.01) > 1e-12 {
		t.Errorf("alpha: %+v, want -0.01 and not distinguishable", a.Brier)
	}
	// Welch df = 198: t(0.975) = 1.97202, SE = sqrt(2)*0.01, half-width 0.027889.
	if !b.Brier.Distinguishable || math.Abs(b.Brier.CI95.Upper-(-0.05+0.0278886)) > 1e-5 {
		t.Errorf("beta: %+v, want -0.05 +- 0.02789, distinguishable", b.Brier)
	}
	// Calibration 20 -> 40: +20 with the Brier interval times -400.
	if c := b.Calibration; c.Difference == nil || math.Abs(*c.Difference-20) > 1e-9 || math.Abs(c.CI95.Lower-(-400*b.Brier.CI95.Upper)) > 1e-9 {
		t.Errorf("beta calibration: %+v", c)
	}
	if len(tr.Distinguishable) != 1 || tr.Distinguishable[0] != "beta" {
		t.Errorf("distinguishable = %v", tr.Distinguishable)
	}
	if len(tr.GroupsOnlyNow) != 1 || tr.GroupsOnlyNow[0] != "new" || len(tr.GroupsOnlyBefore) != 1 || tr.GroupsOnlyBefore[0] != "gone" {
		t.Errorf("only now %v, only before %v", tr.GroupsOnlyNow, tr.GroupsOnlyBefore)
	}
}

func TestScoreTrendCalibrationClampedHasAReason(t *testing.T) {
	prev := &ScoreReport{Groups: []ScoredGroup{group("a", 0.30, 0.01, 100)}} // calibration clamped at 0
	cur := &ScoreReport{Groups: []ScoredGroup{group("a", 0.20, 0.01, 100)}}
	c := CompareScoreReports(prev, cur).Groups[0].Calibration
	if c.Difference != nil || c.Reason == "" {
		t.Errorf("clamped calibration change = %+v, want a reason and no number", c)
	}
}

// Derive names the lowest measured calibration (the first of a tie),
// sums the calls' resolved counts, and keeps what a document already says.
func TestDeriveFillsTheLowestCalibrationAndTheResolvedCalls(t *testing.T) {
	c := func(x float64) *float64 { return &x }
	s := ScoreReport{Groups: []ScoredGroup{{Key: "a", Calibration: c(80)}, {Key: "b"}, {Key: "c", Calibration: c(40)}, {Key: "d", Calibration: c(40)}}}
	s.Derive()
	if l := s.LowestCalibration; l == nil || l.Group != "c" || l.Calibration != 40 {
		t.Errorf("score: lowest %+v, want c at 40", l)
	}
	s.LowestCalibration = &Lowest{Group: "kept", Calibration: 1}
	if s.Derive(); s.LowestCalibration.Group != "kept" {
		t.Errorf("score: Derive replaced the document's field")
	}
	none := ScoreReport{Groups: []ScoredGroup{{Key: "b"}}}
	if none.Derive(); none.LowestCalibration != nil {
		t.Errorf("score: lowest %+v with no calibration measured", none.LowestCalibration)
	}
	d := CallsDocument{Groups: []GroupScore{{Agent: "x", Season: "q1", Resolved: 3}, {Agent: "y", Season: "q2", Resolved: 6, Calibration: c(55.5)}}}
	d.Derive()
	if d.Resolved != 9 || d.LowestCalibration == nil || d.LowestCalibration.Group != "y q2" || d.LowestCalibration.Calibration != 55.5 {
		t.Errorf("calls: resolved %d, lowest %+v; want 9 and y q2 at 55.5", d.Resolved, d.LowestCalibration)
	}
}
