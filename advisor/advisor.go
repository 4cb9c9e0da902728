// Package advisor turns disagreement patterns into prioritized,
// deterministic recommendations for the light eval.
//
// The advice is a table of rules (rules.go), one file each (rule_*.go),
// from the eval-calibrator advisor strategies made exact: the tested
// rules (threshold, leniency, weak-system) fire only when their test
// rejects chance at Alpha and carry that test (Recommendation.Test); the
// others (most-common-type, cluster, optimistic, pessimistic, severity,
// edge-cases, all-agree, preliminary) fire on counts. Each rule's doc
// comment says when it fires.
//
// Each recommendation's expected impact is computed, not guessed, and
// says how (Impact.Basis): by default the agreement rate if every verdict
// disagreement it addresses were resolved (an upper bound); the tested
// rules compute theirs from held-out folds, the split's imbalance or the
// other systems' rate. The order is the rules' ranks (rank.go), then the
// gain, then the target, so the same comparisons give the same list.
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

// Input is what the advisor reads: the comparisons, their statistics and
// each side's inspector spec as given (--light, --deep; report
// inputs.light.spec), which says what kind of inspector a change is for
// (SourceOf). An empty spec is phrased for no kind in particular.
type Input struct {
	Comparisons         []comparator.Comparison
	Stats               aggregate.Stats
	LightSpec, DeepSpec string
}

// Advise returns the recommendations, numbered from priority 1: every
// rule of the table (rules.go) fires in turn, and the recommendations are
// ordered as rank.go says (before).
func Advise(in Input) []Recommendation {
	f := newFacts(in)
	type candidate struct {
		rank Rank
		rec  Recommendation
	}
	var out []candidate
	for _, rule := range rules {
		recs := rule.Fire(f)
		for _, r := range recs {
			sort.Strings(r.Addresses)
			if r.Addresses == nil {
				r.Addresses = []string{}
			}
			if r.ExpectedImpact.Basis == "" {
				r.ExpectedImpact = f.resolved(r.Addresses)
			}
			out = append(out, candidate{rule.Rank, r})
		}
		if len(recs) > 0 {
			f.fired = append(f.fired, rule)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		return before(out[i].rank, out[i].rec, out[j].rank, out[j].rec)
	})
	recs := make([]Recommendation, len(out))
	for i, c := range out {
		c.rec.Priority = i + 1
		recs[i] = c.rec
	}
	return recs
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
