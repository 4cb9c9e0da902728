package statistician

import (
	"fmt"
	"math"
	"strings"
)

// The planners above answer "on average": at their n the realised
// half-width is about W, so it is above W about half the time. The
// assured planners below answer "with probability P": the n at which the
// realised half-width is at most W with probability P, counting both the
// sampling of the n labels and the uncertainty of the pilot the plan is
// computed from (a predictive, not a fixed-truth, probability). P = 0.5
// gives the planners above exactly.

// checkAssurance returns z_P = Phi^-1(P) for an assurance P in [0.5, 1).
func checkAssurance(p float64) (float64, error) {
	if !(p >= 0.5 && p < 1) {
		return 0, fmt.Errorf("assurance %v outside [0.5, 1)", p)
	}
	if p == 0.5 {
		return 0, nil
	}
	return ZForLevel(2*p - 1)
}

// PlanClassicalRateAssured is PlanClassicalRate with assurance P: from a
// pilot with successes out of pilotN deep labels (pilotN = 0: the rate is
// taken as known, as for a worst-case rate), the realised share p_n at n
// labels is predicted as Normal(rate, q(1-q)(1/n + 1/pilotN)), with q =
// (successes + 1/2)/(pilotN + 1) (so a pilot with no pass or no failure
// still has a spread; q = rate when pilotN = 0). The Wilson half-width
// widens as the share moves toward 1/2, so the answer is the smallest n
// with
//
//	WilsonHalfWidth(p_P(n), n, z) <= halfWidth,
//	p_P(n) = rate moved toward 1/2 by z_P sqrt(q(1-q)(1/n + 1/pilotN)), at most to 1/2
//
// (z_P = Phi^-1(P)); p_P(n) and the half-width both fall as n grows, so
// it is found by bisection. Achieved is the half-width at n and share
// p_P(n). P outside [0.5, 1) or successes outside [0, pilotN] gives a
// Reason, as do PlanClassicalRate's invalid inputs.
func PlanClassicalRateAssured(rate float64, successes, pilotN int, halfWidth, level, assurance float64) Plan {
	p := PlanClassicalRate(rate, halfWidth, level)
	zp, err := checkAssurance(assurance)
	switch {
	case p.Reason != "" && !strings.HasPrefix(p.Reason, "unreachable"):
		return p
	case err != nil:
		return Plan{Method: MethodClassical, Reason: "invalid input: " + err.Error()}
	case pilotN < 0 || successes < 0 || successes > pilotN:
		return Plan{Method: MethodClassical, Reason: fmt.Sprintf("invalid input: %d successes of %d pilot labels", successes, pilotN)}
	case zp == 0:
		return p
	}
	z, _ := ZForLevel(level)
	q := rate
	if pilotN > 0 {
		q = (float64(successes) + 0.5) / (float64(pilotN) + 1)
	}
	share := func(n int) float64 {
		v := q * (1 - q) / float64(n)
		if pilotN > 0 {
			v += q * (1 - q) / float64(pilotN)
		}
		d := zp * math.Sqrt(v)
		if rate < 0.5 {
			return math.Min(0.5, rate+d)
		}
		return math.Max(0.5, rate-d)
	}
	h := func(n int) float64 { return WilsonHalfWidth(share(n), n, z) }
	if h(MaxPlanN) > halfWidth {
		return Plan{Method: MethodClassical, Achieved: h(MaxPlanN),
			Reason: fmt.Sprintf("unreachable: more than %d deep labels needed at assurance %g", MaxPlanN, assurance)}
	}
	lo, hi := 0, MaxPlanN // h(lo) > W (or lo = 0), h(hi) <= W
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if h(mid) <= halfWidth {
			hi = mid
		} else {
			lo = mid
		}
	}
	return Plan{Method: MethodClassical, N: hi, Achieved: h(hi)}
}

// PlanPPIRateAssured is PlanPPIRate with assurance P. The realised
// variance at n labels is the true one times a relative error from
// estimating it on n labels and from the pilot's own estimate on m
// pilot pairs; with the pilot's residuals r = y - lambda* f (lambda* =
// clip(C/V_f, 0, 1), the limit of lambda(n) for many light runs) and
// their kurtosis kappa = mean((r - mean r)^4)/mean((r - mean r)^2)^2, the
// log of a sample variance on k values has standard deviation about
// sqrt((kappa - 1)/k) (the delta method; on the log scale, since a
// variance estimate is skewed to the right), so the planned variance is
//
//	SE_P^2(n) = SE^2(n) exp(z_P sqrt((kappa - 1)(1/n + 1/m)))
//
// (z_P = Phi^-1(P); SE^2(n) is PlanPPIRate's) and the answer is the
// smallest n in [2, nLight] with z SE_P(n) <= halfWidth. P = 0.5 is
// PlanPPIRate. P outside [0.5, 1) gives a Reason, as do PlanPPIRate's
// invalid inputs.
func PlanPPIRateAssured(y, f []float64, nLight int, halfWidth, level, assurance float64) Plan {
	zp, err := checkAssurance(assurance)
	if err != nil {
		return Plan{Method: MethodPPI, Reason: "invalid input: " + err.Error()}
	}
	base := PlanPPIRate(y, f, nLight, halfWidth, level)
	if zp == 0 || (base.Reason != "" && !strings.HasPrefix(base.Reason, "unreachable")) {
		return base
	}
	vf, c := sampleVariance(f), sampleCovariance(y, f)
	lamStar := 0.0
	if vf > 0 {
		lamStar = math.Max(0, math.Min(1, c/vf))
	}
	r := make([]float64, len(y))
	for i := range y {
		r[i] = y[i] - lamStar*f[i]
	}
	mr := mean(r)
	var m2, m4 float64
	for _, v := range r {
		d := (v - mr) * (v - mr)
		m2 += d
		m4 += d * d
	}
	m2, m4 = m2/float64(len(r)), m4/float64(len(r))
	kappa := 3.0 // a normal residual's, when the pilot's is undefined
	if m2 > 0 {
		kappa = m4 / (m2 * m2)
	}
	inflate := func(n int) float64 {
		return math.Exp(zp * math.Sqrt(math.Max(0, kappa-1)*(1/float64(n)+1/float64(len(y)))))
	}
	return planPPIScan(y, f, nLight, halfWidth, level, inflate, assurance)
}
