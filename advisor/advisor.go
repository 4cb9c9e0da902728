// Package advisor turns disagreement patterns into prioritized,
// deterministic recommendations for the light eval.
//
// Rules (from the eval-calibrator advisor strategies, made exact):
//   - cluster: a flag that deep finds and light misses in at least
//     ClusterMin disagreeing runs is a clustered failure mode, the priority
//     target: add a light check for it.
//   - most-common-type: with agreement under LowAgreement percent, the most
//     common disagreement type comes first.
//   - optimistic: light scores higher than deep: add the structural checks
//     that catch what deep finds, naming the deep-only flags that recur.
//   - pessimistic: light scores lower than deep: relax the criteria behind
//     light's false positives, naming the light-only flags.
//   - threshold, leniency, weak-system: rules that need only verdicts and
//     scores (LLM judges, imported results and human labels carry no
//     flags), each firing only when its test rejects chance at Alpha and
//     carrying that test (Recommendation.Test): a cross-validated
//     recalibration of light's verdict cuts on its score (thresholdRule),
//     a one-sided split at the pass line by exact McNemar (leniencyRule),
//     a system whose simultaneous agreement interval lies below the other
//     systems' agreement (weakSystemRules).
//   - severity: align the severity of flags both depths raise.
//   - edge-cases: with agreement over HighAgreement percent and no tested
//     rule fired, keep the light criteria and pin the remaining
//     disagreements as regression runs.
//   - all-agree: every run agrees: add adversarial and edge-case runs.
//   - preliminary: 5 runs or fewer: collect more before acting.
//
// Each recommendation's expected impact is computed, not guessed, and
// says how (Impact.Basis): by default the agreement rate if every verdict
// disagreement it addresses were resolved (an upper bound); the tested
// rules compute theirs from held-out folds, the split's imbalance or the
// other systems' rate. Priorities order by rule rank, then by gain, then
// by target, so the same comparisons give the same list. The tested rules
// come first: a finding that passed a significance test, with an impact
// measured on held-out runs or counts, outranks one that fires on counts
// with an upper-bound impact. Then, with low agreement, the most common
// type, then clusters, optimistic/pessimistic, severity, edge-cases,
// all-agree and preliminary.
package advisor

import (
	"fmt"
	"sort"
	"strings"

	"github.com/evalcal/evalcal/comparator"
	"github.com/evalcal/evalcal/statistician"
	"github.com/evalcal/evalcal/statistician/aggregate"
)

// Thresholds in percent agreement and runs (eval-calibrator advisor and
// program strategies).
const (
	LowAgreement  = 75.0
	HighAgreement = 90.0
	ClusterMin    = 2
)

// Recommendation is one prioritized change to the light eval.
type Recommendation struct {
	Priority       int    `yaml:"priority" json:"priority"`
	Rule           string `yaml:"rule" json:"rule"`
	Target         string `yaml:"target" json:"target"`
	Rationale      string `yaml:"rationale" json:"rationale"`
	ProposedChange string `yaml:"proposed_change" json:"proposed_change"`
	ExpectedImpact Impact `yaml:"expected_impact" json:"expected_impact"`
	// Addresses lists the runs whose disagreement this would resolve.
	Addresses []string `yaml:"addresses" json:"addresses"`
	// Test is the significance test the rule passed (rules leniency,
	// threshold, weak-system); absent for rules that fire on counts.
	Test *Test `yaml:"test,omitempty" json:"test,omitempty"`
	// Cuts is the proposed verdict rule on light's score (rule threshold).
	Cuts *Cuts `yaml:"cuts,omitempty" json:"cuts,omitempty"`
}

// Impact is the agreement rate, in percent, the recommendation is
// expected to reach, beside the current rate; Basis says how it was
// computed: by default (BasisResolved) as if every verdict disagreement
// the recommendation addresses were resolved, an upper bound; the tested
// rules compute their own (BasisImbalance, BasisCrossValidated,
// BasisRestRate); empty in reports written before it existed.
// VerdictsResolved is the net number of verdicts that
// would change from disagreeing to agreeing.
type Impact struct {
	AgreementPercent float64 `yaml:"agreement_percent" json:"agreement_percent"`
	CurrentPercent   float64 `yaml:"current_percent" json:"current_percent"`
	GainPoints       float64 `yaml:"gain_points" json:"gain_points"`
	VerdictsResolved int     `yaml:"verdicts_resolved" json:"verdicts_resolved"`
	N                int     `yaml:"n" json:"n"`
	Basis            string  `yaml:"basis,omitempty" json:"basis,omitempty"`
	// AgreementCI95 and CurrentCI95 are Wilson 95% intervals of the two
	// rates, in percent, where the rule computes them (threshold).
	AgreementCI95 *statistician.Interval `yaml:"agreement_ci95,omitempty" json:"agreement_ci95,omitempty"`
	CurrentCI95   *statistician.Interval `yaml:"current_ci95,omitempty" json:"current_ci95,omitempty"`
}

type candidate struct {
	rank int
	rec  Recommendation
}

// Advise returns the recommendations for the comparisons and their
// statistics, numbered from priority 1.
func Advise(cs []comparator.Comparison, st aggregate.Stats) []Recommendation {
	n := len(cs)
	matches := 0
	split := map[string]bool{}
	for _, c := range cs {
		if c.VerdictMatch {
			matches++
		} else {
			split[c.RunID] = true
		}
	}
	impact := func(runs []string) Impact {
		im := Impact{N: n, Basis: BasisResolved}
		if n == 0 {
			return im
		}
		for _, id := range runs {
			if split[id] {
				im.VerdictsResolved++
			}
		}
		im.CurrentPercent = 100 * float64(matches) / float64(n)
		im.AgreementPercent = 100 * float64(matches+im.VerdictsResolved) / float64(n)
		im.GainPoints = im.AgreementPercent - im.CurrentPercent
		return im
	}
	agree := st.AgreementRate.Value()
	low := n > 0 && agree < LowAgreement
	var out []candidate
	add := func(rank int, r Recommendation) {
		sort.Strings(r.Addresses)
		if r.Addresses == nil {
			r.Addresses = []string{}
		}
		if r.ExpectedImpact.Basis == "" {
			r.ExpectedImpact = impact(r.Addresses)
		}
		out = append(out, candidate{rank, r})
	}

	deepOnly := flagRuns(cs, func(c comparator.Comparison) []string { return c.FlagOverlap.DeepOnly })
	lightOnly := flagRuns(cs, func(c comparator.Comparison) []string { return c.FlagOverlap.LightOnly })
	typeRuns := map[comparator.DisagreementType][]string{}
	for _, c := range cs {
		if c.DisagreementType != nil {
			typeRuns[*c.DisagreementType] = append(typeRuns[*c.DisagreementType], c.RunID)
		}
	}

	// Most common disagreement type (ties broken by the fixed type order).
	if low {
		var best comparator.DisagreementType
		for _, t := range comparator.Types {
			if len(typeRuns[t]) > len(typeRuns[best]) {
				best = t
			}
		}
		if best != "" {
			add(1, typeRecommendation(best, typeRuns[best], len(typeRuns[best]), n, deepOnly, lightOnly))
		}
	}

	// Clustered failure modes: deep-only flags recurring across runs.
	for _, f := range sortedKeys(deepOnly) {
		runs := deepOnly[f]
		if len(runs) < ClusterMin {
			continue
		}
		add(2, Recommendation{
			Rule:           "cluster",
			Target:         "light check for " + f,
			Rationale:      fmt.Sprintf("deep raised %q on %d runs where light did not (%s): disagreements cluster around this failure mode, the priority improvement target", f, len(runs), list(runs)),
			ProposedChange: fmt.Sprintf("add a structural light check that detects %q (the condition deep's evidence points to), so light flags it and lowers its scores accordingly", f),
			Addresses:      runs,
		})
	}

	offset := scaleOffset(cs)
	switch st.BiasDirection {
	case aggregate.Optimistic:
		var recurring []string
		var runs []string
		for _, f := range sortedKeys(deepOnly) {
			if len(deepOnly[f]) >= ClusterMin {
				recurring = append(recurring, f)
			}
			runs = append(runs, deepOnly[f]...)
		}
		what := "the issues deep finds"
		if len(recurring) > 0 {
			what = "the deep-only flags " + list(recurring)
		}
		add(3, Recommendation{
			Rule:   "optimistic",
			Target: "light structural checks",
			Rationale: fmt.Sprintf("light is optimistic: deep scores are lower by %.1f (runtime fidelity) and %.1f (task effectiveness) points on average",
				-st.MeanScoreDelta.RuntimeFidelity.Mean, -st.MeanScoreDelta.TaskEffectiveness.Mean),
			ProposedChange: "add structural checks to the light eval that catch " + what + ", and lower light's score caps where those checks fail" + offset,
			Addresses:      dedupe(runs),
		})
	case aggregate.Pessimistic:
		var runs []string
		for _, f := range sortedKeys(lightOnly) {
			runs = append(runs, lightOnly[f]...)
		}
		crit := "the criteria behind its false positives"
		if len(lightOnly) > 0 {
			crit = "the criteria behind the light-only flags " + list(sortedKeys(lightOnly))
		}
		add(3, Recommendation{
			Rule:   "pessimistic",
			Target: "light criteria that trigger false positives",
			Rationale: fmt.Sprintf("light is pessimistic: deep scores are higher by %.1f (runtime fidelity) and %.1f (task effectiveness) points on average",
				st.MeanScoreDelta.RuntimeFidelity.Mean, st.MeanScoreDelta.TaskEffectiveness.Mean),
			ProposedChange: "relax " + crit + " (a light-only flag may be caution, not error: check each against deep's evidence first)" + offset,
			Addresses:      dedupe(runs),
		})
	}

	// Rules for verdicts without flags (LLM judges, imported results,
	// human labels), each carrying the test it passed.
	tested := false
	if r, ok := thresholdRule(cs); ok {
		add(0, r)
		tested = true
	}
	if r, ok := leniencyRule(cs, st.Leniency); ok {
		// Beside a threshold recommendation, leniency says why; the cuts
		// are the fix.
		if tested {
			r.ProposedChange += " (the threshold recommendation gives the cuts on light's score that do it)"
		}
		if lenImbalance(&r, st.Leniency, n, matches) {
			add(0, r)
			tested = true
		}
	}
	for _, r := range weakSystemRules(cs, st.AgreementBySystem, n, matches) {
		add(0, r)
		tested = true
	}

	if runs := typeRuns[comparator.SeverityMismatch]; len(runs) > 0 {
		add(4, Recommendation{
			Rule:           "severity",
			Target:         "light flag severities",
			Rationale:      fmt.Sprintf("%d runs raise the same flag at another severity at light than at deep (%s)", len(runs), list(runs)),
			ProposedChange: "align light's severity criteria with deep's for these flags, so a critical finding at deep is critical at light",
			Addresses:      runs,
		})
	}

	var disagreeing []string
	for _, c := range cs {
		if c.DisagreementType != nil {
			disagreeing = append(disagreeing, c.RunID)
		}
	}
	// "Keep the light criteria" is not said beside a tested finding that
	// they should change.
	if n > 0 && agree > HighAgreement && len(disagreeing) > 0 && !tested {
		add(5, Recommendation{
			Rule:           "edge-cases",
			Target:         "light eval reliability",
			Rationale:      fmt.Sprintf("agreement is high (%.1f%%); the remaining disagreements are edge cases (%s)", agree, list(disagreeing)),
			ProposedChange: "keep the light criteria as they are; add these runs to a regression set so light keeps agreeing with deep on them",
			Addresses:      disagreeing,
		})
	}
	if n > 0 && len(disagreeing) == 0 {
		add(6, Recommendation{
			Rule:           "all-agree",
			Target:         "calibration sample",
			Rationale:      fmt.Sprintf("light and deep agree on all %d runs: the sample may be too easy to tell them apart", n),
			ProposedChange: "add adversarial and edge-case runs (planted defects, truncated logs, placeholder outputs) to strengthen the calibration",
		})
	}
	if st.Preliminary {
		add(7, Recommendation{
			Rule:           "preliminary",
			Target:         "calibration sample",
			Rationale:      fmt.Sprintf("only %d runs: results are preliminary", n),
			ProposedChange: "calibrate on at least 10 runs (20 for high confidence) from several systems before gating on the light eval",
		})
	}

	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.rank != b.rank {
			return a.rank < b.rank
		}
		if a.rec.ExpectedImpact.GainPoints != b.rec.ExpectedImpact.GainPoints {
			return a.rec.ExpectedImpact.GainPoints > b.rec.ExpectedImpact.GainPoints
		}
		return a.rec.Target < b.rec.Target
	})
	recs := make([]Recommendation, len(out))
	for i, c := range out {
		c.rec.Priority = i + 1
		recs[i] = c.rec
	}
	return recs
}

// lenImbalance sets a leniency recommendation's impact: the agreement if
// light erred as often one way as the other at the pass line, so the
// one-sided excess |b - c| of split runs agreed (BasisImbalance). It
// reports false when there is no excess.
func lenImbalance(r *Recommendation, l aggregate.Leniency, n, matches int) bool {
	excess := l.LightPassDeepNot - l.DeepPassLightNot
	if excess < 0 {
		excess = -excess
	}
	if excess == 0 || n == 0 {
		return false
	}
	r.ExpectedImpact = Impact{
		CurrentPercent:   100 * float64(matches) / float64(n),
		AgreementPercent: 100 * float64(matches+excess) / float64(n),
		VerdictsResolved: excess,
		N:                n,
		Basis:            BasisImbalance,
	}
	r.ExpectedImpact.GainPoints = r.ExpectedImpact.AgreementPercent - r.ExpectedImpact.CurrentPercent
	return true
}

// scaleOffset says how much of the bias is a constant offset: the mean
// deep-minus-light delta (over both scores) on the runs whose verdicts
// agree. A light eval whose scores are capped (the builtin caps light at
// 85/80) shows such an offset on clean runs; it is a scale difference,
// not a criterion to change. Empty when the offset is within the bias
// threshold.
func scaleOffset(cs []comparator.Comparison) string {
	n, sum := 0, 0.0
	for _, c := range cs {
		if c.VerdictMatch {
			n++
			sum += (c.RuntimeFidelityDelta + c.TaskEffectivenessDelta) / 2
		}
	}
	if n == 0 {
		return ""
	}
	m := sum / float64(n)
	if m > -aggregate.BiasThreshold && m < aggregate.BiasThreshold {
		return ""
	}
	return fmt.Sprintf("; note that on the %d runs whose verdicts agree deep still differs by %+.1f points on average: that part is a scale offset (such as a cap on light's scores), so rescale light's scores or gate on verdicts rather than raw scores", n, m)
}

func typeRecommendation(t comparator.DisagreementType, runs []string, count, n int, deepOnly, lightOnly map[string][]string) Recommendation {
	r := Recommendation{
		Rule:      "most-common-type",
		Rationale: fmt.Sprintf("agreement is low; %s is the most common disagreement (%d of %d runs: %s)", t, count, n, list(runs)),
		Addresses: runs,
	}
	switch t {
	case comparator.VerdictSplit:
		r.Target = "light verdict thresholds"
		r.ProposedChange = "light and deep reach different verdicts: review the light checks that set the scores near the 40 and 70 verdict thresholds on these runs, and add the checks deep used to decide"
	case comparator.FalseNegative:
		r.Target = "light coverage"
		r.ProposedChange = "light misses what deep finds (" + list(sortedKeys(deepOnly)) + "): add light checks for these flags"
	case comparator.SeverityMismatch:
		r.Target = "light flag severities"
		r.ProposedChange = "align light's severity criteria with deep's"
	case comparator.FalsePositive:
		r.Target = "light criteria that trigger false positives"
		r.ProposedChange = "light raises flags deep does not (" + list(sortedKeys(lightOnly)) + "): relax or drop these criteria"
	}
	return r
}

// flagRuns maps each flag key to the sorted ids of the runs on which sel
// returns it.
func flagRuns(cs []comparator.Comparison, sel func(comparator.Comparison) []string) map[string][]string {
	m := map[string][]string{}
	for _, c := range cs {
		for _, f := range sel(c) {
			m[f] = append(m[f], c.RunID)
		}
	}
	for k := range m {
		m[k] = dedupe(m[k])
	}
	return m
}

func sortedKeys(m map[string][]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func dedupe(s []string) []string {
	sort.Strings(s)
	out := s[:0:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}

func list(s []string) string {
	const max = 8
	if len(s) > max {
		return strings.Join(s[:max], ", ") + fmt.Sprintf(" and %d more", len(s)-max)
	}
	return strings.Join(s, ", ")
}
