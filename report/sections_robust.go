package report

// The report's own types of the chance-robust agreement section (agreement_robust); see sections.go.

import "github.com/evalcal/evalcal/statistician"

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
	Raters string `yaml:"raters" json:"raters"`
	// Units is the number of runs rated; Ratings the number of verdicts
	// over them.
	Units   int `yaml:"units" json:"units"`
	Ratings int `yaml:"ratings" json:"ratings"`
	// AlphaNominal treats the three verdicts as unordered labels;
	// AlphaOrdinal uses only their order (fail < partial < pass).
	AlphaNominal Alpha `yaml:"alpha_nominal" json:"alpha_nominal"`
	AlphaOrdinal Alpha `yaml:"alpha_ordinal" json:"alpha_ordinal"`
	// AC1 is Gwet's AC1 over the three verdicts as categories.
	AC1 AC1 `yaml:"ac1" json:"ac1"`
	// ClassWise is light's pass verdict against deep's, class by class.
	ClassWise ClassWise `yaml:"class_wise" json:"class_wise"`
}

// Alpha is Krippendorff's alpha (statistician.KrippendorffAlpha) with the
// observed and expected disagreements it is 1 minus the ratio of; null
// with Reason when it is not defined. Units counts the runs with at least
// two verdicts, Values the verdicts in them.
type Alpha struct {
	Value    *float64 `yaml:"value" json:"value"`
	Observed *float64 `yaml:"observed_disagreement" json:"observed_disagreement"`
	Expected *float64 `yaml:"expected_disagreement" json:"expected_disagreement"`
	Units    int      `yaml:"units" json:"units"`
	Values   int      `yaml:"values" json:"values"`
	Reason   string   `yaml:"reason,omitempty" json:"reason,omitempty"`
}

// AC1 is Gwet's AC1 (statistician.GwetAC1) with its standard error, its t
// 95% interval, and the percent and chance agreement it is made of; null
// with Reason when it is not defined (SE and interval alone are null, with
// Reason, on a single run).
type AC1 struct {
	Value            *float64               `yaml:"value" json:"value"`
	SE               *float64               `yaml:"se" json:"se"`
	CI95             *statistician.Interval `yaml:"ci95" json:"ci95"`
	PercentAgreement *float64               `yaml:"percent_agreement" json:"percent_agreement"`
	ChanceAgreement  *float64               `yaml:"chance_agreement" json:"chance_agreement"`
	Units            int                    `yaml:"units" json:"units"`
	Categories       int                    `yaml:"categories" json:"categories"`
	Reason           string                 `yaml:"reason,omitempty" json:"reason,omitempty"`
}

// ClassWise is statistician.ClassWiseAgreement at 95%: sensitivity (light
// passes what deep passes), specificity (light does not pass what deep
// does not), their mean the balanced accuracy with its MOVER interval, and
// deep's pass rate (the base rate). All are fractions in [0, 1].
type ClassWise struct {
	Sensitivity      Proportion             `yaml:"sensitivity" json:"sensitivity"`
	Specificity      Proportion             `yaml:"specificity" json:"specificity"`
	BalancedAccuracy *float64               `yaml:"balanced_accuracy" json:"balanced_accuracy"`
	BalancedCI95     *statistician.Interval `yaml:"balanced_accuracy_ci95" json:"balanced_accuracy_ci95"`
	BaseRate         Proportion             `yaml:"base_rate" json:"base_rate"`
	Reason           string                 `yaml:"reason,omitempty" json:"reason,omitempty"`
}

// Proportion is successes/n as a fraction with its Wilson 95% interval;
// null with Reason when n is 0.
type Proportion struct {
	Value     *float64               `yaml:"value" json:"value"`
	Wilson95  *statistician.Interval `yaml:"wilson95" json:"wilson95"`
	Successes int                    `yaml:"successes" json:"successes"`
	N         int                    `yaml:"n" json:"n"`
	Reason    string                 `yaml:"reason,omitempty" json:"reason,omitempty"`
}
