package advisor

import (
	"bytes"
	"crypto/sha256"
	"math"
	"sort"

	"github.com/evalcal/evalcal/inspection"
	"github.com/evalcal/evalcal/statistician"
)

// Recalibration constants: the cross-validation folds and the fewest runs
// the threshold rule looks at (two runs a fold). The search breaks ties
// toward docs/DESIGN.md's lines, inspection.FailBelow and inspection.PassAt.
const (
	ThresholdFolds   = 10
	ThresholdMinRuns = 2 * ThresholdFolds
)

// Cuts is a verdict rule on light's score x = min(runtime_fidelity,
// task_effectiveness) (the score docs/DESIGN.md's verdict rule reads: a run
// passes when both scores reach the pass line, so when the smaller one
// does):
//
//	fail    if x <  FailBelow
//	partial if FailBelow <= x < PassAt
//	pass    if x >= PassAt
//
// with 0 <= FailBelow <= PassAt <= 100; FailBelow = PassAt means no
// partial verdict, FailBelow = 0 no fail.
type Cuts struct {
	FailBelow float64 `yaml:"fail_below" json:"fail_below"`
	PassAt    float64 `yaml:"pass_at" json:"pass_at"`
}

// Verdict is the verdict the cuts give score x.
func (c Cuts) Verdict(x float64) string {
	switch {
	case x >= c.PassAt:
		return inspection.VerdictPass
	case x >= c.FailBelow:
		return inspection.VerdictPartial
	}
	return inspection.VerdictFail
}

// LightScore is the score the cuts read: min(runtime_fidelity,
// task_effectiveness).
func LightScore(rf, te float64) float64 { return math.Min(rf, te) }

// FitCuts returns the cuts on x (finite: LightScore of validated
// inspections) that maximise the number of runs whose cut verdict equals
// deep[i] (pass, partial or fail), and that number. The candidate cuts
// are 0 and the midpoints between consecutive distinct values of x (a
// pass line above every value, under which nothing passes, is no
// recalibration and is not proposed); ok is false only for no runs.
// Among cuts with the same number of matches the one nearest
// docs/DESIGN.md's lines wins (the smallest |FailBelow - 40| +
// |PassAt - 70|), then the lower cuts, so the result is unique.
// O(n log n): after sorting, for each pass cut the best fail cut below it
// is a running maximum of (fails below - partials below).
func FitCuts(x []float64, deep []string) (c Cuts, matches int, ok bool) {
	idx := statistician.ValueOrder(x)
	// Distinct values v[0..V-1] and, per value, deep's verdict counts.
	var v []float64
	var fail, part, pass []int
	for _, i := range idx {
		if len(v) == 0 || x[i] != v[len(v)-1] {
			v = append(v, x[i])
			fail, part, pass = append(fail, 0), append(part, 0), append(pass, 0)
		}
		k := len(v) - 1
		switch deep[i] {
		case inspection.VerdictPass:
			pass[k]++
		case inspection.VerdictPartial:
			part[k]++
		default:
			fail[k]++
		}
	}
	nv := len(v)
	if nv == 0 {
		return Cuts{}, 0, false
	}
	// Cut j (0..nv) puts the first j distinct values below it; its value
	// is 0 for j = 0, the midpoint of v[j-1] and v[j] inside, +Inf for nv.
	cut := func(j int) float64 {
		switch j {
		case 0:
			return 0
		case nv:
			return math.Inf(1)
		}
		return (v[j-1] + v[j]) / 2
	}
	// F[j], P[j], S[j]: deep fails, partials, passes among the first j values.
	F, P, S := make([]int, nv+1), make([]int, nv+1), make([]int, nv+1)
	for j := 0; j < nv; j++ {
		F[j+1], P[j+1], S[j+1] = F[j]+fail[j], P[j]+part[j], S[j]+pass[j]
	}
	// matches(j1 <= j2) = F[j1] + (P[j2] - P[j1]) + (S[nv] - S[j2]).
	bestJ1, bestG := 0, F[0]-P[0]
	bestM, bestD := -1, math.Inf(1)
	var best Cuts
	for j2 := 0; j2 < nv; j2++ { // j2 = nv (nothing passes) is never proposed
		if g := F[j2] - P[j2]; g > bestG || (g == bestG && math.Abs(cut(j2)-inspection.FailBelow) < math.Abs(cut(bestJ1)-inspection.FailBelow)) {
			bestJ1, bestG = j2, g
		}
		m := bestG + P[j2] + S[nv] - S[j2]
		d := math.Abs(cut(bestJ1)-inspection.FailBelow) + math.Abs(cut(j2)-inspection.PassAt)
		if m > bestM || (m == bestM && d < bestD) {
			bestM, bestD = m, d
			best = Cuts{FailBelow: cut(bestJ1), PassAt: cut(j2)}
		}
	}
	return best, bestM, true
}

// Fold is the cross-validation fold (0..k-1) of each run: the runs sorted
// by SHA-256 of their id, dealt round-robin. Folds depend on the run ids
// alone, not on their order, and differ in size by at most one.
func Fold(ids []string, k int) []int {
	type keyed struct {
		sum [32]byte
		i   int
	}
	ks := make([]keyed, len(ids))
	for i, id := range ids {
		ks[i] = keyed{sha256.Sum256([]byte(id)), i}
	}
	sort.Slice(ks, func(a, b int) bool {
		if c := bytes.Compare(ks[a].sum[:], ks[b].sum[:]); c != 0 {
			return c < 0
		}
		return ids[ks[a].i] < ids[ks[b].i]
	})
	out := make([]int, len(ids))
	for r, kk := range ks {
		out[kk.i] = r % k
	}
	return out
}

// CrossValidated is the held-out verdict of every run: for each fold, the
// cuts are fitted (FitCuts) on the other folds and applied to the runs of
// this one. ok is false when a fold has no other runs to fit on.
func CrossValidated(ids []string, x []float64, deep []string, k int) (verdicts []string, ok bool) {
	folds := Fold(ids, k)
	verdicts = make([]string, len(x))
	tx, td := make([]float64, 0, len(x)), make([]string, 0, len(x)) // sized once, reused by every fold
	for f := 0; f < k; f++ {
		tx, td = tx[:0], td[:0]
		for i := range x {
			if folds[i] != f {
				tx = append(tx, x[i])
				td = append(td, deep[i])
			}
		}
		c, _, fitted := FitCuts(tx, td)
		if !fitted {
			return nil, false
		}
		for i := range x {
			if folds[i] == f {
				verdicts[i] = c.Verdict(x[i])
			}
		}
	}
	return verdicts, true
}
