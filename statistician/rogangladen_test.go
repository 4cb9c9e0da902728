package statistician

import (
	"math"
	"strings"
	"testing"
)

func TestRoganGladenHandWorked(t *testing.T) {
	// Se = 40/48 = 0.83333, Sp = 140/152 = 0.92105, J = 0.75439;
	// p_obs = (40 + 12 + 700)/2000 = 0.376;
	// p = (0.376 + 0.9210526 - 1)/0.7543860 = 0.2970526/0.7543860 = 0.393767.
	r := RoganGladen(PassCounts{BothPass: 40, LightOnly: 12, DeepOnly: 8, NeitherPass: 140}, 700, 1800, BootstrapOptions{Seed: 3})
	if r.Reason != "" || math.Abs(r.Value-0.393767) > 1e-6 || math.Abs(r.YoudenJ-0.75439) > 5e-6 {
		t.Fatalf("RoganGladen = %+v", r)
	}
	if !r.CI.Contains(r.Value) || r.CI.Lower < 0 || r.CI.Upper > 1 || !(r.SE > 0) || r.Resamples != 1000 {
		t.Errorf("interval %+v SE %v resamples %d", r.CI, r.SE, r.Resamples)
	}
	if r.NLabelled != 200 || r.NUnlabelled != 1800 || r.Method != MethodRoganGladen || r.Level != 0.95 {
		t.Errorf("bookkeeping %+v", r.Estimate)
	}
	// With no light-only runs the correction is exactly the labelled deep
	// rate: with P = a+c deep passes and Q = b+d non-passes,
	// ((a+b)/n - b/Q)/(a/P - b/Q) = ((aQ - bP)/(nQ))/((aQ - bP)/(PQ)) = P/n.
	lab := PassCounts{BothPass: 40, LightOnly: 12, DeepOnly: 8, NeitherPass: 140}
	only := RoganGladen(lab, 0, 0, BootstrapOptions{Seed: 3})
	if math.Abs(only.Value-48.0/200) > 1e-15 {
		t.Errorf("labelled runs only: %v, want 48/200", only.Value)
	}
	// The light-only runs are resampled too: ten times as many at light's
	// same pass share must narrow the interval.
	large := RoganGladen(lab, 468, 1800, BootstrapOptions{Seed: 3})
	larger := RoganGladen(lab, 4680, 18000, BootstrapOptions{Seed: 3})
	if large.Value != larger.Value || !(large.CI.Upper-large.CI.Lower > larger.CI.Upper-larger.CI.Lower) {
		t.Errorf("2000 runs gave %v %+v, 18200 runs %v %+v", large.Value, large.CI, larger.Value, larger.CI)
	}
}

func TestRoganGladenIsReproducibleFromItsSeed(t *testing.T) {
	lab := PassCounts{BothPass: 18, LightOnly: 3, DeepOnly: 2, NeitherPass: 77}
	a := RoganGladen(lab, 410, 1900, BootstrapOptions{Seed: 11})
	b := RoganGladen(lab, 410, 1900, BootstrapOptions{Seed: 11})
	c := RoganGladen(lab, 410, 1900, BootstrapOptions{Seed: 12})
	if a != b {
		t.Errorf("same seed, different results: %+v vs %+v", a, b)
	}
	if a.CI == c.CI {
		t.Errorf("different seeds, identical interval %+v", a.CI)
	}
}

func TestRoganGladenRefusesAVerdictThatDoesNotSeparate(t *testing.T) {
	// Light's verdict is independent of deep's: J = 0.
	r := RoganGladen(PassCounts{BothPass: 25, LightOnly: 25, DeepOnly: 25, NeitherPass: 25}, 500, 1000, BootstrapOptions{})
	if !strings.Contains(r.Reason, "barely separates") || r.Value != 0 || r.CI != (Interval{}) {
		t.Errorf("J = 0: %+v", r)
	}
	if r.Sensitivity != 0.5 || r.Specificity != 0.5 || r.YoudenJ != 0 {
		t.Errorf("Se/Sp/J not reported with the reason: %+v", r)
	}
	// J = 0.4 on 10 runs: too uncertain to divide by.
	r = RoganGladen(PassCounts{BothPass: 3, LightOnly: 1, DeepOnly: 2, NeitherPass: 4}, 50, 100, BootstrapOptions{})
	if r.Reason == "" || r.YoudenJLower > MinYoudenJ {
		t.Errorf("J = 0.4 on 10 runs: %+v", r)
	}
}

func TestRoganGladenBadInput(t *testing.T) {
	good := PassCounts{BothPass: 40, LightOnly: 12, DeepOnly: 8, NeitherPass: 140}
	for name, r := range map[string]RoganGladenEstimate{
		"no deep pass":     RoganGladen(PassCounts{LightOnly: 3, NeitherPass: 40}, 5, 10, BootstrapOptions{}),
		"all deep pass":    RoganGladen(PassCounts{BothPass: 30, DeepOnly: 4}, 5, 10, BootstrapOptions{}),
		"negative":         RoganGladen(PassCounts{BothPass: -1, NeitherPass: 4}, 5, 10, BootstrapOptions{}),
		"pass > runs":      RoganGladen(good, 11, 10, BootstrapOptions{}),
		"clusters":         RoganGladen(good, 5, 10, BootstrapOptions{Clusters: []int{1}}),
		"level":            RoganGladen(good, 5, 10, BootstrapOptions{Level: 2}),
		"resamples":        RoganGladen(good, 5, 10, BootstrapOptions{Resamples: -1}),
		"empty everything": RoganGladen(PassCounts{}, 0, 0, BootstrapOptions{}),
	} {
		if r.Reason == "" || r.Value != 0 || r.CI != (Interval{}) {
			t.Errorf("%s: want a reason and no numbers, got %+v", name, r)
		}
	}
}
