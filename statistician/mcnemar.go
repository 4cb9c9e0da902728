package statistician

import (
	"fmt"
	"math"
)

// Leniency directions reported by McNemarExact.
const (
	LightLenient = "light lenient" // light passes more runs that deep does not pass than the reverse
	LightStrict  = "light strict"  // the reverse
	Balanced     = "balanced"      // as many one way as the other
)

// McNemar is McNemar's exact test of verdict-level leniency on the runs
// with both verdicts: LightOnly runs light passed and deep did not
// (b), DeepOnly runs deep passed and light did not (c).
type McNemar struct {
	LightOnly  int     `yaml:"light_only_pass" json:"light_only_pass"`
	DeepOnly   int     `yaml:"deep_only_pass" json:"deep_only_pass"`
	Discordant int     `yaml:"discordant" json:"discordant"`
	P          float64 `yaml:"p" json:"p"`
	Direction  string  `yaml:"direction" json:"direction"`
	Reason     string  `yaml:"reason,omitempty" json:"reason,omitempty"`
}

// McNemarExact returns McNemar's exact test (McNemar 1947; the exact
// binomial form, e.g. Fagerland, Lydersen and Laake 2013, BMC Med. Res.
// Methodol. 13:91) on the discordant pairs b = LightOnly and c = DeepOnly:
// under the null hypothesis that light is neither more nor less lenient
// than deep, b ~ Binomial(b + c, 1/2) given b + c, and
//
//	P = min(1, 2 P(X <= min(b, c))),  X ~ Binomial(b + c, 1/2)
//
// (as scipy.stats.binomtest(b, b + c, 0.5).pvalue and statsmodels'
// mcnemar(table, exact=True)). P lies in (0, 1]; b = c gives 1. Direction
// is LightLenient when b > c, LightStrict when b < c, else Balanced. With
// no discordant pair P is 1 and Reason says the test has no information.
// A negative count gives a Reason and zero numbers.
func McNemarExact(lightOnly, deepOnly int) McNemar {
	m := McNemar{LightOnly: lightOnly, DeepOnly: deepOnly}
	if lightOnly < 0 || deepOnly < 0 {
		m.Reason = fmt.Sprintf("invalid input: negative discordant count (%d, %d)", lightOnly, deepOnly)
		return m
	}
	m.Discordant = lightOnly + deepOnly
	switch {
	case lightOnly > deepOnly:
		m.Direction = LightLenient
	case lightOnly < deepOnly:
		m.Direction = LightStrict
	default:
		m.Direction = Balanced
	}
	if m.Discordant == 0 {
		m.P = 1
		m.Reason = "no information: light and deep never disagree on pass"
		return m
	}
	m.P = math.Min(1, 2*binomialHalfCDF(min(lightOnly, deepOnly), m.Discordant))
	return m
}

// binomialHalfCDF returns P(X <= k) for X ~ Binomial(m, 1/2), 0 <= k <= m.
// It sums the pmf downward from k, where the terms fall geometrically for
// k <= m/2, and stops once a term no longer changes the sum. The first
// term, C(m, k) 2^-m, is a product of k ratios with a separate binary
// exponent (relative error about k ulps) for k <= 5000, and from
// log-gamma beyond (relative error about 1e-15 log C(m, k)).
func binomialHalfCDF(k, m int) float64 {
	if 2*k >= m {
		// P(X <= k) = 1 - P(X <= m-k-1) by symmetry.
		if k >= m {
			return 1
		}
		return 1 - binomialHalfCDF(m-k-1, m)
	}
	mf := float64(m)
	var term float64
	if k <= 5000 {
		frac, exp := 1.0, 0
		for i := 1; i <= k; i++ {
			var e int
			frac, e = math.Frexp(frac * float64(m-k+i) / float64(i))
			exp += e
		}
		term = math.Ldexp(frac, exp-m)
	} else {
		lgm, _ := math.Lgamma(mf + 1)
		lgk, _ := math.Lgamma(float64(k) + 1)
		lgr, _ := math.Lgamma(mf - float64(k) + 1)
		term = math.Exp(lgm - lgk - lgr - mf*math.Ln2)
	}
	sum := 0.0
	for i := k; i >= 0; i-- {
		sum += term
		if term < sum*1e-17 {
			break
		}
		// pmf(i-1) = pmf(i) i / (m - i + 1)
		term *= float64(i) / (mf - float64(i) + 1)
	}
	return math.Min(1, sum)
}
