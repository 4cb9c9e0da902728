// Package drift catches a judge that changed: it compares tonight's
// inspections of a frozen anchor set with the inspections frozen with it
// (evalcal anchor freeze), run by run, and says per side whether the
// verdicts drifted. It is pure computation: cmd/evalcal reads the files,
// runs the inspectors and writes the documents.
//
// Per side: the runs whose verdict crossed the pass line, their rate with
// a Wilson interval and McNemar's exact test of one direction against the
// other; Cohen's kappa of the verdicts then against now; the mean shift of
// each score with a paired t interval; and, on the light side where deep
// labels were frozen, the paired change of the agreement with deep
// (Newcombe's interval for paired proportions). Drift is detected when
// the flips are significant at alpha or the agreement fell by more than
// the tolerated drop (its interval's upper bound below -max_drop).
//
// Over a series of nightly checks of the same anchors and judges, History
// is the anytime-valid answer: checking every night for a year keeps the
// chance of any false alarm at alpha (see History for the method and why
// it is not a martingale over the nights). README.md, section "Catching a
// judge that changed", gives the recipe and the simulated power.
package drift
