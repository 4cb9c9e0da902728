package statistician

import (
	"cmp"
	"math"
	"slices"
)

// IsotonicMap is a non-decreasing map fitted by isotonic regression: the
// fitted values Y at the sorted distinct inputs X, evaluated between them
// by linear interpolation and outside them by the nearest end (as
// scikit-learn's IsotonicRegression(increasing=True,
// out_of_bounds="clip").predict).
type IsotonicMap struct {
	X, Y []float64
}

// FitIsotonic fits the non-decreasing least-squares map from x to y
// (Barlow et al. 1972, the pool-adjacent-violators algorithm): the y of
// equal x are first averaged (a point weighted by its count), then
// adjacent blocks whose means decrease are pooled until none does. It
// needs len(x) == len(y) >= 1 with finite values (the caller checks).
// Redundant interior points of a flat block are kept; they do not change
// the interpolation.
func FitIsotonic(x, y []float64) IsotonicMap {
	idx := make([]int, len(x))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(x[a], x[b]) })
	type block struct{ sum, w float64 }
	var xs []float64
	var pts []block
	for _, i := range idx {
		if n := len(xs); n > 0 && xs[n-1] == x[i] {
			pts[n-1].sum += y[i]
			pts[n-1].w++
			continue
		}
		xs = append(xs, x[i])
		pts = append(pts, block{y[i], 1})
	}
	// PAVA over the distinct points: each block covers points [start, end).
	type run struct {
		sum, w     float64
		start, end int
	}
	var stack []run
	for i, p := range pts {
		stack = append(stack, run{p.sum, p.w, i, i + 1})
		for len(stack) > 1 {
			a, b := stack[len(stack)-2], stack[len(stack)-1]
			if a.sum/a.w <= b.sum/b.w {
				break
			}
			stack = stack[:len(stack)-2]
			stack = append(stack, run{a.sum + b.sum, a.w + b.w, a.start, b.end})
		}
	}
	ys := make([]float64, len(xs))
	for _, r := range stack {
		for i := r.start; i < r.end; i++ {
			ys[i] = r.sum / r.w
		}
	}
	return IsotonicMap{X: xs, Y: ys}
}

// At evaluates the map at v: linear interpolation between the fitted
// points, the end values outside them.
func (m IsotonicMap) At(v float64) float64 {
	n := len(m.X)
	switch {
	case n == 0:
		return math.NaN()
	case v <= m.X[0]:
		return m.Y[0]
	case v >= m.X[n-1]:
		return m.Y[n-1]
	}
	j, _ := slices.BinarySearch(m.X, v) // m.X[j-1] < v <= m.X[j]
	if m.X[j] == v {
		return m.Y[j]
	}
	t := (v - m.X[j-1]) / (m.X[j] - m.X[j-1])
	return m.Y[j-1] + t*(m.Y[j]-m.Y[j-1])
}

// CrossFitIsotonic is the calibrated predictor of deep from light for
// PPI++ (cross-prediction, Zrnic and Candès 2024, PNAS 121(15)): the
// labelled runs are split into fold 0 (even positions) and fold 1 (odd
// positions); an isotonic map from light's prediction f to the deep label
// y is fitted on each fold; a labelled run is predicted by the map of the
// other fold (never by one fitted on its own label), an unlabelled run by
// the mean of the two maps. With fewer than 4 labelled runs there is
// nothing to cross-fit and ok is false.
func CrossFitIsotonic(fLabelled, y, fUnlabelled []float64) (gLabelled, gUnlabelled []float64, ok bool) {
	if len(y) < 4 || len(y) != len(fLabelled) {
		return nil, nil, false
	}
	fk, yk := splitFolds(fLabelled), splitFolds(y)
	maps := [2]IsotonicMap{FitIsotonic(fk[0], yk[0]), FitIsotonic(fk[1], yk[1])}
	gLabelled = make([]float64, len(y))
	for i, v := range fLabelled {
		gLabelled[i] = maps[1-i%2].At(v)
	}
	gUnlabelled = make([]float64, len(fUnlabelled))
	for i, v := range fUnlabelled {
		gUnlabelled[i] = (maps[0].At(v) + maps[1].At(v)) / 2
	}
	return gLabelled, gUnlabelled, true
}

// Predictors named in Estimate.Predictor by PPIMeanOfRunsCalibrated.
const (
	PredictorFixed    = "fixed"
	PredictorIsotonic = "isotonic"
)

// PPIMeanOfRunsCalibrated is PPIMeanOfRuns with light's prediction
// recalibrated to the deep labels: the cross-fitted isotonic predictor of
// CrossFitIsotonic in place of f, unless PPIMeanOfRuns with f as given
// has the smaller estimated standard error (a calibrated f gains nothing
// from a map fitted on n labels, and the fit's noise would widen the
// interval by about 1%); Predictor says which. The choice between two
// estimates of the same mean by their standard errors was checked by
// simulation to keep the 95% coverage (calibrated_ppi_test.go). With
// fewer than 4 labels it is PPIMeanOfRuns.
func PPIMeanOfRunsCalibrated(y, fLabelled, fUnlabelled []float64, level float64) Estimate {
	fixed := PPIMeanOfRuns(y, fLabelled, fUnlabelled, level)
	fixed.Predictor = PredictorFixed
	if checkLabelled(y, fLabelled, 4) != "" || firstNonFinite(fUnlabelled) >= 0 {
		return fixed
	}
	gl, gu, ok := CrossFitIsotonic(fLabelled, y, fUnlabelled)
	if !ok {
		return fixed
	}
	iso := PPIMeanOfRuns(y, gl, gu, level)
	iso.Predictor = PredictorIsotonic
	if iso.Reason == "" && (fixed.Reason != "" || iso.SE < fixed.SE) {
		return iso
	}
	return fixed
}
