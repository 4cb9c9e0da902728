package statistician

import (
	"fmt"
	"math"
)

// PPIMean is the PPI++ estimate of a mean (Angelopoulos, Duchi and Zrnic
// 2023, "PPI++: Efficient Prediction-Powered Inference", arXiv
// 2311.01453, mean estimation): the deep labels y and light's predictions
// fLabelled on the same n runs, and light's predictions fUnlabelled on the
// N_u runs without a deep label. The unlabelled set is the runs without a
// deep label (the paper's setting: labelled and unlabelled runs are
// disjoint draws from the same population); PPIMean assumes the labelled
// runs are a uniform random subset of all runs (use IPWMean otherwise).
//
//	theta = mean(y) + lambda (mean(fUnlabelled) - mean(fLabelled))
//	Var   = Var(y - lambda fLabelled)/n + lambda^2 Var(fUnlabelled)/N_u
//	CI    = theta ± z sqrt(Var),  z = Phi^-1(1 - (1-level)/2)
//
// with sample variances and covariances (n-1 and N_u-1 denominators;
// ppi_py's ppi_mean_ci uses n and N_u). lambda is power-tuned: the value
// in [0, 1] that minimises the plug-in variance above,
//
//	lambda = clip(Cov(y, fLabelled) / (Var(fLabelled) + (n/N_u) Var(fUnlabelled)), 0, 1)
//
// which is the paper's lambda* = Cov(Y, f)/((1 + n/N) Var(f)) with Var(f)
// estimated on each set where it enters the variance; the two agree when
// the labelled and unlabelled predictions have equal variance. Because
// lambda = 0 gives the classical normal variance Var(y)/n, the PPI++
// variance is never above it. lambda = 1 is the original PPI
// (Angelopoulos et al. 2023, Science 382).
//
// Degenerate input: with fewer than 2 unlabelled runs, or when the
// predictions have zero variance on both sets, lambda is 0 and the
// estimate is the classical mean of y with its normal interval. When the
// estimated variance is 0 (e.g. constant labels and lambda 0) the value is
// kept and Reason says the interval is undefined. With fewer than 2
// labels, unequal lengths of y and fLabelled, a NaN or infinite value, or
// level outside (0, 1) the result has zero numbers and a Reason. The
// value is not clamped; for a pass rate use ClampTo(0, 1).
func PPIMean(y, fLabelled, fUnlabelled []float64, level float64) Estimate {
	n, nu := len(y), len(fUnlabelled)
	e := Estimate{Method: MethodPPI, Level: level, NLabelled: n, NUnlabelled: nu}
	z, err := ZForLevel(level)
	if err != nil {
		e.Reason = "invalid input: " + err.Error()
		return e
	}
	if reason := checkLabelled(y, fLabelled, 2); reason != "" {
		e.Reason = reason
		return e
	}
	if i := firstNonFinite(fUnlabelled); i >= 0 {
		e.Reason = fmt.Sprintf("invalid input: light prediction of unlabelled run %d is %v", i, fUnlabelled[i])
		return e
	}
	nf, nuf := float64(n), float64(nu)
	varY := sampleVariance(y)
	lambda := 0.0
	varFu := 0.0
	if nu >= 2 {
		varFl := sampleVariance(fLabelled)
		varFu = sampleVariance(fUnlabelled)
		if den := varFl + nf/nuf*varFu; den > 0 {
			lambda = math.Max(0, math.Min(1, sampleCovariance(y, fLabelled)/den))
		}
	}
	rect := make([]float64, n)
	for i := range y {
		rect[i] = y[i] - lambda*fLabelled[i]
	}
	value := mean(rect)
	variance := sampleVariance(rect) / nf
	if lambda > 0 {
		value += lambda * mean(fUnlabelled)
		variance += lambda * lambda * varFu / nuf
	}
	e.Value, e.Lambda = value, &lambda
	normalInterval(&e, variance, varY, z)
	return e
}
