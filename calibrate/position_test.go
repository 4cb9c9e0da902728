package calibrate

import (
	"context"
	"os"
	"sort"
	"testing"

	"github.com/evalcal/evalcal/inspection"
	"github.com/evalcal/evalcal/pairwise"
	"github.com/evalcal/evalcal/programs/builtin"
)

// oracleJudge compares two runs as the builtin inspector at deep depth
// ranks them: the better verdict, then the higher score sum; with first
// it names the first slot always.
type oracleJudge struct {
	in    inspection.Inspector
	first bool
}

func (o oracleJudge) PairIdentity() string { return "oracle" }

func (o oracleJudge) JudgePair(ctx context.Context, first, second inspection.Run) (string, inspection.Cost, error) {
	if o.first {
		return "first", inspection.Cost{}, nil
	}
	a, err := o.in.Inspect(ctx, first, inspection.Deep)
	if err != nil {
		return "", inspection.Cost{}, err
	}
	b, err := o.in.Inspect(ctx, second, inspection.Deep)
	if err != nil {
		return "", inspection.Cost{}, err
	}
	ra, rb := inspection.VerdictRank(a.Verdict), inspection.VerdictRank(b.Verdict)
	sa, sb := a.RuntimeFidelity+a.TaskEffectiveness, b.RuntimeFidelity+b.TaskEffectiveness
	switch {
	case ra > rb || ra == rb && sa > sb:
		return "first", inspection.Cost{}, nil
	case ra < rb || ra == rb && sa < sb:
		return "second", inspection.Cost{}, nil
	}
	return "tie", inspection.Cost{}, nil
}

// corpusPairs pairs the corpus's first n run directories (sorted ids),
// the invalid ones included: they are bad lines.
func corpusPairs(t *testing.T, n int) []pairwise.Pair {
	t.Helper()
	entries, err := os.ReadDir(corpus)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, e := range entries {
		if e.IsDir() && len(ids) < n {
			ids = append(ids, e.Name())
		}
	}
	sort.Strings(ids)
	var pairs []pairwise.Pair
	for i := range ids {
		for j := i + 1; j < len(ids); j++ {
			pairs = append(pairs, pairwise.Pair{ID: ids[i] + "|" + ids[j], RunA: ids[i], RunB: ids[j], Line: len(pairs) + 1})
		}
	}
	return pairs
}

// TestPositionSectionAgainstAnOracle: a judge that ranks the runs as deep
// does is consistent on every pair and agrees with deep's preference on
// every one (so deep's preference is read the right way round); a judge
// that always names the first slot is consistent on none, and then the
// trust verdict is capped. A pair naming an invalid run is a bad line.
func TestPositionSectionAgainstAnOracle(t *testing.T) {
	pairs := corpusPairs(t, 12)
	cfg := builtinConfig()
	cfg.Pairwise = &Pairwise{Judge: oracleJudge{in: builtin.New()}, Pairs: pairs, PairsFile: "pairs.jsonl", Orders: 2}
	rep := mustRun(t, cfg)
	p := rep.Position
	if p == nil {
		t.Fatal("no position section")
	}
	valid := p.Pairs
	if valid+p.BadLines.Count != len(pairs) || p.BadLines.Count == 0 || valid < 40 {
		t.Fatalf("%d pairs judged, %d bad lines, of %d", valid, p.BadLines.Count, len(pairs))
	}
	j := p.Judge
	if j.Consistency.Count != valid || j.Consistency.N != valid {
		t.Errorf("oracle consistency %d/%d, want %d", j.Consistency.Count, j.Consistency.N, valid)
	}
	if a := j.Accuracy; a == nil || a.ConsistentOnly.Count != valid || a.ConsistentOnly.N != valid || a.Abstained.Count != valid {
		t.Errorf("oracle accuracy %+v", a)
	}
	if len(p.CostByOrder) != 2 || p.CostByOrder[0].Calls != valid || p.CostByOrder[1].Calls != valid {
		t.Errorf("cost by order %+v", p.CostByOrder)
	}

	cfg.Pairwise.Judge = oracleJudge{first: true}
	rep = mustRun(t, cfg)
	j = rep.Position.Judge
	if j.Consistency.Count != 0 || j.FirstSlot.Count != 2*valid {
		t.Errorf("first-slot judge: consistency %d, first slot %d of %d", j.Consistency.Count, j.FirstSlot.Count, 2*valid)
	}
	if rep.Summary.Trust == "gate" {
		t.Errorf("trust %s with a position consistency of 0", rep.Summary.Trust)
	}
}

// TestPerturbationSectionNeedsRepeats: without two light repeats a
// perturbation has no result and says why.
func TestPerturbationSectionNeedsRepeats(t *testing.T) {
	cfg := builtinConfig()
	cfg.Perturb = []Perturbation{{Kind: "order", Judge: inspection.Wrap(builtin.New(), inspection.Override{Identity: "builtin/perturbed"})}}
	rep := mustRun(t, cfg)
	if len(rep.Perturbations) != 1 || rep.Perturbations[0].Result != nil || rep.Perturbations[0].Reason == "" || rep.Perturbations[0].Missing != len(rep.Comparisons) {
		t.Fatalf("perturbations %+v", rep.Perturbations)
	}
	cfg.Runner.Repeat = 2
	rep = mustRun(t, cfg)
	r := rep.Perturbations[0].Result
	if r == nil || r.N != len(rep.Comparisons) || r.FlipRate != 0 || r.NoiseRate != 0 || r.Significant {
		t.Fatalf("deterministic builtin perturbed: %+v", r)
	}
}
