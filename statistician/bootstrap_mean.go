package statistician

import (
	"fmt"
	"iter"
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// IdealMeanBootstrap is the percentile interval of the ideal bootstrap
// (infinitely many resamples) of a sample mean, computed analytically.
type IdealMeanBootstrap struct {
	N    int     // items
	Mean float64 // the sample mean
	// CI is [Q(alpha/2), Q(1 - alpha/2)] of the bootstrap distribution of
	// the resampled mean, alpha = 1 - level.
	CI Interval
	// Skewness and ExcessKurtosis are those of the resampled mean:
	// gamma1 / sqrt(n) and gamma2 / n of the sample's own.
	Skewness       float64
	ExcessKurtosis float64
}

// IdealMeanBootstrapInterval returns the percentile interval at level of
// the ideal bootstrap distribution of the mean of n items, given as
// distinct values with their counts (any order, counts > 0), by the
// Cornish-Fisher expansion of that distribution (Hall 1992, "The
// Bootstrap and Edgeworth Expansion", sections 2.5 and 3.5). A resample of
// n items drawn with replacement has a mean whose cumulants are exactly
//
//	k1 = m,  k2 = mu2 / n,  k3 = mu3 / n^2,  k4 = (mu4 - 3 mu2^2) / n^3
//
// with m the sample mean and mu_r = (1/n) sum (x - m)^r the sample's
// central moments. With g1 = k3 / k2^1.5 and g2 = k4 / k2^2, the
// quantile at probability q, z = Phi^-1(q), is
//
//	Q(q) = m + sqrt(k2) (z + (z^2 - 1) g1/6 + (z^3 - 3z) g2/24 - (2z^3 - 5z) g1^2/36)
//
// The error of the expansion is O(n^-3/2) in units of sqrt(k2); it is the
// interval a Monte Carlo percentile bootstrap estimates, without its
// Monte Carlo error (for B = 1000 resamples, the 2.5% quantile's standard
// error is about 0.085 sqrt(k2)). The expansion is accurate while
// |Skewness| is small; callers choose where to use it.
//
// It returns an error when there are no items, a count is not positive,
// a value is not finite, or level is outside (0, 1). When every item is
// equal the interval is [m, m].
func IdealMeanBootstrapInterval(cells iter.Seq2[float64, int], level float64) (IdealMeanBootstrap, error) {
	if !(level > 0 && level < 1) {
		return IdealMeanBootstrap{}, fmt.Errorf("statistician: ideal bootstrap: level %v must be in (0, 1)", level)
	}
	var n int
	var sum neumaierSum
	for v, c := range cells {
		if c <= 0 || math.IsNaN(v) || math.IsInf(v, 0) {
			return IdealMeanBootstrap{}, fmt.Errorf("statistician: ideal bootstrap: value %v with count %d", v, c)
		}
		n += c
		sum.add(float64(c) * v)
	}
	if n == 0 {
		return IdealMeanBootstrap{}, fmt.Errorf("statistician: ideal bootstrap: no items")
	}
	nf := float64(n)
	m := sum.value() / nf
	var s2, s3, s4 neumaierSum
	for v, c := range cells {
		d := v - m
		w := float64(c)
		s2.add(w * d * d)
		s3.add(w * d * d * d)
		s4.add(w * d * d * d * d)
	}
	return IdealMeanBootstrapFromMoments(n, m, s2.value()/nf, s3.value()/nf, s4.value()/nf, level)
}

// IdealMeanBootstrapFromMoments is IdealMeanBootstrapInterval from the
// sample's size n, mean m and central moments mu2, mu3, mu4 (divided by
// n), for a caller that has them already. It returns an error when n < 1
// or level is outside (0, 1).
func IdealMeanBootstrapFromMoments(n int, m, mu2, mu3, mu4, level float64) (IdealMeanBootstrap, error) {
	if n < 1 || !(level > 0 && level < 1) {
		return IdealMeanBootstrap{}, fmt.Errorf("statistician: ideal bootstrap: n %d, level %v", n, level)
	}
	nf := float64(n)
	out := IdealMeanBootstrap{N: n, Mean: m, CI: Interval{Lower: m, Upper: m}}
	if !(mu2 > 0) {
		return out, nil
	}
	sd := math.Sqrt(mu2 / nf)
	g1 := mu3 / math.Pow(mu2, 1.5) / math.Sqrt(nf)
	g2 := (mu4/(mu2*mu2) - 3) / nf
	out.Skewness, out.ExcessKurtosis = g1, g2
	q := func(p float64) float64 {
		z := distuv.UnitNormal.Quantile(p)
		w := z + (z*z-1)*g1/6 + (z*z*z-3*z)*g2/24 - (2*z*z*z-5*z)*g1*g1/36
		return m + sd*w
	}
	alpha := 1 - level
	out.CI = Interval{Lower: q(alpha / 2), Upper: q(1 - alpha/2)}
	return out, nil
}

// neumaierSum is a compensated float64 sum (Neumaier 1974): its error
// does not grow with the number of terms.
type neumaierSum struct{ s, c float64 }

func (a *neumaierSum) add(x float64) {
	t := a.s + x
	if math.Abs(a.s) >= math.Abs(x) {
		a.c += (a.s - t) + x
	} else {
		a.c += (x - t) + a.s
	}
	a.s = t
}

func (a *neumaierSum) value() float64 { return a.s + a.c }
