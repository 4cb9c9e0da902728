package statistician

import (
	"math"
	"testing"
)

func TestBootstrapCountsIsReproducibleFromItsSeed(t *testing.T) {
	counts := []int{5, 0, 12, 3, 40}
	mean := func(c []int) (float64, bool) {
		s, n := 0.0, 0
		for j, x := range c {
			s += float64(j * x)
			n += x
		}
		return s / float64(n), true
	}
	a, err := BootstrapCounts(counts, mean, BootstrapOptions{Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := BootstrapCounts(counts, mean, BootstrapOptions{Seed: 7})
	c, _ := BootstrapCounts(counts, mean, BootstrapOptions{Seed: 8})
	if a != b {
		t.Errorf("same seed, different results: %+v vs %+v", a, b)
	}
	if a == c {
		t.Errorf("different seeds gave the identical result %+v", a)
	}
	if a.Resamples != 1000 || !a.CI.Contains(a.Estimate) {
		t.Errorf("result %+v", a)
	}
}

// The resampled counts are Multinomial(n, counts/n): each cell's mean is
// its count and its variance n p (1 - p), and every resample holds n.
func TestBootstrapCountsDrawsTheMultinomial(t *testing.T) {
	counts := []int{1, 30, 200, 7, 62}
	n := 300
	const R = 20000
	sum := make([]float64, len(counts))
	sumsq := make([]float64, len(counts))
	stat := func(c []int) (float64, bool) {
		tot := 0
		for j, x := range c {
			sum[j] += float64(x)
			sumsq[j] += float64(x * x)
			tot += x
		}
		if tot != n {
			t.Fatalf("resample holds %d items, want %d", tot, n)
		}
		return 0, true
	}
	if _, err := BootstrapCounts(counts, stat, BootstrapOptions{Resamples: R, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	for j, c := range counts {
		// the estimate call adds counts once; remove it
		m := (sum[j] - float64(c)) / R
		v := (sumsq[j]-float64(c*c))/R - m*m
		p := float64(c) / float64(n)
		wantV := float64(n) * p * (1 - p)
		if se := math.Sqrt(wantV / R); math.Abs(m-float64(c)) > 5*se+1e-9 {
			t.Errorf("cell %d: mean %.3f, want %d (se %.3f)", j, m, c, se)
		}
		if math.Abs(v-wantV) > 0.05*wantV+0.05 {
			t.Errorf("cell %d: variance %.3f, want %.3f", j, v, wantV)
		}
	}
}

// For a statistic of cell counts, the cell bootstrap and the index
// bootstrap estimate the same interval (up to Monte Carlo error).
func TestBootstrapCountsMatchesIndexBootstrapInDistribution(t *testing.T) {
	values := []float64{0.01, 0.09, 0.25, 0.49, 0.81}
	counts := []int{40, 25, 10, 15, 10}
	var items []float64
	for j, c := range counts {
		for k := 0; k < c; k++ {
			items = append(items, values[j])
		}
	}
	byIndex := func(idx []int) (float64, bool) {
		s := 0.0
		for _, i := range idx {
			s += items[i]
		}
		return s / float64(len(idx)), true
	}
	byCount := func(c []int) (float64, bool) {
		s, n := 0.0, 0
		for j, x := range c {
			s += float64(x) * values[j]
			n += x
		}
		return s / float64(n), true
	}
	opts := BootstrapOptions{Resamples: 40000, Seed: 11}
	a, err := Bootstrap(len(items), byIndex, opts)
	if err != nil {
		t.Fatal(err)
	}
	b, err := BootstrapCounts(counts, byCount, opts)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(a.Estimate-b.Estimate) > 1e-12 {
		t.Errorf("estimates differ: %v vs %v", a.Estimate, b.Estimate)
	}
	width := a.CI.Upper - a.CI.Lower
	if math.Abs(a.CI.Lower-b.CI.Lower) > 0.03*width || math.Abs(a.CI.Upper-b.CI.Upper) > 0.03*width {
		t.Errorf("index bootstrap %+v and cell bootstrap %+v differ by more than 3%% of the width", a.CI, b.CI)
	}
}

func TestBootstrapCountsRejectsBadInput(t *testing.T) {
	ok := func(c []int) (float64, bool) { return 0, true }
	for _, tc := range []struct {
		counts []int
		stat   func([]int) (float64, bool)
		opts   BootstrapOptions
	}{
		{nil, ok, BootstrapOptions{}},
		{[]int{0, 0}, ok, BootstrapOptions{}},
		{[]int{1, -1}, ok, BootstrapOptions{}},
		{[]int{1}, nil, BootstrapOptions{}},
		{[]int{1}, ok, BootstrapOptions{Clusters: []int{1}}},
		{[]int{1}, ok, BootstrapOptions{Level: 1.5}},
		{[]int{1}, ok, BootstrapOptions{Resamples: -1}},
	} {
		if _, err := BootstrapCounts(tc.counts, tc.stat, tc.opts); err == nil {
			t.Errorf("BootstrapCounts(%v, opts %+v) = nil error", tc.counts, tc.opts)
		}
	}
}
