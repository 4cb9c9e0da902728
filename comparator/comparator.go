// Package comparator compares a run's light and deep inspections: verdict
// match, score deltas, flag overlap and the kind of disagreement.
package comparator

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/evalcal/evalcal/inspection"
	"github.com/evalcal/evalcal/runner"
)

// DisagreementType classifies how light and deep differ on one run.
type DisagreementType string

// The four disagreement types, in the order Compare tests them.
const (
	VerdictSplit     DisagreementType = "verdict_split"     // verdicts differ
	FalseNegative    DisagreementType = "false_negative"    // deep found a flag light missed
	SeverityMismatch DisagreementType = "severity_mismatch" // same flag, other severity
	FalsePositive    DisagreementType = "false_positive"    // light flagged what deep did not
)

// Types lists the disagreement types in their fixed report order.
var Types = []DisagreementType{VerdictSplit, FalseNegative, SeverityMismatch, FalsePositive}

// MinorNoisePoints is the score distance under which matching verdicts are
// agreement with minor calibration noise (eval-calibrator comparator
// strategy: "less than 10 points").
const MinorNoisePoints = 10

// Scores are an inspection's two scores, 0..100.
type Scores struct {
	RuntimeFidelity   float64 `yaml:"runtime_fidelity" json:"runtime_fidelity"`
	TaskEffectiveness float64 `yaml:"task_effectiveness" json:"task_effectiveness"`
}

// FlagOverlap lists flags (by id, or by description when a flag has no
// id) found by both depths, by light only and by deep only; each sorted.
type FlagOverlap struct {
	Both      []string `yaml:"both" json:"both"`
	LightOnly []string `yaml:"light_only" json:"light_only"`
	DeepOnly  []string `yaml:"deep_only" json:"deep_only"`
	// SeverityMismatches lists flags found by both at other severities,
	// as "key: light -> deep".
	SeverityMismatches []string `yaml:"severity_mismatches,omitempty" json:"severity_mismatches,omitempty"`
}

// Comparison is one run's light-versus-deep comparison.
type Comparison struct {
	RunID  string `yaml:"run_id" json:"run_id"`
	System string `yaml:"system" json:"system"`
	// Metadata is the run's metadata (inspection.Metadata), kept so that
	// merge and the slices (`run --by`) can be recomputed from comparisons.
	Metadata     inspection.Metadata `yaml:"metadata,omitempty" json:"metadata,omitempty"`
	LightVerdict string              `yaml:"light_verdict" json:"light_verdict"`
	DeepVerdict  string              `yaml:"deep_verdict" json:"deep_verdict"`
	VerdictMatch bool                `yaml:"verdict_match" json:"verdict_match"`
	Light        Scores              `yaml:"light_scores" json:"light_scores"`
	Deep         Scores              `yaml:"deep_scores" json:"deep_scores"`
	// Deltas are deep minus light: positive means light underestimated.
	RuntimeFidelityDelta   float64           `yaml:"runtime_fidelity_delta" json:"runtime_fidelity_delta"`
	TaskEffectivenessDelta float64           `yaml:"task_effectiveness_delta" json:"task_effectiveness_delta"`
	FlagOverlap            FlagOverlap       `yaml:"flag_overlap" json:"flag_overlap"`
	DisagreementType       *DisagreementType `yaml:"disagreement_type" json:"disagreement_type"`
	// MinorNoise is true when verdicts match and both deltas are under
	// MinorNoisePoints in absolute value.
	MinorNoise bool     `yaml:"minor_noise" json:"minor_noise"`
	Notes      []string `yaml:"notes" json:"notes"`
	// LightSummary and DeepSummary are the inspections' summaries (each
	// at most SummaryRunes runes, cut at a rune), kept only when the
	// verdicts differ: the advisor reads in them which criteria one side
	// applies and the other does not. Empty otherwise.
	LightSummary string `yaml:"light_summary,omitempty" json:"light_summary,omitempty"`
	DeepSummary  string `yaml:"deep_summary,omitempty" json:"deep_summary,omitempty"`
}

// Disagreements returns the comparisons of cs with a disagreement type,
// in their order, as pointers into cs (a million runs' copies were some
// 250 MB): the report's disagreements, as aggregate.Compute lists them
// and a runs file's reader rebuilds them. They change with cs.
func Disagreements(cs []Comparison) []*Comparison {
	n := 0
	for i := range cs {
		if cs[i].DisagreementType != nil {
			n++
		}
	}
	out := make([]*Comparison, 0, n)
	for i := range cs {
		if cs[i].DisagreementType != nil {
			out = append(out, &cs[i])
		}
	}
	return out
}

// SummaryRunes bounds the summaries a comparison keeps.
const SummaryRunes = 500

// Compare compares each pair and returns the comparisons sorted by run id.
// It never fails: inspections were validated by the runner.
func Compare(pairs []runner.Pair) []Comparison {
	out := make([]Comparison, 0, len(pairs))
	for _, p := range pairs {
		out = append(out, ComparePair(p))
	}
	SortByRunID(out)
	return out
}

// ComparePair compares one pair (Compare's comparison of it), for a
// caller that takes the pairs one at a time (runner.Options.OnPair).
func ComparePair(p runner.Pair) Comparison {
	c := compareOne(p.Light, p.Deep)
	c.Metadata = p.Run.Metadata
	return c
}

// SortByRunID sorts comparisons by run id, keeping the order of equal
// ids (Compare's order).
func SortByRunID(cs []Comparison) {
	slices.SortStableFunc(cs, func(a, b Comparison) int { return strings.Compare(a.RunID, b.RunID) })
}

func compareOne(light, deep inspection.Inspection) Comparison {
	c := Comparison{
		RunID:                  light.RunID,
		System:                 light.System,
		LightVerdict:           light.Verdict,
		DeepVerdict:            deep.Verdict,
		VerdictMatch:           light.Verdict == deep.Verdict,
		Light:                  Scores{light.RuntimeFidelity, light.TaskEffectiveness},
		Deep:                   Scores{deep.RuntimeFidelity, deep.TaskEffectiveness},
		RuntimeFidelityDelta:   deep.RuntimeFidelity - light.RuntimeFidelity,
		TaskEffectivenessDelta: deep.TaskEffectiveness - light.TaskEffectiveness,
		Notes:                  []string{},
	}
	if c.System == "" {
		c.System = deep.System
	}
	c.FlagOverlap = overlap(runFlags(light.Flags), runFlags(deep.Flags))

	var dt DisagreementType
	switch {
	case !c.VerdictMatch:
		dt = VerdictSplit
		c.LightSummary, c.DeepSummary = clip(light.Summary), clip(deep.Summary)
		c.Notes = append(c.Notes, fmt.Sprintf("verdicts differ: light %s, deep %s", light.Verdict, deep.Verdict))
	case len(c.FlagOverlap.DeepOnly) > 0:
		dt = FalseNegative
	case len(c.FlagOverlap.SeverityMismatches) > 0:
		dt = SeverityMismatch
	case len(c.FlagOverlap.LightOnly) > 0:
		dt = FalsePositive
		c.Notes = append(c.Notes, "light flagged what deep did not: light may be overly cautious, not necessarily wrong")
	}
	if dt != "" {
		c.DisagreementType = &dt
	}
	if n := len(c.FlagOverlap.DeepOnly); n > 0 {
		c.Notes = append(c.Notes, fmt.Sprintf("deep found %d flag(s) light missed: %s", n, strings.Join(c.FlagOverlap.DeepOnly, ", ")))
	}
	for _, m := range c.FlagOverlap.SeverityMismatches {
		c.Notes = append(c.Notes, "severity differs: "+m)
	}
	rf, te := abs(c.RuntimeFidelityDelta), abs(c.TaskEffectivenessDelta)
	if c.VerdictMatch && rf < MinorNoisePoints && te < MinorNoisePoints {
		c.MinorNoise = true
		c.Notes = append(c.Notes, "verdicts agree; score deltas under 10 points are minor calibration noise")
	} else {
		for _, d := range []struct {
			name  string
			delta float64
		}{{"runtime_fidelity", c.RuntimeFidelityDelta}, {"task_effectiveness", c.TaskEffectivenessDelta}} {
			if abs(d.delta) >= MinorNoisePoints {
				dir := "light scored higher than deep"
				if d.delta > 0 {
					dir = "light scored lower than deep"
				}
				c.Notes = append(c.Notes, fmt.Sprintf("%s differs by %.0f points (%s)", d.name, abs(d.delta), dir))
			}
		}
	}
	return c
}

// runFlags drops the flags about the inspector's own input
// (inspection.FlagInputTruncated): a prompt cut at one depth only is not a
// finding about the run, so it must not make a false negative.
func runFlags(fs []inspection.Flag) []inspection.Flag {
	out := fs[:0:0]
	for _, f := range fs {
		if f.ID != inspection.FlagInputTruncated {
			out = append(out, f)
		}
	}
	return out
}

// overlap matches light flags to deep flags: first by id where both
// flags have one, then the rest by case-folded, space-normalised
// description.
//
// Each light flag, in order, takes the first deep flag (in deep order) it
// may match that is still free:
//
//   - by id: a deep flag with the same non-empty id;
//   - then by description (non-empty after folding, and equal): a deep
//     flag without an id when the light flag has one, any deep flag when
//     it has none. Two flags that both carry an id never match on
//     description.
//
// Deep flags are indexed by id and by folded description in queues kept
// in deep order, so the matching costs O(n) map operations plus the final
// sorts, O(n log n) for n flags (issue 13.3: it was O(n^2) string folds).
func overlap(light, deep []inspection.Flag) FlagOverlap {
	usedL := make([]bool, len(light))
	usedD := make([]bool, len(deep))
	var o FlagOverlap
	match := func(i, j int) {
		usedL[i], usedD[j] = true, true
		key := flagKey(light[i])
		o.Both = append(o.Both, key)
		if light[i].Severity != deep[j].Severity {
			o.SeverityMismatches = append(o.SeverityMismatches,
				fmt.Sprintf("%s: light %s, deep %s", key, light[i].Severity, deep[j].Severity))
		}
	}

	byID := map[string]*indexQueue{}
	for j, df := range deep {
		if df.ID != "" {
			queueOf(byID, df.ID).push(j)
		}
	}
	for i, lf := range light {
		if lf.ID == "" {
			continue
		}
		if q := byID[lf.ID]; q != nil && q.len() > 0 {
			match(i, q.pop())
		}
	}

	// Free deep flags by folded description, split by whether they carry
	// an id; each queue is in deep order and only ever consumed from its
	// front, so its front is always its first free flag.
	noID, withID := map[string]*indexQueue{}, map[string]*indexQueue{}
	for j, df := range deep {
		if usedD[j] {
			continue
		}
		d := foldDescription(df.Description)
		if d == "" {
			continue
		}
		if df.ID == "" {
			queueOf(noID, d).push(j)
		} else {
			queueOf(withID, d).push(j)
		}
	}
	for i, lf := range light {
		if usedL[i] {
			continue
		}
		d := foldDescription(lf.Description)
		if d == "" {
			continue
		}
		a, b := noID[d], withID[d]
		if lf.ID != "" {
			b = nil // an id-carrying light flag only matches id-less deep flags
		}
		switch {
		case a.len() > 0 && (b.len() == 0 || a.front() < b.front()):
			match(i, a.pop())
		case b.len() > 0:
			match(i, b.pop())
		}
	}

	for i, lf := range light {
		if !usedL[i] {
			o.LightOnly = append(o.LightOnly, flagKey(lf))
		}
	}
	for j, df := range deep {
		if !usedD[j] {
			o.DeepOnly = append(o.DeepOnly, flagKey(df))
		}
	}
	for _, s := range [][]string{o.Both, o.LightOnly, o.DeepOnly, o.SeverityMismatches} {
		sort.Strings(s)
	}
	o.Both, o.LightOnly, o.DeepOnly = nonNil(o.Both), nonNil(o.LightOnly), nonNil(o.DeepOnly)
	return o
}

// indexQueue is a FIFO of flag indices in increasing order. A nil queue
// is empty.
type indexQueue struct {
	idx  []int
	head int
}

func queueOf(m map[string]*indexQueue, k string) *indexQueue {
	q := m[k]
	if q == nil {
		q = &indexQueue{}
		m[k] = q
	}
	return q
}

func (q *indexQueue) push(i int) { q.idx = append(q.idx, i) }

func (q *indexQueue) len() int {
	if q == nil {
		return 0
	}
	return len(q.idx) - q.head
}

func (q *indexQueue) front() int { return q.idx[q.head] }

func (q *indexQueue) pop() int {
	i := q.idx[q.head]
	q.head++
	return i
}

func flagKey(f inspection.Flag) string {
	if f.ID != "" {
		return f.ID
	}
	return foldDescription(f.Description)
}

func foldDescription(s string) string {
	return strings.ToLower(strings.Join(strings.Fields(s), " "))
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// clip cuts s to SummaryRunes runes.
func clip(s string) string {
	n := 0
	for i := range s {
		if n == SummaryRunes {
			return s[:i]
		}
		n++
	}
	return s
}
