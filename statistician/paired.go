package statistician

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// BlandAltmanZ is the multiplier of the SD of the differences in the
// limits of agreement, 1.96 as in Bland and Altman (1986, 1999).
const BlandAltmanZ = 1.96

// MeanDiff is the mean of paired differences with its t interval. When the
// interval is not defined, Reason says why and the numbers are zero.
type MeanDiff struct {
	Mean   float64  `yaml:"mean" json:"mean"`
	SD     float64  `yaml:"sd" json:"sd"`
	SE     float64  `yaml:"se" json:"se"`
	CI     Interval `yaml:"ci" json:"ci"`
	N      int      `yaml:"n" json:"n"`
	Reason string   `yaml:"reason,omitempty" json:"reason,omitempty"`
}

// MeanDifference returns the mean of the paired differences d with the
// Student t interval at a two-sided confidence level in (0, 1) (as R's
// t.test(d)):
//
//	SD = sqrt(sum((d - mean)^2) / (n-1)),  SE = SD/sqrt(n)
//	CI = mean ± t(1 - (1-level)/2; n-1) SE
//
// With fewer than 2 values, a NaN or infinite value, or level outside
// (0, 1) the result has zero numbers and a Reason. Constant d gives SD 0
// and the interval [mean, mean].
func MeanDifference(d []float64, level float64) MeanDiff {
	m := MeanDiff{N: len(d)}
	switch {
	case !(level > 0 && level < 1):
		m.Reason = fmt.Sprintf("invalid input: confidence level %v must be in (0, 1)", level)
		return m
	case len(d) < 2:
		m.Reason = fmt.Sprintf("insufficient data: %d differences, need at least 2", len(d))
		return m
	}
	if i := firstNonFinite(d); i >= 0 {
		m.Reason = fmt.Sprintf("invalid input: d[%d] is %v", i, d[i])
		return m
	}
	mu, sd := meanSD(d)
	if math.IsInf(sd, 0) || math.IsNaN(sd) || math.IsInf(mu, 0) {
		m.Reason = "undefined: values overflow floating point"
		return m
	}
	n := float64(len(d))
	se := sd / math.Sqrt(n)
	t := tQuantile(1-(1-level)/2, n-1)
	m.Mean, m.SD, m.SE = mu, sd, se
	m.CI = Interval{Lower: mu - t*se, Upper: mu + t*se}
	return m
}

// BlandAltmanResult is a Bland-Altman analysis of paired measurements:
// the bias (mean of b - a), the SD of the differences, the 95% limits of
// agreement and the confidence intervals of each. When the analysis is not
// defined, Reason says why and the numbers are zero.
type BlandAltmanResult struct {
	Bias    float64
	SD      float64
	Lower   float64
	Upper   float64
	BiasCI  Interval
	LowerCI Interval
	UpperCI Interval
	N       int
	Reason  string
}

// BlandAltman returns the Bland-Altman analysis of the differences
// d = b - a (Bland and Altman 1986; intervals from Bland and Altman 1999,
// section 3), with t = t(0.975; n-1):
//
//	bias = mean(d),  s = SD(d) (n-1 denominator)
//	limits of agreement  bias ± 1.96 s
//	bias CI              bias ± t s/sqrt(n)
//	limit CI             limit ± t sqrt(3 s^2/n)
//
// With unequal lengths, a NaN or infinite value, or fewer than 2 pairs
// the result has zero numbers and a Reason.
func BlandAltman(a, b []float64) BlandAltmanResult {
	r := BlandAltmanResult{N: len(a)}
	if reason := checkPairs(a, b, 2); reason != "" {
		r.Reason = reason
		return r
	}
	d := make([]float64, len(a))
	for i := range a {
		d[i] = b[i] - a[i]
	}
	md := MeanDifference(d, 0.95)
	if md.Reason != "" {
		r.Reason = md.Reason
		return r
	}
	n := float64(len(d))
	t := tQuantile(0.975, n-1)
	seLimit := math.Sqrt(3 * md.SD * md.SD / n)
	r.Bias, r.SD, r.BiasCI = md.Mean, md.SD, md.CI
	r.Lower = md.Mean - BlandAltmanZ*md.SD
	r.Upper = md.Mean + BlandAltmanZ*md.SD
	r.LowerCI = Interval{Lower: r.Lower - t*seLimit, Upper: r.Lower + t*seLimit}
	r.UpperCI = Interval{Lower: r.Upper - t*seLimit, Upper: r.Upper + t*seLimit}
	return r
}

// CCC is Lin's concordance correlation coefficient with its standard error
// and Fisher-z 95% interval. When it is not defined, Reason says why and
// the numbers are zero.
type CCC struct {
	Value  float64
	SE     float64
	CI95   Interval
	N      int
	Reason string
}

// LinCCC returns Lin's concordance correlation coefficient of the pairs
// (a[i], b[i]) (Lin 1989), with variances and covariance over n:
//
//	rho_c = 2 s_ab / (s_a^2 + s_b^2 + (mean_a - mean_b)^2)
//
// rho_c lies in [-1, 1]. Its standard error is Lin's (1989) asymptotic
// one, with r Pearson's r and u = (mean_b - mean_a)/(s_a^2 s_b^2)^(1/4):
//
//	SE^2 = [(1-r^2) rho_c^2 (1-rho_c^2)/r^2 + 2 rho_c^3 (1-rho_c) u^2/r
//	        - rho_c^4 u^4/(2 r^2)] / (n-2)
//
// and the interval is tanh(atanh(rho_c) ± Z95 SE/(1-rho_c^2)), the
// "z-transform" interval of R's epiR::epi.ccc. rho_c = 1 (a = b) gives
// SE 0 and [1, 1]; r = 0 gives rho_c = 0 with SE and interval undefined
// (Reason set, Value kept).
//
// With unequal lengths, a NaN or infinite value, fewer than
// MinCorrelationPairs pairs, or zero variance in a or b the result has
// zero numbers and a Reason.
func LinCCC(a, b []float64) CCC {
	c := CCC{N: len(a)}
	if reason := checkPairs(a, b, MinCorrelationPairs); reason != "" {
		c.Reason = reason
		return c
	}
	switch {
	case allEqual(a):
		c.Reason = "undefined: a has zero variance"
		return c
	case allEqual(b):
		c.Reason = "undefined: b has zero variance"
		return c
	}
	// rho_c is invariant under a common scaling of a and b; rescaling
	// extreme magnitudes keeps the sums of squares from overflowing.
	a, b = scaledByMaxAbs(a, b), scaledByMaxAbs(b, a)
	n := float64(len(a))
	ma, mb := mean(a), mean(b)
	var saa, sbb, sab float64
	for i := range a {
		da, db := a[i]-ma, b[i]-mb
		saa += da * da
		sbb += db * db
		sab += da * db
	}
	saa, sbb, sab = saa/n, sbb/n, sab/n
	rho := 2 * sab / (saa + sbb + (ma-mb)*(ma-mb))
	r := sab / math.Sqrt(saa) / math.Sqrt(sbb)
	if saa == 0 || sbb == 0 || math.IsNaN(rho) || math.IsInf(rho, 0) || math.IsNaN(r) || math.IsInf(r, 0) {
		c.Reason = "undefined: variances underflow or overflow floating point"
		return c
	}
	rho = math.Max(-1, math.Min(1, rho))
	r = math.Max(-1, math.Min(1, r))
	c.Value = rho
	switch {
	case math.Abs(rho) == 1:
		c.CI95 = Interval{Lower: rho, Upper: rho}
		return c
	case r == 0:
		c.Reason = "interval undefined: Pearson r is 0"
		return c
	}
	u := (mb - ma) / math.Pow(saa*sbb, 0.25)
	u2 := u * u
	r2, rho2 := r*r, rho*rho
	v := ((1-r2)*rho2*(1-rho2)/r2 + 2*rho2*rho*(1-rho)*u2/r - 0.5*rho2*rho2*u2*u2/r2) / (n - 2)
	if !(v >= 0) || math.IsInf(v, 0) {
		c.Reason = fmt.Sprintf("interval undefined: asymptotic variance %v is not a finite non-negative number", v)
		return c
	}
	c.SE = math.Sqrt(v)
	z, half := math.Atanh(rho), Z95*c.SE/(1-rho2)
	c.CI95 = fisherInterval(z, half, rho)
	return c
}

// meanSD returns the mean and the sample standard deviation (n-1
// denominator) of x; len(x) >= 2.
func meanSD(x []float64) (mu, sd float64) {
	mu = mean(x)
	if allEqual(x) {
		return x[0], 0
	}
	var ss float64
	for _, v := range x {
		ss += (v - mu) * (v - mu)
	}
	return mu, math.Sqrt(ss / float64(len(x)-1))
}

// tQuantile returns the p quantile of Student's t with df degrees of
// freedom.
func tQuantile(p, df float64) float64 {
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Quantile(p)
}
