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
//   - severity: align the severity of flags both depths raise.
//   - edge-cases: with agreement over HighAgreement percent, keep the
//     light criteria and pin the remaining disagreements as regression runs.
//   - all-agree: every run agrees: add adversarial and edge-case runs.
//   - preliminary: 5 runs or fewer: collect more before acting.
//
// Each recommendation's expected impact is computed, not guessed: the
// agreement rate if every verdict disagreement it addresses were resolved.
// Priorities order by rule (with low agreement, the most common type
// first), then by impact, then by target, so the same comparisons give the
// same list.
package advisor

import (
	"fmt"
	"sort"
	"strings"

	"github.com/evalcal/evalcal/comparator"
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
}

// Impact is the agreement rate, in percent, if every verdict disagreement
// the recommendation addresses were resolved, beside the current rate.
type Impact struct {
	AgreementPercent float64 `yaml:"agreement_percent" json:"agreement_percent"`
	CurrentPercent   float64 `yaml:"current_percent" json:"current_percent"`
	GainPoints       float64 `yaml:"gain_points" json:"gain_points"`
	VerdictsResolved int     `yaml:"verdicts_resolved" json:"verdicts_resolved"`
	N                int     `yaml:"n" json:"n"`
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
		im := Impact{N: n}
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
		r.ExpectedImpact = impact(r.Addresses)
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
	if n > 0 && agree > HighAgreement && len(disagreeing) > 0 {
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
