package statistician

import (
	"fmt"
	"math"
)

// IPWMean is the active-inference estimate of a mean (Zrnic and Candès
// 2024, "Active Statistical Inference", arXiv 2403.03208) for N runs that
// all have light's prediction f[i], of which those with labelled[i] true
// were given a deep label y[i] by independent (Poisson) sampling with the
// known inclusion probability pi[i] in (0, 1]. y[i] is read only where
// labelled[i] is true.
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
// best lambda matches PPIMean's.
//
// lambda is power-tuned: the value that minimises the asymptotic variance
// of the influence terms below, E[(y - mu_y)(f - mu_f)(1/pi - 1)] /
// E[(f - mu_f)^2 (1/pi - 1)], estimated with the Hájek mean y_H of the
// labels and f_bar, and clipped to [0, 1]:
//
//	lambda = clip( sum xi_i (y_i - y_H)(f_i - f_bar)(1 - pi_i)/pi_i^2
//	              / sum (f_i - f_bar)^2 (1 - pi_i)/pi_i , 0, 1)
//
// (0 when the denominator is 0: every pi is 1 or f is constant). The
// variance is that of the linearisation, with w_bar = sum w_i / N and
// r_H = sum w_i r_i / sum w_i,
//
//	psi_i = lambda (f_i - f_bar) + (w_i/w_bar)(r_i - r_H)
//	Var   = sum psi_i^2 / ((N - 1) N)
//
// (sum psi_i = 0), and CI = theta ± z sqrt(Var). EffectiveN uses the
// weighted label variance sum w_i (y_i - y_H)^2 / sum w_i times
// n/(n-1).
//
// With every pi = 1 the estimate is the mean of y over all runs. With
// fewer than 2 labelled runs, slices of unequal length, a pi outside
// (0, 1], a NaN or infinite f, pi or labelled y, or level outside (0, 1)
// the result has zero numbers and a Reason; zero estimated variance keeps
// the value with a Reason. The value is not clamped; for a pass rate use
// ClampTo(0, 1).
func IPWMean(f, y, pi []float64, labelled []bool, level float64) Estimate {
	N := len(f)
	e := Estimate{Method: MethodIPW, Level: level}
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
		case !(pi[i] > 0 && pi[i] <= 1):
			e.Reason = fmt.Sprintf("invalid input: inclusion probability of run %d is %v, need (0, 1]", i, pi[i])
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

	var sf, sw, swy, swf float64
	for i := range f {
		sf += f[i]
		if labelled[i] {
			w := 1 / pi[i]
			sw += w
			swy += w * y[i]
			swf += w * f[i]
		}
	}
	nf := float64(N)
	fBar, yH := sf/nf, swy/sw

	var num, den float64
	for i := range f {
		q := (1 - pi[i]) / pi[i]
		df := f[i] - fBar
		den += df * df * q
		if labelled[i] {
			num += (y[i] - yH) * df * q / pi[i]
		}
	}
	lambda := 0.0
	if den > 0 {
		lambda = math.Max(0, math.Min(1, num/den))
	}
	rH := (swy - lambda*swf) / sw
	value := lambda*fBar + rH

	wBar := sw / nf
	var ss, swv float64
	for i := range f {
		psi := lambda * (f[i] - fBar)
		if labelled[i] {
			w := 1 / pi[i]
			psi += w / wBar * (y[i] - lambda*f[i] - rH)
			swv += w * (y[i] - yH) * (y[i] - yH)
		}
		ss += psi * psi
	}
	variance := ss / (nf - 1) / nf
	labelVariance := swv / sw * float64(n) / float64(n-1)

	e.Value, e.Lambda = value, &lambda
	normalInterval(&e, variance, labelVariance, z)
	return e
}
