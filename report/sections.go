package report

// The report's statistics sections. These types are the published
// layout of the figures statistician/aggregate computes (names, keys,
// order, and the doc of each field); the math core's own types carry no
// tags, and from_stats.go is the one mapping from them. A field renamed
// in the math core changes that mapping, never the document.

import "github.com/evalcal/evalcal/statistician"

// AgreementRate is the share of runs whose light and deep verdicts match,
// in percent (0..100), with its Wilson 95% interval in percent. Over no
// run the rate is not defined: Percent and Wilson95 are null and Reason
// says why.
type AgreementRate struct {
	Percent  *float64               `yaml:"percent" json:"percent"`
	Matches  int                    `yaml:"matches" json:"matches"`
	N        int                    `yaml:"n" json:"n"`
	Wilson95 *statistician.Interval `yaml:"wilson95" json:"wilson95"`
	Reason   string                 `yaml:"reason,omitempty" json:"reason,omitempty"`
}

// SystemAgreement is the agreement rate on one system's runs, in percent,
// with its Wilson 95% interval and a simultaneous interval: Wilson at the
// Bonferroni-adjusted z for the k tested systems at once (those with at
// least segment.MinRuns runs),
//
//	z' = Phi^-1(1 - 0.025/k)
//
// (statistician.BonferroniZ(Z95, k)), so that all k intervals hold
// together with 95% confidence. A system under segment.MinRuns runs is
// listed with its counts and a Reason, not tested, and has no interval
// (the intervals' presence says a system is tested; reports of earlier
// versions have both intervals for every system, Bonferroni over all).
// These are the figures of the slices section's system slices
// (segment.Agreements): one computation, one interval per system.
// Systems are sorted by name.
type SystemAgreement struct {
	System       string                 `yaml:"system" json:"system"`
	Percent      float64                `yaml:"percent" json:"percent"`
	Matches      int                    `yaml:"matches" json:"matches"`
	N            int                    `yaml:"n" json:"n"`
	Reason       string                 `yaml:"reason,omitempty" json:"reason,omitempty"`
	Wilson95     *statistician.Interval `yaml:"wilson95,omitempty" json:"wilson95,omitempty"`
	Simultaneous *statistician.Interval `yaml:"simultaneous95,omitempty" json:"simultaneous95,omitempty"`
}

// ClusteredRate is the agreement rate with an interval that allows for
// runs of one cluster (a system by default, or the task, conversation or
// prompt run --cluster names) not being independent, in percent: the CR2
// cluster-robust variance of the mean of the 0/1 matches with
// Bell-McCaffrey degrees of freedom, in a Wilson interval on the
// effective sample size (statistician.ClusterRobustAgreement, Method
// "CR2-BM-Wilson"). With fewer than statistician.MinClusters clusters the
// percent is kept, the interval is null and Reason says why. Reports of
// evalcal versions before issue 29 have no Field, Method, DF, EffectiveN
// or Note and used CR1 with a t(G-1) interval.
type ClusteredRate struct {
	Percent  *float64               `yaml:"percent" json:"percent"`
	N        int                    `yaml:"n" json:"n"`
	Clusters int                    `yaml:"clusters" json:"clusters"`
	CI95     *statistician.Interval `yaml:"ci95" json:"ci95"`
	// DesignEffect is the clustered variance over the simple binomial
	// variance: above 1, runs of one cluster agree or disagree together.
	DesignEffect *float64 `yaml:"design_effect" json:"design_effect"`
	// Field is what the runs are clustered by (system unless run
	// --cluster named another field).
	Field string `yaml:"field,omitempty" json:"field,omitempty"`
	// Method names the variance (statistician.MethodCR2BMWilson), DF its
	// Bell-McCaffrey degrees of freedom, EffectiveN the number of
	// independent runs the interval is worth (at most N); Note says it in
	// words, and that the method is the small-sample one under
	// aggregate.SmallClusters clusters.
	Method     string   `yaml:"method,omitempty" json:"method,omitempty"`
	DF         *float64 `yaml:"df,omitempty" json:"df,omitempty"`
	EffectiveN *float64 `yaml:"effective_n,omitempty" json:"effective_n,omitempty"`
	Note       string   `yaml:"note,omitempty" json:"note,omitempty"`
	Reason     string   `yaml:"reason,omitempty" json:"reason,omitempty"`
}

// KappaSection is Cohen's kappa on the ordinal verdicts, unweighted and
// with linear and quadratic weights, with raw agreement and PABAK.
type KappaSection struct {
	Unweighted   statistician.Kappa `yaml:"unweighted" json:"unweighted"`
	Linear       statistician.Kappa `yaml:"linear" json:"linear"`
	Quadratic    statistician.Kappa `yaml:"quadratic" json:"quadratic"`
	RawAgreement float64            `yaml:"raw_agreement" json:"raw_agreement"`
	PABAK        float64            `yaml:"pabak" json:"pabak"`
}

// Leniency compares verdicts at the pass line: how often light passes a
// run deep does not pass, against the reverse, with McNemar's exact test
// of the two being equally likely. It is the verdict-level counterpart of
// the score-based bias_direction, which can disagree with it.
type Leniency struct {
	// LightPassDeepNot counts runs light passed and deep did not (partial
	// or fail); DeepPassLightNot the reverse.
	LightPassDeepNot int `yaml:"light_pass_deep_not" json:"light_pass_deep_not"`
	DeepPassLightNot int `yaml:"deep_pass_light_not" json:"deep_pass_light_not"`
	N                int `yaml:"n" json:"n"`
	// LightPassRate and DeepPassRate are the pass rates in percent over the
	// same runs.
	LightPassRate *float64 `yaml:"light_pass_rate" json:"light_pass_rate"`
	DeepPassRate  *float64 `yaml:"deep_pass_rate" json:"deep_pass_rate"`
	// McNemarP is the two-sided exact McNemar p-value (binomial on the
	// discordant runs); null when there is no discordant run.
	McNemarP *float64 `yaml:"mcnemar_p" json:"mcnemar_p"`
	// Direction is lenient (light passes more), strict (light passes
	// less) or balanced, by the counts; Significant says whether McNemar's
	// test rejects balance at the 5% level.
	Direction   string `yaml:"direction" json:"direction"`
	Significant bool   `yaml:"significant" json:"significant"`
}

// Confusion is the 3x3 verdict confusion matrix: rows are light's verdict,
// columns deep's, both in Order (fail, partial, pass). The risky cells
// list their run ids.
type Confusion struct {
	Order             []string `yaml:"order" json:"order"`
	Rows              string   `yaml:"rows" json:"rows"`
	Columns           string   `yaml:"columns" json:"columns"`
	Counts            [][]int  `yaml:"counts" json:"counts"`
	LightPassDeepFail []string `yaml:"light_pass_deep_fail" json:"light_pass_deep_fail"`
	LightFailDeepPass []string `yaml:"light_fail_deep_pass" json:"light_fail_deep_pass"`
}

// Breakdown counts the runs of each disagreement type.
type Breakdown struct {
	VerdictSplit     int `yaml:"verdict_split" json:"verdict_split"`
	FalseNegative    int `yaml:"false_negative" json:"false_negative"`
	SeverityMismatch int `yaml:"severity_mismatch" json:"severity_mismatch"`
	FalsePositive    int `yaml:"false_positive" json:"false_positive"`
}

// ScoreCorrelation holds the light-versus-deep correlation of each score.
type ScoreCorrelation struct {
	RuntimeFidelity   Correlation `yaml:"runtime_fidelity" json:"runtime_fidelity"`
	TaskEffectiveness Correlation `yaml:"task_effectiveness" json:"task_effectiveness"`
}

// Correlation is Pearson r with its Fisher-z 95% interval and p-value,
// and Spearman rho; or, when not defined, only N and the reason
// (Insufficient under aggregate.MinCorrelationPairs runs, Undefined otherwise).
type Correlation struct {
	R            *float64               `yaml:"r,omitempty" json:"r,omitempty"`
	CI95         *statistician.Interval `yaml:"ci95,omitempty" json:"ci95,omitempty"`
	P            *float64               `yaml:"p,omitempty" json:"p,omitempty"`
	Spearman     *float64               `yaml:"spearman,omitempty" json:"spearman,omitempty"`
	N            int                    `yaml:"n" json:"n"`
	Insufficient string                 `yaml:"insufficient,omitempty" json:"insufficient,omitempty"`
	Undefined    string                 `yaml:"undefined,omitempty" json:"undefined,omitempty"`
}

// MeanScoreDelta holds the deep-minus-light delta of each score.
type MeanScoreDelta struct {
	RuntimeFidelity   ScoreDelta `yaml:"runtime_fidelity" json:"runtime_fidelity"`
	TaskEffectiveness ScoreDelta `yaml:"task_effectiveness" json:"task_effectiveness"`
}

// ScoreDelta is the mean deep-minus-light delta of one score with its t
// 95% interval, its bias direction, Bland-Altman limits of agreement and
// Lin's concordance correlation coefficient.
type ScoreDelta struct {
	Mean        float64                `yaml:"mean" json:"mean"`
	CI95        *statistician.Interval `yaml:"ci95" json:"ci95"`
	SD          float64                `yaml:"sd" json:"sd"`
	N           int                    `yaml:"n" json:"n"`
	Direction   string                 `yaml:"direction" json:"direction"`
	Reason      string                 `yaml:"reason,omitempty" json:"reason,omitempty"`
	BlandAltman BlandAltmanResult      `yaml:"bland_altman" json:"bland_altman"`
	CCC         CCC                    `yaml:"ccc" json:"ccc"`
}

// Forecast treats light's score as a probability forecast of a deep pass:
//
//	p = (light runtime_fidelity + light task_effectiveness) / 200
//	y = 1 if deep's verdict is pass, else 0
//
// and scores it with the Brier score, the 0-100 calibration score, the
// CORP decomposition and a reliability table of fixed-width bins. Light
// scores take few distinct values (the builtin's caps put most runs at
// 0.825), and equal-frequency bins would split such ties across several
// bins of the same forecast; fixed-width bins never split a value, and an
// empty bin carries no rate. If light's
// score means what it says, runs light scores at 0.8 pass deep about 80%
// of the time. When no run was compared, only Reason is set.
type Forecast struct {
	Of          string             `yaml:"of" json:"of"`
	Probability string             `yaml:"probability" json:"probability"`
	N           int                `yaml:"n" json:"n"`
	DeepPasses  int                `yaml:"deep_passes" json:"deep_passes"`
	BaseRate    float64            `yaml:"base_rate" json:"base_rate"`
	Brier       *float64           `yaml:"brier" json:"brier"`
	Calibration *float64           `yaml:"calibration" json:"calibration"`
	CORP        *CORPDecomposition `yaml:"corp" json:"corp"`
	Reliability *BinnedMurphy      `yaml:"reliability" json:"reliability"`
	Reason      string             `yaml:"reason,omitempty" json:"reason,omitempty"`
}
