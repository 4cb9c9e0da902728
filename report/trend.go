package report

import (
	"github.com/evalcal/evalcal/forecast"
)

// Trend compares a calibration report with a baseline (typically last
// night's): each headline figure now and before, the difference now minus
// before with its 95% interval, and whether the interval excludes zero.
// The two reports are treated as independent samples. calibrate.CompareReports
// computes it; the report only holds and renders it.
type Trend struct {
	Baseline TrendSource `yaml:"baseline" json:"baseline"`
	// Agreement is in percentage points (Newcombe hybrid score interval).
	Agreement Change `yaml:"agreement" json:"agreement"`
	// KappaLinear is the linearly weighted kappa (Wald interval).
	KappaLinear Change `yaml:"kappa_linear" json:"kappa_linear"`
	// MeanDelta is each score's mean deep-minus-light delta (Welch).
	MeanDelta ScoreChanges `yaml:"mean_delta" json:"mean_delta"`
	// Correlation is each score's Pearson r (Zou's interval from the
	// Fisher-z intervals).
	Correlation ScoreChanges `yaml:"correlation" json:"correlation"`
	// Brier is the Brier score of light's score as a forecast of a deep
	// pass (Welch on the per-run squared errors; lower is better).
	Brier Change `yaml:"brier" json:"brier"`
	// Calibration is that forecast's 0-100 calibration score, -400 times
	// the Brier score's change while neither report is clamped at 0.
	Calibration Change `yaml:"calibration" json:"calibration"`
	// Distinguishable lists the figures whose change is distinguishable
	// from noise, in the order above.
	Distinguishable []string `yaml:"distinguishable" json:"distinguishable"`
	// RunsOnlyNow and RunsOnlyBefore list run ids compared in one report
	// and not the other, sorted.
	RunsOnlyNow    []string `yaml:"runs_only_now" json:"runs_only_now"`
	RunsOnlyBefore []string `yaml:"runs_only_before" json:"runs_only_before"`
	// Judges names what changed in either side's judge since the
	// baseline ("light: model: gpt-4o → gpt-4o-2024-11-20"); absent when
	// nothing did.
	Judges []string `yaml:"judges,omitempty" json:"judges,omitempty"`
}

// TrendSource identifies the baseline report.
type TrendSource struct {
	GeneratedBy string `yaml:"generated_by" json:"generated_by"`
	ContentHash string `yaml:"content_hash" json:"content_hash"`
	SampleSize  int    `yaml:"sample_size" json:"sample_size"`
}

// ScoreChanges holds one Change per score.
type ScoreChanges struct {
	RuntimeFidelity   Change `yaml:"runtime_fidelity" json:"runtime_fidelity"`
	TaskEffectiveness Change `yaml:"task_effectiveness" json:"task_effectiveness"`
}

// Change is one figure now and before, and the difference now - before
// with its 95% interval. Distinguishable is true when the interval
// excludes 0. When the difference or its interval is not defined, the
// missing numbers are null, Distinguishable is false and Reason says why.
// Change is one figure before and now with the difference's interval;
// the score document's trend uses the same shape.
type Change = forecast.Change
