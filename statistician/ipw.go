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
// With w_i = xi_i/pi_i (xi_i = 1 for a labelled run, else 0) the estimate
// is the paper's M-estimate for the squared loss, power-tuned:
//
//	theta(lambda) = sum [lambda f_i + w_i (y_i - lambda f_i)] / sum [lambda + (1 - lambda) w_i]
//
// At lambda = 1 this is the paper's mean estimator
// (1/N) sum [f_i + (y_i - f_i) xi_i/pi_i]; at lambda = 0 it is the Hájek
// weighted mean of the labels, which for uniform pi is the classical mean.
// Keeping the denominator makes the estimate shift-equivariant (adding a
// constant to every y and f adds it to theta) for every lambda, which the
// fixed 1/N form is only at lambda = 1.
//
// lambda minimises the asymptotic variance of the estimating function
// Delta_i = lambda (theta - f_i) + w_i ((theta - y_i) - lambda (theta - f_i))
// (the paper's power tuning); with E[w(1-w) | x] = 1 - 1/pi and
// E[(1-w)^2 | x] = 1/pi - 1 its plug-in form, centred at theta_1 =
// theta(1), is
//
//	lambda = clip( sum xi_i (y_i - theta_1)(f_i - theta_1)(1 - pi_i)/pi_i^2
//	              / sum (f_i - theta_1)^2 (1 - pi_i)/pi_i , 0, 1)
//
// and 0 when the denominator is 0 (every pi is 1, or f is constant at
// theta_1). The variance is the sandwich one of the M-estimate,
//
//	H   = (1/N) sum [lambda + (1 - lambda) w_i]
//	Var = sum Delta_i(theta)^2 / ((N - 1) H^2 N)
//
// (sum Delta_i(theta) = 0 at the estimate, so the middle term is the
// sample variance of Delta), and CI = theta ± z sqrt(Var). EffectiveN
// uses the weighted label variance sum w_i (y_i - theta_0)^2 / sum w_i
// times n/(n-1), theta_0 = theta(0).
//
// With every pi = 1 the estimate is the mean of y over all runs. With
// fewer than 2 labelled runs, slices of unequal length, a pi outside
// (0, 1], a NaN or infinite f, pi or labelled y, or level outside (0, 1)
// the result has zero numbers and a Reason; zero estimated variance keeps
// the value with a Reason.
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

	weight := func(i int) float64 {
		if labelled[i] {
			return 1 / pi[i]
		}
		return 0
	}
	theta := func(lambda float64) float64 {
		var num, den float64
		for i := range f {
			w := weight(i)
			num += lambda*f[i] + w*(y0(y, labelled, i)-lambda*f[i])
			den += lambda + (1-lambda)*w
		}
		return num / den
	}

	theta1 := theta(1)
	var num, den float64
	for i := range f {
		q := (1 - pi[i]) / pi[i]
		df := f[i] - theta1
		den += df * df * q
		if labelled[i] {
			num += (y[i] - theta1) * df * q / pi[i]
		}
	}
	lambda := 0.0
	if den > 0 {
		lambda = math.Max(0, math.Min(1, num/den))
	}
	value := theta(lambda)

	var h, ss float64
	for i := range f {
		w := weight(i)
		h += lambda + (1-lambda)*w
		d := lambda*(value-f[i]) + w*((value-y0(y, labelled, i))-lambda*(value-f[i]))
		ss += d * d
	}
	h /= float64(N)
	variance := ss / float64(N-1) / (h * h) / float64(N)

	// Weighted (Hájek) variance of the labels, for EffectiveN.
	theta0 := theta(0)
	var sw, swv float64
	for i := range f {
		if labelled[i] {
			w := 1 / pi[i]
			sw += w
			swv += w * (y[i] - theta0) * (y[i] - theta0)
		}
	}
	labelVariance := swv / sw * float64(n) / float64(n-1)

	e.Value, e.Lambda = value, &lambda
	normalInterval(&e, variance, labelVariance, z)
	return e
}

// y0 returns y[i] for a labelled run and 0 otherwise, so that unlabelled
// runs' slots (which may hold anything) never enter a sum.
func y0(y []float64, labelled []bool, i int) float64 {
	if labelled[i] {
		return y[i]
	}
	return 0
}
