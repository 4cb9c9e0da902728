package advisor

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/evalcal/evalcal/inspection"
)

var verdicts3 = []string{inspection.VerdictFail, inspection.VerdictPartial, inspection.VerdictPass}

// bruteCuts tries every pair of candidate cuts.
func bruteCuts(x []float64, deep []string) (int, float64) {
	cands := []float64{0}
	seen := map[float64]bool{}
	var vals []float64
	for _, v := range x {
		if !seen[v] {
			seen[v] = true
			vals = append(vals, v)
		}
	}
	sort.Float64s(vals)
	for i := 1; i < len(vals); i++ {
		cands = append(cands, (vals[i-1]+vals[i])/2)
	}
	best, bestD := -1, math.Inf(1)
	for _, f := range cands {
		for _, p := range cands {
			if f > p {
				continue
			}
			c := Cuts{f, p}
			m := 0
			for i := range x {
				if c.Verdict(x[i]) == deep[i] {
					m++
				}
			}
			d := math.Abs(f-40) + math.Abs(p-70)
			if m > best || m == best && d < bestD {
				best, bestD = m, d
			}
		}
	}
	return best, bestD
}

// FitCuts finds the most matches and, among those, the smallest distance
// to 40/70 that an exhaustive search finds, on small random datasets with
// many ties.
func TestFitCutsEqualsExhaustiveSearch(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 2000; trial++ {
		n := 1 + r.IntN(25)
		x := make([]float64, n)
		deep := make([]string, n)
		for i := range x {
			x[i] = float64(r.IntN(11) * 10)
			deep[i] = verdicts3[r.IntN(3)]
		}
		c, m, ok := FitCuts(x, deep)
		if !ok {
			t.Fatalf("no cuts for %v", x)
		}
		recount := 0
		for i := range x {
			if c.Verdict(x[i]) == deep[i] {
				recount++
			}
		}
		bm, bd := bruteCuts(x, deep)
		d := math.Abs(c.FailBelow-40) + math.Abs(c.PassAt-70)
		if m != recount || m != bm || d != bd || c.FailBelow > c.PassAt {
			t.Fatalf("x=%v deep=%v: FitCuts %+v with %d (recount %d, distance %v); exhaustive %d at distance %v", x, deep, c, m, recount, d, bm, bd)
		}
	}
}

func FuzzFitCuts(f *testing.F) {
	f.Add([]byte{0, 10, 20, 30, 40, 50}, []byte{0, 1, 2, 2, 1, 0})
	f.Add([]byte{100, 100, 100}, []byte{2, 2, 2})
	f.Fuzz(func(t *testing.T, xs, ds []byte) {
		n := min(len(xs), len(ds))
		x := make([]float64, n)
		deep := make([]string, n)
		for i := 0; i < n; i++ {
			x[i] = float64(xs[i]) * 100 / 255
			deep[i] = verdicts3[int(ds[i])%3]
		}
		c, m, ok := FitCuts(x, deep)
		if n == 0 {
			if ok {
				t.Fatal("cuts from no runs")
			}
			return
		}
		if !ok || c.FailBelow > c.PassAt || c.FailBelow < 0 || c.PassAt > 100 || math.IsInf(c.PassAt, 0) {
			t.Fatalf("cuts %+v ok=%v", c, ok)
		}
		recount := 0
		for i := range x {
			if c.Verdict(x[i]) == deep[i] {
				recount++
			}
		}
		if recount != m {
			t.Fatalf("FitCuts says %d matches, the cuts give %d", m, recount)
		}
	})
}
