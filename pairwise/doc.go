// Package pairwise reads pairwise (A/B preference) verdicts and measures a
// pairwise judge's position bias against a deep side.
//
// A pairwise verdict says which of two runs a judge preferred when shown
// them in one presentation order: run_a first ("ab") or run_b first ("ba").
// The winner always names a run of the pair ("a" is run_a, "b" is run_b),
// never a slot, so the two orders of one pair are compared directly.
//
// Readers (each bad line recorded with file, line and field; the rest read):
//
//   - ReadJSONL: evalcal's own JSON Lines form, one verdict a line
//     ({"pair_id", "run_a", "run_b", "winner", "order", "judge"}).
//   - ReadAlpacaEval: AlpacaEval annotation files (a JSON array; preference
//     1 or 2, 1.5 or 0 a tie; generator_1/generator_2; annotator).
//   - ReadCompRes: the pairwise results of Shen et al. (2023), "Large
//     Language Models are Not Yet Human-Level Evaluators for Abstractive
//     Summarization", which record both presentation orders (X.result and
//     X_toggle.result) and both summaries' mean human scores (the deep side).
//
// ReadPairs reads the pairs file of evalcal run --pairs ({"pair_id",
// "run_a", "run_b"} a line), the pairs an LLM judge is asked about in both
// orders (calibrate's position section).
//
// Analyse computes the position statistics of README.md, "Position bias":
// consistency across the two orders with its Wilson interval, the
// first-slot win rate with an exact binomial p against 1/2, accuracy
// against deep on the order-consistent pairs and with an inconsistent pair
// counted as abstained, and agreement and kappa with deep on the
// consistent pairs; Trust caps the trust verdict at monitor when the
// consistency lower bound is under 80%.
package pairwise
