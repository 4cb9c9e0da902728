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
package statistician
