// Package escalate decides per run whether light's verdict may stand alone
// or the run goes to deep ("trust or escalate"), with a guaranteed
// agreement with deep on the runs light decides.
//
// Three steps, each a pure function of plain values (no I/O):
//
//  1. Confidence reads light's confidence in its verdict on one run from
//     one Source: the distance of light's score from the verdict cut, the
//     unanimity of light's repeats (--repeat K), a panel's vote share, or
//     the model's own probability of its verdict (log-probabilities).
//     DefaultSource picks the first of these, in that order, that every
//     run supports.
//  2. Calibrate chooses, on runs with both depths, the lowest confidence
//     threshold lambda such that agreement with deep among runs with
//     confidence >= lambda is at least A with probability at least 1 - D,
//     by fixed-sequence testing (Bauer 1991; Angelopoulos, Bates, Candès,
//     Jordan and Lei, "Learn then Test", 2021, section 4) from the most
//     confident threshold down, each step an exact one-sided
//     Clopper-Pearson bound, as in Jung, Brahman and Choi, "Trust or
//     Escalate: LLM Judges with Provable Guarantees for Human Agreement"
//     (ICLR 2025), section 3.
//  3. Route and Cascade apply a saved threshold in production: light's
//     verdict where its confidence reaches the threshold, deep's below.
//
// The guarantee is the one of Learn then Test: if calibration runs and the
// runs it is applied to are exchangeable (drawn from the same population),
// then with probability at least 1 - D over the calibration runs the
// chosen threshold's agreement P(light = deep | confidence >= lambda) is at
// least A. It says nothing about runs from a population the calibration
// did not sample. See README.md, "Trust or escalate".
package escalate
