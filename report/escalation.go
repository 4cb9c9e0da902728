package report

import "github.com/evalcal/evalcal/statistician"

// Escalation modes: calibrate (run --target-agreement A) chooses the
// threshold on runs with both depths; cascade (run --escalate FILE)
// applies a saved threshold, deep only below it.
const (
	EscalationCalibrate = "calibrate"
	EscalationCascade   = "cascade"
)

// Who decides a run in the cascade.
const (
	DecidedByLight = "light"
	DecidedByDeep  = "deep"
)

// EscalationInputs are the trust-or-escalate settings, kept in the inputs
// so that merge recomputes the section from the per-run data.
type EscalationInputs struct {
	// Mode is EscalationCalibrate or EscalationCascade.
	Mode string `yaml:"mode" json:"mode"`
	// TargetAgreement is A in (0, 1) and Risk D in (0, 1): agreement >= A
	// among the runs light decides, with probability >= 1 - D.
	TargetAgreement float64 `yaml:"target_agreement" json:"target_agreement"`
	Risk            float64 `yaml:"risk" json:"risk"`
	// Confidence is the source asked for (--confidence); empty for the
	// default (the first the data support).
	Confidence string `yaml:"confidence" json:"confidence"`
	// Policy is the saved policy a cascade applies (--escalate FILE).
	Policy *EscalationPolicy `yaml:"policy,omitempty" json:"policy,omitempty"`
}

// EscalationPolicy is a calibrated threshold as --escalate reads it.
type EscalationPolicy struct {
	File   string `yaml:"file" json:"file"`
	Source string `yaml:"source" json:"source"`
	// Met is false when the calibration found no threshold; Threshold is
	// then null and every run goes to deep.
	Met          bool     `yaml:"met" json:"met"`
	Threshold    *float64 `yaml:"threshold" json:"threshold"`
	CalibrationN int      `yaml:"calibration_n" json:"calibration_n"`
}

// Escalation is the report's trust-or-escalate section (README.md, "Trust
// or escalate"): how sure light is per run, the lowest confidence
// threshold at which light may decide alone with the guaranteed
// agreement, what that covers and saves and, in a cascade, who decided
// each run.
type Escalation struct {
	Mode string `yaml:"mode" json:"mode"`
	// Source is the confidence used (escalate.Source), SourceChosen how
	// it was chosen, Unit what its values measure (points or share).
	Source       string `yaml:"source" json:"source"`
	SourceChosen string `yaml:"source_chosen" json:"source_chosen"`
	Unit         string `yaml:"unit" json:"unit"`
	// Method names the procedure and its sources in one line.
	Method    string              `yaml:"method" json:"method"`
	Guarantee EscalationGuarantee `yaml:"guarantee" json:"guarantee"`
	// Met is true when a threshold met the target; Threshold is null
	// otherwise (every run goes to deep) and Reason says why.
	Met       bool     `yaml:"met" json:"met"`
	Threshold *float64 `yaml:"threshold" json:"threshold"`
	Reason    string   `yaml:"reason,omitempty" json:"reason,omitempty"`
	// Coverage is the share of runs light decides alone (confidence at
	// or above the threshold), Escalated the rest.
	Coverage  EscalationRate `yaml:"coverage" json:"coverage"`
	Escalated EscalationRate `yaml:"escalated" json:"escalated"`
	// Agreement is light's agreement with deep among the covered
	// calibration runs, with the one-sided bound the guarantee rests on;
	// absent in a cascade (deep did not see the runs light decided).
	Agreement     *EscalationRate  `yaml:"agreement,omitempty" json:"agreement,omitempty"`
	DeepCostSaved EscalationSaving `yaml:"deep_cost_saved" json:"deep_cost_saved"`
	// Needed says how many runs with both depths might let a threshold
	// pass, when none did.
	Needed *EscalationNeeded `yaml:"needed,omitempty" json:"needed,omitempty"`
	// Curve is the coverage-risk curve: agreement among the runs at or
	// above each candidate threshold against their share (calibrate).
	Curve []EscalationPoint `yaml:"curve,omitempty" json:"curve,omitempty"`
	// Runs is each run's route and final verdict (cascade), by run id.
	Runs []EscalationRun `yaml:"runs,omitempty" json:"runs,omitempty"`
}

// EscalationGuarantee is what the threshold promises and on what data.
type EscalationGuarantee struct {
	TargetAgreementPercent float64 `yaml:"target_agreement_percent" json:"target_agreement_percent"`
	Risk                   float64 `yaml:"risk" json:"risk"`
	// CalibrationN is the number of runs with both depths the threshold
	// was chosen on; MinCovered the fewest covered runs that can show the
	// target at all.
	CalibrationN int    `yaml:"calibration_n" json:"calibration_n"`
	MinCovered   int    `yaml:"min_covered" json:"min_covered"`
	Statement    string `yaml:"statement" json:"statement"`
}

// EscalationRate is a share of runs in percent with its two-sided 95%
// Clopper-Pearson interval; null with a reason when n is 0.
type EscalationRate struct {
	Percent *float64               `yaml:"percent" json:"percent"`
	Runs    int                    `yaml:"runs" json:"runs"`
	N       int                    `yaml:"n" json:"n"`
	CI95    *statistician.Interval `yaml:"ci95" json:"ci95"`
	// GuaranteedLowerPercent is the one-sided Clopper-Pearson bound at
	// 1 - D of the agreement (agreement only): the figure the test
	// compared with the target.
	GuaranteedLowerPercent *float64 `yaml:"guaranteed_lower_percent,omitempty" json:"guaranteed_lower_percent,omitempty"`
	Reason                 string   `yaml:"reason,omitempty" json:"reason,omitempty"`
}

// EscalationSaving is deep's cost not spent on the runs light decides.
type EscalationSaving struct {
	// Percent of deep's spend saved: the coverage.
	Percent *float64 `yaml:"percent" json:"percent"`
	// USDPerRun is coverage x deep's cost per run; USD, in a cascade, the
	// covered runs x deep's cost per run. Null with a reason when deep's
	// cost per run is unknown.
	USDPerRun *float64 `yaml:"usd_per_run" json:"usd_per_run"`
	USD       *float64 `yaml:"usd,omitempty" json:"usd,omitempty"`
	Reason    string   `yaml:"reason,omitempty" json:"reason,omitempty"`
}

// EscalationNeeded is the planning answer when no threshold met the
// target: about Runs runs with both depths at the coverage and agreement
// seen at AtThreshold, or a Reason why more runs would not do.
type EscalationNeeded struct {
	Runs        int      `yaml:"runs" json:"runs"`
	AtThreshold *float64 `yaml:"at_threshold" json:"at_threshold"`
	Reason      string   `yaml:"reason,omitempty" json:"reason,omitempty"`
}

// EscalationPoint is one candidate threshold of the coverage-risk curve.
type EscalationPoint struct {
	Threshold        float64 `yaml:"threshold" json:"threshold"`
	Covered          int     `yaml:"covered" json:"covered"`
	CoveragePercent  float64 `yaml:"coverage_percent" json:"coverage_percent"`
	AgreementPercent float64 `yaml:"agreement_percent" json:"agreement_percent"`
	// LowerPercent is the tested step's one-sided bound; null for points
	// the sequence did not test.
	LowerPercent *float64 `yaml:"lower_percent" json:"lower_percent"`
}

// EscalationRun is one run in a cascade: light's confidence (null when
// the run lacks the source), who decided, and the final verdict.
type EscalationRun struct {
	RunID        string   `yaml:"run_id" json:"run_id"`
	Confidence   *float64 `yaml:"confidence" json:"confidence"`
	DecidedBy    string   `yaml:"decided_by" json:"decided_by"`
	LightVerdict string   `yaml:"light_verdict" json:"light_verdict"`
	DeepVerdict  string   `yaml:"deep_verdict,omitempty" json:"deep_verdict,omitempty"`
	FinalVerdict string   `yaml:"final_verdict" json:"final_verdict"`
}
