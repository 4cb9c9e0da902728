package statistician

import (
	"fmt"
	"math"
)

// Rate is a proportion successes/n with its Wilson interval. When it is
// not defined (n = 0), Reason says why and the numbers are zero.
type Rate struct {
	Value     float64  `yaml:"value" json:"value"`
	CI        Interval `yaml:"ci" json:"ci"`
	Successes int      `yaml:"successes" json:"successes"`
	N         int      `yaml:"n" json:"n"`
	Reason    string   `yaml:"reason,omitempty" json:"reason,omitempty"`
}

// ClassAgreement is how light's pass verdict does on each class of deep's
// verdict: the sensitivity (light passes what deep passes), the
// specificity (light fails what deep fails), their mean, the balanced
// accuracy, and the base rate (deep's pass rate) that raw agreement hides.
type ClassAgreement struct {
	Sensitivity      Rate     `yaml:"sensitivity" json:"sensitivity"`
	Specificity      Rate     `yaml:"specificity" json:"specificity"`
	BalancedAccuracy float64  `yaml:"balanced_accuracy" json:"balanced_accuracy"`
	BalancedCI       Interval `yaml:"balanced_accuracy_ci" json:"balanced_accuracy_ci"`
	BaseRate         Rate     `yaml:"base_rate" json:"base_rate"`
	Level            float64  `yaml:"level" json:"level"`
	// Reason is set when the balanced accuracy is undefined (a class of
	// deep's verdict has no run); the defined rates are kept.
	Reason string `yaml:"reason,omitempty" json:"reason,omitempty"`
}

// ClassWiseAgreement returns the sensitivity, specificity, balanced
// accuracy and base rate of light's pass verdict against deep's on the
// runs of c, at the two-sided confidence level:
//
//	Se   = BothPass / (BothPass + DeepOnly)          (deep pass)
//	Sp   = NeitherPass / (NeitherPass + LightOnly)   (deep not pass)
//	BA   = (Se + Sp) / 2
//	base = (BothPass + DeepOnly) / n
//
// as sklearn's recall_score (Se, and Sp with pos_label=0) and
// balanced_accuracy_score. Se, Sp and base have Wilson intervals
// (WilsonInterval). Se and Sp are estimated on disjoint runs, so the
// interval of their mean combines their Wilson intervals by the method of
// variance estimates recovery (MOVER; Zou and Donner 2008, Stat. Med.
// 27(10), eq. 2 for a sum; Newcombe 1998, Stat. Med. 17(8), method 10 for
// a difference), with (l_1, u_1), (l_2, u_2) the Wilson intervals:
//
//	L = BA - sqrt((Se - l_1)^2 + (Sp - l_2)^2) / 2
//	U = BA + sqrt((u_1 - Se)^2 + (u_2 - Sp)^2) / 2
//
// which stays in [0, 1] and, unlike BA ± z SE, is not a point when Se or
// Sp is 0 or 1. Raw agreement is (BothPass + NeitherPass)/n; with a base
// rate of 0.9 a judge that passes everything agrees 90% with Se = 1 and
// Sp = 0, which BA (0.5) shows.
//
// A class with no run leaves its rate undefined (Reason on the rate) and
// the balanced accuracy undefined (Reason on the result); a negative
// count or level outside (0, 1) sets Reason with zero numbers.
func ClassWiseAgreement(c PassCounts, level float64) ClassAgreement {
	a := ClassAgreement{Level: level}
	z, err := ZForLevel(level)
	if err != nil {
		a.Reason = "invalid input: " + err.Error()
		return a
	}
	if c.BothPass < 0 || c.LightOnly < 0 || c.DeepOnly < 0 || c.NeitherPass < 0 {
		a.Reason = fmt.Sprintf("invalid input: negative count in %+v", c)
		return a
	}
	a.Sensitivity = wilsonRate(c.BothPass, c.BothPass+c.DeepOnly, z, "no run that deep passes")
	a.Specificity = wilsonRate(c.NeitherPass, c.NeitherPass+c.LightOnly, z, "no run that deep does not pass")
	a.BaseRate = wilsonRate(c.BothPass+c.DeepOnly, c.N(), z, "no run")
	if a.Sensitivity.Reason != "" || a.Specificity.Reason != "" {
		a.Reason = "undefined: balanced accuracy needs runs that deep passes and runs it does not"
		return a
	}
	se, sp := a.Sensitivity, a.Specificity
	a.BalancedAccuracy = (se.Value + sp.Value) / 2
	a.BalancedCI = Interval{
		Lower: clamp01(a.BalancedAccuracy - math.Hypot(se.Value-se.CI.Lower, sp.Value-sp.CI.Lower)/2),
		Upper: clamp01(a.BalancedAccuracy + math.Hypot(se.CI.Upper-se.Value, sp.CI.Upper-sp.Value)/2),
	}
	return a
}

// wilsonRate returns successes/n with its Wilson interval at z, or a Rate
// whose Reason is "undefined: " + empty when n is 0.
func wilsonRate(successes, n int, z float64, empty string) Rate {
	r := Rate{Successes: successes, N: n}
	if n == 0 {
		r.Reason = "undefined: " + empty
		return r
	}
	iv, err := WilsonInterval(successes, n, z)
	if err != nil {
		r.Reason = "invalid input: " + err.Error()
		return r
	}
	r.Value, r.CI = float64(successes)/float64(n), iv
	return r
}
