package pairwise

import (
	"fmt"
	"sort"

	"github.com/evalcal/evalcal/advisor"
	"github.com/evalcal/evalcal/statistician"
)

// MinConsistencyLower is the position consistency's Wilson lower bound
// below which the trust verdict is capped at monitor (README.md,
// "Position bias").
const MinConsistencyLower = 0.80

// Proportion is Count out of N with its rate and 95% Wilson interval
// (statistician.WilsonInterval); Rate and CI95 are nil when N is 0.
type Proportion struct {
	Count int                    `yaml:"count" json:"count"`
	N     int                    `yaml:"n" json:"n"`
	Rate  *float64               `yaml:"rate" json:"rate"`
	CI95  *statistician.Interval `yaml:"ci95" json:"ci95"`
}

// newProportion fills a Proportion; the interval is undefined at n = 0.
func newProportion(count, n int) Proportion {
	p := Proportion{Count: count, N: n}
	if n == 0 {
		return p
	}
	r := float64(count) / float64(n)
	iv, err := statistician.WilsonInterval(count, n, statistician.Z95)
	if err == nil {
		p.Rate, p.CI95 = &r, &iv
	}
	return p
}

// FirstSlot is the first-slot win rate: among the verdicts that name a
// winner (ties left out), the share the run shown first won, with the
// exact two-sided binomial p against 1/2, min(1, 2 P(X <= min(k, n-k))),
// X ~ Binomial(n, 1/2) (as scipy.stats.binomtest(k, n, 0.5); computed by
// statistician.McNemarExact, the same test). P is 1 when n is 0.
type FirstSlot struct {
	Proportion `yaml:",inline" json:",inline"`
	P          float64 `yaml:"p" json:"p"`
}

// Accuracy is agreement with deep on the pairs judged in both orders
// that deep decided. ConsistentOnly counts only the order-consistent
// pairs (a pair is correct when its one winner is deep's); Abstained
// counts every pair, an inconsistent one as abstained and never correct.
type Accuracy struct {
	ConsistentOnly Proportion `yaml:"consistent_only" json:"consistent_only"`
	Abstained      Proportion `yaml:"inconsistent_abstained" json:"inconsistent_abstained"`
}

// Agreement is agreement with deep on the order-consistent pairs, over
// the ordered categories a < tie < b: raw agreement (equal to
// Accuracy.ConsistentOnly) and Cohen's kappa, linearly weighted (as the
// trust rule reads it) and unweighted (statistician.CohenKappa).
type Agreement struct {
	Agreement       Proportion         `yaml:"agreement" json:"agreement"`
	KappaLinear     statistician.Kappa `yaml:"kappa_linear" json:"kappa_linear"`
	KappaUnweighted statistician.Kappa `yaml:"kappa_unweighted" json:"kappa_unweighted"`
}

// Position is one pairwise judge's position section.
type Position struct {
	Judge string `yaml:"judge" json:"judge"`
	// Verdicts counts the judge's verdicts read; Pairs the distinct pairs;
	// BothOrders the pairs judged in both orders; Duplicates the verdicts
	// left out because the pair already had one in that order;
	// Conflicts those left out because their runs are not the pair's.
	Verdicts   int `yaml:"verdicts" json:"verdicts"`
	Pairs      int `yaml:"pairs" json:"pairs"`
	BothOrders int `yaml:"both_orders" json:"both_orders"`
	Duplicates int `yaml:"duplicates" json:"duplicates"`
	Conflicts  int `yaml:"conflicts" json:"conflicts"`
	// Consistency: pairs judged in both orders with the same winner both
	// ways (a tie both ways included), out of BothOrders.
	Consistency Proportion `yaml:"consistency" json:"consistency"`
	FirstSlot   FirstSlot  `yaml:"first_slot" json:"first_slot"`
	// Accuracy and Agreement are nil without a deep side.
	Accuracy  *Accuracy  `yaml:"accuracy" json:"accuracy"`
	Agreement *Agreement `yaml:"agreement_with_deep" json:"agreement_with_deep"`
	Trust     string     `yaml:"trust" json:"trust"`
	Why       []string   `yaml:"why" json:"why"`
}

// pairVerdicts are a pair's runs and its winner in each order.
type pairVerdicts struct {
	runA, runB string
	ab, ba     string // "" when not judged in that order
}

// Analyse computes the position section of each judge in verdicts (by
// Judge, in name order) against deep (nil: no deep side). A verdict whose
// pair already has one in its order is a duplicate and left out (the
// first is kept); one whose run_a/run_b differ from the pair's first
// verdict is a conflict and left out.
func Analyse(verdicts []Verdict, deep Deep) []Position {
	byJudge := map[string][]Verdict{}
	for _, v := range verdicts {
		byJudge[v.Judge] = append(byJudge[v.Judge], v)
	}
	judges := make([]string, 0, len(byJudge))
	for j := range byJudge {
		judges = append(judges, j)
	}
	sort.Strings(judges)
	out := make([]Position, 0, len(judges))
	for _, j := range judges {
		out = append(out, analyseJudge(j, byJudge[j], deep))
	}
	return out
}

// analyseJudge is Analyse for one judge's verdicts.
func analyseJudge(judge string, vs []Verdict, deep Deep) Position {
	pos := Position{Judge: judge, Verdicts: len(vs)}
	pairs := map[string]*pairVerdicts{}
	var ids []string
	firstWins, decided := 0, 0
	for _, v := range vs {
		p := pairs[v.PairID]
		if p == nil {
			p = &pairVerdicts{runA: v.RunA, runB: v.RunB}
			pairs[v.PairID] = p
			ids = append(ids, v.PairID)
		}
		if p.runA != v.RunA || p.runB != v.RunB {
			pos.Conflicts++
			continue
		}
		slot := &p.ab
		if v.Order == OrderBA {
			slot = &p.ba
		}
		if *slot != "" {
			pos.Duplicates++
			continue
		}
		*slot = v.Winner
		if v.Winner != WinnerTie {
			decided++
			if v.FirstSlotWon() {
				firstWins++
			}
		}
	}
	sort.Strings(ids)
	pos.Pairs = len(ids)
	pos.FirstSlot = FirstSlot{Proportion: newProportion(firstWins, decided), P: 1}
	if decided > 0 {
		pos.FirstSlot.P = statistician.McNemarExact(firstWins, decided-firstWins).P
	}
	consistent := 0
	var judgeCat, deepCat []int
	correctConsistent, nConsistent, correctAll, nAll := 0, 0, 0, 0
	for _, id := range ids {
		p := pairs[id]
		if p.ab == "" || p.ba == "" {
			continue
		}
		pos.BothOrders++
		same := p.ab == p.ba
		if same {
			consistent++
		}
		d, ok := deep[id]
		if !ok {
			continue
		}
		nAll++
		if !same {
			continue
		}
		nConsistent++
		if p.ab == d {
			correctConsistent++
			correctAll++
		}
		judgeCat = append(judgeCat, category(p.ab))
		deepCat = append(deepCat, category(d))
	}
	pos.Consistency = newProportion(consistent, pos.BothOrders)
	if deep != nil {
		pos.Accuracy = &Accuracy{ConsistentOnly: newProportion(correctConsistent, nConsistent),
			Abstained: newProportion(correctAll, nAll)}
		pos.Agreement = agreement(judgeCat, deepCat, pos.Accuracy.ConsistentOnly)
	}
	pos.Trust, pos.Why = trust(pos)
	return pos
}

// category places a winner on the ordered scale a < tie < b.
func category(w string) int {
	switch w {
	case WinnerA:
		return 0
	case WinnerTie:
		return 1
	}
	return 2
}

// agreement is the kappas of the consistent pairs' categories.
func agreement(judge, deep []int, raw Proportion) *Agreement {
	a := &Agreement{Agreement: raw}
	table, err := statistician.ConfusionMatrix(judge, deep, 3)
	if err != nil || len(judge) == 0 {
		reason := "undefined: no order-consistent pair has a deep verdict"
		a.KappaLinear.Reason, a.KappaUnweighted.Reason = reason, reason
		return a
	}
	a.KappaLinear = statistician.CohenKappa(table, statistician.Linear)
	a.KappaUnweighted = statistician.CohenKappa(table, statistician.Unweighted)
	return a
}

// trust is advisor.Trust on the consistent pairs (linear kappa and the
// agreement's Wilson interval in percent), capped at monitor when the
// consistency's Wilson lower bound is under MinConsistencyLower. Without
// a deep side it is insufficient_evidence.
func trust(pos Position) (string, []string) {
	if pos.Agreement == nil {
		return advisor.TrustInsufficient, []string{"no deep side: accuracy and agreement are not measured"}
	}
	in := advisor.TrustInput{N: pos.Agreement.Agreement.N, Kappa: pos.Agreement.KappaLinear}
	if iv := pos.Agreement.Agreement.CI95; iv != nil {
		lo, hi := 100*iv.Lower, 100*iv.Upper
		in.AgreementLower, in.AgreementUpper = &lo, &hi
	}
	level, why := advisor.Trust(in)
	c := pos.Consistency
	switch {
	case c.CI95 == nil:
		why = append(why, "no pair was judged in both orders: position consistency is not measured")
		if level == advisor.TrustGate {
			level = advisor.TrustMonitor
		}
	case c.CI95.Lower < MinConsistencyLower:
		why = append(why, fmt.Sprintf("position consistency %d/%d, its lower bound %.2f%% is under %.0f%%: the verdict depends on the order the runs are shown in",
			c.Count, c.N, 100*c.CI95.Lower, 100*MinConsistencyLower))
		if level == advisor.TrustGate {
			level = advisor.TrustMonitor
			why = append(why, "capped at monitor by position consistency")
		}
	default:
		why = append(why, fmt.Sprintf("position consistency %d/%d, its lower bound %.2f%% clears %.0f%%",
			c.Count, c.N, 100*c.CI95.Lower, 100*MinConsistencyLower))
	}
	return level, why
}
