package statistician

import (
	"fmt"
	"math"
)

// MethodStratPPI names the stratified PPI++ estimate.
const MethodStratPPI = "stratified ppi++"

// Stratum is one stratum's runs for StratPPIMeanOfRuns: the deep labels Y
// and light's predictions FLabelled of its labelled runs, and light's
// predictions FUnlabelled of the rest.
type Stratum struct {
	Name        string
	Y           []float64
	FLabelled   []float64
	FUnlabelled []float64
}

// StratPPIMeanOfRuns is the stratified PPI++ estimate of the mean over the
// finite set of runs (Fisch et al. 2024, "Stratified Prediction-Powered
// Inference for Hybrid Language Model Evaluation", arXiv 2406.04291,
// StratPPI): in each stratum h of N_h runs the labelled ones are a simple
// random sample of n_h, and with weights w_h = N_h/N
//
//	theta = sum_h w_h theta_h,   Var = sum_h w_h^2 Var_h
//	CI    = theta ± t_df sqrt(Var)
//
// with t_df the Student t quantile at the level and the Welch-
// Satterthwaite degrees of freedom (Satterthwaite 1946; Cochran 1977,
// 5A.3 for stratified means)
//
//	df = (sum_h a_h)^2 / sum_h a_h^2/(n_h - 1),   a_h = w_h^2 Var_h
//
// over the strata with unlabelled runs: a stratum's variance estimated
// on few labels makes the normal quantile too short (with 250 labels and
// a light-pass stratum of about 35 the z interval's coverage came out
// 0.1-0.6 points lower on 6,000 simulated datasets of the settings of
// estimate_coverage_test.go). With many labels in every stratum t_df is z.
//
// where theta_h and Var_h are PPIMeanOfRuns on the stratum (its lambda_h
// tuned and cross-fitted within the stratum: the variance is a sum over
// strata, so each lambda_h minimises its own term, as in the paper's
// per-stratum tuning). A stratum whose runs are all labelled adds its
// mean with no variance. A stratum whose labels are all 0 or all 1 has an
// estimated variance of 0, which would claim too much: its Var_h is (1 -
// n_h/N_h) q(1-q)/n_h with q = (x + 1/2)/(n_h + 1), x the number of 1s
// (half a success and half a failure added). Lambda reports sum_h w_h
// lambda_h.
//
// EffectiveN is s_Y^2/(Var + s_Y^2/N) with s_Y^2 the variance of all
// labels. With no stratum, a stratum with fewer than 2 labels and some
// unlabelled run (pool it with PoolSmallStrata), unequal lengths, a
// non-finite value or level outside (0, 1) the result has zero numbers
// and a Reason; constant score labels in a stratum leave the interval
// undefined with a Reason.
func StratPPIMeanOfRuns(strata []Stratum, level float64) Estimate {
	e := Estimate{Method: MethodStratPPI, Level: level, Target: TargetRuns}
	z, err := ZForLevel(level)
	if err != nil {
		e.Reason = "invalid input: " + err.Error()
		return e
	}
	if len(strata) == 0 {
		e.Reason = "insufficient data: no stratum"
		return e
	}
	N := 0
	var all []float64
	for _, s := range strata {
		if len(s.Y) < 2 && len(s.FUnlabelled) > 0 {
			e.Reason = fmt.Sprintf("insufficient data: stratum %q has %d deep labels, need at least 2", s.Name, len(s.Y))
			return e
		}
		N += len(s.Y) + len(s.FUnlabelled)
		e.NLabelled += len(s.Y)
		e.NUnlabelled += len(s.FUnlabelled)
		all = append(all, s.Y...)
	}
	var value, variance, lambda, dfDen float64
	for _, s := range strata {
		nh := len(s.Y) + len(s.FUnlabelled)
		w := float64(nh) / float64(N)
		if len(s.FUnlabelled) == 0 {
			if i := firstNonFinite(s.Y); i >= 0 {
				return Estimate{Method: e.Method, Level: level, Target: TargetRuns,
					Reason: fmt.Sprintf("invalid input: stratum %q: deep label %d is %v", s.Name, i, s.Y[i])}
			}
			value += w * mean(s.Y) // exact: every run of the stratum is labelled
			continue
		}
		h := PPIMeanOfRuns(s.Y, s.FLabelled, s.FUnlabelled, level)
		vh := h.SE * h.SE
		switch {
		case h.Reason == "":
		case h.Value == 0 && h.CI == (Interval{}) && h.Lambda == nil:
			e.Reason = fmt.Sprintf("stratum %q: %s", s.Name, h.Reason)
			return Estimate{Method: e.Method, Level: level, Target: TargetRuns, NLabelled: e.NLabelled, NUnlabelled: e.NUnlabelled, Reason: e.Reason}
		default: // all labels equal: a variance of 0 would claim too much
			vh = constantStratumVariance(s.Y, nh)
			if vh == 0 {
				e.Reason = fmt.Sprintf("interval undefined: the deep scores of stratum %q are all equal", s.Name)
			}
		}
		value += w * h.Value
		variance += w * w * vh
		if a := w * w * vh; a > 0 {
			dfDen += a * a / float64(len(s.Y)-1)
		}
		if h.Lambda != nil {
			lambda += w * *h.Lambda
		}
	}
	e.Value, e.Lambda = value, &lambda
	if e.Reason != "" {
		return e
	}
	if dfDen > 0 {
		z = tQuantile(1-(1-level)/2, variance*variance/dfDen)
	}
	normalInterval(&e, variance, sampleVariance(all), z, N)
	return e
}

// StratPPIMeanOfRunsUniform is StratPPIMeanOfRuns when the labelled runs
// are a simple random sample of all the runs (a uniform subset, the
// strata formed after it: post-stratification), unless PPIMeanOfRuns over
// all runs as one stratum (one lambda) has the narrower interval (its z
// interval against the stratified t_df one); then it is that estimate,
// with Method MethodStratPPI and Pooled set. Per-stratum lambdas pay for
// being estimated on fewer labels: where the strata do not explain the
// deep labels (a weak predictor) the pooled estimate is the narrower one,
// as Fisch et al. 2024 (arXiv 2406.04291, section 4) discuss for strata
// that do not help. The same rule as PPIMeanOfRunsCalibrated's choice of
// predictor: the interval is never wider than plain PPI++'s, and the
// choice between two estimates of the same mean by their intervals costs
// about 0.3 points of coverage where the two are alike (a weak predictor;
// 93.7-95.5% over the settings of estimate_coverage_test.go). Under a stratified design
// (unequal sampling fractions) the pooled estimate is not valid: use
// StratPPIMeanOfRuns.
func StratPPIMeanOfRunsUniform(strata []Stratum, level float64) Estimate {
	st := StratPPIMeanOfRuns(strata, level)
	var y, fl, fu []float64
	for _, s := range strata {
		y, fl = append(y, s.Y...), append(fl, s.FLabelled...)
		fu = append(fu, s.FUnlabelled...)
	}
	p := PPIMeanOfRuns(y, fl, fu, level)
	if p.Reason != "" || p.SE <= 0 || (st.Reason == "" && st.CI.Upper-st.CI.Lower <= p.CI.Upper-p.CI.Lower) {
		return st
	}
	if st.Reason != "" && st.Value == 0 && st.CI == (Interval{}) {
		return st // the stratified estimate's input was invalid
	}
	p.Method, p.Pooled = MethodStratPPI, true
	return p
}

// PoolSmallStrata returns strata with every stratum that has fewer than 2
// labels and some unlabelled run merged into one stratum named "pooled:"
// and the merged names, and the names pooled. Under a uniform random
// subset the labels of the pooled runs are still a simple random sample
// of them, so StratPPIMeanOfRuns stays valid; under a stratified design
// the allocation gives every stratum 2 labels or all its runs, so nothing
// is pooled. The pooled stratum is last; if it still has fewer than 2
// labels, StratPPIMeanOfRuns says so.
func PoolSmallStrata(strata []Stratum) (out []Stratum, pooled []string) {
	var p Stratum
	for _, s := range strata {
		if len(s.Y) >= 2 || len(s.FUnlabelled) == 0 {
			out = append(out, s)
			continue
		}
		pooled = append(pooled, s.Name)
		p.Y = append(p.Y, s.Y...)
		p.FLabelled = append(p.FLabelled, s.FLabelled...)
		p.FUnlabelled = append(p.FUnlabelled, s.FUnlabelled...)
	}
	if len(pooled) > 0 {
		p.Name = "pooled"
		out = append(out, p)
	}
	return out, pooled
}

// constantStratumVariance is the variance of a stratum's mean when its n
// labels (out of nRuns runs) are all equal: for labels 0 or 1, (1 -
// n/nRuns) q(1-q)/n with q = (x + 1/2)/(n + 1), x the number of 1s (a
// half success and a half failure added, so the stratum keeps some
// uncertainty); 0 for other labels.
func constantStratumVariance(y []float64, nRuns int) float64 {
	x := 0.0
	for _, v := range y {
		if v != 0 && v != 1 {
			return 0
		}
		x += v
	}
	n := float64(len(y))
	q := (x + 0.5) / (n + 1)
	return (1 - n/float64(nRuns)) * q * (1 - q) / n
}

// NeymanAllocation splits n deep labels among strata of sizes sizes[h]
// with standard deviations sd[h] (Neyman 1934; Cochran 1977, 5.5):
// n_h proportional to N_h S_h, with each n_h kept within [min(minPer,
// N_h), N_h]: a stratum whose share falls outside is fixed at the bound
// and the rest is shared again among the others, until none falls
// outside; then the shares are rounded by largest remainders (ties to the
// lower index). When no stratum with room has a positive S_h the shares
// go by size. The result sums to min(n, sum N_h), or to the floors when n
// is smaller than their sum.
func NeymanAllocation(n int, sizes []int, sd []float64, minPer int) []int {
	k := len(sizes)
	total := 0
	lo := make([]float64, k)
	for h, s := range sizes {
		total += s
		lo[h] = float64(min(minPer, s))
	}
	n = min(n, total)
	weight := make([]float64, k)
	positive := false
	for h := range sizes {
		if sd[h] > 0 && !math.IsInf(sd[h], 0) {
			weight[h] = float64(sizes[h]) * sd[h]
			positive = true
		}
	}
	if !positive {
		for h := range sizes {
			weight[h] = float64(sizes[h])
		}
	}
	fixed := make([]bool, k)
	x := make([]float64, k)
	for range k + 1 {
		left, sum := float64(n), 0.0
		for h := range sizes {
			if fixed[h] {
				left -= x[h]
			} else {
				sum += weight[h]
			}
		}
		changed := false
		for h := range sizes {
			if fixed[h] {
				continue
			}
			x[h] = 0
			if sum > 0 {
				x[h] = math.Max(0, left) * weight[h] / sum
			}
			switch {
			case x[h] > float64(sizes[h]):
				x[h], fixed[h], changed = float64(sizes[h]), true, true
			case x[h] < lo[h]:
				x[h], fixed[h], changed = lo[h], true, true
			}
		}
		if !changed {
			break
		}
	}
	out := make([]int, k)
	given := 0
	for h := range x {
		out[h] = int(math.Floor(x[h] + 1e-9))
		given += out[h]
	}
	for given < n {
		best := -1
		for h := range x {
			if out[h] < sizes[h] && (best < 0 || x[h]-float64(out[h]) > x[best]-float64(out[best])) {
				best = h
			}
		}
		if best < 0 {
			break
		}
		out[best]++
		given++
	}
	return out
}

// SampleSD is the sample standard deviation of x (n-1 denominator); 0 for
// fewer than 2 values.
func SampleSD(x []float64) float64 {
	if len(x) < 2 {
		return 0
	}
	return math.Sqrt(sampleVariance(x))
}
