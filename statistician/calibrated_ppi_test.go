package statistician

import (
	"math"
	"math/rand/v2"
	"testing"
)

// calibratedSetting is a population for the calibrated-predictor
// simulation: light's prediction f and the probability of a deep pass
// given f.
type calibratedSetting struct {
	name string
	draw func(rng *rand.Rand) (f, y float64)
}

func bern(rng *rand.Rand, p float64) float64 {
	if rng.Float64() < p {
		return 1
	}
	return 0
}

var calibratedSettings = []calibratedSetting{
	// Calibrated already: f is the probability of a pass.
	{"calibrated", func(rng *rand.Rand) (float64, float64) { f := rng.Float64(); return f, bern(rng, f) }},
	// A step: deep passes mostly above 0.8 only (light too lenient).
	{"lenient step", func(rng *rand.Rand) (float64, float64) {
		f := rng.Float64()
		return f, bern(rng, map[bool]float64{true: 0.9, false: 0.15}[f > 0.8])
	}},
	// An LLM judge scoring 0, 50 or 100 whose middle means little.
	{"three-level judge", func(rng *rand.Rand) (float64, float64) {
		f := []float64{0, 0.5, 1}[rng.IntN(3)]
		return f, bern(rng, map[float64]float64{0: 0.1, 0.5: 0.15, 1: 0.8}[f])
	}},
	// Strong but squashed: the pass probability is a steep logistic in f.
	{"steep logistic", func(rng *rand.Rand) (float64, float64) {
		f := rng.Float64()
		return f, bern(rng, 1/(1+math.Exp(-25*(f-0.6))))
	}},
}

// TestCalibratedPPIIsNotWider simulates uniform deep subsets of 10% of
// 5,000 runs (1,000 datasets per setting) and compares PPI++ with light's
// fixed forecast, with the cross-fitted isotonic predictor, and
// PPIMeanOfRunsCalibrated (the one of the two with the smaller SE): the
// calibrated one must cover the mean over the runs 93.5-96.5% and must
// not be wider on average (see the log for by how much).
func TestCalibratedPPIIsNotWider(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("calibrated-predictor simulation: 4 x 1,000 datasets of 5,000 runs")
	}
	const N, n, datasets = 5000, 500, 1000
	for i, s := range calibratedSettings {
		rng := rand.New(rand.NewPCG(uint64(300+i), 5))
		var cover [3]int
		var width [3]float64
		f, y := make([]float64, N), make([]float64, N)
		for range datasets {
			truth := 0.0
			for j := range f {
				f[j], y[j] = s.draw(rng)
				truth += y[j] / N
			}
			// The runs are exchangeable: label the first n.
			gl, gu, ok := CrossFitIsotonic(f[:n], y[:n], f[n:])
			if !ok {
				t.Fatal("cross-fit failed")
			}
			for k, e := range []Estimate{PPIMeanOfRuns(y[:n], f[:n], f[n:], 0.95), PPIMeanOfRuns(y[:n], gl, gu, 0.95),
				PPIMeanOfRunsCalibrated(y[:n], f[:n], f[n:], 0.95)} {
				e = e.ClampTo(0, 1)
				if e.CI.Contains(truth) {
					cover[k]++
				}
				width[k] += (e.CI.Upper - e.CI.Lower) / 2 / datasets
			}
		}
		t.Logf("%s: fixed map covers %.1f%% ± %.4f, isotonic %.1f%% ± %.4f (%.2fx), calibrated (the narrower) %.1f%% ± %.4f (%.2fx)", s.name,
			100*float64(cover[0])/datasets, width[0], 100*float64(cover[1])/datasets, width[1], width[1]/width[0],
			100*float64(cover[2])/datasets, width[2], width[2]/width[0])
		// The fixed map alone under-covers a little where lambda is
		// clipped at 1 (steep logistic: 92.9% here, 93.6% on 2,000
		// datasets): checked for the estimator the report gives.
		if c := float64(cover[2]) / datasets; c < 0.935 || c > 0.965 {
			t.Errorf("%s: calibrated PPI++ covers %.1f%%", s.name, 100*c)
		}
		if width[2] > width[0] {
			t.Errorf("%s: calibrated PPI++ mean half-width %.4f above the fixed map's %.4f", s.name, width[2], width[0])
		}
	}
}
