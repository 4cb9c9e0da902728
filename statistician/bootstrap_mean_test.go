package statistician

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

type idealBootCase struct {
	Name           string    `json:"name"`
	Values         []float64 `json:"values"`
	Counts         []int     `json:"counts"`
	N              int       `json:"n"`
	Mean           float64   `json:"mean"`
	SDOfMean       float64   `json:"sd_of_mean"`
	SkewnessOfMean float64   `json:"skewness_of_mean"`
	Exact          []float64 `json:"exact"`
	CornishFisher  []float64 `json:"cornish_fisher"`
}

func cellsOf(values []float64, counts []int) func(func(float64, int) bool) {
	return func(yield func(float64, int) bool) {
		for i, v := range values {
			if !yield(v, counts[i]) {
				return
			}
		}
	}
}

// Against statistician/testdata/reference/idealboot/idealboot_ref.py
// (numpy 1.24.2, scipy 1.10.1): the Cornish-Fisher quantiles from
// scipy.stats moments must match to rounding, and where the resampled
// mean's skewness is at most 0.1 they must lie within 0.02 standard errors
// (plus one lattice step) of the exact quantiles of the ideal bootstrap,
// computed by FFT convolution of the empirical distribution.
func TestIdealMeanBootstrapMatchesScipyAndTheExactDistribution(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "reference", "idealboot", "idealboot_ref.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ref struct {
		Cases []idealBootCase `json:"cases"`
	}
	if err := json.Unmarshal(data, &ref); err != nil {
		t.Fatal(err)
	}
	if len(ref.Cases) < 5 {
		t.Fatalf("%d cases", len(ref.Cases))
	}
	for _, c := range ref.Cases {
		got, err := IdealMeanBootstrapInterval(cellsOf(c.Values, c.Counts), 0.95)
		if err != nil {
			t.Fatal(err)
		}
		if got.N != c.N || math.Abs(got.Mean-c.Mean) > 1e-12 || math.Abs(got.Skewness-c.SkewnessOfMean) > 1e-9 {
			t.Errorf("%s: n %d mean %v skewness %v, want %d %v %v", c.Name, got.N, got.Mean, got.Skewness, c.N, c.Mean, c.SkewnessOfMean)
		}
		for i, q := range []float64{got.CI.Lower, got.CI.Upper} {
			if math.Abs(q-c.CornishFisher[i]) > 1e-12 {
				t.Errorf("%s: quantile %d = %.15g, scipy Cornish-Fisher %.15g", c.Name, i, q, c.CornishFisher[i])
			}
			if math.Abs(got.Skewness) > 0.1 {
				continue
			}
			step := (c.Values[1] - c.Values[0]) / float64(c.N)
			if d := math.Abs(q - c.Exact[i]); d > 0.02*c.SDOfMean+step {
				t.Errorf("%s: quantile %d = %.10g, exact ideal bootstrap %.10g: off by %.3f standard errors", c.Name, i, q, c.Exact[i], d/c.SDOfMean)
			}
		}
	}
}

// On few cells, where the exact multinomial bootstrap runs cheaply with
// 100,000 resamples (Monte Carlo error 0.016 standard errors at the 2.5%
// quantile), the analytic interval agrees with it.
func TestIdealMeanBootstrapAgreesWithAHundredThousandResamples(t *testing.T) {
	if testing.Short() || raceDetector {
		t.Skip("100,000 resamples (skipped under -short and -race)")
	}
	values := []float64{0, 0.01, 0.04, 0.09, 0.16, 0.25, 0.36, 0.49, 0.64, 0.81}
	counts := []int{3000, 2500, 2000, 1500, 1000, 700, 500, 400, 250, 150}
	mean := func(c []int) (float64, bool) {
		s, n := 0.0, 0
		for j, x := range c {
			s += float64(x) * values[j]
			n += x
		}
		return s / float64(n), true
	}
	mc, err := BootstrapCounts(counts, mean, BootstrapOptions{Resamples: 100_000, Seed: 12})
	if err != nil {
		t.Fatal(err)
	}
	got, err := IdealMeanBootstrapInterval(cellsOf(values, counts), 0.95)
	if err != nil {
		t.Fatal(err)
	}
	var m2 float64
	n := 0
	for j, c := range counts {
		n += c
		m2 += float64(c) * (values[j] - got.Mean) * (values[j] - got.Mean)
	}
	sd := math.Sqrt(m2/float64(n)) / math.Sqrt(float64(n))
	for i, pair := range [][2]float64{{got.CI.Lower, mc.CI.Lower}, {got.CI.Upper, mc.CI.Upper}} {
		if d := math.Abs(pair[0]-pair[1]) / sd; d > 0.06 {
			t.Errorf("bound %d: analytic %.8g, 100,000 resamples %.8g: %.3f standard errors apart", i, pair[0], pair[1], d)
		}
	}
}

// Coverage of the analytic 95% interval for a mean, by simulation: 2,000
// samples of 10,000 squared errors of a miscalibrated forecaster, whose
// true mean is known in closed form. Binomial error of the coverage with
// 2,000 trials is 0.5 points, so [93.5, 96.5] is three of them.
func TestIdealMeanBootstrapCoverage(t *testing.T) {
	if testing.Short() || raceDetector {
		t.Skip("coverage simulation (skipped under -short and -race)")
	}
	const trials, n = 2000, 10_000
	// p ~ U(0, 1) on a 0.001 grid, y ~ Bernoulli(p^1.5): E[(p - y)^2] =
	// E[p^2 - 2 p^2.5 + p^1.5] = 1/3 - 2/3.5 + 1/2.5 over the continuum; on
	// the grid the mean is the exact average below.
	var truth float64
	for j := 0; j <= 1000; j++ {
		p := float64(j) / 1000
		truth += p*p - 2*math.Pow(p, 2.5) + math.Pow(p, 1.5)
	}
	truth /= 1001
	r := rand.New(rand.NewPCG(21, 21))
	covered := 0
	for range trials {
		cells := map[float64]int{}
		for range n {
			p := float64(r.IntN(1001)) / 1000
			y := 0.0
			if r.Float64() < math.Pow(p, 1.5) {
				y = 1
			}
			cells[(p-y)*(p-y)]++
		}
		keys := make([]float64, 0, len(cells))
		for k := range cells {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		counts := make([]int, len(keys))
		for i, k := range keys {
			counts[i] = cells[k]
		}
		got, err := IdealMeanBootstrapInterval(cellsOf(keys, counts), 0.95)
		if err != nil {
			t.Fatal(err)
		}
		if got.CI.Lower <= truth && truth <= got.CI.Upper {
			covered++
		}
	}
	if pct := 100 * float64(covered) / trials; pct < 93.5 || pct > 96.5 {
		t.Errorf("coverage %.1f%% over %d trials, want 95%% within [93.5, 96.5]", pct, trials)
	} else {
		t.Logf("coverage %.1f%% over %d trials", pct, trials)
	}
}

func TestIdealMeanBootstrapEdgeCases(t *testing.T) {
	got, err := IdealMeanBootstrapInterval(cellsOf([]float64{0.25}, []int{40}), 0.95)
	if err != nil || got.CI.Lower != 0.25 || got.CI.Upper != 0.25 {
		t.Errorf("constant sample: %+v %v, want [0.25, 0.25]", got, err)
	}
	for _, c := range []struct {
		values []float64
		counts []int
		level  float64
	}{
		{nil, nil, 0.95},
		{[]float64{0.1}, []int{0}, 0.95},
		{[]float64{math.NaN()}, []int{3}, 0.95},
		{[]float64{0.1}, []int{3}, 1},
	} {
		if _, err := IdealMeanBootstrapInterval(cellsOf(c.values, c.counts), c.level); err == nil {
			t.Errorf("%v %v level %v: no error", c.values, c.counts, c.level)
		}
	}
}

// Both bootstraps stop within a few resamples of a cancel.
func TestBootstrapsStopWhenCancelled(t *testing.T) {
	counts := make([]int, 1000)
	for i := range counts {
		counts[i] = 10
	}
	stat := func(c []int) (float64, bool) { return float64(c[0]), true }
	idx := func(i []int) (float64, bool) { return float64(i[0]), true }
	for name, run := range map[string]func(ctx context.Context) error{
		"counts": func(ctx context.Context) error {
			_, err := BootstrapCountsContext(ctx, counts, stat, BootstrapOptions{Resamples: 1_000_000})
			return err
		},
		"index": func(ctx context.Context) error {
			_, err := BootstrapContext(ctx, 10_000, idx, BootstrapOptions{Resamples: 1_000_000})
			return err
		},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		start := time.Now()
		err := run(ctx)
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%s: err %v, want the context's error", name, err)
		}
		if lag := time.Since(start) - 20*time.Millisecond; lag > cancelLagBound {
			t.Errorf("%s: stopped %v after the deadline, want under %v", name, lag, cancelLagBound)
		} else {
			t.Logf("%s: stopped %v after the deadline", name, lag)
		}
	}
}

func BenchmarkIdealMeanBootstrap125k(b *testing.B) {
	r := rand.New(rand.NewPCG(2, 2))
	values := make([]float64, 125_000)
	counts := make([]int, len(values))
	for i := range values {
		values[i] = r.Float64() * r.Float64()
		counts[i] = 1
	}
	for b.Loop() {
		if _, err := IdealMeanBootstrapInterval(cellsOf(values, counts), 0.95); err != nil {
			b.Fatal(err)
		}
	}
}
