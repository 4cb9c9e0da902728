package aggregate

import (
	"github.com/evalcal/evalcal/comparator"
	"github.com/evalcal/evalcal/inspection"
	"github.com/evalcal/evalcal/statistician"
)

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
	Percent  *float64
	N        int
	Clusters int
	CI95     *statistician.Interval
	// DesignEffect is the clustered variance over the simple binomial
	// variance: above 1, runs of one cluster agree or disagree together.
	DesignEffect *float64
	// Field is what the runs are clustered by (system unless run
	// --cluster named another field).
	Field string
	// Method names the variance (statistician.MethodCR2BMWilson), DF its
	// Bell-McCaffrey degrees of freedom, EffectiveN the number of
	// independent runs the interval is worth (at most N); Note says it in
	// words, and that the method is the small-sample one under
	// SmallClusters clusters.
	Method     string
	DF         *float64
	EffectiveN *float64
	Note       string
	Reason     string
}

// Leniency compares verdicts at the pass line: how often light passes a
// run deep does not pass, against the reverse, with McNemar's exact test
// of the two being equally likely. It is the verdict-level counterpart of
// the score-based bias_direction, which can disagree with it.
type Leniency struct {
	// LightPassDeepNot counts runs light passed and deep did not (partial
	// or fail); DeepPassLightNot the reverse.
	LightPassDeepNot int
	DeepPassLightNot int
	N                int
	// LightPassRate and DeepPassRate are the pass rates in percent over the
	// same runs.
	LightPassRate *float64
	DeepPassRate  *float64
	// McNemarP is the two-sided exact McNemar p-value (binomial on the
	// discordant runs); null when there is no discordant run.
	McNemarP *float64
	// Direction is lenient (light passes more), strict (light passes
	// less) or balanced, by the counts; Significant says whether McNemar's
	// test rejects balance at the 5% level.
	Direction   string
	Significant bool
}

// Leniency directions.
const (
	Lenient  = "lenient"
	Strict   = "strict"
	Balanced = "balanced"
)

// Estimate is what deep would say over all sampled runs when deep ran on
// a subset: the deep pass rate and the deep mean of each score, each by
// several estimators.
type Estimate struct {
	// Design says how the deep subset was drawn (from the report's inputs).
	Design string
	// NLight is the number of runs with a light inspection, NDeep those
	// also inspected deep.
	NLight int
	NDeep  int
	// Predictor says how light predicts deep for each estimate.
	Predictor         string
	PassRate          EstimateSet
	RuntimeFidelity   EstimateSet
	TaskEffectiveness EstimateSet
	Notes             []string
	Best              *BestEstimate
	// Transport checks the pass rate's isotonic map system by system.
	Transport []TransportCheck
	// Cluster says how the runs are clustered when the user named a
	// cluster field (run --cluster) or whole clusters were labelled
	// (--deep-policy cluster); absent otherwise, and then no set has
	// Clustered estimates.
	Cluster *ClusterDesign
}

// BestEstimate names the estimator the summary quotes for the pass rate:
// the one with the narrowest valid interval among those the design
// supports.
type BestEstimate struct {
	Method string
	Point  float64
	Lower  float64
	Upper  float64
}

// EstimateSet holds one target's estimates by method.
type EstimateSet struct {
	Classical   MethodEstimate
	PPI         MethodEstimate
	IPW         *MethodEstimate
	RoganGladen *MethodEstimate
	// StratPPI is stratified PPI++ over the strata light verdict x system
	// (see statistician.StratPPIMeanOfRuns); nil when there is one stratum.
	StratPPI *MethodEstimate
	// PPICalibrated is PPI++ with light's prediction recalibrated to the
	// deep labels by cross-fitted isotonic regression, or with the fixed
	// map when that is narrower (statistician.PPIMeanOfRunsCalibrated);
	// Predictor says which.
	PPICalibrated *MethodEstimate
	Predictor     string
	// Clustered holds the cluster-robust classical and PPI++ estimates
	// when the runs are clustered (Estimate.Cluster); nil otherwise.
	Clustered *ClusteredEstimates
}

// TransportCheck is one system's check of the isotonic map from light's
// forecast to the deep pass: the mean of deep minus the cross-fitted
// prediction over its labelled runs, with its 95% t interval; Transports
// is false when the interval excludes 0 (the map fitted on all systems is
// off for this one).
type TransportCheck struct {
	System       string
	N            int
	MeanResidual *float64
	CI95         *statistician.Interval
	Transports   bool
	Reason       string
}

// MethodEstimate is one estimator's answer: the point estimate and its
// 95% interval, the standard error, lambda where the method tunes one,
// and the effective number of deep inspections the estimate is worth
// (n_deep times the classical variance over this method's). Undefined:
// only Reason.
type MethodEstimate struct {
	Point      *float64
	CI95       *statistician.Interval
	SE         *float64
	Lambda     *float64
	EffectiveN *float64
	// Pooled is set on a stratified PPI++ estimate that is PPI++ over all
	// runs with one lambda: under a uniform subset its interval was the
	// narrower (statistician.StratPPIMeanOfRunsUniform); absent elsewhere.
	Pooled bool
	Reason string
}

// Repeatability is each side's agreement with itself over K repeats.
type Repeatability struct {
	K     int
	Light SideRepeatability
	Deep  SideRepeatability
	// Rule says how repeats become the paired verdict and scores.
	Rule string
}

// SideRepeatability is one side's repeatability.
type SideRepeatability struct {
	// Runs counts runs with K repeats of this side.
	Runs int
	// FlipRate is the share of runs whose K verdicts are not unanimous;
	// PassAllK the share passed by every repeat (pass^K).
	FlipRate *float64
	PassAllK *float64
	// FleissKappa is the agreement of the repeats with each other beyond
	// chance, over the three verdicts, with its asymptotic interval.
	FleissKappa *float64
	FleissCI95  *statistician.Interval
	// ScoreSpread is the mean over runs of the within-run standard
	// deviation of each score, in points.
	ScoreSpread ScoreSpread
	Reason      string
}

// ScoreSpread is a spread in points of each score.
type ScoreSpread struct {
	RuntimeFidelity   *float64
	TaskEffectiveness *float64
}

// LightOnlyRun is a run inspected at light depth only (not in the deep
// subset).
type LightOnlyRun struct {
	RunID        string            `yaml:"run_id" json:"run_id"`
	System       string            `yaml:"system" json:"system"`
	LightVerdict string            `yaml:"light_verdict" json:"light_verdict"`
	Light        comparator.Scores `yaml:"light_scores" json:"light_scores"`
	// Metadata is the run's metadata (inspection.Metadata), for the
	// slices (run --by) and clusters (run --cluster) that merge recomputes.
	Metadata inspection.Metadata `yaml:"metadata,omitempty" json:"metadata,omitempty"`
}

// RunRepeats is one run's repeated inspections per side (--repeat K).
type RunRepeats struct {
	RunID string   `yaml:"run_id" json:"run_id"`
	Light []Repeat `yaml:"light" json:"light"`
	Deep  []Repeat `yaml:"deep" json:"deep"`
}

// Repeat is one repeated inspection's verdict and scores.
type Repeat struct {
	Verdict string            `yaml:"verdict" json:"verdict"`
	Scores  comparator.Scores `yaml:"scores" json:"scores"`
}

// Input is everything the stage aggregates: the paired runs' comparisons
// and, when deep ran on a subset or repeats were made, the runs inspected
// at light depth only, each run's inclusion probability and the repeats.
type Input struct {
	Comparisons []comparator.Comparison
	LightOnly   []LightOnlyRun
	// Pi holds each run's probability of a deep inspection; nil when deep
	// ran on every run. A run missing from a non-nil Pi has no known
	// probability.
	Pi map[string]float64
	// Design says how the deep subset was drawn, for the estimate section;
	// Assumed marks a uniform random subset nobody vouched for.
	Design  string
	Assumed bool
	Repeats []RunRepeats
	// ClusterField names what the runs are clustered by when the user
	// named it (run --cluster); "" clusters the agreement by system and
	// leaves the estimates unclustered. Clusters maps a run id to its
	// cluster (a run it does not name is in its system's cluster).
	// WholeClusters says the deep subset labelled whole clusters
	// (--deep-policy cluster): the estimates are then clustered whatever
	// ClusterField is.
	ClusterField  string
	Clusters      map[string]string
	WholeClusters bool
	// StrataBy are the fields whose values with light's verdict make the
	// strata of stratified PPI++ (StratumKey); nil: light verdict x
	// system.
	StrataBy []string
}
