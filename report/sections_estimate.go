package report

// The report's own types of the estimate and repeatability sections; see sections.go.

import "github.com/evalcal/evalcal/statistician"

// Estimate is what deep would say over all sampled runs when deep ran on
// a subset: the deep pass rate and the deep mean of each score, each by
// several estimators.
type Estimate struct {
	// Design says how the deep subset was drawn (from the report's inputs).
	Design string `yaml:"design" json:"design"`
	// NLight is the number of runs with a light inspection, NDeep those
	// also inspected deep.
	NLight int `yaml:"n_light" json:"n_light"`
	NDeep  int `yaml:"n_deep" json:"n_deep"`
	// Predictor says how light predicts deep for each estimate.
	Predictor         string        `yaml:"predictor" json:"predictor"`
	PassRate          EstimateSet   `yaml:"pass_rate" json:"pass_rate"`
	RuntimeFidelity   EstimateSet   `yaml:"runtime_fidelity" json:"runtime_fidelity"`
	TaskEffectiveness EstimateSet   `yaml:"task_effectiveness" json:"task_effectiveness"`
	Notes             []string      `yaml:"notes" json:"notes"`
	Best              *BestEstimate `yaml:"best" json:"best"`
	// Transport checks the pass rate's isotonic map system by system.
	Transport []TransportCheck `yaml:"transport,omitempty" json:"transport,omitempty"`
	// Cluster says how the runs are clustered when the user named a
	// cluster field (run --cluster) or whole clusters were labelled
	// (--deep-policy cluster); absent otherwise, and then no set has
	// Clustered estimates.
	Cluster *ClusterDesign `yaml:"cluster,omitempty" json:"cluster,omitempty"`
}

// BestEstimate names the estimator the summary quotes for the pass rate:
// the one with the narrowest valid interval among those the design
// supports.
type BestEstimate struct {
	Method string  `yaml:"method" json:"method"`
	Point  float64 `yaml:"point" json:"point"`
	Lower  float64 `yaml:"lower" json:"lower"`
	Upper  float64 `yaml:"upper" json:"upper"`
}

// EstimateSet holds one target's estimates by method.
type EstimateSet struct {
	Classical   MethodEstimate  `yaml:"classical" json:"classical"`
	PPI         MethodEstimate  `yaml:"ppi" json:"ppi"`
	IPW         *MethodEstimate `yaml:"ipw,omitempty" json:"ipw,omitempty"`
	RoganGladen *MethodEstimate `yaml:"rogan_gladen,omitempty" json:"rogan_gladen,omitempty"`
	// StratPPI is stratified PPI++ over the strata light verdict x system
	// (see statistician.StratPPIMeanOfRuns); nil when there is one stratum.
	StratPPI *MethodEstimate `yaml:"stratified_ppi,omitempty" json:"stratified_ppi,omitempty"`
	// PPICalibrated is PPI++ with light's prediction recalibrated to the
	// deep labels by cross-fitted isotonic regression, or with the fixed
	// map when that is narrower (statistician.PPIMeanOfRunsCalibrated);
	// Predictor says which.
	PPICalibrated *MethodEstimate `yaml:"ppi_calibrated,omitempty" json:"ppi_calibrated,omitempty"`
	Predictor     string          `yaml:"ppi_calibrated_predictor,omitempty" json:"ppi_calibrated_predictor,omitempty"`
	// Clustered holds the cluster-robust classical and PPI++ estimates
	// when the runs are clustered (Estimate.Cluster); nil otherwise.
	Clustered *ClusteredEstimates `yaml:"clustered,omitempty" json:"clustered,omitempty"`
}

// TransportCheck is one system's check of the isotonic map from light's
// forecast to the deep pass: the mean of deep minus the cross-fitted
// prediction over its labelled runs, with its 95% t interval; Transports
// is false when the interval excludes 0 (the map fitted on all systems is
// off for this one).
type TransportCheck struct {
	System       string                 `yaml:"system" json:"system"`
	N            int                    `yaml:"n" json:"n"`
	MeanResidual *float64               `yaml:"mean_residual" json:"mean_residual"`
	CI95         *statistician.Interval `yaml:"ci95" json:"ci95"`
	Transports   bool                   `yaml:"transports" json:"transports"`
	Reason       string                 `yaml:"reason,omitempty" json:"reason,omitempty"`
}

// MethodEstimate is one estimator's answer: the point estimate and its
// 95% interval, the standard error, lambda where the method tunes one,
// and the effective number of deep inspections the estimate is worth
// (n_deep times the classical variance over this method's). Undefined:
// only Reason.
type MethodEstimate struct {
	Point      *float64               `yaml:"point" json:"point"`
	CI95       *statistician.Interval `yaml:"ci95" json:"ci95"`
	SE         *float64               `yaml:"se" json:"se"`
	Lambda     *float64               `yaml:"lambda,omitempty" json:"lambda,omitempty"`
	EffectiveN *float64               `yaml:"effective_n" json:"effective_n"`
	// Pooled is set on a stratified PPI++ estimate that is PPI++ over all
	// runs with one lambda: under a uniform subset its interval was the
	// narrower (statistician.StratPPIMeanOfRunsUniform); absent elsewhere.
	Pooled bool   `yaml:"pooled,omitempty" json:"pooled,omitempty"`
	Reason string `yaml:"reason,omitempty" json:"reason,omitempty"`
}

// ClusteredEstimates are the estimates of one target when the runs are
// clustered (several runs of one task): the classical estimate from the
// deep labels alone and PPI++, each with a CR1 cluster-robust variance
// (influence terms summed by cluster) and a t interval on G_L - 1 degrees
// of freedom, G_L the clusters holding a deep label
// (statistician.ClusterClassicalMean, statistician.ClusterPPIMean). The
// intervals are for the process producing the runs (no finite-population
// correction). With fewer than statistician.MinClusters labelled
// clusters the points are kept and the reasons say there is no interval.
type ClusteredEstimates struct {
	Classical MethodEstimate `yaml:"classical" json:"classical"`
	PPI       MethodEstimate `yaml:"ppi" json:"ppi"`
	// DF is the t interval's degrees of freedom, G_L - 1; null without
	// an interval.
	DF *float64 `yaml:"df" json:"df"`
}

// ClusterDesign says how the estimate section accounts for clusters: the
// field, the number of clusters over all runs and among the labelled
// ones, and whether whole clusters were labelled (--deep-policy cluster).
type ClusterDesign struct {
	Field            string `yaml:"field" json:"field"`
	Clusters         int    `yaml:"clusters" json:"clusters"`
	LabelledClusters int    `yaml:"labelled_clusters" json:"labelled_clusters"`
	WholeClusters    bool   `yaml:"whole_clusters" json:"whole_clusters"`
}

// Repeatability is each side's agreement with itself over K repeats.
type Repeatability struct {
	K     int               `yaml:"k" json:"k"`
	Light SideRepeatability `yaml:"light" json:"light"`
	Deep  SideRepeatability `yaml:"deep" json:"deep"`
	// Rule says how repeats become the paired verdict and scores.
	Rule string `yaml:"rule" json:"rule"`
}

// SideRepeatability is one side's repeatability.
type SideRepeatability struct {
	// Runs counts runs with K repeats of this side.
	Runs int `yaml:"runs" json:"runs"`
	// FlipRate is the share of runs whose K verdicts are not unanimous;
	// PassAllK the share passed by every repeat (pass^K).
	FlipRate *float64 `yaml:"flip_rate" json:"flip_rate"`
	PassAllK *float64 `yaml:"pass_all_k" json:"pass_all_k"`
	// FleissKappa is the agreement of the repeats with each other beyond
	// chance, over the three verdicts, with its asymptotic interval.
	FleissKappa *float64               `yaml:"fleiss_kappa" json:"fleiss_kappa"`
	FleissCI95  *statistician.Interval `yaml:"fleiss_ci95" json:"fleiss_ci95"`
	// ScoreSpread is the mean over runs of the within-run standard
	// deviation of each score, in points.
	ScoreSpread ScoreSpread `yaml:"score_spread" json:"score_spread"`
	Reason      string      `yaml:"reason,omitempty" json:"reason,omitempty"`
}

// ScoreSpread is a spread in points of each score.
type ScoreSpread struct {
	RuntimeFidelity   *float64 `yaml:"runtime_fidelity" json:"runtime_fidelity"`
	TaskEffectiveness *float64 `yaml:"task_effectiveness" json:"task_effectiveness"`
}
