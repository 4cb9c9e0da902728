package statistician

import (
	"fmt"
	"math"
	"strings"

	"gonum.org/v1/gonum/stat/distuv"
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
// labels differs from the pilot's rate by both samplings, with variance
// about p(1-p)(1/n + 1/pilotN) at the true rate p. The Wilson half-width
// widens as the share moves toward 1/2, so the answer is the smallest n
// with
//
//	WilsonHalfWidth(p_P(n), n, z) <= halfWidth,
//	p_P(n) = the p toward 1/2 from rate with (p - rate)^2 = z_P^2 (1/n + 1/pilotN) p(1-p), at most 1/2
//
// (z_P = Phi^-1(P)): the variance taken at p, not at the pilot's rate (a
// score bound, as Wilson's interval is to Wald's), since a pilot whose
// rate came out far from 1/2 also underestimates the spread (the Wald
// form, at the pilot's rate, reached W in 86.7% of simulated chains at P
// = 0.9; plan_assurance_test.go); a pilot with no pass or no failure
// still has a spread. With pilotN = 0, p_P(n) = rate moved toward 1/2 by
// z_P sqrt(rate(1-rate)/n). p_P(n) and the half-width both fall as n
// grows, so it is found by bisection. Achieved is the half-width at n and
// share p_P(n). P outside [0.5, 1) or successes outside [0, pilotN]
// gives a Reason, as do PlanClassicalRate's invalid inputs.
func PlanClassicalRateAssured(rate float64, successes, pilotN int, halfWidth, level, assurance float64) Plan {
	return PlanClassicalRateAssuredOfRuns(rate, successes, pilotN, 0, halfWidth, level, assurance)
}

// PlanClassicalRateAssuredOfRuns is PlanClassicalRateAssured for the pass
// rate over a finite set of nRuns runs (finite-population corrected, as
// PlanClassicalRateOfRuns): the smallest n with
// WilsonHalfWidthOfRuns(p_P(n), n, nRuns, z) <= halfWidth, at most
// nRuns. nRuns = 0 is PlanClassicalRateAssured; nRuns of 1 or below 0
// gives a Reason.
func PlanClassicalRateAssuredOfRuns(rate float64, successes, pilotN, nRuns int, halfWidth, level, assurance float64) Plan {
	p := PlanClassicalRate(rate, halfWidth, level)
	zp, err := checkAssurance(assurance)
	switch {
	case nRuns < 0 || nRuns == 1 || nRuns > MaxPlanN:
		return Plan{Method: MethodClassical, Reason: fmt.Sprintf("invalid input: %d runs, need 0 (not finite) or 2 to %d", nRuns, MaxPlanN)}
	case p.Reason != "" && !strings.HasPrefix(p.Reason, "unreachable"):
		return p
	case err != nil:
		return Plan{Method: MethodClassical, Reason: "invalid input: " + err.Error()}
	case pilotN < 0 || successes < 0 || successes > pilotN:
		return Plan{Method: MethodClassical, Reason: fmt.Sprintf("invalid input: %d successes of %d pilot labels", successes, pilotN)}
	case zp == 0 && nRuns == 0:
		return p
	}
	z, _ := ZForLevel(level)
	share := func(n int) float64 {
		if pilotN > 0 {
			// (1+k) p^2 - (2 rate + k) p + rate^2 = 0, the root toward 1/2.
			k := zp * zp * (1/float64(n) + 1/float64(pilotN))
			r := rate
			disc := math.Sqrt(math.Max(0, (2*r+k)*(2*r+k)-4*(1+k)*r*r))
			if rate < 0.5 {
				return math.Min(0.5, (2*r+k+disc)/(2*(1+k)))
			}
			return math.Max(0.5, (2*r+k-disc)/(2*(1+k)))
		}
		d := zp * math.Sqrt(rate*(1-rate)/float64(n))
		if rate < 0.5 {
			return math.Min(0.5, rate+d)
		}
		return math.Max(0.5, rate-d)
	}
	h := func(n int) float64 { return WilsonHalfWidthOfRuns(share(n), n, nRuns, z) }
	top := MaxPlanN
	if nRuns > 0 {
		top = nRuns // h(nRuns) = 0: every run labelled
	}
	if h(top) > halfWidth {
		return Plan{Method: MethodClassical, Achieved: h(top),
			Reason: fmt.Sprintf("unreachable: more than %d deep labels needed at assurance %g", top, assurance)}
	}
	lo, hi := 0, top // h(lo) > W (or lo = 0), h(hi) <= W
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
// variance at n labels is the true one times the relative error of its
// estimate on n labels, and the plan's variance is the true one times
// the relative error of the pilot's estimate on m pilot pairs. With the
// pilot's residuals r = y - lambda* f (lambda* = clip(C/V_f, 0, 1), the
// limit of lambda(n) for many light runs) and their kurtosis kappa =
// mean((r - mean r)^4)/mean((r - mean r)^2)^2, a sample variance on k
// values has variance 2 sigma^4/d with d = 2k/(kappa - 1) (the delta
// method; d = k for normal values), so each relative error is taken as
// chi^2_d/d (Satterthwaite's approximation, Satterthwaite 1946) and
// their ratio as F(d_n, d_m):
//
//	SE_P^2(n) = (m-1)/(m-2) F_P(d_n, d_m) (V_Y - 2 lambda C + lambda^2 V_f)/n + lambda^2 V_f/N_u
//	d_n = 2(n-2)/(kappa-1),   d_m = 2(m-2)/(kappa-1)
//
// (F_P the F distribution's P quantile; the rest is PlanPPIRate's SE^2(n),
// whose last term, light's own variance over the N_u unlabelled runs,
// has no error from the labels and is not inflated). Two
// degrees of freedom of the pilot go to lambda* and the mean and the
// factor (m-1)/(m-2) undoes the pilot's residual variance's shrinkage
// from fitting lambda* on it (the residual variance of a fitted line has
// m - 2 degrees of freedom); two of the realised estimate's go to its
// two folds' means. The F quantile's right skew is what the pilot's
// uncertainty needs: the pilots that plan too few labels are those whose
// residual variance (or whose correlation's complement 1 - rho^2, the
// same quantity: V_Y (1 - rho^2)) came out small, and with a strong
// light predictor 1 - rho^2 is small and its relative error large. The
// log-normal form exp(z_P sqrt((kappa-1)(1/n + 1/m))) used before
// reached W in 86.8% of simulated chains at P = 0.9 with a strong
// predictor (plan_assurance_test.go). The answer is the smallest n in
// [2, nLight] with z SE_P(n) <= halfWidth. P = 0.5 is PlanPPIRate (the
// plan on average, as before). P outside [0.5, 1) gives a Reason, as do
// PlanPPIRate's invalid inputs.
func PlanPPIRateAssured(y, f []float64, nLight int, halfWidth, level, assurance float64) Plan {
	return planPPIAssured(y, f, nLight, halfWidth, level, assurance, false)
}

// PlanPPIRateAssuredOfRuns is PlanPPIRateAssured for the mean over the
// finite set of the nLight runs: PlanPPIRateOfRuns' variance (all of it
// the residuals') times the same inflation, with kappa from the residuals y - lambda' f of the
// difference estimator, lambda' = max(0, C/V_f) (lambda N/N_u when
// lambda is not clipped).
func PlanPPIRateAssuredOfRuns(y, f []float64, nLight int, halfWidth, level, assurance float64) Plan {
	return planPPIAssured(y, f, nLight, halfWidth, level, assurance, true)
}

// planPPIAssured is PlanPPIRateAssured, or PlanPPIRateAssuredOfRuns when
// ofRuns.
func planPPIAssured(y, f []float64, nLight int, halfWidth, level, assurance float64, ofRuns bool) Plan {
	zp, err := checkAssurance(assurance)
	if err != nil {
		return Plan{Method: MethodPPI, Reason: "invalid input: " + err.Error()}
	}
	base := planPPI(y, f, nLight, halfWidth, level, ofRuns)
	if zp == 0 || (base.Reason != "" && !strings.HasPrefix(base.Reason, "unreachable")) {
		return base
	}
	vf, c := sampleVariance(f), sampleCovariance(y, f)
	lamStar := 0.0
	switch {
	case vf > 0 && ofRuns:
		// The difference estimator's coefficient lambda N/N_u is C/V_f
		// wherever lambda(n) is not clipped (PlanPPIRateOfRuns).
		lamStar = math.Max(0, c/vf)
	case vf > 0:
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
	m := float64(len(y))
	inflate := func(n int) float64 {
		return (m - 1) / math.Max(1, m-2) * fQuantile(assurance, float64(n-2), m-2, kappa)
	}
	return planPPIScan(y, f, nLight, halfWidth, level, inflate, assurance, ofRuns)
}

// fQuantile returns the P quantile of F(d_n, d_m) with d_k = 2k/(kappa -
// 1) (see PlanPPIRateAssured); kappa <= 1 (no spread in the residuals'
// variance) gives 1, and k <= 0 is taken as 1 degree's worth. For d_n
// beyond 1e6 the F quantile is its limit d_m/chi^2_{d_m, 1-P} (the
// realised variance then has no error to speak of).
func fQuantile(p, kn, km, kappa float64) float64 {
	if !(kappa > 1) {
		return 1
	}
	dn, dm := 2*math.Max(1, kn)/(kappa-1), 2*math.Max(1, km)/(kappa-1)
	if dn > 1e6 {
		return dm / distuv.ChiSquared{K: dm}.Quantile(1-p)
	}
	return distuv.F{D1: dn, D2: dm}.Quantile(p)
}
