package statistician

import (
	"fmt"
	"math"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// meanOf returns a bootstrap statistic: the mean of x over the indices.
func meanOf(x []float64) func(idx []int) (float64, bool) {
	return func(idx []int) (float64, bool) {
		if len(idx) == 0 {
			return 0, false
		}
		var s float64
		for _, i := range idx {
			s += x[i]
		}
		return s / float64(len(idx)), true
	}
}

// lcgUniform returns a generator of uniform draws in (0, 1) from Knuth's
// MMIX linear congruential generator; deterministic test data, no global
// randomness.
func lcgUniform(seed uint64) func() float64 {
	state := seed
	return func() float64 {
		state = state*6364136223846793005 + 1442695040888963407
		return (float64(state>>11) + 0.5) / (1 << 53)
	}
}

// lcgNormals returns n standard normal draws from lcgUniform and the
// Box-Muller transform.
func lcgNormals(n int, seed uint64) []float64 {
	u := lcgUniform(seed)
	x := make([]float64, n)
	for i := range x {
		x[i] = math.Sqrt(-2*math.Log(u())) * math.Cos(2*math.Pi*u())
	}
	return x
}

func TestQuantileType7MatchesNumpyPercentile(t *testing.T) {
	// numpy.percentile(sample, q) with the default "linear" method; 1e-15.
	r := refs(t).QuantileType7
	s := append([]float64(nil), r.Sample...)
	sort.Float64s(s)
	for _, q := range r.Quantiles {
		checkClose(t, fmt.Sprintf("quantileType7(p=%g)", q.P), quantileType7(s, q.P), q.Q, 1e-15)
	}
}

func TestBootstrapSameSeedSameResult(t *testing.T) {
	x := lcgNormals(50, 1)
	opts := BootstrapOptions{Resamples: 500, Seed: 42}
	a, err := Bootstrap(len(x), meanOf(x), opts)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Bootstrap(len(x), meanOf(x), opts)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(a, b); d != "" {
		t.Errorf("same seed gave different results (-first +second):\n%s", d)
	}
	opts.Seed = 43
	c, err := Bootstrap(len(x), meanOf(x), opts)
	if err != nil {
		t.Fatal(err)
	}
	if c.CI == a.CI {
		t.Errorf("seeds 42 and 43 gave the same interval %+v", a.CI)
	}
}

func TestBootstrapMeanIntervalApproachesNormalTheory(t *testing.T) {
	// For the mean of 400 normal draws the percentile interval should be
	// close to mean ± 1.96 SD/sqrt(n) (population SD; the bootstrap
	// plugs in the n-denominator SD). 5000 resamples: Monte Carlo error
	// on each bound is about 0.004 here; tolerance 0.012.
	x := lcgNormals(400, 7)
	got, err := Bootstrap(len(x), meanOf(x), BootstrapOptions{Resamples: 5000, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	m := mean(x)
	var ss float64
	for _, v := range x {
		ss += (v - m) * (v - m)
	}
	se := math.Sqrt(ss/float64(len(x))) / math.Sqrt(float64(len(x)))
	want := BootstrapResult{Estimate: m, CI: Interval{Lower: m - Z95*se, Upper: m + Z95*se}, Resamples: 5000}
	if d := cmp.Diff(want, got, cmpopts.EquateApprox(0, 0.012)); d != "" {
		t.Errorf("mismatch with normal theory (-want +got):\n%s", d)
	}
}

func TestBootstrapClustersWidenIntervalForCorrelatedItems(t *testing.T) {
	// 20 clusters of 10 identical items: the effective sample size is 20,
	// so the cluster interval is about sqrt(10) times the item interval.
	base := lcgNormals(20, 3)
	x := make([]float64, 0, 200)
	ids := make([]int, 0, 200)
	for c, v := range base {
		for j := 0; j < 10; j++ {
			x = append(x, v)
			ids = append(ids, 100-c) // ids need not be sorted or dense
		}
	}
	items, err := Bootstrap(len(x), meanOf(x), BootstrapOptions{Resamples: 2000, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	clustered, err := Bootstrap(len(x), meanOf(x), BootstrapOptions{Resamples: 2000, Seed: 5, Clusters: ids})
	if err != nil {
		t.Fatal(err)
	}
	ratio := (clustered.CI.Upper - clustered.CI.Lower) / (items.CI.Upper - items.CI.Lower)
	if ratio < 2.5 || ratio > 4 {
		t.Errorf("cluster/item width ratio = %.3f, want about sqrt(10) = 3.16 (items %+v, clusters %+v)", ratio, items, clustered)
	}
}

func TestBootstrapSkipsUndefinedResamples(t *testing.T) {
	// The statistic is undefined when item 0 is absent from a resample:
	// P(absent) = (1 - 1/n)^n, about 0.349 for n = 20.
	x := lcgNormals(20, 11)
	stat := func(idx []int) (float64, bool) {
		for _, i := range idx {
			if i == 0 {
				return meanOf(x)(idx)
			}
		}
		return 0, false
	}
	got, err := Bootstrap(len(x), stat, BootstrapOptions{Resamples: 4000, Seed: 9})
	if err != nil {
		t.Fatal(err)
	}
	frac := float64(got.Resamples) / 4000
	if want := 1 - math.Pow(0.95, 20); math.Abs(frac-want) > 0.03 || got.Reason != "" {
		t.Errorf("defined fraction %.3f (reason %q), want about %.3f", frac, got.Reason, want)
	}
}

func TestBootstrapReasonsWhenNoIntervalCanBeFormed(t *testing.T) {
	never := func([]int) (float64, bool) { return 0, false }
	got, err := Bootstrap(5, never, BootstrapOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Reason == "" || got.CI != (Interval{}) {
		t.Errorf("undefined statistic gave %+v, want a reason", got)
	}
	onlyOriginal := func(idx []int) (float64, bool) {
		for i, v := range idx {
			if v != i {
				return math.NaN(), true
			}
		}
		return 1, true
	}
	got, err = Bootstrap(30, onlyOriginal, BootstrapOptions{Resamples: 50})
	if err != nil {
		t.Fatal(err)
	}
	want := BootstrapResult{Estimate: 1, Reason: "insufficient data: the statistic was defined on 0 of 50 resamples, need at least 2"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("mismatch (-want +got):\n%s", d)
	}
}

func TestBootstrapRejectsBadOptions(t *testing.T) {
	stat := meanOf([]float64{1, 2, 3})
	for name, c := range map[string]struct {
		n    int
		stat func([]int) (float64, bool)
		opts BootstrapOptions
	}{
		"no items":           {0, stat, BootstrapOptions{}},
		"nil stat":           {3, nil, BootstrapOptions{}},
		"negative resamples": {3, stat, BootstrapOptions{Resamples: -1}},
		"too many resamples": {3, stat, BootstrapOptions{Resamples: MaxBootstrapResamples + 1}},
		"level 1":            {3, stat, BootstrapOptions{Level: 1}},
		"level NaN":          {3, stat, BootstrapOptions{Level: math.NaN()}},
		"short clusters":     {3, stat, BootstrapOptions{Clusters: []int{1, 2}}},
	} {
		if _, err := Bootstrap(c.n, c.stat, c.opts); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestBootstrapDefaultsAreThousandResamplesAt95(t *testing.T) {
	x := lcgNormals(30, 2)
	def, err := Bootstrap(len(x), meanOf(x), BootstrapOptions{Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	explicit, err := Bootstrap(len(x), meanOf(x), BootstrapOptions{Seed: 3, Resamples: 1000, Level: 0.95})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(explicit, def); d != "" || def.Resamples != 1000 {
		t.Errorf("defaults differ from 1000 resamples at 0.95 (-explicit +default):\n%s", d)
	}
}
