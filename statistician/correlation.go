package statistician

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
)

// MinCorrelationPairs is the fewest pairs for which a correlation or a
// concordance coefficient is reported; below it the result carries a
// reason instead of a number.
const MinCorrelationPairs = 5

// Correlation is a correlation coefficient with its 95% interval and the
// two-sided p-value of the test of zero correlation. When the coefficient
// is not defined for the data, Reason says why and the numbers are zero.
type Correlation struct {
	R      float64  `yaml:"r" json:"r"`
	CI95   Interval `yaml:"ci95" json:"ci95"`
	P      float64  `yaml:"p" json:"p"`
	N      int      `yaml:"n" json:"n"`
	Reason string   `yaml:"reason,omitempty" json:"reason,omitempty"`
}

// Pearson returns Pearson's product-moment correlation of the pairs
// (x[i], y[i]):
//
//	r = sum((x-mx)(y-my)) / sqrt(sum((x-mx)^2) sum((y-my)^2))
//
// with the Fisher-z 95% interval tanh(atanh(r) ± Z95/sqrt(n-3)) (Fisher
// 1921; as R's cor.test) and the two-sided p-value of
// t = r sqrt((n-2)/(1-r^2)) on n-2 degrees of freedom (as R's cor.test and
// scipy.stats.pearsonr). r lies in [-1, 1]; |r| = 1 gives the interval
// [r, r] and p = 0.
//
// With unequal lengths, a NaN or infinite value, fewer than
// MinCorrelationPairs pairs, or zero variance in x or y, the result has
// zero numbers and a Reason.
func Pearson(x, y []float64) Correlation {
	if reason := checkPairs(x, y, MinCorrelationPairs); reason != "" {
		return Correlation{N: len(x), Reason: reason}
	}
	return pearsonChecked(x, y, 1)
}

// Spearman returns Spearman's rank correlation rho: Pearson's r of the
// ranks of x and of y, ties given their average rank (as
// scipy.stats.spearmanr and R's cor(method = "spearman")). The p-value uses
// the t approximation t = rho sqrt((n-2)/(1-rho^2)) on n-2 degrees of
// freedom (as scipy.stats.spearmanr). The 95% interval is Fisher-z with
// the Fieller, Hartley and Pearson (1957) variance 1.06/(n-3):
//
//	tanh(atanh(rho) ± Z95 sqrt(1.06/(n-3)))
//
// Bad input and degenerate data give a Reason as for Pearson; zero
// variance means all values of x (or y) are tied.
func Spearman(x, y []float64) Correlation {
	if reason := checkPairs(x, y, MinCorrelationPairs); reason != "" {
		return Correlation{N: len(x), Reason: reason}
	}
	return pearsonChecked(AverageRanks(x), AverageRanks(y), 1.06)
}

// ValueOrder returns the indices of x in ascending order of their values,
// equal values (and NaNs, which compare equal to everything) in no set
// order: an unstable sort of the indices, without sort.Slice's reflection
// (it was a third of the correlations' CPU, and most of the threshold
// fit's, at a million runs).
func ValueOrder(x []float64) []int {
	order := make([]int, len(x))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		switch {
		case x[a] < x[b]:
			return -1
		case x[a] > x[b]:
			return 1
		}
		return 0
	})
	return order
}

// AverageRanks returns the 1-based ranks of x, ties given the mean of the
// ranks they span (R's rank(ties.method = "average")). A NaN compares
// equal to every value in ValueOrder, so it gets no meaningful rank:
// callers reject NaNs before ranking, as Spearman does.
func AverageRanks(x []float64) []float64 {
	// The order among equal values does not change their (average) rank.
	order := ValueOrder(x)
	ranks := make([]float64, len(x))
	for start := 0; start < len(order); {
		end := start + 1
		for end < len(order) && x[order[end]] == x[order[start]] {
			end++
		}
		// Positions start..end-1 hold equal values: ranks start+1..end.
		avg := float64(start+1+end) / 2
		for _, i := range order[start:end] {
			ranks[i] = avg
		}
		start = end
	}
	return ranks
}

// pearsonChecked computes Pearson's r with a Fisher-z interval whose
// variance is varFactor/(n-3). x and y have passed checkPairs.
func pearsonChecked(x, y []float64, varFactor float64) Correlation {
	n := len(x)
	c := Correlation{N: n}
	switch {
	case allEqual(x):
		c.Reason = "undefined: x has zero variance"
		return c
	case allEqual(y):
		c.Reason = "undefined: y has zero variance"
		return c
	}
	// r is scale invariant; rescaling extreme magnitudes keeps the sums
	// of squares from overflowing or underflowing.
	x, y = scaledByMaxAbs(x), scaledByMaxAbs(y)
	mx, my := mean(x), mean(y)
	var sxx, syy, sxy float64
	for i := range x {
		dx, dy := x[i]-mx, y[i]-my
		sxx += dx * dx
		syy += dy * dy
		sxy += dx * dy
	}
	r := sxy / math.Sqrt(sxx) / math.Sqrt(syy)
	if sxx == 0 || syy == 0 || math.IsNaN(r) || math.IsInf(r, 0) {
		c.Reason = "undefined: the spread of x or y is below floating-point resolution"
		return c
	}
	r = math.Max(-1, math.Min(1, r))
	c.R = r
	if math.Abs(r) == 1 {
		c.CI95 = Interval{Lower: r, Upper: r}
		return c // P = 0: a perfect linear relation.
	}
	nf := float64(n)
	half := Z95 * math.Sqrt(varFactor/(nf-3))
	z := math.Atanh(r)
	c.CI95 = fisherInterval(z, half, r)
	t := r * math.Sqrt((nf-2)/(1-r*r))
	c.P = math.Min(1, 2*distuv.StudentsT{Mu: 0, Sigma: 1, Nu: nf - 2}.Survival(math.Abs(t)))
	return c
}

// fisherInterval returns [tanh(z - half), tanh(z + half)], widened by at
// most the rounding of tanh(atanh(r)) so that it contains r.
func fisherInterval(z, half, r float64) Interval {
	return Interval{Lower: math.Min(math.Tanh(z-half), r), Upper: math.Max(math.Tanh(z+half), r)}
}

// checkPairs returns a reason why x and y cannot be analysed as at least
// minPairs finite pairs, or "" when they can.
func checkPairs(x, y []float64, minPairs int) string {
	if len(x) != len(y) {
		return fmt.Sprintf("invalid input: x has %d values and y has %d", len(x), len(y))
	}
	if len(x) < minPairs {
		return fmt.Sprintf("insufficient data: %d pairs, need at least %d", len(x), minPairs)
	}
	if i := firstNonFinite(x); i >= 0 {
		return fmt.Sprintf("invalid input: x[%d] is %v", i, x[i])
	}
	if i := firstNonFinite(y); i >= 0 {
		return fmt.Sprintf("invalid input: y[%d] is %v", i, y[i])
	}
	return ""
}

// firstNonFinite returns the index of the first NaN or infinite value in
// x, or -1.
func firstNonFinite(x []float64) int {
	for i, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return i
		}
	}
	return -1
}

// allEqual reports whether every value of x equals x[0].
func allEqual(x []float64) bool {
	for _, v := range x {
		if v != x[0] {
			return false
		}
	}
	return true
}

// scaledByMaxAbs returns x divided by the largest magnitude m in x and
// more when m lies outside [1e-100, 1e100], where squares and products
// could overflow or underflow; otherwise (and when m is 0 or not finite)
// it returns x itself, so ordinary data are computed without rescaling.
func scaledByMaxAbs(x []float64, more ...[]float64) []float64 {
	m := maxAbs(x)
	for _, y := range more {
		m = math.Max(m, maxAbs(y))
	}
	if (m >= 1e-100 && m <= 1e100) || m == 0 || math.IsInf(m, 0) || math.IsNaN(m) {
		return x
	}
	s := make([]float64, len(x))
	for i, v := range x {
		s[i] = v / m
	}
	return s
}

// maxAbs returns the largest |x[i]|, 0 for an empty slice.
func maxAbs(x []float64) float64 {
	var m float64
	for _, v := range x {
		m = math.Max(m, math.Abs(v))
	}
	return m
}

// mean returns the arithmetic mean of x (0 for an empty slice), computed
// with a correction pass so that constant data gives exactly that
// constant.
func mean(x []float64) float64 {
	if len(x) == 0 {
		return 0
	}
	var s float64
	for _, v := range x {
		s += v
	}
	m := s / float64(len(x))
	var c float64
	for _, v := range x {
		c += v - m
	}
	return m + c/float64(len(x))
}
