package statistician

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// TestBinomialSamplerFollowsThePMF draws 200,000 variates per case and
// tests them against the exact pmf (gonum's distuv.Binomial.Prob, an
// independent implementation) with a chi-square goodness-of-fit test at
// alpha = 1e-4, pooling cells with expected count under 5. The seed is
// fixed, so the test is deterministic; a wrong sampler fails it by a wide
// margin (a shift of the mean by 0.5% of an SD over 200,000 draws already
// does for the large cases).
func TestBinomialSamplerFollowsThePMF(t *testing.T) {
	cases := []struct {
		n int
		p float64
	}{
		{10, 0.3},      // inversion
		{100, 0.05},    // inversion, n p = 5
		{59, 0.5},      // inversion, n p = 29.5
		{60, 0.5},      // BTPE at its threshold
		{1000, 0.3},    // BTPE
		{100000, 0.01}, // BTPE, n p = 1000: squeeze and Stirling branches
		{50, 0.9},      // symmetry, inversion
		{5000, 0.97},   // symmetry, BTPE
		{1, 0.5},
	}
	const draws = 200000
	for i, c := range cases {
		s := binomialSampler{rng: rand.New(rand.NewPCG(uint64(i)+1, 99))}
		counts := map[int]int{}
		sum, sumsq := 0.0, 0.0
		for k := 0; k < draws; k++ {
			x := s.draw(c.n, c.p)
			if x < 0 || x > c.n {
				t.Fatalf("n=%d p=%v: draw %d outside [0, n]", c.n, c.p, x)
			}
			counts[x]++
			sum += float64(x)
			sumsq += float64(x) * float64(x)
		}
		pmf := distuv.Binomial{N: float64(c.n), P: c.p}
		chi2, cells := 0.0, 0
		var poolObs, poolExp float64
		flush := func() {
			if poolExp > 0 {
				chi2 += (poolObs - poolExp) * (poolObs - poolExp) / poolExp
				cells++
				poolObs, poolExp = 0, 0
			}
		}
		for x := 0; x <= c.n; x++ {
			poolObs += float64(counts[x])
			poolExp += draws * pmf.Prob(float64(x))
			if poolExp >= 5 {
				flush()
			}
		}
		// Fold a short last pool into the previous cell's statistic by
		// counting it as its own cell only when it has mass.
		flush()
		crit := distuv.ChiSquared{K: float64(cells - 1)}.Quantile(1 - 1e-4)
		if chi2 > crit {
			t.Errorf("n=%d p=%v: chi-square %.1f over %d cells exceeds %.1f", c.n, c.p, chi2, cells, crit)
		}
		mean := sum / draws
		sd := math.Sqrt(float64(c.n) * c.p * (1 - c.p))
		if math.Abs(mean-float64(c.n)*c.p) > 5*sd/math.Sqrt(draws) {
			t.Errorf("n=%d p=%v: mean %.4f, want %.4f", c.n, c.p, mean, float64(c.n)*c.p)
		}
		if v := sumsq/draws - mean*mean; math.Abs(v-sd*sd) > 0.03*sd*sd {
			t.Errorf("n=%d p=%v: variance %.4f, want %.4f", c.n, c.p, v, sd*sd)
		}
	}
}

func TestBinomialSamplerEdges(t *testing.T) {
	s := binomialSampler{rng: rand.New(rand.NewPCG(1, 2))}
	for _, c := range []struct {
		n    int
		p    float64
		want int
	}{{0, 0.5, 0}, {-3, 0.5, 0}, {10, 0, 0}, {10, 1, 10}, {10, -0.1, 0}, {10, 1.5, 10}} {
		if got := s.draw(c.n, c.p); got != c.want {
			t.Errorf("draw(%d, %v) = %d, want %d", c.n, c.p, got, c.want)
		}
	}
}

func BenchmarkBinomialSampler(b *testing.B) {
	s := binomialSampler{rng: rand.New(rand.NewPCG(1, 2))}
	for i := 0; i < b.N; i++ {
		s.draw(27000, 0.0099)
	}
}

func BenchmarkGonumBinomial(b *testing.B) {
	d := distuv.Binomial{N: 27000, P: 0.0099, Src: rand.NewPCG(1, 2)}
	for i := 0; i < b.N; i++ {
		d.Rand()
	}
}
