package statistician

import (
	"fmt"
	"math"
)

// SpendingWeight returns the share of the error rate spent at look k >= 1
// of an open-ended sequence of looks,
//
//	gamma_k = 1/(k (k+1)),   sum over k >= 1 of gamma_k = 1
//
// (a telescoping sum: 1/(k(k+1)) = 1/k - 1/(k+1)). Look 1 spends half,
// look 2 a sixth, look 30 about 1/930. It returns 0 for k < 1.
func SpendingWeight(k int) float64 {
	if k < 1 {
		return 0
	}
	kf := float64(k)
	return 1 / (kf * (kf + 1))
}

// SequentialLook is one look of a sequential test: its p-value, the level
// it was held to, and whether it crossed it.
type SequentialLook struct {
	Look      int     `yaml:"look" json:"look"`
	P         float64 `yaml:"p" json:"p"`
	Threshold float64 `yaml:"threshold" json:"threshold"`
	Crossed   bool    `yaml:"crossed" json:"crossed"`
}

// SequentialResult is a sequential test over looks 1..K.
type SequentialResult struct {
	Looks []SequentialLook `yaml:"looks" json:"looks"`
	// Rejected is true when any look crossed its threshold; FirstCrossed
	// is that look's number (0 when none did).
	Rejected     bool `yaml:"rejected" json:"rejected"`
	FirstCrossed int  `yaml:"first_crossed" json:"first_crossed"`
}

// SpentBonferroni runs the anytime-valid sequential test that holds the
// p-value of look k to alpha gamma_k (SpendingWeight) and rejects the
// null hypothesis at the first look with
//
//	p_k <= alpha / (k (k+1)).
//
// When each p_k is valid at its look (P(p_k <= u) <= u under the null),
// the union (Bonferroni) bound gives
//
//	P(some look ever rejects) <= sum_k alpha gamma_k = alpha
//
// for any number of looks and whatever the dependence between them (the
// looks of a nightly drift check all compare with one frozen anchor, so
// they are dependent). ps are the looks' p-values in order. It returns an
// error when alpha is outside (0, 1) or a p-value is outside [0, 1].
func SpentBonferroni(ps []float64, alpha float64) (SequentialResult, error) {
	if !(alpha > 0 && alpha < 1) {
		return SequentialResult{}, fmt.Errorf("statistician: sequential test: alpha %v must be in (0, 1)", alpha)
	}
	res := SequentialResult{Looks: make([]SequentialLook, 0, len(ps))}
	for i, p := range ps {
		if !(p >= 0 && p <= 1) || math.IsNaN(p) {
			return SequentialResult{}, fmt.Errorf("statistician: sequential test: look %d: p-value %v outside [0, 1]", i+1, p)
		}
		l := SequentialLook{Look: i + 1, P: p, Threshold: alpha * SpendingWeight(i+1)}
		l.Crossed = p <= l.Threshold
		if l.Crossed && !res.Rejected {
			res.Rejected, res.FirstCrossed = true, l.Look
		}
		res.Looks = append(res.Looks, l)
	}
	return res, nil
}
