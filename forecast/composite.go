package forecast

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// CalibrationTerm is the name of the calibration term in composite
// weights.
const CalibrationTerm = "calibration"

// ParseWeights parses term weights written "term=weight,term=weight"
// (e.g. "calibration=0.10,returns=0.50"). Weights must be finite and
// >= 0, at least one > 0, and no term may repeat. Spaces around items are
// ignored. Weights are relative: Composite normalises them to sum 1, so
// "calibration=5,returns=5" weighs like "calibration=0.5,returns=0.5".
// The weights are returned as written.
func ParseWeights(s string) (map[string]float64, error) {
	w := map[string]float64{}
	total := 0.0
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		name, val, ok := strings.Cut(item, "=")
		name = strings.TrimSpace(name)
		if !ok || name == "" {
			return nil, fmt.Errorf("forecast: weight %q is not term=weight", item)
		}
		x, err := strconv.ParseFloat(strings.TrimSpace(val), 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) || x < 0 {
			return nil, fmt.Errorf("forecast: weight of %s must be a finite number >= 0, got %q", name, val)
		}
		if _, dup := w[name]; dup {
			return nil, fmt.Errorf("forecast: weight of %s given twice", name)
		}
		w[name] = x
		total += x
	}
	if !(total > 0) {
		return nil, fmt.Errorf("forecast: weights %q: need at least one weight > 0", s)
	}
	return w, nil
}

// CompositeTerm is one term of a composite score.
type CompositeTerm struct {
	Term   string  `yaml:"term" json:"term"`
	Weight float64 `yaml:"weight" json:"weight"`
	// Effective is the weight used: Weight over the sum of the measured
	// terms' weights (the effective weights sum to 1); 0 for an
	// unmeasured term.
	Effective float64 `yaml:"effective_weight" json:"effective_weight"`
	// Value is nil when the term was not measured.
	Value *float64 `yaml:"value" json:"value"`
}

// CompositeScore is a weighted score over terms.
type CompositeScore struct {
	// Score is nil, with Reason, when no term with weight > 0 was
	// measured.
	Score  *float64        `yaml:"score" json:"score"`
	Reason string          `yaml:"reason,omitempty" json:"reason,omitempty"`
	Terms  []CompositeTerm `yaml:"terms" json:"terms"`
}

// Composite combines measured term values with weights, which are
// relative: they are normalised to sum 1 over the measured terms, so an
// unmeasured term (nil or missing value) drops out and its weight is
// spread over the measured terms in proportion to theirs:
//
//	W_M  = sum of the measured terms' weights
//	w'_t = w_t / W_M            for measured t (the w'_t sum to 1)
//	score = sum_t w'_t x v_t
//
// so the score lies between the smallest and largest measured value.
// Sums run in term-name order, so the result does not depend on map
// order; weights whose sum overflows are scaled by the largest first.
// Values of terms without a weight are ignored. Terms are listed sorted
// by name. It returns an error when a weight is negative or not finite,
// or a value is not finite.
func Composite(weights map[string]float64, values map[string]*float64) (CompositeScore, error) {
	names := make([]string, 0, len(weights))
	for name, w := range weights {
		if math.IsNaN(w) || math.IsInf(w, 0) || w < 0 {
			return CompositeScore{}, fmt.Errorf("forecast: composite: weight of %s must be a finite number >= 0, got %v", name, w)
		}
		if v := values[name]; v != nil && (math.IsNaN(*v) || math.IsInf(*v, 0)) {
			return CompositeScore{}, fmt.Errorf("forecast: composite: term %s is %v", name, *v)
		}
		names = append(names, name)
	}
	sort.Strings(names)
	scale, largest := 1.0, 0.0
	for _, name := range names {
		largest = math.Max(largest, weights[name])
	}
	sum := func() float64 {
		m := 0.0
		for _, name := range names {
			if values[name] != nil {
				m += weights[name] / scale
			}
		}
		return m
	}
	measured := sum()
	if math.IsInf(measured, 0) {
		scale = largest
		measured = sum()
	}
	var cs CompositeScore
	score := 0.0
	for _, name := range names {
		t := CompositeTerm{Term: name, Weight: weights[name]}
		if v := values[name]; v != nil {
			x := *v
			t.Value = &x
			if measured > 0 {
				t.Effective = weights[name] / scale / measured
				score += t.Effective * x
			}
		}
		cs.Terms = append(cs.Terms, t)
	}
	if measured > 0 {
		cs.Score = &score
	} else {
		cs.Reason = "no weighted term was measured"
	}
	return cs, nil
}

// GroupComposite is the composite score of one agent in one season.
type GroupComposite struct {
	Agent          string `yaml:"agent" json:"agent"`
	Season         string `yaml:"season" json:"season"`
	CompositeScore `yaml:",inline" json:",inline"`
}

// CompositeForGroups scores every group of rep with Composite: the
// group's calibration term (unmeasured under 5 resolved calls) and the
// agent's other terms from terms (agent -> term -> value, nil for
// unmeasured). A calibration value in terms is ignored; the measured one
// stands.
func CompositeForGroups(rep CallReport, weights map[string]float64, terms map[string]map[string]*float64) ([]GroupComposite, error) {
	var out []GroupComposite
	for _, g := range rep.Groups {
		values := map[string]*float64{}
		for t, v := range terms[g.Agent] {
			values[t] = v
		}
		values[CalibrationTerm] = g.Calibration
		cs, err := Composite(weights, values)
		if err != nil {
			return nil, fmt.Errorf("forecast: composite of %s/%s: %w", g.Agent, g.Season, err)
		}
		out = append(out, GroupComposite{Agent: g.Agent, Season: g.Season, CompositeScore: cs})
	}
	return out, nil
}
