package statistician

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// Interval is a closed interval [Lower, Upper].
type Interval struct {
	Lower float64 `yaml:"lower" json:"lower"`
	Upper float64 `yaml:"upper" json:"upper"`
}

// Contains reports whether x lies in the closed interval.
func (iv Interval) Contains(x float64) bool { return iv.Lower <= x && x <= iv.Upper }

// Z95 is the two-sided 95% standard normal quantile, Phi^-1(0.975).
const Z95 = 1.959963984540054

// ZForLevel returns the two-sided standard normal quantile for a
// confidence level in (0, 1):
//
//	z = Phi^-1(1 - (1 - level)/2)
//
// It returns an error when level is outside (0, 1).
func ZForLevel(level float64) (float64, error) {
	if !(level > 0 && level < 1) {
		return 0, fmt.Errorf("statistician: confidence level %v must be in (0, 1)", level)
	}
	return distuv.UnitNormal.Quantile(1 - (1-level)/2), nil
}

// WilsonInterval returns the Wilson score interval for successes out of n
// trials at standard normal quantile z (Wilson 1927; Agresti and Coull
// 1998, eq. 2):
//
//	p = successes/n
//	centre = (p + z^2/(2n)) / (1 + z^2/n)
//	half   = z/(1 + z^2/n) * sqrt(p(1-p)/n + z^2/(4n^2))
//
// The bounds are clamped to [0, 1] and always contain p. It returns an
// error when n <= 0, successes is outside [0, n], or z is not positive and
// finite.
func WilsonInterval(successes, n int, z float64) (Interval, error) {
	if err := checkProportion(successes, n, z); err != nil {
		return Interval{}, err
	}
	nf := float64(n)
	p := float64(successes) / nf
	z2 := z * z
	if math.IsInf(z2, 1) {
		// z > 1.3e154: with r = n/z^2 the interval is
		// (p r + 1/2 ± sqrt(p(1-p) r + 1/4))/(r + 1), and r < 1e-289
		// makes it [0, 1] to double precision.
		return Interval{Lower: 0, Upper: 1}, nil
	}
	den := 1 + z2/nf
	centre := (p + z2/(2*nf)) / den
	half := z / den * math.Sqrt(p*(1-p)/nf+z2/(4*nf*nf))
	lo, hi := clamp01(centre-half), clamp01(centre+half)
	// Rounding can push a bound across p at the extremes (p = 0 or 1);
	// the exact interval always contains p.
	if successes == 0 {
		lo = 0
	}
	if successes == n {
		hi = 1
	}
	return Interval{Lower: lo, Upper: hi}, nil
}

// WilsonLowerBound returns the one-sided Wilson lower bound at quantile z:
// the lower end of WilsonInterval(successes, n, z). Used with a one-sided
// z (1.645 for 95% one-sided) it is a one-sided bound.
func WilsonLowerBound(successes, n int, z float64) (float64, error) {
	iv, err := WilsonInterval(successes, n, z)
	return iv.Lower, err
}

// WilsonUpperBound returns the one-sided Wilson upper bound at quantile z:
// the upper end of WilsonInterval(successes, n, z).
func WilsonUpperBound(successes, n int, z float64) (float64, error) {
	iv, err := WilsonInterval(successes, n, z)
	return iv.Upper, err
}

// BonferroniZ adjusts the quantile z for k simultaneous tests, treating z
// as a one-sided tail:
//
//	alpha = 1 - Phi(z)
//	z'    = Phi^-1(1 - alpha/k)
//
// z is returned unchanged for k <= 1. From z = 1.96: k=2 -> 2.2414,
// k=5 -> 2.5758, k=10 -> 2.8070, k=20 -> 3.0233.
func BonferroniZ(z float64, k int) float64 {
	if k <= 1 {
		return z
	}
	alpha := 1 - distuv.UnitNormal.CDF(z)
	return distuv.UnitNormal.Quantile(1 - alpha/float64(k))
}

func checkProportion(successes, n int, z float64) error {
	if n <= 0 {
		return fmt.Errorf("statistician: proportion needs n > 0, got %d", n)
	}
	if successes < 0 || successes > n {
		return fmt.Errorf("statistician: successes %d outside [0, %d]", successes, n)
	}
	if !(z > 0) || math.IsInf(z, 0) {
		return fmt.Errorf("statistician: quantile z = %v must be positive and finite", z)
	}
	return nil
}

func clamp01(x float64) float64 {
	switch {
	case x < 0:
		return 0
	case x > 1:
		return 1
	}
	return x
}

// MaxClopperPearsonN is the largest n ClopperPearson accepts.
const MaxClopperPearsonN = 1_000_000_000

// ClopperPearson returns the Clopper-Pearson "exact" interval for
// successes out of n trials at a two-sided confidence level in (0, 1)
// (Clopper and Pearson 1934), from quantiles of the Beta distribution:
//
//	alpha = 1 - level
//	lower = BetaQuantile(alpha/2;   x,   n-x+1)   (0 when x = 0)
//	upper = BetaQuantile(1-alpha/2; x+1, n-x)     (1 when x = n)
//
// The bounds lie in [0, 1] and contain x/n. They match statsmodels'
// proportion_confint(method='beta') to 1e-9 absolute for n <= 200 and to
// about 1e-7 relative at n = 1e9; gonum's Beta quantile loses accuracy
// beyond, so n above MaxClopperPearsonN is an error. It returns an error
// when n <= 0 or n > MaxClopperPearsonN, successes is outside [0, n], or
// level is outside (0, 1).
func ClopperPearson(successes, n int, level float64) (iv Interval, err error) {
	if !(level > 0 && level < 1) {
		return Interval{}, fmt.Errorf("statistician: clopper-pearson: confidence level %v must be in (0, 1)", level)
	}
	if err := checkProportion(successes, n, 1); err != nil {
		return Interval{}, fmt.Errorf("statistician: clopper-pearson: %w", err)
	}
	if n > MaxClopperPearsonN {
		return Interval{}, fmt.Errorf("statistician: clopper-pearson: n = %d above %d, where the Beta quantile is inaccurate", n, MaxClopperPearsonN)
	}
	// gonum's Beta quantile panics on parameters it cannot handle; the
	// limit above avoids them, and this turns any left into an error.
	defer func() {
		if r := recover(); r != nil {
			iv, err = Interval{}, fmt.Errorf("statistician: clopper-pearson(%d, %d): beta quantile failed: %v", successes, n, r)
		}
	}()
	alpha := 1 - level
	x, nf := float64(successes), float64(n)
	iv = Interval{Lower: 0, Upper: 1}
	if successes > 0 {
		iv.Lower = distuv.Beta{Alpha: x, Beta: nf - x + 1}.Quantile(alpha / 2)
	}
	if successes < n {
		iv.Upper = distuv.Beta{Alpha: x + 1, Beta: nf - x}.Quantile(1 - alpha/2)
	}
	p := x / nf
	iv.Lower, iv.Upper = math.Min(clamp01(iv.Lower), p), math.Max(clamp01(iv.Upper), p)
	return iv, nil
}

// Difference is an estimated difference with its confidence interval.
type Difference struct {
	Estimate float64  `yaml:"estimate" json:"estimate"`
	CI       Interval `yaml:"ci" json:"ci"`
}

// NewcombeDifference returns p1 - p2 for two independent proportions
// x1/n1 and x2/n2 with Newcombe's hybrid score interval (Newcombe 1998,
// method 10), built from the Wilson intervals (l1, u1) and (l2, u2) at
// standard normal quantile z:
//
//	d     = p1 - p2
//	lower = d - sqrt((p1 - l1)^2 + (u2 - p2)^2)
//	upper = d + sqrt((u1 - p1)^2 + (p2 - l2)^2)
//
// The interval lies in [-1, 1] and contains d. Newcombe's worked example
// 56/70 - 48/80 gives 0.2 with [0.0524, 0.3339] at z = 1.96. It returns an
// error when either proportion is invalid (see WilsonInterval).
func NewcombeDifference(x1, n1, x2, n2 int, z float64) (Difference, error) {
	w1, err := WilsonInterval(x1, n1, z)
	if err != nil {
		return Difference{}, fmt.Errorf("statistician: newcombe difference, first proportion: %w", err)
	}
	w2, err := WilsonInterval(x2, n2, z)
	if err != nil {
		return Difference{}, fmt.Errorf("statistician: newcombe difference, second proportion: %w", err)
	}
	p1, p2 := float64(x1)/float64(n1), float64(x2)/float64(n2)
	d := p1 - p2
	lower := d - math.Hypot(p1-w1.Lower, w2.Upper-p2)
	upper := d + math.Hypot(w1.Upper-p1, p2-w2.Lower)
	return Difference{
		Estimate: d,
		CI:       Interval{Lower: math.Max(lower, -1), Upper: math.Min(upper, 1)},
	}, nil
}
