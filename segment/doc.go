// Package segment slices a calibration's runs by a field (the run's
// system, or any field of its metadata: `evalcal run --by FIELD`) and
// says, slice by slice, how far the light judge can be trusted there and
// what deep would say of each slice's pass rate, and compares the slices
// with each other by deep's pass rate next to light's (README "The
// report", `slices`).
//
// For each slice with at least MinRuns paired runs it gives the verdict
// agreement with its Wilson 95% interval and a Bonferroni-simultaneous
// one over the field's tested slices, the linear-weighted kappa, the
// verdict-level leniency with McNemar's exact test, light's pass rate,
// and deep's pass rate corrected for what deep did not inspect: the
// classical rate when deep inspected every run of the slice, PPI++ with
// light's forecast as the predictor when it inspected a uniform random
// subset, Hájek's inverse-probability-weighted mean of the labels when
// the recorded inclusion probabilities differ within the slice. Slices
// with fewer paired runs are listed with their counts, not tested.
//
// Every pair of tested slices is compared by deep's pass rate (the
// difference of two independent estimates, its normal interval and
// Holm-adjusted p over the field's pairs) and by light's pass rate alone
// (the same Wald form), and the pairs whose order or significance light
// gets wrong are marked (the order only where deep's difference is
// significant: where deep tells no order, light cannot get it wrong).
//
// The package knows nothing of files, flags or reports: it takes plain
// runs (Run) and returns plain values; calibrate fills them into the
// report, and aggregate's agreement_by_system is Agreements by system
// (the same intervals as the slices section's system slices).
package segment
