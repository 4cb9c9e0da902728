package statistician

import (
	"cmp"
	"slices"
)

// Holm returns the Holm-adjusted p-values of p (Holm 1979, "A simple
// sequentially rejective multiple test procedure", Scand. J. Statist.
// 6(2):65-70), in p's order: with p sorted ascending, p_(1) <= ... <=
// p_(m),
//
//	q_(i) = min(1, max_{j <= i} (m - j + 1) p_(j))
//
// as statsmodels' multipletests(p, method="holm")[1]. Rejecting the
// hypotheses with q < alpha controls the family-wise error rate at alpha.
// Ties keep their input order. Holm(nil) is empty.
func Holm(p []float64) []float64 {
	m := len(p)
	order := make([]int, m)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(p[a], p[b]) })
	out := make([]float64, m)
	running := 0.0
	for rank, i := range order {
		running = max(running, min(1, float64(m-rank)*p[i]))
		out[i] = running
	}
	return out
}
