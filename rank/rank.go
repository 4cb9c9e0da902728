// Package rank compares candidate light judges against one deep judge on
// the same runs (evalcal rank, README "Choosing a judge"): each
// candidate's agreement with deep, its kappa and leniency, its cost; every
// pair of candidates tested against each other with McNemar's exact test
// on the runs where exactly one of the two agrees with deep, Holm-adjusted
// over the pairs; the tie groups those tests cannot separate; the Pareto
// front of agreement against cost; and one sentence saying which candidate
// to use.
//
// The package computes from per-run verdicts only (Outcome); it neither
// inspects runs nor reads files: cmd/evalcal gets the verdicts from one
// calibration per candidate and hands them here.
package rank

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/evalcal/evalcal/statistician"
)

// SchemaVersion is the version of the ranking document's layout.
const SchemaVersion = 1

// Alpha is the family-wise level of the Holm-adjusted pairwise tests: two
// candidates are told apart when the adjusted p is below it.
const Alpha = 0.05

// Verdict levels, ordered from the strictest: the order of the linear
// kappa's categories.
const (
	Fail    int8 = 0
	Partial int8 = 1
	Pass    int8 = 2
)

// Outcome is one run's verdicts: the candidate's (Light) and deep's, each
// Fail, Partial or Pass.
type Outcome struct {
	RunID       string
	Light, Deep int8
}

// Input is one candidate as cmd/evalcal measured it.
type Input struct {
	Name, Spec, Identity string
	// Outcomes are the runs with both verdicts, in any order (Rank sorts
	// them by RunID); a run appears at most once.
	Outcomes []Outcome
	// USDPer1k and SecondsPer1k are the cost of 1,000 runs at light
	// depth; nil when unknown.
	USDPer1k, SecondsPer1k *float64
	// DeepLabels is what evalcal plan says for a ±0.05 interval of deep's
	// pass rate with this candidate as light (PPI++); nil when it cannot
	// say.
	DeepLabels *int
	// DeepLabelsNote says why DeepLabels is nil.
	DeepLabelsNote string
	// Panel, when the candidate is a panel, is its section.
	Panel *PanelSection
}

// Document is the ranking document (evalcal rank). Field order is the
// document's key order; key names are the contract of README "Choosing a
// judge".
type Document struct {
	SchemaVersion int         `yaml:"schema_version" json:"schema_version"`
	GeneratedBy   string      `yaml:"generated_by" json:"generated_by"`
	Summary       Summary     `yaml:"summary" json:"summary"`
	Inputs        Inputs      `yaml:"inputs" json:"inputs"`
	Candidates    []Candidate `yaml:"candidates" json:"candidates"`
	Pairwise      []Pair      `yaml:"pairwise" json:"pairwise"`
	Groups        []Group     `yaml:"groups" json:"groups"`
	Pareto        []string    `yaml:"pareto" json:"pareto"`
	Warnings      []string    `yaml:"warnings" json:"warnings"`
}

// Summary answers first which candidate to use.
type Summary struct {
	Use      string `yaml:"use" json:"use"`
	Sentence string `yaml:"sentence" json:"sentence"`
	// CostAxis is what cost means in groups and the Pareto front:
	// usd_per_1k_runs when every candidate has a USD cost, else
	// seconds_per_1k_runs when every one has a time, else none.
	CostAxis string `yaml:"cost_axis" json:"cost_axis"`
}

// Inputs say what the ranking was computed from.
type Inputs struct {
	Deep        Side     `yaml:"deep" json:"deep"`
	Paths       []string `yaml:"paths" json:"paths"`
	CommandLine []string `yaml:"command_line" json:"command_line"`
}

// Side is an inspector as the user named it and its identity.
type Side struct {
	Spec     string `yaml:"spec" json:"spec"`
	Identity string `yaml:"identity" json:"identity"`
}

// Candidate is one candidate light judge's figures.
type Candidate struct {
	Name     string             `yaml:"name" json:"name"`
	Spec     string             `yaml:"spec" json:"spec"`
	Identity string             `yaml:"identity" json:"identity"`
	Agree    Agreement          `yaml:"agreement" json:"agreement"`
	Kappa    statistician.Kappa `yaml:"kappa" json:"kappa"`
	Leniency Leniency           `yaml:"leniency" json:"leniency"`
	Cost     Cost               `yaml:"cost" json:"cost"`
	// DeepLabels is evalcal plan's PPI++ answer for a ±0.05 interval of
	// deep's pass rate with this candidate as light.
	DeepLabels *int `yaml:"deep_labels_for_half_width" json:"deep_labels_for_half_width"`
	// DeepLabelsNote says why DeepLabels is null (plan's reason).
	DeepLabelsNote string        `yaml:"deep_labels_note,omitempty" json:"deep_labels_note,omitempty"`
	Panel          *PanelSection `yaml:"panel,omitempty" json:"panel,omitempty"`
}

// Agreement is the share of runs whose verdicts match deep's, in percent,
// with its Wilson 95% interval (in percent); null figures when n is 0.
type Agreement struct {
	Percent  *float64               `yaml:"percent" json:"percent"`
	Matches  int                    `yaml:"matches" json:"matches"`
	N        int                    `yaml:"n" json:"n"`
	Wilson95 *statistician.Interval `yaml:"wilson95" json:"wilson95"`
}

// Leniency is the candidate's verdict-level leniency against deep: runs it
// passed that deep did not, runs deep passed that it did not, and
// McNemar's exact p on the two counts (statistician.McNemarExact).
type Leniency struct {
	LightPassDeepNot int     `yaml:"light_pass_deep_not" json:"light_pass_deep_not"`
	DeepPassLightNot int     `yaml:"deep_pass_light_not" json:"deep_pass_light_not"`
	McNemarP         float64 `yaml:"mcnemar_p" json:"mcnemar_p"`
	Direction        string  `yaml:"direction" json:"direction"`
}

// Cost is the cost of 1,000 runs at light depth; null when unknown.
type Cost struct {
	USDPer1k     *float64 `yaml:"usd_per_1k_runs" json:"usd_per_1k_runs"`
	SecondsPer1k *float64 `yaml:"seconds_per_1k_runs" json:"seconds_per_1k_runs"`
}

// Pair is the test of two candidates against each other, on the runs both
// have: AOnly runs where A agrees with deep and B does not, BOnly the
// reverse; P is McNemar's exact p on the two (scipy.stats.binomtest(AOnly,
// AOnly+BOnly, 0.5)), HolmP the Holm-adjusted p over all pairs.
type Pair struct {
	A     string  `yaml:"a" json:"a"`
	B     string  `yaml:"b" json:"b"`
	N     int     `yaml:"n" json:"n"`
	AOnly int     `yaml:"a_only_agrees" json:"a_only_agrees"`
	BOnly int     `yaml:"b_only_agrees" json:"b_only_agrees"`
	P     float64 `yaml:"mcnemar_p" json:"mcnemar_p"`
	HolmP float64 `yaml:"holm_p" json:"holm_p"`
}

// Group is a tie group: Best and the candidates no Holm-adjusted test
// (at Alpha) separates from it, best first.
type Group struct {
	Rank    int      `yaml:"rank" json:"rank"`
	Best    string   `yaml:"best" json:"best"`
	Members []string `yaml:"members" json:"members"`
}

// Rank computes the ranking of the inputs (at least two, names unique).
// Candidates are listed by agreement, best first (ties by name). The
// document's GeneratedBy, Inputs and Warnings are the caller's.
func Rank(in []Input) (Document, error) {
	if len(in) < 2 {
		return Document{}, fmt.Errorf("rank: at least two candidates are needed, got %d", len(in))
	}
	seen := map[string]bool{}
	for _, c := range in {
		if c.Name == "" || seen[c.Name] {
			return Document{}, fmt.Errorf("rank: candidate names must be unique and not empty, got %q twice or empty", c.Name)
		}
		seen[c.Name] = true
	}
	cands := make([]Candidate, len(in))
	outs := make([][]Outcome, len(in))
	for i, c := range in {
		outs[i] = slices.Clone(c.Outcomes)
		slices.SortFunc(outs[i], func(a, b Outcome) int { return cmp.Compare(a.RunID, b.RunID) })
		cands[i] = candidateOf(c, outs[i])
	}
	order := make([]int, len(in))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return better(cands[a], cands[b]) })
	doc := Document{SchemaVersion: SchemaVersion, Warnings: []string{}}
	for _, i := range order {
		doc.Candidates = append(doc.Candidates, cands[i])
	}
	sorted := make([][]Outcome, len(order))
	for k, i := range order {
		sorted[k] = outs[i]
	}
	doc.Pairwise = pairwise(doc.Candidates, sorted)
	doc.Summary.CostAxis = costAxis(doc.Candidates)
	doc.Groups = groups(doc.Candidates, doc.Pairwise)
	doc.Pareto = pareto(doc.Candidates, doc.Summary.CostAxis)
	doc.Summary.Use, doc.Summary.Sentence = sentence(doc)
	return doc, nil
}

// better orders candidates by agreement, highest first; an undefined
// agreement last; ties by name.
func better(a, b Candidate) int {
	pa, pb := a.Agree.Percent, b.Agree.Percent
	switch {
	case pa != nil && pb == nil:
		return -1
	case pa == nil && pb != nil:
		return 1
	case pa != nil && *pa != *pb:
		return -cmp.Compare(*pa, *pb)
	}
	return cmp.Compare(a.Name, b.Name)
}

// candidateOf computes one candidate's agreement, linear kappa and
// leniency from its outcomes.
func candidateOf(in Input, outs []Outcome) Candidate {
	c := Candidate{Name: in.Name, Spec: in.Spec, Identity: in.Identity, DeepLabels: in.DeepLabels, DeepLabelsNote: in.DeepLabelsNote,
		Cost: Cost{USDPer1k: in.USDPer1k, SecondsPer1k: in.SecondsPer1k}, Panel: in.Panel}
	rows := make([]int, len(outs))
	cols := make([]int, len(outs))
	for i, o := range outs {
		rows[i], cols[i] = int(o.Light), int(o.Deep)
		if o.Light == o.Deep {
			c.Agree.Matches++
		}
		switch {
		case o.Light == Pass && o.Deep != Pass:
			c.Leniency.LightPassDeepNot++
		case o.Deep == Pass && o.Light != Pass:
			c.Leniency.DeepPassLightNot++
		}
	}
	c.Agree.N = len(outs)
	if c.Agree.N > 0 {
		p := 100 * float64(c.Agree.Matches) / float64(c.Agree.N)
		c.Agree.Percent = &p
		if w, err := statistician.WilsonInterval(c.Agree.Matches, c.Agree.N, statistician.Z95); err == nil {
			w = statistician.Interval{Lower: 100 * w.Lower, Upper: 100 * w.Upper}
			c.Agree.Wilson95 = &w
		}
	}
	if table, err := statistician.ConfusionMatrix(rows, cols, 3); err == nil && len(outs) > 0 {
		c.Kappa = statistician.CohenKappa(table, statistician.Linear)
	} else {
		c.Kappa = statistician.Kappa{Reason: "undefined: no run with both verdicts"}
	}
	m := statistician.McNemarExact(c.Leniency.LightPassDeepNot, c.Leniency.DeepPassLightNot)
	c.Leniency.McNemarP, c.Leniency.Direction = m.P, m.Direction
	return c
}

// pairwise tests every pair (i < j in the candidates' order) on the runs
// both have, then Holm-adjusts the p-values over all pairs.
func pairwise(cands []Candidate, outs [][]Outcome) []Pair {
	var pairs []Pair
	for i := range cands {
		for j := i + 1; j < len(cands); j++ {
			p := Pair{A: cands[i].Name, B: cands[j].Name}
			p.N, p.AOnly, p.BOnly = discordant(outs[i], outs[j])
			p.P = statistician.McNemarExact(p.AOnly, p.BOnly).P
			pairs = append(pairs, p)
		}
	}
	ps := make([]float64, len(pairs))
	for k, p := range pairs {
		ps[k] = p.P
	}
	for k, h := range statistician.Holm(ps) {
		pairs[k].HolmP = h
	}
	return pairs
}

// discordant merges two outcome lists sorted by run id and counts the runs
// both have (n), those where only a agrees with deep, and those where
// only b does.
func discordant(a, b []Outcome) (n, aOnly, bOnly int) {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch c := cmp.Compare(a[i].RunID, b[j].RunID); {
		case c < 0:
			i++
		case c > 0:
			j++
		default:
			n++
			// Deep is one inspection per run, shared by every candidate.
			okA, okB := a[i].Light == a[i].Deep, b[j].Light == b[j].Deep
			switch {
			case okA && !okB:
				aOnly++
			case okB && !okA:
				bOnly++
			}
			i, j = i+1, j+1
		}
	}
	return n, aOnly, bOnly
}
