package aggregate

import (
	"math"

	"github.com/evalcal/evalcal/comparator"
	"github.com/evalcal/evalcal/inspection"
	"github.com/evalcal/evalcal/statistician"
)

// RobustAgreement is verdict agreement that neither chance nor an
// imbalanced base rate can flatter: Krippendorff's alpha (nominal and
// ordinal) and Gwet's AC1 over every verdict given to a run, and light's
// sensitivity, specificity and balanced accuracy at the pass line with
// deep's base rate. It is descriptive: the trust verdict does not use it
// (README.md, "The report").
//
// The units are the runs with both verdicts. Its raters are light and
// deep; on a run with repeats (--repeat K) each repeat is a rater of its
// own in place of the majority verdict, and a run with fewer repeats than
// another has missing values. Verdicts are coded fail = 0, partial = 1,
// pass = 2. The class-wise figures use the paired (majority) verdicts,
// deep's pass as the positive class. run and merge always write it (the
// report's agreement_robust); reports of earlier evalcal versions lack it
// and still read.
type RobustAgreement struct {
	// Raters says who rated each run.
	Raters string
	// Units is the number of runs rated; Ratings the number of verdicts
	// over them.
	Units   int
	Ratings int
	// AlphaNominal treats the three verdicts as unordered labels;
	// AlphaOrdinal uses only their order (fail < partial < pass).
	AlphaNominal Alpha
	AlphaOrdinal Alpha
	// AC1 is Gwet's AC1 over the three verdicts as categories.
	AC1 AC1
	// ClassWise is light's pass verdict against deep's, class by class.
	ClassWise ClassWise
}

// Alpha is Krippendorff's alpha (statistician.KrippendorffAlpha) with the
// observed and expected disagreements it is 1 minus the ratio of; null
// with Reason when it is not defined. Units counts the runs with at least
// two verdicts, Values the verdicts in them.
type Alpha struct {
	Value    *float64
	Observed *float64
	Expected *float64
	Units    int
	Values   int
	Reason   string
}

// AC1 is Gwet's AC1 (statistician.GwetAC1) with its standard error, its t
// 95% interval, and the percent and chance agreement it is made of; null
// with Reason when it is not defined (SE and interval alone are null, with
// Reason, on a single run).
type AC1 struct {
	Value            *float64
	SE               *float64
	CI95             *statistician.Interval
	PercentAgreement *float64
	ChanceAgreement  *float64
	Units            int
	Categories       int
	Reason           string
}

// ClassWise is statistician.ClassWiseAgreement at 95%: sensitivity (light
// passes what deep passes), specificity (light does not pass what deep
// does not), their mean the balanced accuracy with its MOVER interval, and
// deep's pass rate (the base rate). All are fractions in [0, 1].
type ClassWise struct {
	Sensitivity      Proportion
	Specificity      Proportion
	BalancedAccuracy *float64
	BalancedCI95     *statistician.Interval
	BaseRate         Proportion
	Reason           string
}

// Proportion is successes/n as a fraction with its Wilson 95% interval;
// null with Reason when n is 0.
type Proportion struct {
	Value     *float64
	Wilson95  *statistician.Interval
	Successes int
	N         int
	Reason    string
}

// robustRaters is RobustAgreement.Raters.
const robustRaters = "light and deep; on a run with repeats each repeat is a rater in place of the majority verdict"

// robustAgreement computes the RobustAgreement of the paired runs cs,
// with the repeats rs of any of them.
func robustAgreement(cs []comparator.Comparison, rs []RunRepeats) RobustAgreement {
	ratings := verdictRatings(cs, rs)
	out := RobustAgreement{Raters: robustRaters, Units: len(ratings)}
	for _, row := range ratings {
		for _, v := range row {
			if !math.IsNaN(v) {
				out.Ratings++
			}
		}
	}
	out.AlphaNominal = alpha(ratings, statistician.MetricNominal)
	out.AlphaOrdinal = alpha(ratings, statistician.MetricOrdinal)
	out.AC1 = ac1(ratings)
	out.ClassWise = classWise(cs)
	return out
}

// verdictRatings returns one row per run of cs: its light and deep
// verdicts coded 0, 1, 2 (NaN for a verdict off the scale), or, on a side
// with repeats in rs, that side's repeated verdicts instead.
func verdictRatings(cs []comparator.Comparison, rs []RunRepeats) [][]float64 {
	byRun := make(map[string]RunRepeats, len(rs))
	for _, r := range rs {
		byRun[r.RunID] = r
	}
	code := func(v string) float64 {
		if i := verdictIndex(v); i >= 0 {
			return float64(i)
		}
		return math.NaN()
	}
	side := func(paired string, reps []Repeat) []float64 {
		if len(reps) == 0 {
			return []float64{code(paired)}
		}
		out := make([]float64, 0, len(reps))
		for _, r := range reps {
			out = append(out, code(r.Verdict))
		}
		return out
	}
	rows := make([][]float64, 0, len(cs))
	for _, c := range cs {
		r := byRun[c.RunID]
		rows = append(rows, append(side(c.LightVerdict, r.Light), side(c.DeepVerdict, r.Deep)...))
	}
	return rows
}

func alpha(ratings [][]float64, m statistician.Metric) Alpha {
	r := statistician.KrippendorffAlpha(ratings, m)
	a := Alpha{Units: r.Units, Values: r.Values, Reason: r.Reason}
	if r.Reason == "" {
		v, o, e := r.Alpha, r.Observed, r.Expected
		a.Value, a.Observed, a.Expected = &v, &o, &e
	}
	return a
}

func ac1(ratings [][]float64) AC1 {
	r := statistician.GwetAC1(ratings, len(verdictOrder), level)
	a := AC1{Units: r.Units, Categories: r.Categories, Reason: r.Reason}
	if r.PairedUnits == 0 {
		if a.Reason == "" {
			a.Reason = "insufficient data: no run has two verdicts"
		}
		return a
	}
	v, pa, pe := r.Value, r.PercentAgreement, r.ChanceAgreement
	a.Value, a.PercentAgreement, a.ChanceAgreement = &v, &pa, &pe
	if r.Reason == "" {
		se, ci := r.SE, r.CI
		a.SE, a.CI95 = &se, &ci
	}
	return a
}

func classWise(cs []comparator.Comparison) ClassWise {
	var pc statistician.PassCounts
	for _, c := range cs {
		lp, dp := c.LightVerdict == inspection.VerdictPass, c.DeepVerdict == inspection.VerdictPass
		switch {
		case lp && dp:
			pc.BothPass++
		case lp:
			pc.LightOnly++
		case dp:
			pc.DeepOnly++
		default:
			pc.NeitherPass++
		}
	}
	r := statistician.ClassWiseAgreement(pc, level)
	out := ClassWise{
		Sensitivity: proportion(r.Sensitivity),
		Specificity: proportion(r.Specificity),
		BaseRate:    proportion(r.BaseRate),
		Reason:      r.Reason,
	}
	if r.Reason == "" {
		ba, ci := r.BalancedAccuracy, r.BalancedCI
		out.BalancedAccuracy, out.BalancedCI95 = &ba, &ci
	}
	return out
}

func proportion(r statistician.Rate) Proportion {
	p := Proportion{Successes: r.Successes, N: r.N, Reason: r.Reason}
	if r.Reason == "" {
		v, ci := r.Value, r.CI
		p.Value, p.Wilson95 = &v, &ci
	}
	return p
}
