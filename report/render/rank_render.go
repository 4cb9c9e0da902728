package render

import (
	"fmt"
	"strings"

	"github.com/evalcal/evalcal/internal/reportenc"
	"github.com/evalcal/evalcal/rank"
)

// RankMarkdown renders a ranking document (evalcal rank) as Markdown: the
// sentence first, then the candidates, the pairwise tests, the tie groups,
// the Pareto front and each panel's section. Figures are those of the
// document as written (the precision rule).
func RankMarkdown(doc *rank.Document) ([]byte, error) {
	p, err := rankPage(doc, false)
	if err != nil {
		return nil, err
	}
	return writeMarkdown(p), nil
}

// RankHTML renders a ranking document as one self-contained HTML file:
// the Markdown's tables and a chart of agreement (Wilson 95% bars) against
// cost per 1,000 runs with the Pareto front drawn.
func RankHTML(doc *rank.Document) ([]byte, error) {
	p, err := rankPage(doc, true)
	if err != nil {
		return nil, err
	}
	return writeHTML(p)
}

func rankPage(doc *rank.Document, plots bool) (page, error) {
	if doc == nil {
		return page{}, fmt.Errorf("report: rank: nil document")
	}
	doc, err := reportenc.Rounded(doc)
	if err != nil {
		return page{}, fmt.Errorf("report: rank: %w", err)
	}
	p := page{Title: "evalcal ranking of " + plural(len(doc.Candidates), "candidate", "candidates") + " against " + doc.Inputs.Deep.Spec}
	p.Banner = banner{Lead: doc.Summary.Sentence}
	if n := len(doc.Warnings); n > 0 {
		p.Banner.Notes = append(p.Banner.Notes, note{plural(n, "warning", "warnings"), "warnings"})
	}
	onFront := map[string]bool{}
	for _, n := range doc.Pareto {
		onFront[n] = true
	}
	t := table{Header: []string{"candidate", "agreement", "Wilson 95%", "runs", "kappa (linear)", "kappa 95%",
		"light pass, deep not", "deep pass, light not", "McNemar p", "USD / 1k runs", "seconds / 1k runs", "deep labels for ±0.05", "Pareto"}}
	for _, c := range doc.Candidates {
		row := []string{c.Name, optPercent(c.Agree.Percent, "no run"), "n/a", fmtCount(c.Agree.N), "n/a", "n/a",
			fmtCount(c.Leniency.LightPassDeepNot), fmtCount(c.Leniency.DeepPassLightNot), fmtP(c.Leniency.McNemarP),
			optUSD(c.Cost.USDPer1k), optStat(c.Cost.SecondsPer1k, "unknown"), optInt(c.DeepLabels), ""}
		if c.Agree.Wilson95 != nil {
			row[2] = fmtPercentCI(*c.Agree.Wilson95)
		}
		if c.Kappa.Reason == "" {
			row[4], row[5] = fmtStat(c.Kappa.Value), fmtStatCI(c.Kappa.CI95)
		} else {
			row[4] = fmtNA(c.Kappa.Reason)
		}
		if onFront[c.Name] {
			row[12] = "front"
		}
		t.Rows = append(t.Rows, row)
	}
	cands := section{ID: "candidates", Heading: "Candidates", Blocks: []block{{Table: &t}}}
	if plots {
		cands.Blocks = append(cands.Blocks, block{Figure: drawFigure(
			"Agreement with deep (Wilson 95% bars) against cost per 1,000 runs ("+doc.Summary.CostAxis+"); the Pareto front is the line",
			func() ([]byte, error) { return rankSVG(doc) })})
	}
	pt := table{Header: []string{"pair", "runs", "only the first agrees", "only the second agrees", "McNemar p", "Holm p"}}
	for _, pr := range doc.Pairwise {
		pt.Rows = append(pt.Rows, []string{pr.A + " vs " + pr.B, fmtCount(pr.N), fmtCount(pr.AOnly), fmtCount(pr.BOnly), fmtP(pr.P), fmtP(pr.HolmP)})
	}
	var groups []string
	for _, g := range doc.Groups {
		groups = append(groups, fmt.Sprintf("group %d: %s (best: %s)", g.Rank, strings.Join(g.Members, ", "), g.Best))
	}
	p.Sections = []section{cands,
		{ID: "pairwise", Heading: "Pairwise tests (McNemar exact, Holm-adjusted)", Blocks: []block{{Table: &pt}}},
		{ID: "groups", Heading: "Tie groups", Blocks: []block{{Text: "Candidates no Holm-adjusted test (at 5%) separates from the group's best."}, {Items: groups}}},
		{ID: "pareto", Heading: "Pareto front", Blocks: []block{{Text: "Not beaten on both agreement and cost (" + doc.Summary.CostAxis + "): " + listOrNone(doc.Pareto) + "."}}},
	}
	for _, c := range doc.Candidates {
		if c.Panel != nil {
			p.Sections = append(p.Sections, panelSection(c.Name, c.Panel))
		}
	}
	if len(doc.Warnings) > 0 {
		p.Sections = append(p.Sections, warningSection(doc.Warnings))
	}
	return p, nil
}

// panelSection is a panel candidate's members and their agreement.
func panelSection(name string, s *rank.PanelSection) section {
	t := table{Header: []string{"member", "agreement with deep", "Wilson 95%", "runs", "abstained", "light pass, deep not", "deep pass, light not", "McNemar p"}}
	for _, m := range s.Members {
		row := []string{m.Spec, optPercent(m.Agreement.Percent, "no run"), "n/a", fmtCount(m.Agreement.N), fmtCount(m.Abstained),
			fmtCount(m.Leniency.LightPassDeepNot), fmtCount(m.Leniency.DeepPassLightNot), fmtP(m.Leniency.McNemarP)}
		if m.Agreement.Wilson95 != nil {
			row[2] = fmtPercentCI(*m.Agreement.Wilson95)
		}
		t.Rows = append(t.Rows, row)
	}
	fleiss := fmtNA(s.Fleiss.Reason)
	if s.Fleiss.Reason == "" {
		fleiss = fmtStat(s.Fleiss.Value) + " " + fmtStatCI(s.Fleiss.CI)
	}
	alpha := fmtNA(s.Krippendorff.Reason)
	if s.Krippendorff.Reason == "" {
		alpha = fmtStat(s.Krippendorff.Alpha)
	}
	items := []string{
		"aggregation: " + s.Aggregation,
		"Fleiss kappa among members: " + fleiss,
		"Krippendorff alpha (nominal) among members: " + alpha,
		"effective independent votes: " + optStat(s.EffectiveVotes, "undefined") + " of " + fmtCount(len(s.Members)),
		"cost per 1k runs (sum of members): " + optUSD(s.Cost.USDPer1k) + ", " + optStat(s.Cost.SecondsPer1k, "unknown") + " s",
	}
	return section{ID: "panel-" + anchorOf(name), Heading: "Panel " + name, Blocks: []block{{Table: &t}, {Items: items}}}
}

func optInt(x *int) string {
	if x == nil {
		return fmtNA("")
	}
	return fmtCount(*x)
}
