package statistician

import (
	"context"
	"errors"
	"math"
	"math/bits"
	"math/rand/v2"
	"testing"
)

// BootstrapMeanOfContext's draw (its inner loop's three lines, with
// lemireReject) gives the very sequence rand.Rand.IntN gives from the
// same source, for small n and n near 2^63, where the rejection runs.
func TestLemireDrawIsIntN(t *testing.T) {
	for _, n := range []uint64{3, 7, 1000, 9_999, 1<<20 + 1, 1<<62 + 12345, 1<<63 - 1} {
		want := rand.New(rand.NewPCG(7, n))
		src := rand.NewPCG(7, n)
		for i := range 10_000 {
			hi, lo := bits.Mul64(src.Uint64(), n)
			if lo < n {
				hi = lemireReject(src, n, hi, lo)
			}
			if w := uint64(want.IntN(int(n))); hi != w {
				t.Fatalf("n %d draw %d: %d, IntN %d", n, i, hi, w)
			}
		}
	}
}

// BootstrapMeanOf equals Bootstrap with the mean statistic bit for bit:
// estimate, interval, defined resamples, whatever the seed, size, level
// and resamples; a statistic undefined on some resamples is skipped alike.
func TestBootstrapMeanOfIsBootstrapOfTheMean(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	for _, n := range []int{1, 2, 5, 64, 999, 1000, 4096} {
		items := make([]float64, n)
		for i := range items {
			items[i] = r.Float64() * r.Float64()
		}
		for _, f := range []struct {
			name string
			f    func(float64) float64
		}{
			{"skill", func(m float64) float64 { return 1 - m/0.21 }},
			{"undefined above 0.3", func(m float64) float64 {
				if m > 0.3 {
					return math.NaN()
				}
				return m
			}},
		} {
			for _, opts := range []BootstrapOptions{{}, {Resamples: 333, Seed: 9, Level: 0.9}, {Resamples: 2, Seed: 1 << 40}} {
				want, err := Bootstrap(n, func(idx []int) (float64, bool) {
					s := 0.0
					for _, i := range idx {
						s += items[i]
					}
					v := f.f(s / float64(len(idx)))
					return v, !math.IsNaN(v)
				}, opts)
				if err != nil {
					t.Fatal(err)
				}
				got, err := BootstrapMeanOf(items, f.f, opts)
				if err != nil {
					t.Fatal(err)
				}
				if got != want {
					t.Errorf("n %d %s %+v: %+v, Bootstrap %+v", n, f.name, opts, got, want)
				}
			}
		}
	}
}

func TestBootstrapMeanOfRefuses(t *testing.T) {
	id := func(m float64) float64 { return m }
	for _, c := range []struct {
		name  string
		items []float64
		f     func(float64) float64
		opts  BootstrapOptions
	}{
		{"no items", nil, id, BootstrapOptions{}},
		{"no statistic", []float64{1}, nil, BootstrapOptions{}},
		{"clusters", []float64{1, 2}, id, BootstrapOptions{Clusters: []int{0, 1}}},
		{"negative resamples", []float64{1}, id, BootstrapOptions{Resamples: -1}},
		{"too many resamples", []float64{1}, id, BootstrapOptions{Resamples: MaxBootstrapResamples + 1}},
		{"level", []float64{1}, id, BootstrapOptions{Level: 1}},
	} {
		if _, err := BootstrapMeanOf(c.items, c.f, c.opts); err == nil {
			t.Errorf("%s: no error", c.name)
		}
	}
	res, err := BootstrapMeanOf([]float64{1, 2}, func(float64) float64 { return math.Inf(1) }, BootstrapOptions{})
	if err != nil || res.Reason == "" {
		t.Errorf("undefined on the sample: %+v %v", res, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := BootstrapMeanOfContext(ctx, make([]float64, 5000), id, BootstrapOptions{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

func BenchmarkBootstrapMean(b *testing.B) {
	r := rand.New(rand.NewPCG(5, 5))
	items := make([]float64, 5000)
	for i := range items {
		items[i] = r.Float64()
	}
	f := func(m float64) float64 { return 1 - m/0.25 }
	b.Run("generic", func(b *testing.B) {
		for b.Loop() {
			_, _ = Bootstrap(len(items), func(idx []int) (float64, bool) {
				s := 0.0
				for _, i := range idx {
					s += items[i]
				}
				return f(s / float64(len(idx))), true
			}, BootstrapOptions{})
		}
	})
	b.Run("fused", func(b *testing.B) {
		for b.Loop() {
			_, _ = BootstrapMeanOf(items, f, BootstrapOptions{})
		}
	})
}
