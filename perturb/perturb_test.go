package perturb

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
)

// TestExcessHandWorked: four runs. r1 steady (d 0), r2 flips under the
// perturbation only (d +1), r3 flips on a repeat only (d -1), r4 flips
// both ways (d 0): flip 2/4, noise 2/4, excess 0.
func TestExcessHandWorked(t *testing.T) {
	obs := []Observation{
		{Run: "r2", Base: []string{"pass", "pass", "pass"}, Perturbed: "fail"},
		{Run: "r1", Base: []string{"pass", "pass"}, Perturbed: "pass"},
		{Run: "r3", Base: []string{"fail", "pass"}, Perturbed: "fail"},
		{Run: "r4", Base: []string{"fail", "partial"}, Perturbed: "pass"},
	}
	res, err := Excess(obs, Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if res.N != 4 || res.FlipRate != 0.5 || res.NoiseRate != 0.5 || res.Excess != 0 || res.Significant {
		t.Errorf("result %+v", res)
	}
	if !reflect.DeepEqual(res.Flipped, []string{"r2", "r4"}) {
		t.Errorf("flipped %v, want [r2 r4]", res.Flipped)
	}
	if !(res.CI.Lower < 0 && res.CI.Upper > 0) {
		t.Errorf("interval %+v should straddle 0", res.CI)
	}
	if _, err := Excess([]Observation{{Run: "x", Base: []string{"pass"}}}, Options{}); err == nil {
		t.Error("one unperturbed verdict accepted")
	}
	if _, err := Excess(nil, Options{}); err == nil {
		t.Error("no run accepted")
	}
}

// plantedExec simulates an exec: judge on n runs: each run has a true
// verdict (pass or fail, half each); every call returns the other one
// with probability noise; on a sensitive share of the runs (the first
// round(sensitive n)) the judge's verdict is the other one whenever the
// files are shown shuffled. It returns two unperturbed repeats and one
// perturbed call per run.
func plantedExec(rng *rand.Rand, n int, sensitive, noise float64) []Observation {
	obs := make([]Observation, n)
	nSens := int(sensitive*float64(n) + 0.5)
	call := func(truth bool) string {
		if rng.Float64() < noise {
			truth = !truth
		}
		if truth {
			return "pass"
		}
		return "fail"
	}
	for i := range obs {
		truth := rng.IntN(2) == 0
		pert := truth
		if i < nSens {
			pert = !truth
		}
		obs[i] = Observation{Run: fmt.Sprintf("run-%03d", i), Base: []string{call(truth), call(truth)}, Perturbed: call(pert)}
	}
	return obs
}

// TestExcessPowerAndFalsePositives is the done-when simulation: at n =
// 300 with 3% call noise, a judge whose verdict moves on 10% of the runs
// when their files are shuffled is detected (CI lower bound > 0) in at
// least 80% of 1,000 simulations, and an insensitive one in at most 5%.
func TestExcessPowerAndFalsePositives(t *testing.T) {
	if testing.Short() {
		t.Skip("1,000 simulations of 300 runs: skipped under -short")
	}
	const sims, n, noise = 1000, 300, 0.03
	rng := rand.New(rand.NewPCG(25, 2026))
	detected, falsePos := 0, 0
	for s := 0; s < sims; s++ {
		sens, err := Excess(plantedExec(rng, n, 0.10, noise), Options{Seed: uint64(s), Resamples: 1000})
		if err != nil {
			t.Fatal(err)
		}
		if sens.Significant {
			detected++
		}
		null, err := Excess(plantedExec(rng, n, 0, noise), Options{Seed: uint64(s), Resamples: 1000})
		if err != nil {
			t.Fatal(err)
		}
		if null.Significant {
			falsePos++
		}
	}
	power, fp := float64(detected)/sims, float64(falsePos)/sims
	t.Logf("power %.3f, false positives %.3f (n %d, noise %.2f)", power, fp, n, noise)
	if power < 0.80 {
		t.Errorf("power %.3f < 0.80 for a 10%% order-sensitive judge at n = %d", power, n)
	}
	if fp > 0.05 {
		t.Errorf("false positives %.3f > 0.05 for an insensitive judge", fp)
	}
}
