// Package statistician is evalcal's scoring core and its aggregation stage.
//
// The scoring core is pure math: functions take plain slices and counts,
// return plain values, and never do I/O. Where a statistic is not defined
// for the data (too few points, zero variance, a single category) the
// result carries a reason instead of a number; no function returns NaN or
// panics on user data. Every formula names its source in its doc comment,
// and every function is checked against an independent reference (scipy,
// statsmodels, scikit-learn or R) in the tests; see testdata/reference.
//
// The core imports only the standard library and gonum.
//
// The calibration report does not publish this package's types as they
// are: it has its own (report/sections*.go), mapped in
// report/from_stats.go, so that renaming a field here changes the mapping,
// not the report; the results only it publishes (BlandAltmanResult, CCC,
// CORPDecomposition, BinnedMurphy, ReliabilityBin, Regression,
// Coefficient) therefore carry no tags. Interval and Kappa are published
// as they are by every document (the report, segment, pairwise, rank,
// drift, forecast). Other types here still carry tags, some for the
// documents of other packages.
package statistician
