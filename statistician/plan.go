package statistician

import (
	"fmt"
	"math"
)

// MaxPlanN bounds every planner's search; a plan that needs more is
// reported as unreachable.
const MaxPlanN = 1_000_000_000

// Plans named in Plan.Method besides MethodClassical and MethodPPI.
const MethodAgreement = "agreement"

// Plan is a planner's answer: N deep labels (or paired runs, for
// agreement) and the figure they achieve: the half-width for an estimate,
// the Wilson lower bound for agreement. When no N up to the limit reaches
// the goal, N is 0 and Reason says why; Achieved then holds the best
// figure reachable.
type Plan struct {
	Method   string   `yaml:"method" json:"method"`
	N        int      `yaml:"n" json:"n"`
	Achieved float64  `yaml:"achieved" json:"achieved"`
	Lambda   *float64 `yaml:"lambda,omitempty" json:"lambda,omitempty"`
	Reason   string   `yaml:"reason,omitempty" json:"reason,omitempty"`
}

// wilsonReal returns the Wilson score interval (see WilsonInterval) for a
// real-valued share p in [0, 1] of n trials, unclamped.
func wilsonReal(p, n, z float64) (lo, hi float64) {
	z2 := z * z
	den := 1 + z2/n
	centre := (p + z2/(2*n)) / den
	half := z / den * math.Sqrt(p*(1-p)/n+z2/(4*n*n))
	return centre - half, centre + half
}

// WilsonHalfWidth returns the half-width of the Wilson score interval at
// share p in [0, 1] of n > 0 trials and quantile z > 0,
//
//	h = z/(1 + z^2/n) sqrt(p(1-p)/n + z^2/(4n^2))
//
// which decreases in n for every p (the derivative of its log is negative
// because p(1-p) <= 1/4).
func WilsonHalfWidth(p float64, n int, z float64) float64 {
	lo, hi := wilsonReal(p, float64(n), z)
	return (hi - lo) / 2
}

// WorstCaseRate returns the rate in the Wilson interval of successes out
// of n at quantile z that is closest to 1/2, where a binomial interval is
// widest: a conservative rate to plan with from a pilot. It returns an
// error for an invalid proportion (see WilsonInterval).
func WorstCaseRate(successes, n int, z float64) (float64, error) {
	iv, err := WilsonInterval(successes, n, z)
	if err != nil {
		return 0, fmt.Errorf("statistician: worst-case rate: %w", err)
	}
	return math.Max(iv.Lower, math.Min(iv.Upper, 0.5)), nil
}

// PlanClassicalRate returns the number of deep labels n for which the
// classical estimate of a pass rate (ClassicalRate's Wilson interval)
// has half-width at most halfWidth at the two-sided level, if the rate
// is rate: the smallest n with WilsonHalfWidth(rate, n, z) <= halfWidth,
// found by bisection (the half-width decreases in n). The half-width is
// that of the interval at share exactly rate (real-valued successes).
// Plan with the observed pilot rate, or for a conservative answer with
// WorstCaseRate of the pilot (0.5 when nothing is known). Achieved is the
// half-width at n. Invalid input (rate outside [0, 1], halfWidth outside
// (0, 1), level outside (0, 1)) gives a Reason.
func PlanClassicalRate(rate, halfWidth, level float64) Plan {
	p := Plan{Method: MethodClassical}
	z, err := ZForLevel(level)
	switch {
	case err != nil:
		p.Reason = "invalid input: " + err.Error()
		return p
	case !(rate >= 0 && rate <= 1):
		p.Reason = fmt.Sprintf("invalid input: rate %v outside [0, 1]", rate)
		return p
	case !(halfWidth > 0 && halfWidth < 1):
		p.Reason = fmt.Sprintf("invalid input: half-width %v outside (0, 1)", halfWidth)
		return p
	}
	if WilsonHalfWidth(rate, MaxPlanN, z) > halfWidth {
		p.Reason = fmt.Sprintf("unreachable: more than %d deep labels needed", MaxPlanN)
		p.Achieved = WilsonHalfWidth(rate, MaxPlanN, z)
		return p
	}
	lo, hi := 0, MaxPlanN // h(lo) > W (or lo = 0), h(hi) <= W
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if WilsonHalfWidth(rate, mid, z) <= halfWidth {
			hi = mid
		} else {
			lo = mid
		}
	}
	p.N, p.Achieved = hi, WilsonHalfWidth(rate, hi, z)
	return p
}

// WilsonHalfWidthOfRuns is WilsonHalfWidth for the pass rate over a
// finite set of nRuns runs from n of them drawn without replacement
// (ClassicalRateOfRuns' interval): the Wilson interval at quantile z
// sqrt((N - n)/(N - 1)) (Cochran 1977, 3.2). nRuns = 0 means no finite
// set (WilsonHalfWidth); n >= nRuns gives 0 (every run labelled).
func WilsonHalfWidthOfRuns(p float64, n, nRuns int, z float64) float64 {
	switch {
	case nRuns <= 0:
		return WilsonHalfWidth(p, n, z)
	case n >= nRuns:
		return 0
	}
	return WilsonHalfWidth(p, n, z*math.Sqrt(float64(nRuns-n)/float64(nRuns-1)))
}

// PlanClassicalRateOfRuns is PlanClassicalRate for the pass rate over a
// finite set of nRuns runs (the report's ClassicalRateOfRuns interval,
// finite-population corrected): the smallest n with
// WilsonHalfWidthOfRuns(rate, n, nRuns, z) <= halfWidth, found by
// bisection (z sqrt((N-n)/(N-1)) falls and n rises, so the half-width
// falls). For the Wald interval this is Cochran's (1977, 4.3) n = n0/(1 +
// (n0 - 1)/N), n0 the answer for an infinite population; Wilson's
// interval gives the same within a label or two away from rates near 0
// or 1. It is at most nRuns (at n = N the rate is exact). nRuns = 0 is
// PlanClassicalRate; nRuns of 1 or less than 0 is invalid.
func PlanClassicalRateOfRuns(rate, halfWidth, level float64, nRuns int) Plan {
	return PlanClassicalRateAssuredOfRuns(rate, 0, 0, nRuns, halfWidth, level, 0.5)
}

// PlanPPIRate returns the number of deep labels n, out of nLight runs
// that all have light's prediction, for which the PPI++ estimate
// (PPIMean) has half-width at most halfWidth at the two-sided level,
// from a pilot: the deep labels y and light's predictions f of the
// pilot's labelled runs. With the pilot's sample variances V_Y, V_f and
// covariance C, for n labelled and N_u = nLight - n unlabelled runs,
//
//	lambda(n) = clip(C / (V_f (1 + n/N_u)), 0, 1)
//	SE^2(n)   = (V_Y - 2 lambda C + lambda^2 V_f)/n + lambda^2 V_f/N_u
//
// (PPIMean's variance with the pilot's moments; lambda = 0 when
// N_u < 2 or V_f = 0), and the answer is the smallest n in [2, nLight]
// with z SE(n) <= halfWidth, found by a scan (SE(n) need not be monotone:
// with a perfect predictor it is flat at sqrt(V_Y/nLight)). Lambda is
// lambda(n). When no n up to nLight suffices, Reason says so and
// Achieved is the smallest half-width reachable: more light runs are
// needed, not more deep labels. A pilot with fewer than 2 pairs, unequal
// lengths, a non-finite value or constant labels, nLight < 2 or above
// MaxPlanN, halfWidth outside (0, 1) or level outside (0, 1) gives a
// Reason.
func PlanPPIRate(y, f []float64, nLight int, halfWidth, level float64) Plan {
	return planPPI(y, f, nLight, halfWidth, level, false)
}

// planPPI is PlanPPIRate, or PlanPPIRateOfRuns when ofRuns.
func planPPI(y, f []float64, nLight int, halfWidth, level float64, ofRuns bool) Plan {
	p := Plan{Method: MethodPPI}
	if _, err := ZForLevel(level); err != nil {
		p.Reason = "invalid input: " + err.Error()
		return p
	}
	if reason := checkLabelled(y, f, 2); reason != "" {
		p.Reason = reason
		return p
	}
	switch {
	case !(halfWidth > 0 && halfWidth < 1):
		p.Reason = fmt.Sprintf("invalid input: half-width %v outside (0, 1)", halfWidth)
		return p
	case nLight < 2 || nLight > MaxPlanN:
		p.Reason = fmt.Sprintf("invalid input: %d light runs, need 2 to %d", nLight, MaxPlanN)
		return p
	}
	if vy := sampleVariance(y); !(vy > 0) {
		p.Reason = "insufficient data: the pilot's deep labels are all equal, so their variance is unknown"
		return p
	}
	return planPPIScan(y, f, nLight, halfWidth, level, nil, 0.5, ofRuns)
}

// PlanPPIRateOfRuns is PlanPPIRate for the mean over the finite set of
// the nLight runs (the report's PPIMeanOfRuns interval,
// finite-population corrected): with lambda(n) as PlanPPIRate's and
// lambda' = lambda nLight/N_u,
//
//	SE^2(n) = (1 - n/nLight) (V_Y - 2 lambda' C + lambda'^2 V_f)/n
//
// which equals PlanPPIRate's SE^2(n) - V_Y/nLight (PPIMeanOfRuns' doc;
// the analogue of Cochran's n0/(1 + (n0 - 1)/N)); at n = nLight it is 0.
// Inputs are checked as by PlanPPIRate.
func PlanPPIRateOfRuns(y, f []float64, nLight int, halfWidth, level float64) Plan {
	return PlanPPIRateAssuredOfRuns(y, f, nLight, halfWidth, level, 0.5)
}

// planPPIScan is PlanPPIRate's scan on checked inputs; inflate, when not
// nil, multiplies the residuals' part of the variance at n
// (PlanPPIRateAssured; for the finite set of runs all of it), assurance is
// named in the unreachable reason when it is not 0.5, and ofRuns plans
// for the finite set of runs (PlanPPIRateOfRuns).
func planPPIScan(y, f []float64, nLight int, halfWidth, level float64, inflate func(n int) float64, assurance float64, ofRuns bool) Plan {
	p := Plan{Method: MethodPPI}
	z, _ := ZForLevel(level)
	vy, vf, c := sampleVariance(y), sampleVariance(f), sampleCovariance(y, f)
	best, bestN, bestLambda := math.Inf(1), 0, 0.0
	for n := 2; n <= nLight; n++ {
		nf, nu := float64(n), float64(nLight-n)
		lambda := 0.0
		if nLight-n >= 2 && vf > 0 {
			lambda = math.Max(0, math.Min(1, c/(vf*(1+nf/nu))))
		}
		v := (vy - 2*lambda*c + lambda*lambda*vf) / nf
		if inflate != nil && !ofRuns {
			v *= inflate(n) // the residuals' part; the unlabelled runs' is known
		}
		if lambda > 0 {
			v += lambda * lambda * vf / nu
		}
		if ofRuns {
			v -= vy / float64(nLight) // the runs' own sampling: PlanPPIRateOfRuns
			if inflate != nil {
				v *= inflate(n) // all of it is the residuals' (PlanPPIRateOfRuns)
			}
		}
		h := z * math.Sqrt(math.Max(0, v))
		if h < best {
			best, bestN, bestLambda = h, n, lambda
		}
		if h <= halfWidth {
			p.N, p.Achieved, p.Lambda = n, h, &lambda
			return p
		}
	}
	p.Achieved = best
	at := ""
	if assurance != 0.5 {
		at = fmt.Sprintf(" at assurance %g", assurance)
	}
	p.Reason = fmt.Sprintf("unreachable: with %d light runs the smallest half-width%s is %.4g (at %d deep labels, lambda %.3g); add light runs", nLight, at, best, bestN, bestLambda)
	return p
}

// PlanAgreement returns the number of paired runs n for which the Wilson
// lower bound at quantile z (Z95 for the report's 95% interval) of an
// agreement rate clears target, if the observed agreement rate is rate:
// with x(m) = floor(rate m) successes (a partial success is not counted;
// the product is taken with a 1e-9 tolerance so that 0.7 x 10 counts 7),
// the smallest n such that
//
//	WilsonLowerBound(x(m), m, z) > target   for every m >= n.
//
// Rounding down makes the bound a saw-tooth in m, so "the first m that
// clears" could fail again at m+1; the answer above never does. It is
// found exactly: the Wilson lower bound at real-valued successes
// max(0, rate m - 1) rises with m (it rises with the share and, at a fixed
// share, with m) and lies below the floored one, so its first m clearing
// target, n1, is an upper end; the answer is then the start of the run of
// clearing m ending at n1, found by scanning down. Achieved is the lower
// bound at n.
//
// rate <= target can never clear (the bound is below the share) and
// gives a Reason, as do rate or target outside [0, 1], z not positive and
// finite, or an n above MaxPlanN.
func PlanAgreement(rate, target, z float64) Plan {
	p := Plan{Method: MethodAgreement}
	switch {
	case !(rate >= 0 && rate <= 1):
		p.Reason = fmt.Sprintf("invalid input: agreement rate %v outside [0, 1]", rate)
		return p
	case !(target >= 0 && target <= 1):
		p.Reason = fmt.Sprintf("invalid input: target %v outside [0, 1]", target)
		return p
	case !(z > 0) || math.IsInf(z, 0):
		p.Reason = fmt.Sprintf("invalid input: quantile z = %v must be positive and finite", z)
		return p
	case rate <= target:
		p.Reason = fmt.Sprintf("unreachable: the Wilson lower bound stays below the agreement rate %v, which does not exceed the target %v", rate, target)
		return p
	}
	successes := func(m int) int { return int(math.Floor(rate*float64(m) + 1e-9)) }
	floored := func(m int) float64 {
		lo, _ := wilsonReal(float64(successes(m))/float64(m), float64(m), z)
		return lo
	}
	smooth := func(m int) float64 {
		mf := float64(m)
		lo, _ := wilsonReal(math.Max(0, rate*mf-1)/mf, mf, z)
		return lo
	}
	if smooth(MaxPlanN) <= target {
		p.Reason = fmt.Sprintf("unreachable: more than %d paired runs needed", MaxPlanN)
		p.Achieved = smooth(MaxPlanN)
		return p
	}
	lo, hi := 0, MaxPlanN // smooth(lo) <= target (or lo = 0), smooth(hi) > target
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if smooth(mid) > target {
			hi = mid
		} else {
			lo = mid
		}
	}
	n := hi
	for n > 1 && floored(n-1) > target {
		n--
	}
	p.N, p.Achieved = n, floored(n)
	return p
}
