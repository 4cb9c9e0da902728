package statistician

import (
	"fmt"
	"math"
)

// Estimation methods named in Estimate.Method.
const (
	MethodClassical   = "classical"
	MethodPPI         = "ppi++"
	MethodIPW         = "ipw"
	MethodRoganGladen = "rogan-gladen"
)

// Estimate is an estimate of the deep mean over all runs (the deep pass
// rate when the deep labels are 0/1, or the mean of a deep score) from
// deep labels on a subset of the runs, possibly helped by light's
// prediction on every run.
//
// NLabelled is the number of runs with a deep label (n); NUnlabelled the
// number of runs with only a light prediction (N - n); classical
// estimates use no unlabelled run and leave it 0. Lambda is the
// power-tuning weight of PPI++ and IPW (nil for other methods).
// EffectiveN is the number of deep labels a classical estimate would need
// for the same standard error,
//
//	EffectiveN = n Var_classical / Var_method = s_Y^2 / SE^2
//
// with s_Y^2 the sample variance of the deep labels (n-1 denominator;
// for IPW its inverse-probability-weighted version): "the light
// inspections are worth EffectiveN deep inspections". It is n for the
// classical estimates. For an estimate whose Target is TargetRuns (N runs)
// the classical variance has the finite-population factor, and
//
//	EffectiveN = s_Y^2 / (SE^2 + s_Y^2/N)
//
// the m with (1 - m/N) s_Y^2/m = SE^2, at most N.
//
// When the estimate is not defined, Reason says why and the numbers are
// zero; when only the interval is not defined (zero estimated variance),
// Value is kept, Reason says so and SE, CI and EffectiveN are zero. An
// Estimate never holds NaN or an infinity.
type Estimate struct {
	Method      string   `yaml:"method" json:"method"`
	Value       float64  `yaml:"value" json:"value"`
	SE          float64  `yaml:"se" json:"se"`
	CI          Interval `yaml:"ci" json:"ci"`
	Level       float64  `yaml:"level" json:"level"`
	NLabelled   int      `yaml:"n_labelled" json:"n_labelled"`
	NUnlabelled int      `yaml:"n_unlabelled" json:"n_unlabelled"`
	Lambda      *float64 `yaml:"lambda,omitempty" json:"lambda,omitempty"`
	EffectiveN  float64  `yaml:"effective_n" json:"effective_n"`
	// Target says what the interval is for: TargetRuns (the finite set of
	// runs at hand; finite-population corrected) or TargetProcess (the
	// process producing them); "" is TargetProcess.
	Target string `yaml:"target,omitempty" json:"target,omitempty"`
	// Predictor says which light predictor PPIMeanOfRunsCalibrated used
	// (PredictorFixed or PredictorIsotonic); "" elsewhere.
	Predictor string `yaml:"predictor,omitempty" json:"predictor,omitempty"`
	// Pooled says StratPPIMeanOfRunsUniform used PPI++ over all runs as
	// one stratum (its standard error was the smaller); false elsewhere.
	Pooled bool   `yaml:"pooled,omitempty" json:"pooled,omitempty"`
	Reason string `yaml:"reason,omitempty" json:"reason,omitempty"`
}

// ClampTo returns e with Value and the interval bounds clamped to
// [lo, hi]; for a pass rate, ClampTo(0, 1). The clamped interval still
// contains the clamped value. An estimate with a Reason and no value is
// returned unchanged.
func (e Estimate) ClampTo(lo, hi float64) Estimate {
	if e.Reason != "" && e.Value == 0 && e.CI == (Interval{}) {
		return e
	}
	c := func(x float64) float64 { return math.Max(lo, math.Min(hi, x)) }
	e.Value = c(e.Value)
	if e.CI != (Interval{}) {
		e.CI = Interval{Lower: c(e.CI.Lower), Upper: c(e.CI.Upper)}
	}
	return e
}

// ClassicalRate estimates a pass rate from the deep labels y (each 0 or
// 1) alone: the share p = sum(y)/n with the Wilson score interval at the
// two-sided confidence level (see WilsonInterval). SE is the binomial
// standard error sqrt(p(1-p)/n); the interval is Wilson's, not p ± z SE,
// so it stays inside [0, 1] and is not degenerate at p = 0 or 1.
// EffectiveN is n.
//
// With no labels, a label other than 0 or 1, or level outside (0, 1) the
// result has zero numbers and a Reason.
func ClassicalRate(y []float64, level float64) Estimate {
	e := Estimate{Method: MethodClassical, Level: level, NLabelled: len(y)}
	z, err := ZForLevel(level)
	if err != nil {
		e.Reason = "invalid input: " + err.Error()
		return e
	}
	if len(y) == 0 {
		e.Reason = "insufficient data: no deep labels"
		return e
	}
	passes := 0
	for i, v := range y {
		switch v {
		case 1:
			passes++
		case 0:
		default:
			e.Reason = fmt.Sprintf("invalid input: deep label y[%d] = %v is not 0 or 1", i, v)
			return e
		}
	}
	iv, err := WilsonInterval(passes, len(y), z)
	if err != nil {
		e.Reason = "invalid input: " + err.Error()
		return e
	}
	n := float64(len(y))
	p := float64(passes) / n
	e.Value, e.CI = p, iv
	e.SE = math.Sqrt(p * (1 - p) / n)
	e.EffectiveN = n
	return e
}

// ClassicalMean estimates the mean of the deep scores y alone, with the
// Student t interval at the two-sided confidence level (as R's t.test):
//
//	SE = s/sqrt(n),  s^2 = sum (y - mean)^2/(n-1)
//	CI = mean ± t(1 - (1-level)/2; n-1) SE
//
// EffectiveN is n. Constant y gives SE 0: the value is kept and Reason
// says the interval is undefined. With fewer than 2 labels, a NaN or
// infinite label, or level outside (0, 1) the result has zero numbers and
// a Reason.
func ClassicalMean(y []float64, level float64) Estimate {
	e := Estimate{Method: MethodClassical, Level: level, NLabelled: len(y)}
	if len(y) < 2 {
		e.Reason = fmt.Sprintf("insufficient data: %d deep labels, need at least 2", len(y))
		return e
	}
	if i := firstNonFinite(y); i >= 0 {
		e.Reason = fmt.Sprintf("invalid input: deep label %d is %v", i, y[i])
		return e
	}
	md := MeanDifference(y, level)
	if md.Reason != "" {
		e.Reason = md.Reason
		return e
	}
	e.Value = md.Mean
	if md.SE == 0 {
		e.Reason = "interval undefined: the deep labels are all equal"
		return e
	}
	e.SE, e.CI, e.EffectiveN = md.SE, md.CI, float64(len(y))
	return e
}

// sampleVariance returns sum (x - mean)^2/(n-1) of x, len(x) >= 2.
func sampleVariance(x []float64) float64 {
	_, sd := meanSD(x)
	return sd * sd
}

// sampleCovariance returns sum (x - mean_x)(y - mean_y)/(n-1), len >= 2.
func sampleCovariance(x, y []float64) float64 {
	mx, my := mean(x), mean(y)
	var s float64
	for i := range x {
		s += (x[i] - mx) * (y[i] - my)
	}
	return s / float64(len(x)-1)
}

// normalInterval fills e's SE, CI and EffectiveN from the variance of its
// value and the classical variance s_Y^2 (per label), or sets the
// interval-undefined Reason when the variance is zero or not finite.
// nRuns > 0 is the size of the finite set of runs when e's target is
// TargetRuns (EffectiveN then uses finiteEffectiveN), 0 otherwise.
func normalInterval(e *Estimate, variance, labelVariance, z float64, nRuns int) {
	if math.IsNaN(e.Value) || math.IsInf(e.Value, 0) {
		*e = Estimate{Method: e.Method, Level: e.Level, NLabelled: e.NLabelled, NUnlabelled: e.NUnlabelled,
			Target: e.Target, Reason: "undefined: values overflow floating point"}
		return
	}
	if !(variance > 0) || math.IsInf(variance, 0) {
		e.Reason = fmt.Sprintf("interval undefined: estimated variance is %v", variance)
		return
	}
	e.SE = math.Sqrt(variance)
	e.CI = Interval{Lower: e.Value - z*e.SE, Upper: e.Value + z*e.SE}
	ess := labelVariance / variance
	if nRuns > 0 {
		ess = finiteEffectiveN(labelVariance, variance, nRuns)
	}
	if ess >= 0 && !math.IsInf(ess, 0) {
		e.EffectiveN = ess
	}
}

// checkLabelled returns a reason why the deep labels y and light's
// predictions f of the same runs cannot be used as at least minN finite
// pairs, or "" when they can.
func checkLabelled(y, f []float64, minN int) string {
	if len(y) != len(f) {
		return fmt.Sprintf("invalid input: %d deep labels and %d light predictions of the labelled runs", len(y), len(f))
	}
	if len(y) < minN {
		return fmt.Sprintf("insufficient data: %d deep labels, need at least %d", len(y), minN)
	}
	if i := firstNonFinite(y); i >= 0 {
		return fmt.Sprintf("invalid input: deep label %d is %v", i, y[i])
	}
	if i := firstNonFinite(f); i >= 0 {
		return fmt.Sprintf("invalid input: light prediction of labelled run %d is %v", i, f[i])
	}
	return ""
}
