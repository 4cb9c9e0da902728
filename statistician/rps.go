package statistician

import (
	"fmt"
	"math"
)

// ProbsSumTolerance is how far from 1 the probabilities of a forecast's
// categories may sum (rounding in the forecaster's output).
const ProbsSumTolerance = 1e-6

// RPSResult is the mean ranked probability score of a set of forecasts
// and its skill score against a baseline distribution.
type RPSResult struct {
	N           int        `yaml:"n" json:"n"`
	Mean        float64    `yaml:"mean" json:"mean"`
	Baseline    []float64  `yaml:"baseline" json:"baseline"`
	BaselineRPS float64    `yaml:"baseline_rps" json:"baseline_rps"`
	Skill       SkillScore `yaml:"skill" json:"skill"`
}

// checkProbs checks that probs has at least two categories, each
// probability in [0, 1], summing to 1 within ProbsSumTolerance.
func checkProbs(probs []float64) error {
	if len(probs) < 2 {
		return fmt.Errorf("statistician: rps: need at least 2 categories, got %d", len(probs))
	}
	sum := 0.0
	for i, q := range probs {
		if !(q >= 0 && q <= 1) {
			return fmt.Errorf("statistician: rps: probability %d is %v, outside [0, 1]", i, q)
		}
		sum += q
	}
	if math.Abs(sum-1) > ProbsSumTolerance {
		return fmt.Errorf("statistician: rps: probabilities sum to %v, not 1", sum)
	}
	return nil
}

// RPS returns the ranked probability score (Epstein 1969; Murphy 1971) of
// one forecast of K ordered categories, probs[k] = P(category k), when
// category outcome happened, normalised by K-1 so that it lies in [0, 1]:
//
//	F_j = probs[0] + ... + probs[j]      O_j = 1 if j >= outcome, else 0
//	RPS = (1/(K-1)) sum_{j=0}^{K-2} (F_j - O_j)^2
//
// 0 is perfect; [0, 0, 1] when the first category happens scores 1 and
// [0, 1, 0] scores 0.5. It returns an error when K < 2, a probability is
// outside [0, 1] (or NaN), the probabilities do not sum to 1 within
// ProbsSumTolerance, or outcome is not in [0, K).
func RPS(probs []float64, outcome int) (float64, error) {
	if err := checkProbs(probs); err != nil {
		return 0, err
	}
	if outcome < 0 || outcome >= len(probs) {
		return 0, fmt.Errorf("statistician: rps: outcome %d outside [0, %d)", outcome, len(probs))
	}
	return rpsChecked(probs, outcome), nil
}

func rpsChecked(probs []float64, outcome int) float64 {
	cum, s := 0.0, 0.0
	for j := 0; j < len(probs)-1; j++ {
		cum += probs[j]
		d := cum
		if j >= outcome {
			d = cum - 1
		}
		s += d * d
	}
	return min(s/float64(len(probs)-1), 1)
}

// MeanRPS returns the mean RPS of forecasts probs[i] with outcomes[i] and
// its skill score against a baseline distribution over the same K
// categories (nil means climatology, the observed category frequencies):
//
//	RPSS = 1 - mean RPS / mean RPS(baseline)
//
// The skill score carries a Reason when the baseline's RPS is 0. It
// returns an error when the lengths differ or are 0, the forecasts do not
// all have the same K, or any forecast or the baseline is invalid (see
// RPS).
func MeanRPS(probs [][]float64, outcomes []int, baseline []float64) (RPSResult, error) {
	if len(probs) != len(outcomes) {
		return RPSResult{}, fmt.Errorf("statistician: rps: %d forecasts but %d outcomes", len(probs), len(outcomes))
	}
	if len(probs) == 0 {
		return RPSResult{}, fmt.Errorf("statistician: rps: no forecasts")
	}
	a, err := NewRPSAccumulator(len(probs[0]))
	if err != nil {
		return RPSResult{}, err
	}
	for i := range probs {
		if err := a.Add(probs[i], outcomes[i]); err != nil {
			return RPSResult{}, fmt.Errorf("statistician: rps: forecast %d: %w", i, err)
		}
	}
	return a.ResultAgainst(baseline)
}
