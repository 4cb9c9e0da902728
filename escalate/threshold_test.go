package escalate

import (
	"math"
	"strings"
	"testing"
)

func runsOf(groups ...struct {
	conf      float64
	n, agrees int
}) []Scored {
	var out []Scored
	for _, g := range groups {
		for i := 0; i < g.n; i++ {
			out = append(out, Scored{Confidence: g.conf, Agree: i < g.agrees})
		}
	}
	return out
}

type group = struct {
	conf      float64
	n, agrees int
}

// Worked by hand. A = 0.8, D = 0.1: a perfect record of n runs has lower
// bound 0.1^(1/n), which first reaches 0.8 at n = 11 (0.8^11 = 0.0859 <=
// 0.1 < 0.8^10 = 0.107). The 11 runs at confidence 10 all agree: bound
// 0.1^(1/11) = 0.81113 >= 0.8, pass. Adding the 5 runs at 5 (4 agree)
// gives 15 of 16: P(Bin(16, 0.8) >= 15) = 4 x 0.8^15 = 0.1407 > 0.1,
// fail; the sequence stops, and the 10 runs at 1 are never tested.
func TestCalibrateWorkedByHand(t *testing.T) {
	runs := runsOf(group{10, 11, 11}, group{5, 5, 4}, group{1, 10, 9})
	res, err := Calibrate(runs, Target{Agreement: 0.8, Risk: 0.1})
	if err != nil {
		t.Fatal(err)
	}
	if res.MinCovered != 11 {
		t.Errorf("MinCovered = %d, want 11", res.MinCovered)
	}
	if !res.Met || res.Threshold != 10 || res.Covered != 11 || res.Matches != 11 || res.N != 26 {
		t.Fatalf("got met %v threshold %v covered %d/%d matches %d; want threshold 10 covering 11 of 26", res.Met, res.Threshold, res.Covered, res.N, res.Matches)
	}
	if math.Abs(res.AgreementLower-math.Pow(0.1, 1.0/11)) > 1e-12 {
		t.Errorf("AgreementLower = %v, want 0.1^(1/11) = %v", res.AgreementLower, math.Pow(0.1, 1.0/11))
	}
	want := []Point{
		{Threshold: 10, Covered: 11, Matches: 11, Tested: true, Lower: math.Pow(0.1, 1.0/11), Passed: true},
		{Threshold: 5, Covered: 16, Matches: 15, Tested: true, Passed: false},
		{Threshold: 1, Covered: 26, Matches: 24},
	}
	if len(res.Points) != len(want) {
		t.Fatalf("Points = %+v", res.Points)
	}
	for i, w := range want {
		g := res.Points[i]
		if g.Threshold != w.Threshold || g.Covered != w.Covered || g.Matches != w.Matches || g.Tested != w.Tested || g.Passed != w.Passed {
			t.Errorf("Points[%d] = %+v, want %+v", i, g, w)
		}
	}
	if lo := res.Points[1].Lower; !(lo < 0.8 && lo > 0.6) {
		t.Errorf("the failing step's bound %v should be under 0.8", lo)
	}
}

func TestCalibrateStopsAtTheFirstFailureEvenIfLaterThresholdsWouldPass(t *testing.T) {
	// The 11 most confident runs hold 2 disagreements; below them 60 runs
	// all agree. A threshold at 1 would pass on its own (69 of 71), but
	// the sequence stops at 10: choosing after looking would spend the
	// risk twice.
	runs := runsOf(group{10, 11, 9}, group{1, 60, 60})
	res, err := Calibrate(runs, Target{Agreement: 0.8, Risk: 0.1})
	if err != nil {
		t.Fatal(err)
	}
	if res.Met || res.Chosen != -1 || res.Covered != 0 {
		t.Fatalf("met %v chosen %d covered %d; want nothing chosen", res.Met, res.Chosen, res.Covered)
	}
	if res.Points[1].Tested {
		t.Error("a threshold after the first failure was tested")
	}
	if !strings.Contains(res.Reason, "most confident threshold tested (10: 11 runs, 9 agree)") {
		t.Errorf("Reason = %q", res.Reason)
	}
	// Threshold 1 would pass alone; threshold 10, at 9 of 11 (81.8%),
	// would need thousands of runs.
	if res.PassAlone != 1 || res.NeededAt != 0 || res.Needed.N <= 1000 {
		t.Errorf("PassAlone %d, Needed = %+v at %d; want 1 passing alone and threshold 10 needing > 1000 runs", res.PassAlone, res.Needed, res.NeededAt)
	}
}

func TestCalibrateSkipsThresholdsTooSmallToPass(t *testing.T) {
	// Continuous confidences: the top thresholds cover 1, 2, ... runs and
	// can never pass; they are skipped, not tested and failed.
	var runs []Scored
	for i := 0; i < 40; i++ {
		runs = append(runs, Scored{Confidence: float64(100 - i), Agree: true})
	}
	res, err := Calibrate(runs, Target{Agreement: 0.9, Risk: 0.1})
	if err != nil {
		t.Fatal(err)
	}
	// 0.1^(1/21) = 0.8960 < 0.9 <= 0.1^(1/22) = 0.9006.
	if res.MinCovered != 22 {
		t.Fatalf("MinCovered = %d, want 22", res.MinCovered)
	}
	for i, p := range res.Points {
		if p.Tested != (p.Covered >= 22) {
			t.Errorf("Points[%d] covering %d: tested %v", i, p.Covered, p.Tested)
		}
	}
	if !res.Met || res.Covered != 40 || res.Threshold != 61 {
		t.Fatalf("met %v covered %d threshold %v; want all 40 from 61", res.Met, res.Covered, res.Threshold)
	}
}

func TestCalibrateTooFewRunsSaysHowManyAreNeeded(t *testing.T) {
	runs := runsOf(group{3, 9, 9}, group{1, 6, 5})
	res, err := Calibrate(runs, Target{Agreement: 0.9, Risk: 0.1})
	if err != nil {
		t.Fatal(err)
	}
	if res.Met {
		t.Fatal("met with 15 runs; 22 are needed")
	}
	if !strings.Contains(res.Reason, "15 runs with both depths") || !strings.Contains(res.Reason, "at least 22") {
		t.Errorf("Reason = %q", res.Reason)
	}
	// At threshold 3 (9 of 9, coverage 9/15) a perfect record needs 22
	// covered runs, so ceil(22 x 15/9) = 37 calibration runs; at 1 (14 of
	// 15) the bound at 0.9333 needs more.
	if res.NeededAt != 0 || res.Needed.N != 37 {
		t.Errorf("Needed = %+v at %d; want 37 at threshold 3", res.Needed, res.NeededAt)
	}
}

func TestCalibrateUnreachableTarget(t *testing.T) {
	runs := runsOf(group{2, 30, 24}, group{1, 30, 20})
	res, err := Calibrate(runs, Target{Agreement: 0.9, Risk: 0.1})
	if err != nil {
		t.Fatal(err)
	}
	if res.Met || res.NeededAt != -1 || !strings.Contains(res.Needed.Reason, "not more runs") {
		t.Fatalf("met %v, needed %+v at %d; want unreachable", res.Met, res.Needed, res.NeededAt)
	}
}

func TestCalibrateRejectsBadInput(t *testing.T) {
	for _, tg := range []Target{{0, 0.1}, {1, 0.1}, {0.9, 0}, {0.9, 1}, {math.NaN(), 0.1}} {
		if _, err := Calibrate(nil, tg); err == nil {
			t.Errorf("Calibrate accepted target %+v", tg)
		}
	}
	if _, err := Calibrate([]Scored{{Confidence: math.Inf(1)}}, Target{0.9, 0.1}); err == nil {
		t.Error("Calibrate accepted an infinite confidence")
	}
	res, err := Calibrate(nil, Target{0.9, 0.1})
	if err != nil || res.Met || res.Reason == "" {
		t.Errorf("Calibrate(no runs) = %+v, %v; want not met with a reason", res, err)
	}
}

// The chosen threshold's certified bound always reaches the target, every
// tested point before it passed, and the curve is cumulative.
func TestCalibrateInvariants(t *testing.T) {
	for seed := uint64(1); seed <= 200; seed++ {
		runs := simulate(newRand(seed), 50+int(seed)*3, informative)
		tg := Target{Agreement: []float64{0.8, 0.9, 0.95}[seed%3], Risk: []float64{0.1, 0.05}[seed%2]}
		res, err := Calibrate(runs, tg)
		if err != nil {
			t.Fatal(err)
		}
		prevCov, prevThr := 0, math.Inf(1)
		for i, p := range res.Points {
			if p.Covered <= prevCov || p.Threshold >= prevThr || p.Matches > p.Covered {
				t.Fatalf("seed %d: point %d %+v does not extend the curve", seed, i, p)
			}
			prevCov, prevThr = p.Covered, p.Threshold
			if res.Met && i <= res.Chosen && p.Tested && !p.Passed {
				t.Fatalf("seed %d: point %d failed before the chosen %d", seed, i, res.Chosen)
			}
		}
		if res.Met {
			if res.AgreementLower < tg.Agreement || !res.Agreement.Contains(float64(res.Matches)/float64(res.Covered)) {
				t.Fatalf("seed %d: chosen bound %v under target %v, or interval %+v", seed, res.AgreementLower, tg.Agreement, res.Agreement)
			}
			if res.Chosen+1 < len(res.Points) && res.Points[res.Chosen+1].Passed {
				t.Fatalf("seed %d: a lower threshold also passed", seed)
			}
		}
	}
}

func TestCalibrateNeededSaysWhenMoreRunsAreNotThePoint(t *testing.T) {
	// The top 11 agree on 8 (72.7%, under A for good); all 71 agree on 68
	// and would pass alone.
	res, err := Calibrate(runsOf(group{10, 11, 8}, group{1, 60, 60}), Target{Agreement: 0.8, Risk: 0.1})
	if err != nil {
		t.Fatal(err)
	}
	if res.Met || res.PassAlone != 1 || res.NeededAt != -1 || !strings.Contains(res.Needed.Reason, "would pass on their own") {
		t.Fatalf("met %v, PassAlone %d, Needed %+v at %d", res.Met, res.PassAlone, res.Needed, res.NeededAt)
	}
}
