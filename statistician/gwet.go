package statistician

import (
	"fmt"
	"math"
	"slices"
)

// GwetAC1Result is Gwet's AC1 with its standard error and t interval,
// and the percent and chance agreement it is made of. When AC1 is not
// defined, Reason says why and the numbers are zero; when only the
// standard error is not (a single unit), Value is kept and Reason says so.
type GwetAC1Result struct {
	Value            float64  `yaml:"value" json:"value"`
	SE               float64  `yaml:"se" json:"se"`
	CI               Interval `yaml:"ci" json:"ci"`
	Level            float64  `yaml:"level" json:"level"`
	PercentAgreement float64  `yaml:"percent_agreement" json:"percent_agreement"`
	ChanceAgreement  float64  `yaml:"chance_agreement" json:"chance_agreement"`
	// Units is the number of units with at least one rating (n);
	// PairedUnits those with at least two, which enter the percent
	// agreement (n' below).
	Units       int    `yaml:"units" json:"units"`
	PairedUnits int    `yaml:"paired_units" json:"paired_units"`
	Categories  int    `yaml:"categories" json:"categories"`
	Reason      string `yaml:"reason,omitempty" json:"reason,omitempty"`
}

// GwetAC1 returns Gwet's first-order agreement coefficient AC1 (Gwet
// 2008, "Computing inter-rater reliability and its variance in the
// presence of high agreement", Br. J. Math. Stat. Psychol. 61, 29-48) of
// ratings[i][j], the category rater j gave unit i, NaN where rater j did
// not rate unit i (any number of raters, rows of any length). Units with
// no rating are left out (irrCAC asks its users to exclude them).
// categories is the number q of categories on the scale (2 for
// pass/fail), or 0 for the number of distinct values observed; it matters
// when a category is never used (all runs pass). With r_ik the number of
// ratings of unit i in category k, r_i = sum_k r_ik, n units and n' units
// with r_i >= 2:
//
//	pa_i = sum_k r_ik (r_ik - 1) / (r_i (r_i - 1))      (r_i >= 2)
//	pa   = (1/n') sum_{i: r_i >= 2} pa_i
//	pi_k = (1/n) sum_i r_ik / r_i
//	pe   = sum_k pi_k (1 - pi_k) / (q - 1)
//	AC1  = (pa - pe) / (1 - pe)
//
// The variance is Gwet's linearisation (2008, section 5; Handbook of
// Inter-Rater Reliability, 4th ed. 2014, ch. 5), the one irrCAC's
// gwet.ac1.raw computes with N = Inf (no finite-population correction):
//
//	ac1_i  = (n/n') (pa_i - pe [r_i >= 2]) / (1 - pe)        (pa_i = 0 if r_i < 2)
//	pe_i   = sum_k r_ik (1 - pi_k) / (r_i (q - 1))
//	ac1*_i = ac1_i - 2 (1 - AC1) (pe_i - pe) / (1 - pe)
//	SE^2   = sum_i (ac1*_i - AC1)^2 / (n (n - 1))
//	CI     = AC1 ± t(1 - (1-level)/2; n - 1) SE, clamped to [-1, 1]
//
// (irrCAC clamps only the upper bound.) pe <= 1/q <= 1/2, so AC1 is
// always defined for q >= 2; it lies in [-1, 1]. Unlike Cohen's kappa it
// does not collapse when one category dominates (a judge that passes 95%
// of runs), which is why it is reported next to kappa.
//
// Reason is set (zero numbers) for fewer than 2 categories, categories
// smaller than the number observed, no unit with two ratings, an infinite
// rating or level outside (0, 1); with a single unit the value is kept and
// the interval is undefined.
func GwetAC1(ratings [][]float64, categories int, level float64) GwetAC1Result {
	r := GwetAC1Result{Level: level}
	if !(level > 0 && level < 1) {
		r.Reason = fmt.Sprintf("invalid input: confidence level %v must be in (0, 1)", level)
		return r
	}
	counts, observed, reason := categoryCounts(ratings)
	if reason != "" {
		r.Reason = reason
		return r
	}
	q := categories
	if q == 0 {
		q = observed
	}
	r.Categories = q
	switch {
	case q < observed:
		r.Reason = fmt.Sprintf("invalid input: %d categories on the scale but %d distinct ratings", q, observed)
		return r
	case q < 2:
		r.Reason = fmt.Sprintf("undefined: %d category, AC1 needs at least 2", q)
		return r
	}
	n := len(counts)
	r.Units = n
	ri := make([]float64, n)
	pi := make([]float64, observed)
	for i, row := range counts {
		for _, c := range row {
			ri[i] += c
		}
		for k, c := range row {
			pi[k] += c / ri[i]
		}
	}
	nf := float64(n)
	pe := 0.0
	for k := range pi {
		pi[k] /= nf
		pe += pi[k] * (1 - pi[k])
	}
	pe /= float64(q - 1)
	pai := make([]float64, n)
	paSum, paired := 0.0, 0
	for i, row := range counts {
		if ri[i] < 2 {
			continue
		}
		for _, c := range row {
			pai[i] += c * (c - 1)
		}
		pai[i] /= ri[i] * (ri[i] - 1)
		paSum += pai[i]
		paired++
	}
	r.PairedUnits = paired
	if paired == 0 {
		r.Reason = "insufficient data: no unit has two ratings"
		return r
	}
	pa := paSum / float64(paired)
	ac1 := (pa - pe) / (1 - pe)
	r.Value, r.PercentAgreement, r.ChanceAgreement = ac1, pa, pe
	if n < 2 {
		r.Reason = "interval undefined: one unit"
		return r
	}
	scale := nf / float64(paired)
	var ss float64
	for i, row := range counts {
		ai := 0.0
		if ri[i] >= 2 {
			ai = scale * (pai[i] - pe) / (1 - pe)
		}
		pei := 0.0
		for k, c := range row {
			pei += c * (1 - pi[k])
		}
		pei /= ri[i] * float64(q-1)
		d := ai - 2*(1-ac1)*(pei-pe)/(1-pe) - ac1
		ss += d * d
	}
	r.SE = math.Sqrt(ss / (nf * (nf - 1)))
	t := tQuantile(1-(1-level)/2, nf-1)
	r.CI = Interval{Lower: math.Max(-1, ac1-t*r.SE), Upper: math.Min(1, ac1+t*r.SE)}
	return r
}

// categoryCounts returns, for each unit of ratings with at least one
// rating, the number of its ratings in each distinct observed value (in
// ascending order of the values), and the number of distinct values; or a
// reason when a rating is infinite.
func categoryCounts(ratings [][]float64) ([][]float64, int, string) {
	var distinct []float64
	for u, row := range ratings {
		for j, v := range row {
			if math.IsInf(v, 0) {
				return nil, 0, fmt.Sprintf("invalid input: unit %d rater %d is %v", u, j, v)
			}
			if !math.IsNaN(v) {
				distinct = append(distinct, v)
			}
		}
	}
	slices.Sort(distinct)
	distinct = slices.Compact(distinct)
	var counts [][]float64
	for _, row := range ratings {
		c := make([]float64, len(distinct))
		rated := false
		for _, v := range row {
			if math.IsNaN(v) {
				continue
			}
			k, _ := slices.BinarySearch(distinct, v)
			c[k]++
			rated = true
		}
		if rated {
			counts = append(counts, c)
		}
	}
	return counts, len(distinct), ""
}
