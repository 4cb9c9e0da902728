package statistician

import (
	"fmt"
	"math"
)

// IPWMean is the active-inference estimate of a mean (Zrnic and Candès
// 2024, "Active Statistical Inference", arXiv 2403.03208) for N runs that
// all have light's prediction f[i], of which those with labelled[i] true
// were given a deep label y[i] by independent (Poisson) sampling with the
// known inclusion probability pi[i] in (0, 1]. y[i] and pi[i] are read
// only where labelled[i] is true: a run without a deep label needs no
// inclusion probability (a saved file of human labels records it on the
// labelled runs only).
//
// With w_i = xi_i/pi_i (xi_i = 1 for a labelled run, else 0), f_bar the
// mean of f over all N runs and the rectifier r_i = y_i - lambda f_i:
//
//	theta = lambda f_bar + sum w_i r_i / sum w_i
//
// This is the paper's estimator (1/N) sum [lambda f_i + (y_i - lambda f_i) xi_i/pi_i]
// with the rectifier's 1/N replaced by 1/sum w_i (the Hájek form of the
// model-assisted difference estimator; Särndal, Swensson and Wretman
// 1992, "Model Assisted Survey Sampling", 6.3). Both are consistent; this
// one is exactly unchanged when f is shifted by a constant (light's
// scores run below deep's: they are capped) and equals the
// inverse-probability-weighted mean of the labels at lambda = 0, the
// classical mean when pi is uniform. Under uniform pi its variance at the
// best lambda matches PPIMeanOfRuns'.
//
// The target is the mean of y over these N runs (TargetRuns: the deep
// mean over every run with a light inspection), and the variance is the
// design's: each run was labelled or not by its own coin, and f is known
// on every run, so with lambda fixed only the Hájek mean of the rectifier
// varies, and its linearised variance under Poisson sampling is (Särndal
// et al. 1992, 5.7.4 with Delta_kl = 0 for k != l)
//
//	V(S) = sum_S xi_i (1 - pi_i)/pi_i^2 (r_i - r_H)^2 / (sum_S w_i)^2
//
// over a set S of runs, with r_H = sum_S w_i r_i / sum_S w_i. A run with
// pi = 1 adds nothing: it is labelled in every draw.
//
// lambda is power-tuned: the value that minimises this variance,
// sum (1 - pi)/pi (y - y_H)(f - f_H) / sum (1 - pi)/pi (f - f_H)^2 over
// the population, each sum estimated on a set S of runs by its
// Horvitz-Thompson sum over the labelled runs (weight xi_i/pi_i, so no
// unlabelled run's pi is needed), with the Hájek mean y_H of its labels
// and the mean f_S of its predictions, clipped:
//
//	lambda(S) = clip( sum_S xi_i (y_i - y_H)(f_i - f_S)(1 - pi_i)/pi_i^2
//	                 / sum_S xi_i (f_i - f_S)^2 (1 - pi_i)/pi_i^2 , 0, 1)
//
// (0 when the denominator is 0: every labelled pi is 1 or f is constant
// on the labelled runs). As in PPIMean, lambda is cross-fitted: the runs
// are split into fold 0 (even positions) and fold 1 (odd positions), fold
// k gets lambda_k = lambda(other fold), and, with f_bar_k the mean of f
// over fold k and r_H its Hájek rectifier mean at lambda_k,
//
//	theta_k = lambda_k f_bar_k + r_H,  Var_k = V(fold k)
//
// theta = (N_0 theta_0 + N_1 theta_1)/N, Var = sum_k (N_k/N)^2 Var_k,
// CI = theta ± z sqrt(Var), and Lambda reports (N_0 lambda_0 + N_1
// lambda_1)/N. When both lambda_k are 0, or a fold has fewer than 2
// labelled runs, lambda is 0 and the formulas apply to all N runs as one
// set (the inverse-probability-weighted mean of the labels). EffectiveN
// is s^2/(Var + s^2/N) with s^2 the weighted label variance sum w_i (y_i
// - y_H)^2 / sum w_i times n/(n-1) over all runs (see Estimate).
func IPWMean(f, y, pi []float64, labelled []bool, level float64) Estimate {
	N := len(f)
	e := Estimate{Method: MethodIPW, Level: level, Target: TargetRuns}
	z, err := ZForLevel(level)
	if err != nil {
		e.Reason = "invalid input: " + err.Error()
		return e
	}
	if len(y) != N || len(pi) != N || len(labelled) != N {
		e.Reason = fmt.Sprintf("invalid input: %d light predictions, %d deep labels, %d inclusion probabilities and %d labelled flags; need one of each per run",
			N, len(y), len(pi), len(labelled))
		return e
	}
	n := 0
	for i := range f {
		switch {
		case math.IsNaN(f[i]) || math.IsInf(f[i], 0):
			e.Reason = fmt.Sprintf("invalid input: light prediction of run %d is %v", i, f[i])
			return e
		case labelled[i] && !(pi[i] > 0 && pi[i] <= 1):
			e.Reason = fmt.Sprintf("invalid input: inclusion probability of labelled run %d is %v, need (0, 1]", i, pi[i])
			return e
		case labelled[i] && (math.IsNaN(y[i]) || math.IsInf(y[i], 0)):
			e.Reason = fmt.Sprintf("invalid input: deep label of run %d is %v", i, y[i])
			return e
		}
		if labelled[i] {
			n++
		}
	}
	e.NLabelled, e.NUnlabelled = n, N-n
	if n < 2 {
		e.Reason = fmt.Sprintf("insufficient data: %d deep labels, need at least 2", n)
		return e
	}
	if n == N {
		e.Value = mean(y)
		return exactOfRuns(e)
	}

	all := make([]int, N)
	var folds [2][]int
	for i := range all {
		all[i] = i
		folds[i%2] = append(folds[i%2], i)
	}
	labelledIn := func(idx []int) int {
		c := 0
		for _, i := range idx {
			if labelled[i] {
				c++
			}
		}
		return c
	}
	var lambda [2]float64
	if labelledIn(folds[0]) >= 2 && labelledIn(folds[1]) >= 2 {
		for k := range 2 {
			lambda[k] = ipwLambda(f, y, pi, labelled, folds[1-k])
		}
	}
	var value, variance, lambdaBar float64
	if lambda == [2]float64{} {
		value, variance = ipwFold(f, y, pi, labelled, all, 0)
	} else {
		nf := float64(N)
		for k := range 2 {
			v, s2 := ipwFold(f, y, pi, labelled, folds[k], lambda[k])
			share := float64(len(folds[k])) / nf
			value += share * v
			variance += share * share * s2
			lambdaBar += share * lambda[k]
		}
	}

	// Weighted (Hájek) variance of the labels, for EffectiveN.
	var sw, swy, swv float64
	for i := range f {
		if labelled[i] {
			sw += 1 / pi[i]
			swy += y[i] / pi[i]
		}
	}
	yH := swy / sw
	for i := range f {
		if labelled[i] {
			swv += (y[i] - yH) * (y[i] - yH) / pi[i]
		}
	}
	labelVariance := swv / sw * float64(n) / float64(n-1)

	e.Value, e.Lambda = value, &lambdaBar
	normalInterval(&e, variance, labelVariance, z, N)
	return e
}

// ipwLambda returns the clipped power-tuning weight estimated on the runs
// idx, which hold at least one labelled run.
func ipwLambda(f, y, pi []float64, labelled []bool, idx []int) float64 {
	var sf, sw, swy float64
	for _, i := range idx {
		sf += f[i]
		if labelled[i] {
			sw += 1 / pi[i]
			swy += y[i] / pi[i]
		}
	}
	fS, yH := sf/float64(len(idx)), swy/sw
	var num, den float64
	for _, i := range idx {
		if !labelled[i] {
			continue
		}
		q := (1 - pi[i]) / (pi[i] * pi[i])
		df := f[i] - fS
		den += df * df * q
		num += (y[i] - yH) * df * q
	}
	if !(den > 0) {
		return 0
	}
	return math.Max(0, math.Min(1, num/den))
}

// ipwFold returns the estimate on the runs idx (at least 2, one of them
// labelled) at the given lambda and its design variance V(idx).
func ipwFold(f, y, pi []float64, labelled []bool, idx []int, lambda float64) (value, variance float64) {
	var sf, sw, swr float64
	for _, i := range idx {
		sf += f[i]
		if labelled[i] {
			w := 1 / pi[i]
			sw += w
			swr += w * (y[i] - lambda*f[i])
		}
	}
	rH := swr / sw
	var ss float64
	for _, i := range idx {
		if labelled[i] {
			d := y[i] - lambda*f[i] - rH
			ss += (1 - pi[i]) / (pi[i] * pi[i]) * d * d
		}
	}
	return lambda*sf/float64(len(idx)) + rH, ss / (sw * sw)
}
