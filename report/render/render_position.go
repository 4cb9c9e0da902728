package render

import (
	"fmt"
	"strings"

	"github.com/evalcal/evalcal/pairwise"
	"github.com/evalcal/evalcal/report"
	"github.com/evalcal/evalcal/statistician"
)

// proportionText is "count/n = rate% [lower%, upper%]", or "none of 0".
func proportionText(p pairwise.Proportion) string {
	if p.Rate == nil || p.CI95 == nil {
		return fmt.Sprintf("%d/%d (n/a)", p.Count, p.N)
	}
	return fmt.Sprintf("%d/%d = %s %s", p.Count, p.N, fmtPercent(100**p.Rate),
		fmtPercentCI(statisticsPercent(*p.CI95)))
}

// positionPageSection is the position section of the Markdown and HTML
// reports (run --pairwise): the pairs judged, consistency across the two
// orders, the first-slot rate, accuracy and kappa against deep, the
// pairwise trust and the cost of each order.
func positionPageSection(p report.Position) section {
	s := section{ID: "position", Heading: "Position bias (pairwise)"}
	j := p.Judge
	s.Blocks = append(s.Blocks, block{Text: fmt.Sprintf("The light judge was asked which run of each of %d pairs (%s) did the task better, in %d order(s). Deep's preference: %s.",
		p.Pairs, p.PairsFile, p.Orders, p.DeepRule)})
	items := []string{
		fmt.Sprintf("pairs judged in both orders: %d; failed calls: %d; pairs file lines not used: %d", j.BothOrders, len(p.Failures), p.BadLines.Count),
		"consistency (same winner in both orders): " + proportionText(j.Consistency),
		"first slot wins: " + proportionText(j.FirstSlot.Proportion) + ", p = " + fmtP(j.FirstSlot.P),
	}
	if a := j.Accuracy; a != nil {
		items = append(items, "accuracy against deep, order-consistent pairs only: "+proportionText(a.ConsistentOnly),
			"accuracy against deep, an inconsistent pair abstained: "+proportionText(a.Abstained))
	}
	if g := j.Agreement; g != nil && g.KappaLinear.Reason == "" {
		items = append(items, fmt.Sprintf("linear kappa with deep on the consistent pairs: %s %s", fmtStat(g.KappaLinear.Value), fmtStatCI(g.KappaLinear.CI95)))
	}
	items = append(items, fmt.Sprintf("pairwise trust: %s (%s)", j.Trust, strings.Join(j.Why, "; ")))
	s.Blocks = append(s.Blocks, block{Items: items})
	t := table{Header: []string{"order", "calls", "cache hits", "failed", "tokens", "cost"}}
	for _, c := range p.CostByOrder {
		usd := "unpriced"
		if c.USD != nil {
			usd = fmtUSD(*c.USD)
		}
		t.Rows = append(t.Rows, []string{c.Order, fmtCount(c.Calls), fmtCount(c.CacheHits), fmtCount(c.Failed), fmtCount64(c.Tokens), usd})
	}
	s.Blocks = append(s.Blocks, block{Table: &t})
	return s
}

// perturbationPageSection is the perturbation tests' section (run
// --perturb): per perturbation the flip rate, the noise, the excess with
// its interval and the runs that flipped.
func perturbationPageSection(ps []report.Perturbation) section {
	s := section{ID: "perturbations", Heading: "Perturbation tests"}
	s.Blocks = append(s.Blocks, block{Text: "Each run judged again by light under a perturbation that should not matter; the excess is the flip rate under it minus the flip rate between two repeats."})
	t := table{Header: []string{"perturbation", "runs", "flip rate", "noise", "excess", "95% interval", "significant", "flipped runs"}}
	for _, p := range ps {
		name := p.Kind
		if p.File != "" {
			name += "=" + p.File
		}
		r := p.Result
		if r == nil {
			t.Rows = append(t.Rows, []string{name, fmtCount(p.Runs), "n/a", "n/a", "n/a", "n/a", "n/a", p.Reason})
			continue
		}
		sig := "no"
		if r.Significant {
			sig = "yes"
		}
		flipped := strings.Join(r.Flipped[:min(len(r.Flipped), 10)], ", ")
		if len(r.Flipped) > 10 {
			flipped += fmt.Sprintf(" and %d more", len(r.Flipped)-10)
		}
		t.Rows = append(t.Rows, []string{name, fmtCount(r.N), fmtPercent(100 * r.FlipRate), fmtPercent(100 * r.NoiseRate),
			fmtPercent(100 * r.Excess), fmtPercentCI(statisticsPercent(r.CI)), sig, flipped})
	}
	s.Blocks = append(s.Blocks, block{Table: &t})
	return s
}

// statisticsPercent is a proportion's interval in percent.
func statisticsPercent(iv statistician.Interval) statistician.Interval {
	return statistician.Interval{Lower: 100 * iv.Lower, Upper: 100 * iv.Upper}
}
