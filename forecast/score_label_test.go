package forecast

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/evalcal/evalcal/statistician"
)

// modelGroup returns n forecasts of one agent: Beta(2, 2) probabilities
// (the median of three uniforms) rounded to decimals places (-1: not at
// all), outcomes drawn from 0.5 + skill (p - 0.5), or, with rare > 0, a
// forecaster of rare events: p/rare, outcomes from p/rare (1 + skill).
func modelGroup(n, decimals int, skill float64, rare float64, seed uint64) statistician.SortedBinary {
	r := rand.New(rand.NewPCG(seed, 7))
	var s statistician.BinarySample
	for range n {
		u := [3]float64{r.Float64(), r.Float64(), r.Float64()}
		p := max(min(u[0], u[1]), min(max(u[0], u[1]), u[2]))
		truth := min(max(0.5+skill*(p-0.5), 0), 1)
		if rare > 0 {
			p /= rare
			truth = p * (1 + skill)
		}
		if decimals >= 0 {
			p = math.Round(p*math.Pow10(decimals)) / math.Pow10(decimals)
		}
		y := 0
		if r.Float64() < truth {
			y = 1
		}
		_ = s.Add(p, y)
	}
	t, _ := s.Sorted(context.Background())
	return t
}

func baseRateOf(t statistician.SortedBinary) float64 { return float64(t.Hits()) / float64(t.N()) }

// skillIntervalOf is skillInterval as scoreBinary calls it.
func skillIntervalOf(t statistician.SortedBinary, b float64, opts ScoreOptions) (statistician.Interval, string, string, error) {
	m, err := t.Murphy()
	if err != nil {
		return statistician.Interval{}, "", "", err
	}
	return skillInterval(context.Background(), t, t.ErrorMoments(m.Brier), b, opts)
}

// The method follows the documented rule: the multinomial where it is
// the cheaper way (at most 16 distinct squared errors, or at most 1,024
// holding 48 forecasts each on average); else Cornish-Fisher from
// MinIdealBootstrapForecasts on unless the resampled mean is too skewed;
// else the index bootstrap.
func TestSkillIntervalMethodFollowsTheRule(t *testing.T) {
	for _, c := range []struct {
		name string
		t    statistician.SortedBinary
		want string
	}{
		{"stated confidences, 50,000", modelGroup(50_000, 2, 0.8, 0, 1), BootstrapMultinomial},
		{"stated confidences, 10,000 (140 cells: 71 forecasts a cell)", modelGroup(10_000, 2, 0.8, 0, 7), BootstrapMultinomial},
		{"stated confidences, 2,000 (137 cells: 15 forecasts a cell)", modelGroup(2000, 2, 0.8, 0, 8), BootstrapCornishFisher},
		{"stated confidences, 500", modelGroup(500, 2, 0.8, 0, 9), BootstrapIndex},
		{"one decimal, 30 (at most 11 cells)", modelGroup(30, 1, 0.8, 0, 10), BootstrapMultinomial},
		{"3 decimals, 300", modelGroup(300, 3, 0.8, 0, 2), BootstrapIndex},
		{"3 decimals, 40,000 (over 1,024 cells)", modelGroup(40_000, 3, 0.8, 0, 11), BootstrapCornishFisher},
		{"continuous, 999", modelGroup(MinIdealBootstrapForecasts-1, -1, 0.8, 0, 3), BootstrapIndex},
		{"continuous, 1,000", modelGroup(MinIdealBootstrapForecasts, -1, 0.8, 0, 4), BootstrapCornishFisher},
		{"4 decimals, 30,000", modelGroup(30_000, 4, 0.5, 0, 5), BootstrapCornishFisher},
		{"rare events (0.25%), 12,000", modelGroup(12_000, -1, 0, 200, 6), BootstrapIndex},
	} {
		_, method, reason, err := skillIntervalOf(c.t, baseRateOf(c.t), DefaultScoreOptions())
		if err != nil || reason != "" {
			t.Fatalf("%s: %v %s", c.name, err, reason)
		}
		if method != c.want {
			m, _ := c.t.Murphy()
			t.Errorf("%s: method %s, want %s (%d forecasts, %d distinct squared errors)", c.name, method, c.want, c.t.N(), c.t.ErrorMoments(m.Brier).Distinct)
		}
	}
}

// cellGroup is a group of k distinct squared errors, cell j holding
// repeats(j) forecasts: p = j/(8k), outcome j mod 2, so the squared errors
// p^2 (under 1/64) and (1-p)^2 (over 3/4) never meet.
func cellGroup(k int, repeats func(j int) int) statistician.SortedBinary {
	var s statistician.BinarySample
	for j := 1; j <= k; j++ {
		for range repeats(j) {
			_ = s.Add(float64(j)/float64(8*k), j%2)
		}
	}
	t, _ := s.Sorted(context.Background())
	return t
}

// The rule at each of its edges, on groups built cell by cell, with the
// documented values written out (so that a changed constant shows): 16
// and 17 cells; 48 forecasts a cell and one forecast fewer; 1,024 and
// 1,025 cells; 1,000 and 999 forecasts.
func TestSkillIntervalMethodAtTheEdges(t *testing.T) {
	each := func(m int) func(int) int { return func(int) int { return m } }
	oneShort := func(j int) int {
		if j == 1 {
			return 47
		}
		return 48
	}
	for _, c := range []struct {
		name string
		k    int
		rep  func(int) int
		want string
	}{
		{"16 cells of one", 16, each(1), BootstrapMultinomial},
		{"17 cells of one", 17, each(1), BootstrapIndex},
		{"17 cells of 48", 17, each(48), BootstrapMultinomial},
		{"17 cells, one forecast short of 48 a cell", 17, oneShort, BootstrapIndex},
		{"1,024 cells of 48", 1024, each(48), BootstrapMultinomial},
		{"1,025 cells of 48", 1025, each(48), BootstrapCornishFisher},
		{"100 cells of 10 (1,000 forecasts)", 100, each(10), BootstrapCornishFisher},
		{"111 cells of 9 (999 forecasts)", 111, each(9), BootstrapIndex},
	} {
		g := cellGroup(c.k, c.rep)
		m, _ := g.Murphy()
		if d := g.ErrorMoments(m.Brier).Distinct; d != c.k {
			t.Fatalf("%s: %d distinct squared errors, want %d", c.name, d, c.k)
		}
		_, method, reason, err := skillIntervalOf(g, baseRateOf(g), DefaultScoreOptions())
		if err != nil || reason != "" {
			t.Fatalf("%s: %v %s", c.name, err, reason)
		}
		if method != c.want {
			t.Errorf("%s (%d forecasts): method %s, want %s", c.name, g.N(), method, c.want)
		}
	}
}

// indexBootstrapBSS is the plain index bootstrap of the skill score over
// the forecasts' squared errors, as a user would write it.
func indexBootstrapBSS(t *testing.T, s statistician.SortedBinary, b float64, resamples int, seed uint64) statistician.Interval {
	t.Helper()
	var items []float64
	for e, c := range s.SquaredErrors() {
		for range c {
			items = append(items, e)
		}
	}
	ref := b * (1 - b)
	res, err := statistician.Bootstrap(len(items), func(idx []int) (float64, bool) {
		sum := 0.0
		for _, i := range idx {
			sum += items[i]
		}
		return 1 - sum/float64(len(idx))/ref, true
	}, statistician.BootstrapOptions{Resamples: resamples, Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	return res.CI
}

// On groups where both can run, the Cornish-Fisher interval agrees with a
// full index bootstrap of B = 2,000 within its Monte Carlo error. The
// standard error of a bootstrap 2.5% quantile with B resamples is about
// sqrt(0.025 x 0.975 / B) / phi(1.96) = 0.060 standard errors of the
// statistic at B = 2,000; the tolerance is four of them (0.24).
func TestCornishFisherLowerBoundAgreesWithTheIndexBootstrap(t *testing.T) {
	if testing.Short() || raceDetector {
		t.Skip("index bootstraps of 2,000 resamples (skipped under -short and -race)")
	}
	const tolerance = 0.24
	for _, c := range []struct {
		name string
		t    statistician.SortedBinary
	}{
		{"continuous, skill 0.9, 1,000", modelGroup(1_000, -1, 0.9, 0, 16)},
		{"continuous, no skill, 1,500", modelGroup(1_500, -1, 0, 0, 17)},
		{"continuous, skill 0.5, 3,000", modelGroup(3_000, -1, 0.5, 0, 18)},
		{"stated confidences, skill 0.7, 2,000", modelGroup(2_000, 2, 0.7, 0, 19)},
		{"continuous, skill 0.9, 10,000", modelGroup(10_000, -1, 0.9, 0, 11)},
		{"continuous, skill 0.1, 20,000", modelGroup(20_000, -1, 0.1, 0, 12)},
		{"continuous, no skill, 40,000", modelGroup(40_000, -1, 0, 0, 13)},
		{"4 decimals, skill 0.6, 25,000", modelGroup(25_000, 4, 0.6, 0, 14)},
		{"rarer events (4%), 40,000", modelGroup(40_000, -1, 0.5, 20, 15)},
	} {
		b := baseRateOf(c.t)
		got, method, _, err := skillIntervalOf(c.t, b, DefaultScoreOptions())
		if err != nil {
			t.Fatal(err)
		}
		if method != BootstrapCornishFisher {
			t.Fatalf("%s: method %s, want cornish-fisher", c.name, method)
		}
		idx := indexBootstrapBSS(t, c.t, b, 2000, 99)
		// The interval's half-width is 1.96 standard errors.
		se := (got.Upper - got.Lower) / (2 * 1.96)
		dl, du := (got.Lower-idx.Lower)/se, (got.Upper-idx.Upper)/se
		t.Logf("%s: cornish-fisher [%.6f, %.6f], index B=2000 [%.6f, %.6f]: %+.3f, %+.3f standard errors", c.name, got.Lower, got.Upper, idx.Lower, idx.Upper, dl, du)
		if math.Abs(dl) > tolerance || math.Abs(du) > tolerance {
			t.Errorf("%s: bounds differ by %.3f and %.3f standard errors, want within %.2f", c.name, dl, du, tolerance)
		}
	}
}

// Coverage of the label's interval by simulation: a forecaster whose true
// skill score against the frozen base rate is known (computed from the
// generating model over a 0.0001 grid), 1,000 groups of n forecasts, at
// n = 1,000 (MinIdealBootstrapForecasts, where the analytic interval
// starts) and 10,000. Binomial error of the coverage is 0.7 points;
// [93, 97] is three of them.
func TestSkillIntervalCoverage(t *testing.T) {
	if testing.Short() || raceDetector {
		t.Skip("coverage simulation (skipped under -short and -race)")
	}
	const trials, b = 1000, 0.5
	// p ~ U(0, 1) on the 1e-4 grid, y ~ Bernoulli(0.2 + 0.6 p): E[(p - y)^2]
	// = E[p^2 - 2 p (0.2 + 0.6 p) + (0.2 + 0.6 p)].
	var mse float64
	for j := 0; j <= 10_000; j++ {
		p := float64(j) / 10_000
		q := 0.2 + 0.6*p
		mse += p*p - 2*p*q + q
	}
	mse /= 10_001
	truth := 1 - mse/(b*(1-b))
	opts := DefaultScoreOptions()
	for _, n := range []int{MinIdealBootstrapForecasts, 10_000} {
		covered := 0
		r := rand.New(rand.NewPCG(31, uint64(n)))
		for range trials {
			var s statistician.BinarySample
			for range n {
				p := float64(r.IntN(10_001)) / 10_000
				y := 0
				if r.Float64() < 0.2+0.6*p {
					y = 1
				}
				_ = s.Add(p, y)
			}
			sorted, _ := s.Sorted(context.Background())
			iv, method, _, err := skillIntervalOf(sorted, b, opts)
			if err != nil || method != BootstrapCornishFisher {
				t.Fatalf("n %d: method %s, err %v", n, method, err)
			}
			if iv.Lower <= truth && truth <= iv.Upper {
				covered++
			}
		}
		pct := 100 * float64(covered) / trials
		t.Logf("n %d: coverage %.1f%% of %d groups (true BSS %.5f)", n, pct, trials, truth)
		if pct < 93 || pct > 97 {
			t.Errorf("n %d: coverage %.1f%%, want 95%% within [93, 97]", n, pct)
		}
	}
}

// Report stops soon after a cancel, with the context's error, even in a
// bootstrap that would run for minutes.
func TestScoreReportStopsWhenCancelled(t *testing.T) {
	opts := DefaultScoreOptions()
	opts.Resamples = 1_000_000 // index path on 2 x 900 forecasts: 1.8e9 draws
	s, err := NewScorer(opts)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(41, 41))
	for i := range 1800 {
		p := r.Float64()
		y := 0
		if r.Float64() < p {
			y = 1
		}
		if err := s.Add(Forecast{Agent: fmt.Sprint("a", i%2), Kind: Binary, Confidence: p, Outcome: y}); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = s.ScoreReportContext(ctx)
	lag := time.Since(start) - 50*time.Millisecond
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err %v, want the context's deadline", err)
	}
	// About 10 ms on an idle machine; the bound leaves room for a loaded
	// CI machine, and more under the race detector's tenfold slowdown.
	bound := 250 * time.Millisecond
	if raceDetector {
		bound = 2 * time.Second
	}
	if lag > bound {
		t.Errorf("stopped %v after the deadline, want under %v", lag, bound)
	}
	t.Logf("stopped %v after the deadline", lag)
}

func BenchmarkSkillInterval(b *testing.B) {
	for _, c := range []struct {
		name string
		t    statistician.SortedBinary
	}{
		{"multinomial-2dp-125k", modelGroup(125_000, 2, 0.8, 0, 1)},
		{"index-continuous-900", modelGroup(900, -1, 0.8, 0, 2)},
		{"cornish-fisher-continuous-9k", modelGroup(9_000, -1, 0.8, 0, 2)},
		{"cornish-fisher-continuous-125k", modelGroup(125_000, -1, 0.8, 0, 3)},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if _, _, _, err := skillIntervalOf(c.t, baseRateOf(c.t), DefaultScoreOptions()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
