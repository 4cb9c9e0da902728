package statistician

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// ClopperPearsonLower returns the one-sided Clopper-Pearson lower
// confidence bound at level 1 - risk for successes out of n trials
// (Clopper and Pearson 1934), the quantile of a Beta distribution:
//
//	lower = BetaQuantile(risk; x, n-x+1)   (0 when x = 0)
//
// The true rate p is at or above it with probability at least 1 - risk.
// Equivalently, lower >= a exactly when the exact one-sided binomial test
// of H0: p <= a against p > a rejects at level risk:
//
//	P(Binomial(n, a) >= x) <= risk
//
// which is the test each step of a fixed-sequence procedure runs
// (escalate.Calibrate). It equals the lower end of scipy's
// binomtest(x, n, alternative='greater').proportion_ci(1 - risk,
// method='exact'), and the lower end of ClopperPearson at two-sided level
// 1 - 2 risk. The bound lies in [0, x/n]. It returns an error when n <= 0
// or n > MaxClopperPearsonN, successes is outside [0, n], or risk is
// outside (0, 1).
func ClopperPearsonLower(successes, n int, risk float64) (lower float64, err error) {
	if !(risk > 0 && risk < 1) {
		return 0, fmt.Errorf("statistician: clopper-pearson lower bound: risk %v must be in (0, 1)", risk)
	}
	if err := checkProportion(successes, n, 1); err != nil {
		return 0, fmt.Errorf("statistician: clopper-pearson lower bound: %w", err)
	}
	if n > MaxClopperPearsonN {
		return 0, fmt.Errorf("statistician: clopper-pearson lower bound: n = %d above %d, where the Beta quantile is inaccurate", n, MaxClopperPearsonN)
	}
	if successes == 0 {
		return 0, nil
	}
	return clopperPearsonLowerReal(float64(successes), float64(n), risk)
}

// clopperPearsonLowerReal is the bound of ClopperPearsonLower at a real
// number of successes x in (0, n]: BetaQuantile(risk; x, n-x+1), clamped
// to [0, x/n]. gonum's Beta quantile panics on parameters it cannot
// handle; that is turned into an error.
func clopperPearsonLowerReal(x, n, risk float64) (lower float64, err error) {
	defer func() {
		if r := recover(); r != nil {
			lower, err = 0, fmt.Errorf("statistician: clopper-pearson lower bound(%v, %v): beta quantile failed: %v", x, n, r)
		}
	}()
	if x == n {
		// Beta(n, 1) has CDF t^n: the quantile is closed-form and exact.
		return math.Pow(risk, 1/n), nil
	}
	q := distuv.Beta{Alpha: x, Beta: n - x + 1}.Quantile(risk)
	return math.Min(clamp01(q), x/n), nil
}

// ClopperPearsonLowerN returns the fewest trials n, at most maxN, for
// which a run of n successes out of n has a ClopperPearsonLower bound at
// or above target: the smallest n with risk^(1/n) >= target, that is
//
//	n = ceil(ln(risk) / ln(target))
//
// checked against the bound itself so that rounding cannot put it one
// off. With fewer trials no record, however good, can show the rate
// reaches target at level 1 - risk. It returns an error when target is
// outside (0, 1), risk outside (0, 1), or the answer exceeds maxN.
func ClopperPearsonLowerN(target, risk float64, maxN int) (int, error) {
	if !(target > 0 && target < 1) {
		return 0, fmt.Errorf("statistician: clopper-pearson trials needed: target %v must be in (0, 1)", target)
	}
	if !(risk > 0 && risk < 1) {
		return 0, fmt.Errorf("statistician: clopper-pearson trials needed: risk %v must be in (0, 1)", risk)
	}
	clears := func(n int) bool { return math.Pow(risk, 1/float64(n)) >= target }
	est := math.Ceil(math.Log(risk) / math.Log(target))
	if est > float64(maxN)+1 {
		return 0, fmt.Errorf("statistician: clopper-pearson trials needed: more than %d to show %v at risk %v", maxN, target, risk)
	}
	n := max(1, int(est))
	for n > 1 && clears(n-1) {
		n--
	}
	for !clears(n) {
		n++
	}
	if n > maxN {
		return 0, fmt.Errorf("statistician: clopper-pearson trials needed: more than %d to show %v at risk %v", maxN, target, risk)
	}
	return n, nil
}

// MethodClopperPearsonLower names the plan of PlanClopperPearsonLower.
const MethodClopperPearsonLower = "clopper-pearson-lower"

// PlanClopperPearsonLower returns the number of trials n, at most maxN,
// for which the one-sided ClopperPearsonLower bound at risk of a rate
// clears target, if the observed rate is rate: with x(m) = floor(rate m)
// successes (the product taken with a 1e-9 tolerance, as in
// PlanAgreement), the smallest n such that
//
//	ClopperPearsonLower(x(m), m, risk) >= target   for every m >= n.
//
// It is found as PlanAgreement finds its n: the bound at real-valued
// successes max(0, rate m - 1) rises with m and lies below the floored
// one, so its first m clearing target is an upper end n1, and the answer
// is the start of the run of clearing m ending at n1. Achieved is the
// bound at n. rate <= target never clears (the bound is below the share)
// and gives a Reason, as do rate or target outside [0, 1], risk outside
// (0, 1), or an n above maxN (Achieved is then the bound at maxN).
func PlanClopperPearsonLower(rate, target, risk float64, maxN int) Plan {
	p := Plan{Method: MethodClopperPearsonLower}
	switch {
	case !(rate >= 0 && rate <= 1):
		p.Reason = fmt.Sprintf("invalid input: rate %v outside [0, 1]", rate)
		return p
	case !(target >= 0 && target <= 1):
		p.Reason = fmt.Sprintf("invalid input: target %v outside [0, 1]", target)
		return p
	case !(risk > 0 && risk < 1):
		p.Reason = fmt.Sprintf("invalid input: risk %v outside (0, 1)", risk)
		return p
	case maxN < 1 || maxN > MaxClopperPearsonN:
		p.Reason = fmt.Sprintf("invalid input: limit %d outside [1, %d]", maxN, MaxClopperPearsonN)
		return p
	case rate <= target:
		p.Reason = fmt.Sprintf("unreachable: the lower bound stays below the rate %v, which does not exceed the target %v", rate, target)
		return p
	}
	bound := func(x float64, m int) float64 {
		if x <= 0 {
			return 0
		}
		lo, err := clopperPearsonLowerReal(x, float64(m), risk)
		if err != nil {
			return 0 // counted as not clearing; the search then looks further
		}
		return lo
	}
	floored := func(m int) float64 { return bound(math.Floor(rate*float64(m)+1e-9), m) }
	smooth := func(m int) float64 { return bound(rate*float64(m)-1, m) }
	if smooth(maxN) < target {
		p.Reason = fmt.Sprintf("unreachable: more than %d trials needed", maxN)
		p.Achieved = floored(maxN)
		return p
	}
	lo, hi := 0, maxN // smooth(lo) < target (or lo = 0), smooth(hi) >= target
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if smooth(mid) >= target {
			hi = mid
		} else {
			lo = mid
		}
	}
	n := hi
	for n > 1 && floored(n-1) >= target {
		n--
	}
	p.N, p.Achieved = n, floored(n)
	return p
}
