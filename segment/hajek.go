package segment

import (
	"fmt"
	"math"

	"github.com/evalcal/evalcal/statistician"
)

// MethodHajek is deep's pass rate of a slice whose deep subset was drawn
// with unequal inclusion probabilities (Hajek).
const MethodHajek = "hajek"

// Hajek is the Hájek (ratio) inverse-probability-weighted estimate of a
// slice's deep pass rate from its n labelled runs, label y_i in {0, 1}
// drawn with the recorded inclusion probability pi_i in (0, 1]: with
// w_i = 1/pi_i,
//
//	mu = sum w_i y_i / sum w_i
//
// (Särndal, Swensson and Wretman 1992, "Model Assisted Survey Sampling",
// 5.7). Its standard error is the linearisation (sandwich) one for the
// process producing the slice's runs, as every rate of this package (not
// the finite-population design variance the estimate section's ipw
// uses, which has a (1 - pi_i) factor):
//
//	SE^2 = n/(n-1) sum w_i^2 (y_i - mu)^2 / (sum w_i)^2
//
// the with-replacement linearised variance of a ratio mean (R's survey
// svymean on svydesign(ids=~1, weights=~w); statsmodels' WLS of y on a
// constant with weights w and HC1 covariance); the 95% interval is mu ±
// z SE clipped to [0, 1]. Needs 2 labels or more; all labels equal give
// the rate with no SE and no interval (the linearisation's 0 would claim
// certainty, and make the slice's comparisons overconfident), with a
// Reason. y and pi have one entry per
// labelled run.
func Hajek(y, pi []float64) *Rate {
	n := len(y)
	r := &Rate{Method: MethodHajek, NLabelled: n}
	if n < 2 || len(pi) != n {
		r.Reason = fmt.Sprintf("not estimated: %d deep labels with inclusion probabilities, need at least 2", n)
		return r
	}
	var sw, swy float64
	for i := range y {
		if !(pi[i] > 0 && pi[i] <= 1) {
			r.Reason = fmt.Sprintf("not estimated: a labelled run's inclusion probability is %v, need (0, 1]", pi[i])
			return r
		}
		sw += 1 / pi[i]
		swy += y[i] / pi[i]
	}
	mu := swy / sw
	var ss float64
	for i := range y {
		d := (y[i] - mu) / pi[i]
		ss += d * d
	}
	se := math.Sqrt(float64(n) / float64(n-1) * ss / (sw * sw))
	p, s := 100*mu, 100*se
	r.Percent = &p
	if se == 0 {
		r.Reason = "no interval: deep's labels in the slice are all equal"
		return r
	}
	r.SE = &s
	r.CI95 = &statistician.Interval{Lower: 100 * max(0, mu-statistician.Z95*se), Upper: 100 * min(1, mu+statistician.Z95*se)}
	return r
}
