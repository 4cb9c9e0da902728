package statistician

import (
	"fmt"
	"math"
)

// Targets of an estimate: what its interval is an interval for.
const (
	// TargetRuns is the mean over the finite set of N runs at hand (the
	// deep pass rate over every run with a light inspection): a
	// finite-population correction applies, and with every run labelled
	// the value is exact.
	TargetRuns = "these runs"
	// TargetProcess is the mean of the process that produced the runs (a
	// super-population): the runs are themselves a sample of it.
	TargetProcess = "the process"
)

// ClassicalRateOfRuns estimates the pass rate over a finite set of nRuns
// runs from the deep labels y (each 0 or 1) of a simple random sample of n
// of them drawn without replacement: the share p = sum(y)/n, whose
// variance under that design is (Cochran 1977, "Sampling Techniques",
// 3.2)
//
//	Var(p) = (N - n)/(N - 1) P(1 - P)/n
//
// with P the pass rate over the N runs. The interval is Wilson's score
// interval inverted with this variance, i.e. WilsonInterval at z sqrt((N -
// n)/(N - 1)); SE is sqrt((N-n)/(N-1) p(1-p)/n). With n = N the value is
// exact: SE 0 and Reason says the interval is not needed. EffectiveN is n.
// Target is TargetRuns.
//
// With no labels, a label other than 0 or 1, nRuns < len(y), or level
// outside (0, 1) the result has zero numbers and a Reason.
func ClassicalRateOfRuns(y []float64, nRuns int, level float64) Estimate {
	e := ClassicalRate(y, level)
	e.Target = TargetRuns
	if e.Reason != "" {
		return e
	}
	n := len(y)
	if nRuns < n {
		return Estimate{Method: MethodClassical, Level: level, NLabelled: n, Target: TargetRuns,
			Reason: fmt.Sprintf("invalid input: %d deep labels of %d runs", n, nRuns)}
	}
	if nRuns == n {
		return exactOfRuns(e)
	}
	fpc := float64(nRuns-n) / float64(nRuns-1)
	z, _ := ZForLevel(level)
	passes := int(math.Round(e.Value * float64(n)))
	iv, err := WilsonInterval(passes, n, z*math.Sqrt(fpc))
	if err != nil {
		e.Reason = "invalid input: " + err.Error()
		return e
	}
	e.CI, e.SE = iv, e.SE*math.Sqrt(fpc)
	return e
}

// ClassicalMeanOfRuns estimates the mean of the deep scores over a finite
// set of nRuns runs from the scores y of a simple random sample of n of
// them drawn without replacement (Cochran 1977, 2.4 and 2.5):
//
//	SE = sqrt((1 - n/N) s^2/n),  s^2 = sum (y - mean)^2/(n-1)
//	CI = mean ± t(1 - (1-level)/2; n-1) SE
//
// With n = N the value is exact: SE 0 and Reason says so. EffectiveN is
// n; Target is TargetRuns. Inputs are checked as by ClassicalMean, and
// nRuns < len(y) is invalid.
func ClassicalMeanOfRuns(y []float64, nRuns int, level float64) Estimate {
	e := ClassicalMean(y, level)
	e.Target = TargetRuns
	n := len(y)
	if e.Reason != "" && e.Value == 0 && e.CI == (Interval{}) {
		return e
	}
	if nRuns < n {
		return Estimate{Method: MethodClassical, Level: level, NLabelled: n, Target: TargetRuns,
			Reason: fmt.Sprintf("invalid input: %d deep labels of %d runs", n, nRuns)}
	}
	if nRuns == n {
		return exactOfRuns(e)
	}
	if e.Reason != "" {
		return e
	}
	f := math.Sqrt(1 - float64(n)/float64(nRuns))
	e.SE *= f
	e.CI = Interval{Lower: e.Value - (e.Value-e.CI.Lower)*f, Upper: e.Value + (e.CI.Upper-e.Value)*f}
	return e
}

// exactOfRuns is e when every run of the finite set has a deep label: the
// value is the mean itself, with no sampling error.
func exactOfRuns(e Estimate) Estimate {
	e.SE, e.CI, e.EffectiveN = 0, Interval{}, float64(e.NLabelled)
	e.Reason = "exact: every run has a deep label, so the value has no sampling error"
	return e
}

// finiteEffectiveN is the number m of deep labels a classical estimate of
// the mean over N runs would need for the variance v, given the label
// variance s2: (1 - m/N) s2/m = v, so m = s2/(v + s2/N). It is at most N.
func finiteEffectiveN(s2, v float64, nRuns int) float64 {
	return s2 / (v + s2/float64(nRuns))
}
