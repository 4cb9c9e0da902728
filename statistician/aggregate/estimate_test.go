package aggregate

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/evalcal/evalcal/comparator"
	"github.com/evalcal/evalcal/inspection"
	"github.com/evalcal/evalcal/statistician"
)

// savedLabelsInput is a calibration whose deep labels came from a saved
// file: pi is known on the labelled runs only, 0.1 where light passes and
// 0.4 elsewhere, and the alphabetically first run is unlabelled when
// firstUnlabelled.
func savedLabelsInput(seed uint64, firstUnlabelled bool) Input {
	rng := rand.New(rand.NewPCG(seed, 7))
	in := Input{Pi: map[string]float64{}, Design: "the runs the deep source covers"}
	for i := range 400 {
		id := fmt.Sprintf("run-%04d", i)
		deepPass := rng.Float64() < 0.4
		lightPass := rng.Float64() < map[bool]float64{true: 0.85, false: 0.3}[deepPass]
		score := map[bool]float64{true: 80, false: 35}[lightPass] + 10*rng.Float64()
		lv, dv := inspection.VerdictFail, inspection.VerdictFail
		if lightPass {
			lv = inspection.VerdictPass
		}
		if deepPass {
			dv = inspection.VerdictPass
		}
		pi := map[bool]float64{true: 0.1, false: 0.4}[lightPass]
		labelled := rng.Float64() < pi
		if i == 0 {
			labelled = !firstUnlabelled
		}
		if !labelled {
			in.LightOnly = append(in.LightOnly, LightOnlyRun{RunID: id, System: "s", LightVerdict: lv,
				Light: comparator.Scores{RuntimeFidelity: score, TaskEffectiveness: score}})
			continue
		}
		in.Pi[id] = pi
		ds := map[bool]float64{true: 85, false: 30}[deepPass]
		in.Comparisons = append(in.Comparisons, comparator.Comparison{RunID: id, System: "s", LightVerdict: lv, DeepVerdict: dv,
			VerdictMatch: lv == dv, Light: comparator.Scores{RuntimeFidelity: score, TaskEffectiveness: score},
			Deep: comparator.Scores{RuntimeFidelity: ds, TaskEffectiveness: ds}})
	}
	return in
}

// TestUnequalSavedProbabilitiesGiveIPWWhicheverRunComesFirst is issue
// 20's bug at the aggregate level: the design was read from the first
// run's pi only, so with an unlabelled first run (no pi) the subset was
// taken as uniform, classical and PPI++ were reported valid and IPW was
// not computed.
func TestUnequalSavedProbabilitiesGiveIPWWhicheverRunComesFirst(t *testing.T) {
	for _, first := range []bool{true, false} {
		e := estimate(savedLabelsInput(3, first))
		for name, s := range map[string]EstimateSet{"pass rate": e.PassRate, "runtime fidelity": e.RuntimeFidelity} {
			if s.IPW == nil || s.IPW.Reason != "" || s.IPW.Point == nil {
				t.Fatalf("first unlabelled %v, %s: IPW %+v", first, name, s.IPW)
			}
			if s.Classical.Reason == "" || s.PPI.Reason == "" || s.RoganGladen != nil {
				t.Errorf("first unlabelled %v, %s: classical %q, PPI++ %q, Rogan-Gladen %v: want not valid", first, name,
					s.Classical.Reason, s.PPI.Reason, s.RoganGladen)
			}
		}
		if e.Best == nil || e.Best.Method != statistician.MethodIPW {
			t.Errorf("first unlabelled %v: best %+v, want ipw", first, e.Best)
		}
	}
}

// TestIPWNeedsEveryLabelledRunsProbability: a labelled run without a
// recorded pi leaves IPW undefined with the reason, and the others stay
// not valid when the recorded ones differ; nothing is quoted as best.
func TestIPWNeedsEveryLabelledRunsProbability(t *testing.T) {
	in := savedLabelsInput(4, true)
	delete(in.Pi, in.Comparisons[0].RunID)
	e := estimate(in)
	if e.PassRate.IPW == nil || e.PassRate.IPW.Reason == "" || e.PassRate.IPW.Point != nil {
		t.Errorf("IPW %+v, want a reason", e.PassRate.IPW)
	}
	if e.PassRate.Classical.Reason == "" || e.Best != nil {
		t.Errorf("classical %q, best %+v: want not valid and no best", e.PassRate.Classical.Reason, e.Best)
	}
}

// TestEqualSavedProbabilitiesAreUniform: the same recorded pi on every
// labelled run (and none on the others) is a uniform design.
func TestEqualSavedProbabilitiesAreUniform(t *testing.T) {
	in := savedLabelsInput(5, true)
	for id := range in.Pi {
		in.Pi[id] = 0.2
	}
	e := estimate(in)
	if e.PassRate.IPW != nil || e.PassRate.Classical.Reason != "" || e.PassRate.PPI.Reason != "" {
		t.Errorf("uniform design: IPW %+v, classical %q, PPI++ %q", e.PassRate.IPW, e.PassRate.Classical.Reason, e.PassRate.PPI.Reason)
	}
}

// Small strata join their light verdict's others with the same pi; a
// stratum with no recorded pi takes its verdict's single pi, and stays
// apart when the verdict's strata record two.
func TestPoolBySystem(t *testing.T) {
	labels := func(k int) *statistician.Stratum {
		return &statistician.Stratum{Y: make([]float64, k), FLabelled: make([]float64, k), FUnlabelled: []float64{0.5}}
	}
	byName := map[string]*statistician.Stratum{
		"fail / a": labels(25), "fail / b": labels(3), "fail / c": labels(4), "fail / d": labels(0),
		"pass / a": labels(5), "pass / b": labels(6), "pass / c": labels(0),
	}
	names := []string{"fail / a", "fail / b", "fail / c", "fail / d", "pass / a", "pass / b", "pass / c"}
	for _, n := range names {
		byName[n].Name = n
	}
	pi := map[string]float64{"fail / a": 0.2, "fail / b": 0.2, "fail / c": 0.2, "pass / a": 0.05, "pass / b": 0.1}
	got := map[string]int{}
	for _, s := range poolBySystem(names, byName, pi, false) {
		got[s.Name] = len(s.Y)
	}
	want := map[string]int{"fail / a": 25, "fail / other systems (pi 0.2)": 7, "pass / other systems (pi 0.05)": 5,
		"pass / other systems (pi 0.1)": 6, "pass / c": 0}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("non-uniform: %v, want %v", got, want)
	}
	got = map[string]int{}
	for _, s := range poolBySystem(names, byName, nil, true) {
		got[s.Name] = len(s.Y)
	}
	want = map[string]int{"fail / a": 25, "fail / other systems": 7, "pass / other systems": 11}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("uniform: %v, want %v", got, want)
	}
}
