package statistician

import (
	"math"
	"math/rand/v2"
	"testing"
)

// plantedBiasRuns draws n runs of four slices with log-normal output
// lengths (median e^6 = 403 characters, log sd 0.7), a third of them by
// the judge's own family, and a light - deep score gap that grows by
// lengthEffect per unit of log length, with noise whose spread grows
// with the distance from the median length (the heteroskedasticity HC3
// is for). The lenient verdict's probability grows by lengthEffect*1.5
// per unit of log length from 0.12.
func plantedBiasRuns(rng *rand.Rand, n int, lengthEffect float64) []BiasRun {
	slices := []string{"a", "b", "c", "d"}
	sliceGap := map[string]float64{"a": 0, "b": 0.02, "c": -0.03, "d": 0.05}
	runs := make([]BiasRun, n)
	for i := range runs {
		s := slices[rng.IntN(len(slices))]
		logLen := 6 + 0.7*rng.NormFloat64()
		same := rng.Float64() < 1.0/3
		family := 0.0
		if same {
			family = 0.03
		}
		d := logLen - 6
		sd := 0.1 + 0.1*math.Abs(d)
		deep := 0.6 + 0.2*rng.NormFloat64()
		gap := 0.05 + sliceGap[s] + family + lengthEffect*d + sd*rng.NormFloat64()
		pLenient := math.Min(1, math.Max(0, 0.12+1.5*lengthEffect*d))
		lenient := rng.Float64() < pLenient
		runs[i] = BiasRun{
			LightScore: deep + gap, DeepScore: deep,
			LightPass: lenient || rng.Float64() < 0.5, DeepPass: !lenient && rng.Float64() < 0.6,
			Length: math.Exp(logLen), SameFamily: same, Slice: s,
		}
		if lenient {
			runs[i].LightPass, runs[i].DeepPass = true, false
		} else if runs[i].LightPass && !runs[i].DeepPass {
			runs[i].DeepPass = true
		}
	}
	return runs
}

// TestBiasRegressionPower plants a length effect in 1,000 simulated data
// sets of 400 runs and checks the log_length coefficient is significant
// at 5% in at least 90% of them, for the score gap and for leniency; and
// with no effect planted (same design, same heteroskedastic noise) in at
// most 5.5%.
func TestBiasRegressionPower(t *testing.T) {
	if testing.Short() {
		t.Skip("simulation: 4 x 1,000 regressions")
	}
	const sims, n = 1000, 400
	for _, c := range []struct {
		name   string
		effect float64
		min    float64
		max    float64
	}{
		{"planted 0.06 per log length", 0.06, 0.90, 1},
		{"null", 0, 0, 0.055},
	} {
		rng := rand.New(rand.NewPCG(29, uint64(c.effect*1000)))
		var gapHits, lenHits int
		for range sims {
			b := BiasRegression(plantedBiasRuns(rng, n, c.effect), 0.95)
			if b.ScoreGap.Reason != "" || b.Leniency.Reason != "" {
				t.Fatalf("%s: %q %q", c.name, b.ScoreGap.Reason, b.Leniency.Reason)
			}
			g, _ := b.ScoreGap.Coefficient(BiasLogLength)
			l, _ := b.Leniency.Coefficient(BiasLogLength)
			if g.P < 0.05 {
				gapHits++
			}
			if l.P < 0.05 {
				lenHits++
			}
		}
		gap, len := float64(gapHits)/sims, float64(lenHits)/sims
		t.Logf("%s: log_length significant at 5%% in %.1f%% (score gap) and %.1f%% (leniency) of %d simulations", c.name, 100*gap, 100*len, sims)
		for _, r := range []float64{gap, len} {
			if r < c.min || r > c.max {
				t.Errorf("%s: rejection rate %.3f outside [%.3f, %.3f]", c.name, r, c.min, c.max)
			}
		}
	}
}
