package report

import (
	"github.com/evalcal/evalcal/pairwise"
	"github.com/evalcal/evalcal/perturb"
)

// Position is the run report's position section (run --pairwise, README.md
// "Pairwise judges on run"): the light judge asked which of two runs did
// the task better, each pair in both orders (one with --orders 1), and
// the position statistics of pairwise.Analyse on its answers, against
// deep's preference.
type Position struct {
	// PairsFile is the --pairs file; Pairs the pairs read from it that
	// name two runs of the sample; Orders 2 (both orders) or 1 (ab only).
	PairsFile string `yaml:"pairs_file" json:"pairs_file"`
	Pairs     int    `yaml:"pairs" json:"pairs"`
	Orders    int    `yaml:"orders" json:"orders"`
	// Identity is the pairwise judge's identity (its cache key).
	Identity string `yaml:"identity" json:"identity"`
	// DeepRule says how deep's preference of a pair is had.
	DeepRule string `yaml:"deep_rule" json:"deep_rule"`
	// Judge is the position statistics (pairwise.Position).
	Judge pairwise.Position `yaml:"judge" json:"judge"`
	// CostByOrder is what the pairwise calls cost in each order, ab
	// (run_a shown first) then ba.
	CostByOrder []PositionCost `yaml:"cost_by_order" json:"cost_by_order"`
	// Verdicts are the judge's answers, by pair id then order.
	Verdicts []pairwise.Verdict `yaml:"verdicts" json:"verdicts"`
	// Failures are the pairwise calls that got no answer (or one naming
	// no winner), by pair id then order.
	Failures []PositionFailure `yaml:"failures" json:"failures"`
	// BadLines are the pairs file's lines not used (malformed, or naming
	// a run not in the sample).
	BadLines pairwise.BadLines `yaml:"bad_lines" json:"bad_lines"`
}

// PositionCost is one order's pairwise calls and their cost.
type PositionCost struct {
	Order    string `yaml:"order" json:"order"`
	SideCost `yaml:",inline" json:",inline"`
}

// PositionFailure is one pairwise call that got no verdict.
type PositionFailure struct {
	PairID string `yaml:"pair_id" json:"pair_id"`
	Order  string `yaml:"order" json:"order"`
	Reason string `yaml:"reason" json:"reason"`
}

// Perturbation kinds (run --perturb).
const (
	PerturbOrder  = "order"
	PerturbRubric = "rubric"
)

// Perturbation is one perturbation test of the light judge (run
// --perturb, README.md "Perturbation tests"): every run judged again under
// the perturbation, its excess flip rate over the --repeat noise
// (perturb.Excess).
type Perturbation struct {
	// Kind is order (the run's files shown in a seeded shuffled order) or
	// rubric (another prompt template, File).
	Kind string `yaml:"kind" json:"kind"`
	File string `yaml:"file,omitempty" json:"file,omitempty"`
	// Identity is the perturbed judge's identity.
	Identity string `yaml:"identity" json:"identity"`
	// Result is the excess flip rate; nil when it could not be computed
	// (Reason says why).
	Result *perturb.Result `yaml:"result" json:"result"`
	Reason string          `yaml:"reason,omitempty" json:"reason,omitempty"`
	// Runs counts the runs with both a perturbed verdict and at least two
	// unperturbed ones; Missing those left out.
	Runs    int `yaml:"runs" json:"runs"`
	Missing int `yaml:"missing" json:"missing"`
	// Cost is the perturbed calls' cost.
	Cost SideCost `yaml:"cost" json:"cost"`
}

// SpentUSD is what the report's calls spent: both sides, the pairwise
// calls of each order and the perturbation tests (unknown amounts as 0).
func (r *Report) SpentUSD() float64 {
	total := 0.0
	add := func(u *float64) {
		if u != nil {
			total += *u
		}
	}
	add(r.Cost.Light.USD)
	add(r.Cost.Deep.USD)
	if r.Position != nil {
		for _, c := range r.Position.CostByOrder {
			add(c.USD)
		}
	}
	for _, p := range r.Perturbations {
		add(p.Cost.USD)
	}
	return total
}
