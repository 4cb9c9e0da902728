package report

// The report's own types of the scoring core's results it publishes
// (statistician: Bland-Altman limits, Lin's CCC, the CORP and Murphy
// decompositions, regressions), mapped in from_stats.go; see sections.go.
// statistician.Interval and statistician.Kappa stay shared: every
// document (segment, pairwise, rank, drift, forecast, advisor) publishes
// them.

import "github.com/evalcal/evalcal/statistician"

// BlandAltmanResult is a Bland-Altman analysis of paired measurements:
// the bias (mean of b - a), the SD of the differences, the 95% limits of
// agreement and the confidence intervals of each. When the analysis is not
// defined, Reason says why and the numbers are zero.
type BlandAltmanResult struct {
	Bias    float64               `yaml:"bias" json:"bias"`
	SD      float64               `yaml:"sd" json:"sd"`
	Lower   float64               `yaml:"lower_loa" json:"lower_loa"`
	Upper   float64               `yaml:"upper_loa" json:"upper_loa"`
	BiasCI  statistician.Interval `yaml:"bias_ci" json:"bias_ci"`
	LowerCI statistician.Interval `yaml:"lower_loa_ci" json:"lower_loa_ci"`
	UpperCI statistician.Interval `yaml:"upper_loa_ci" json:"upper_loa_ci"`
	N       int                   `yaml:"n" json:"n"`
	Reason  string                `yaml:"reason,omitempty" json:"reason,omitempty"`
}

// CCC is Lin's concordance correlation coefficient with its standard error
// and Fisher-z 95% interval. When it is not defined, Reason says why and
// the numbers are zero.
type CCC struct {
	Value  float64               `yaml:"value" json:"value"`
	SE     float64               `yaml:"se" json:"se"`
	CI95   statistician.Interval `yaml:"ci95" json:"ci95"`
	N      int                   `yaml:"n" json:"n"`
	Reason string                `yaml:"reason,omitempty" json:"reason,omitempty"`
}

// CORPDecomposition is the CORP decomposition of the Brier score
// (Dimitriadis, Gneiting and Jordan 2021).
type CORPDecomposition struct {
	N int `yaml:"n" json:"n"`
	// Brier is the score of the forecasts; Recalibrated the score of their
	// PAV recalibration.
	Brier        float64 `yaml:"brier" json:"brier"`
	Recalibrated float64 `yaml:"recalibrated" json:"recalibrated"`
	// MCB is miscalibration, DSC discrimination, UNC uncertainty.
	MCB float64 `yaml:"mcb" json:"mcb"`
	DSC float64 `yaml:"dsc" json:"dsc"`
	UNC float64 `yaml:"unc" json:"unc"`
}

// BinnedMurphy is the Murphy decomposition over bins, with the two
// within-bin terms that make it an identity.
type BinnedMurphy struct {
	Method string `yaml:"method" json:"method"`
	// Bins is the number of bins used (for equal-frequency at most
	// min(bins, n), fewer when tied forecasts fill several targets).
	Bins        int     `yaml:"bins" json:"bins"`
	N           int     `yaml:"n" json:"n"`
	Brier       float64 `yaml:"brier" json:"brier"`
	Reliability float64 `yaml:"reliability" json:"reliability"`
	Resolution  float64 `yaml:"resolution" json:"resolution"`
	Uncertainty float64 `yaml:"uncertainty" json:"uncertainty"`
	// WithinBinVariance (WBV) and WithinBinCovariance (WBC) are the terms
	// binning leaves out (Stephenson, Coelho and Jolliffe 2008):
	// BS = REL - RES + UNC + WBV - WBC.
	WithinBinVariance   float64          `yaml:"within_bin_variance" json:"within_bin_variance"`
	WithinBinCovariance float64          `yaml:"within_bin_covariance" json:"within_bin_covariance"`
	Table               []ReliabilityBin `yaml:"table" json:"table"`
}

// ReliabilityBin is one bin of a reliability table. An empty bin has
// Count 0, Reason "empty bin" and no rate: its MeanForecast, ObservedRate
// and RateCI95 are nil (null in a document, as the README promises; not 0,
// which would read as a rate of 0%).
type ReliabilityBin struct {
	// Lower and Upper bound the bin: the fixed-width bin's edges, or the
	// smallest and largest forecast in an equal-frequency bin.
	Lower        float64                `yaml:"lower" json:"lower"`
	Upper        float64                `yaml:"upper" json:"upper"`
	Count        int                    `yaml:"count" json:"count"`
	Hits         int                    `yaml:"hits" json:"hits"`
	MeanForecast *float64               `yaml:"mean_forecast" json:"mean_forecast"`
	ObservedRate *float64               `yaml:"observed_rate" json:"observed_rate"`
	RateCI95     *statistician.Interval `yaml:"rate_ci95" json:"rate_ci95"`
	Reason       string                 `yaml:"reason,omitempty" json:"reason,omitempty"`
}

// Regression is an ordinary least squares fit with heteroskedasticity-
// consistent standard errors. When it is not defined, Reason says why and
// Coefficients is empty.
type Regression struct {
	Coefficients []Coefficient `yaml:"coefficients" json:"coefficients"`
	N            int           `yaml:"n" json:"n"`
	DF           int           `yaml:"df" json:"df"`
	Level        float64       `yaml:"level" json:"level"`
	Covariance   string        `yaml:"covariance" json:"covariance"`
	Reason       string        `yaml:"reason,omitempty" json:"reason,omitempty"`
}

// Coefficient is one regression coefficient with its standard error, t
// statistic, two-sided p-value and interval.
type Coefficient struct {
	Name     string                `yaml:"name" json:"name"`
	Estimate float64               `yaml:"estimate" json:"estimate"`
	SE       float64               `yaml:"se" json:"se"`
	T        float64               `yaml:"t" json:"t"`
	P        float64               `yaml:"p" json:"p"`
	CI       statistician.Interval `yaml:"ci" json:"ci"`
}
