package statistician

import (
	"fmt"
	"math"
)

// BrierOfChance is the Brier score of the uninformative forecast 0.5,
// whatever happens: (0.5 - y)^2 = 0.25. CalibrationScore measures against
// it.
const BrierOfChance = 0.25

// SkillScore is a skill score 1 - score/reference, or, when it is not
// defined, a Reason (and Value 0).
type SkillScore struct {
	Value  float64 `yaml:"value" json:"value"`
	Reason string  `yaml:"reason,omitempty" json:"reason,omitempty"`
}

// Defined reports whether the skill score has a value.
func (s SkillScore) Defined() bool { return s.Reason == "" }

// checkBinary checks that p and y are forecasts in [0, 1] and outcomes 0/1
// of equal, non-zero length.
func checkBinary(p []float64, y []int) error {
	if len(p) != len(y) {
		return fmt.Errorf("statistician: %d forecasts but %d outcomes", len(p), len(y))
	}
	if len(p) == 0 {
		return fmt.Errorf("statistician: no forecasts")
	}
	for i := range p {
		if err := checkForecast(p[i], y[i]); err != nil {
			return fmt.Errorf("statistician: forecast %d: %w", i, err)
		}
	}
	return nil
}

// Brier returns the Brier score (Brier 1950) of forecasts p[i] = P(y[i] = 1)
// of outcomes y[i] in {0, 1}:
//
//	BS = (1/n) sum (p[i] - y[i])^2
//
// It lies in [0, 1]; 0 is perfect, 0.25 is the score of always saying 0.5.
// The squared errors are summed exactly (order-independent), then divided
// once. It returns an error when the lengths differ, n = 0, a forecast is
// outside [0, 1] (or NaN) or an outcome is not 0 or 1.
func Brier(p []float64, y []int) (float64, error) {
	if err := checkBinary(p, y); err != nil {
		return 0, err
	}
	var s exactSum
	for i := range p {
		d := p[i] - float64(y[i])
		s.add(d * d)
	}
	return s.Float64() / float64(len(p)), nil
}

// CalibrationScore maps a Brier score to evalcal's calibration score in
// [0, 100]:
//
//	calibration = clamp01(1 - BS/0.25) * 100
//
// so 100 is perfect and 0 is no better than always saying 0.5 (or worse).
// Five forecasts of 0.70 with four right (BS = 0.17) score 32. A NaN
// Brier score gives 0.
func CalibrationScore(brier float64) float64 {
	if math.IsNaN(brier) {
		return 0
	}
	return clamp01(1-brier/BrierOfChance) * 100
}

// SkillAgainst returns the skill score of a negatively oriented score
// (lower is better, >= 0) against a reference forecast's score:
//
//	SS = 1 - score/reference
//
// SS is 1 for a perfect score, 0 for the reference's, negative for worse.
// When reference is 0 (the reference is perfect; no skill can be shown),
// or either score is negative, NaN or infinite, the result carries a
// Reason instead of a value.
func SkillAgainst(score, reference float64) SkillScore {
	switch {
	case !(score >= 0) || math.IsInf(score, 0):
		return SkillScore{Reason: fmt.Sprintf("score %v is not a finite non-negative number", score)}
	case !(reference >= 0) || math.IsInf(reference, 0):
		return SkillScore{Reason: fmt.Sprintf("reference score %v is not a finite non-negative number", reference)}
	case reference == 0:
		return SkillScore{Reason: "the reference forecast is perfect (score 0), so skill is undefined"}
	}
	return SkillScore{Value: 1 - score/reference}
}

// BrierSkill returns the Brier skill score against the climatological
// forecast of a frozen base rate b (Murphy 1973; Wilks 2011, sec. 8.4.2):
//
//	BSS = 1 - BS / (b (1 - b))
//
// where b(1-b) is the Brier score of always forecasting b when the outcome
// rate is b. The base rate is frozen: it is given, not re-estimated from
// the data being scored. When b is 0 or 1 the reference is perfect and
// the result carries a Reason; so it does when b is outside [0, 1] or
// brier is not a finite non-negative number.
func BrierSkill(brier, baseRate float64) SkillScore {
	if !(baseRate >= 0 && baseRate <= 1) {
		return SkillScore{Reason: fmt.Sprintf("base rate %v outside [0, 1]", baseRate)}
	}
	if baseRate == 0 || baseRate == 1 {
		return SkillScore{Reason: fmt.Sprintf("base rate %v: every outcome is the same, so the climatological forecast is perfect and skill is undefined", baseRate)}
	}
	return SkillAgainst(brier, baseRate*(1-baseRate))
}
