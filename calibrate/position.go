package calibrate

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"

	"github.com/evalcal/evalcal/comparator"
	"github.com/evalcal/evalcal/inspection"
	"github.com/evalcal/evalcal/pairwise"
	"github.com/evalcal/evalcal/report"
	"github.com/evalcal/evalcal/runner"
)

// PairJudge is a judge that compares two runs (programs/llm's Judge): it
// names the slot of the run that did the task better, "first", "second"
// or "tie", first being shown first.
type PairJudge interface {
	PairIdentity() string
	JudgePair(ctx context.Context, first, second inspection.Run) (string, inspection.Cost, error)
}

// Pairwise configures run --pairwise: Judge (the light side's) is asked
// about each of Pairs in both orders (ab then ba; ab only with Orders 1).
type Pairwise struct {
	Judge     PairJudge
	Pairs     []pairwise.Pair
	PairsFile string
	// BadLines are the pairs file's lines that could not be read.
	BadLines []pairwise.BadLine
	Orders   int
}

// deepRule is how deep's preference of a pair is had (report.Position).
const deepRule = "the run with deep's better verdict (pass > partial > fail), between equal verdicts the higher sum of deep's two scores; a tie when both are equal"

// maxListedBadLines bounds the bad lines a position section lists.
const maxListedBadLines = 100

// positionSection runs the pairwise calls of cfg.Pairwise through the
// runner (cache, retries, rate limits, the budget left by the pointwise
// calls), one pass per order so that each order's cost is counted on its
// own, and sets rep.Position. runs are the runs discovered (a pair may
// name any valid one); deep's preference comes from rep.Comparisons.
func positionSection(ctx context.Context, cfg Config, runs []inspection.Run, rep *report.Report) error {
	pw := cfg.Pairwise
	byID := map[string]inspection.Run{}
	for _, r := range runs {
		if r.Valid {
			byID[r.ID] = r
		}
	}
	sec := &report.Position{PairsFile: pw.PairsFile, Orders: max(pw.Orders, 1), Identity: pw.Judge.PairIdentity(),
		DeepRule: deepRule, Verdicts: []pairwise.Verdict{}, Failures: []report.PositionFailure{}, CostByOrder: []report.PositionCost{}}
	bad := append([]pairwise.BadLine(nil), pw.BadLines...)
	var pairs []pairwise.Pair
	for _, p := range pw.Pairs {
		missing := ""
		for _, id := range []string{p.RunA, p.RunB} {
			if _, ok := byID[id]; !ok && missing == "" {
				missing = id
			}
		}
		if missing != "" {
			bad = append(bad, pairwise.BadLine{File: pw.PairsFile, Line: p.Line, Field: "run_a/run_b",
				Error: fmt.Sprintf("run %q is not a valid run of the inputs", missing)})
			continue
		}
		pairs = append(pairs, p)
	}
	sec.Pairs = len(pairs)
	slices.SortFunc(bad, func(a, b pairwise.BadLine) int { return cmp.Compare(a.Line, b.Line) })
	sec.BadLines = pairwise.BadLines{Count: len(bad), Lines: bad[:min(len(bad), maxListedBadLines)]}
	if sec.BadLines.Lines == nil {
		sec.BadLines.Lines = []pairwise.BadLine{}
	}
	byPairRun := map[string]pairwise.Pair{}
	orders := []string{pairwise.OrderAB, pairwise.OrderBA}[:sec.Orders]
	for _, p := range pairs {
		for _, order := range orders {
			byPairRun[p.ID+"@"+order] = p
		}
	}
	spent := rep.SpentUSD()
	for _, order := range orders {
		res, err := judgeOrder(ctx, cfg, pairs, byID, order, spent)
		var stop *runner.StopError
		switch {
		case errors.As(err, &stop):
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("the pairwise calls in order %s stopped: %v", order, stop))
		case err != nil:
			return err
		}
		if res.BudgetStopped {
			rep.Cost.BudgetStopped = true
		}
		c := report.PositionCost{Order: order, SideCost: report.SideCost{SideCost: res.Cost.Light, Price: cfg.Runner.Light.Price}}
		if u := c.USD; u != nil {
			spent += *u
			if c.Inspections > 0 {
				v := *u / float64(c.Inspections)
				c.PerRun = &v
			}
		}
		sec.CostByOrder = append(sec.CostByOrder, c)
		for _, l := range res.LightOnly {
			sec.Verdicts = append(sec.Verdicts, pairVerdictOf(l.Light, byPairRun[l.Run.ID], order, cfg.LightSpec))
		}
		for _, f := range res.Failures {
			sec.Failures = append(sec.Failures, report.PositionFailure{PairID: byPairRun[f.RunID].ID, Order: order, Reason: f.Reason})
		}
		rep.Warnings = append(rep.Warnings, res.Warnings...)
	}
	slices.SortFunc(sec.Verdicts, func(a, b pairwise.Verdict) int {
		return cmp.Or(cmp.Compare(a.PairID, b.PairID), cmp.Compare(a.Order, b.Order))
	})
	slices.SortFunc(sec.Failures, func(a, b report.PositionFailure) int {
		return cmp.Or(cmp.Compare(a.PairID, b.PairID), cmp.Compare(a.Order, b.Order))
	})
	sec.Judge = analysePairs(sec.Verdicts, deepPreference(pairs, rep.Comparisons), cfg.LightSpec)
	rep.Position = sec
	return nil
}

// analysePairs is pairwise.Analyse of one judge's verdicts; without a
// verdict it is the empty section of judge.
func analysePairs(vs []pairwise.Verdict, deep pairwise.Deep, judge string) pairwise.Position {
	if all := pairwise.Analyse(vs, deep); len(all) > 0 {
		return all[0]
	}
	// Analyse of one verdict-less pair gives the empty figures (counts 0,
	// no interval, p = 1) and the trust verdict of no evidence.
	pos := pairwise.Analyse([]pairwise.Verdict{{Judge: judge}}, deep)[0]
	pos.Verdicts, pos.Pairs = 0, 0
	return pos
}

// judgeOrder asks the judge about every pair in one order through the
// runner: each pair is a run of its own (pairRun) at light depth only.
func judgeOrder(ctx context.Context, cfg Config, pairs []pairwise.Pair, byID map[string]inspection.Run, order string, spent float64) (runner.Result, error) {
	in := &pairInspector{judge: cfg.Pairwise.Judge, light: cfg.Light, order: order, runs: map[string][2]inspection.Run{}}
	var pruns []inspection.Run
	for _, p := range pairs {
		a, b := byID[p.RunA], byID[p.RunB]
		r := pairRun(p, a, b, order)
		in.runs[r.ID] = [2]inspection.Run{a, b}
		pruns = append(pruns, r)
	}
	opts := cfg.Runner
	opts.DeepRuns, opts.SelectDeep = map[string]bool{}, nil // light only
	opts.Repeat, opts.Progress = 1, nil
	if opts.MaxUSD > 0 {
		opts.MaxUSD -= spent
		if opts.MaxUSD <= 0 {
			res := runner.Result{BudgetStopped: true}
			res.Cost.Light.Identity = in.Identity()
			for _, r := range pruns {
				res.Failures = append(res.Failures, inspection.Failure{RunID: r.ID, Depth: inspection.Light,
					Reason: "not called: the --max-cost budget is spent"})
			}
			return res, nil
		}
	}
	return runner.RunSides(ctx, pruns, runner.Sides{Light: in, Deep: in}, opts)
}

// pairRun is the run the runner sees for pair p in order: its id is
// "PAIR_ID@ORDER", its content hash the SHA-256 of the order and both
// runs' content hashes (so the cache key holds the order), its size and
// file count the two runs' together (what a RunBound judge bounds a call
// by).
func pairRun(p pairwise.Pair, a, b inspection.Run, order string) inspection.Run {
	h := sha256.Sum256([]byte("pairwise\x00" + order + "\x00" + a.ContentHash + "\x00" + b.ContentHash))
	return inspection.Run{ID: p.ID + "@" + order, System: a.System, Era: a.Era, Status: a.Status, Valid: true,
		SizeBytes: a.SizeBytes + b.SizeBytes, Files: a.Files + b.Files, ContentHash: hex.EncodeToString(h[:])}
}

// Winners as a pair run's inspection carries them: its verdict.
var winnerVerdict = map[string]string{pairwise.WinnerA: inspection.VerdictPass, pairwise.WinnerTie: inspection.VerdictPartial,
	pairwise.WinnerB: inspection.VerdictFail}

// pairVerdictOf reads the winner back from a pair run's inspection.
func pairVerdictOf(insp inspection.Inspection, p pairwise.Pair, order, judge string) pairwise.Verdict {
	w := pairwise.WinnerTie
	for k, v := range winnerVerdict {
		if v == insp.Verdict {
			w = k
		}
	}
	return pairwise.Verdict{PairID: p.ID, RunA: p.RunA, RunB: p.RunB, Winner: w, Order: order, Judge: judge}
}

// deepPreference is deep's winner of each pair whose two runs have a
// deep inspection (deepRule); nil when no pair has.
func deepPreference(pairs []pairwise.Pair, cs []comparator.Comparison) pairwise.Deep {
	byRun := map[string]comparator.Comparison{}
	for _, c := range cs {
		byRun[c.RunID] = c
	}
	var deep pairwise.Deep
	for _, p := range pairs {
		a, okA := byRun[p.RunA]
		b, okB := byRun[p.RunB]
		if !okA || !okB {
			continue
		}
		if deep == nil {
			deep = pairwise.Deep{}
		}
		sa, sb := a.Deep.RuntimeFidelity+a.Deep.TaskEffectiveness, b.Deep.RuntimeFidelity+b.Deep.TaskEffectiveness
		switch c := cmp.Or(cmp.Compare(inspection.VerdictRank(a.DeepVerdict), inspection.VerdictRank(b.DeepVerdict)), cmp.Compare(sa, sb)); {
		case c > 0:
			deep[p.ID] = pairwise.WinnerA
		case c < 0:
			deep[p.ID] = pairwise.WinnerB
		default:
			deep[p.ID] = pairwise.WinnerTie
		}
	}
	return deep
}

// pairInspector is the pair judge as the runner sees it: a pair run's
// inspection is the judge's answer in the pair run's order, as a verdict
// (winnerVerdict) with scores 100, 50 or 0. Its capabilities (Billed,
// RunBound) are the light inspector's, through Unwrap.
type pairInspector struct {
	judge PairJudge
	light inspection.Inspector
	order string
	runs  map[string][2]inspection.Run // pair run id: run_a, run_b
}

func (p *pairInspector) Identity() string             { return p.judge.PairIdentity() }
func (p *pairInspector) Unwrap() inspection.Inspector { return p.light }

func (p *pairInspector) Inspect(ctx context.Context, run inspection.Run, depth inspection.Depth) (inspection.Inspection, error) {
	ab, ok := p.runs[run.ID]
	if !ok {
		return inspection.Inspection{}, inspection.Permanent(fmt.Errorf("calibrate: %s is not a pair", run.ID))
	}
	first, second := ab[0], ab[1]
	if p.order == pairwise.OrderBA {
		first, second = second, first
	}
	slot, cost, err := p.judge.JudgePair(ctx, first, second)
	if err != nil {
		return inspection.Inspection{}, err
	}
	w := pairwise.WinnerTie
	switch {
	case slot == "first" && p.order == pairwise.OrderAB, slot == "second" && p.order == pairwise.OrderBA:
		w = pairwise.WinnerA
	case slot == "first", slot == "second":
		w = pairwise.WinnerB
	case slot != "tie":
		return inspection.Inspection{}, inspection.Permanent(fmt.Errorf("calibrate: the pair judge named slot %q", slot))
	}
	score := map[string]float64{pairwise.WinnerA: 100, pairwise.WinnerTie: 50, pairwise.WinnerB: 0}[w]
	return inspection.Inspection{RunID: run.ID, System: run.System, Depth: depth, RuntimeFidelity: score, TaskEffectiveness: score,
		Services: []inspection.Service{}, Flags: []inspection.Flag{}, Verdict: winnerVerdict[w],
		Summary: fmt.Sprintf("winner %s (order %s)", w, p.order), Cost: cost}, nil
}
