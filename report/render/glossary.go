package render

import (
	"html/template"
	"strings"
)

// glossaryTerm is a statistic a team lead may not know, with one line in
// plain words. Match holds the spellings the pages use for it (labels,
// headers, sentences); a page's glossary lists the terms it uses, and
// each use links to its line (issue 28).
type glossaryTerm struct {
	ID    string
	Term  string
	Match []string
	Words string
}

// glossary is every term, in the order the glossary section lists them
// (roughly the order a calibration report uses them).
var glossary = []glossaryTerm{
	{"wilson", "Wilson 95% interval", []string{"Wilson 95%", "Wilson interval", "Wilson"},
		"the range the true rate lies in, 95 times in 100; unlike the textbook interval it stays sensible near 0% and 100% and on few runs."},
	{"simultaneous", "simultaneous 95%", []string{"simultaneous 95%"},
		"intervals that hold for every tested slice at once (every system, or every value of a --by field, with at least 10 paired runs): 95% that all of them cover their true rate, so each is wider than that slice's own interval."},
	{"design-effect", "design effect", []string{"design effect", "clustered by"},
		"how much runs of one cluster (a system, or the --cluster field) resemble each other: the agreement's variance is this many times what independent runs would give (1 means no clustering)."},
	{"kappa", "Cohen's kappa", []string{"Cohen's kappa", "linear kappa", "kappa"},
		"agreement beyond what chance alone would give: 0 is chance, 1 is perfect; the linear and quadratic versions count partial against pass as a near miss, not a full miss."},
	{"pabak", "PABAK", []string{"PABAK"},
		"prevalence- and bias-adjusted kappa: kappa as if pass and fail were equally common and both sides passed equally often; a large gap to kappa means a lopsided sample pulls kappa down."},
	{"mcnemar", "McNemar test", []string{"McNemar"},
		"tests whether light errs more one way than the other (passing runs deep fails against the reverse); p under 0.05 says the imbalance is unlikely to be chance."},
	{"p-value", "p", []string{"p-value", "Holm p", "Holm-adjusted"},
		"the chance of a difference at least this large if there were none: under 0.05 is the usual bar for 'not chance'; Holm-adjusted p corrects for running several tests at once."},
	{"pearson", "Pearson r", []string{"Pearson r"},
		"how closely light's and deep's scores follow a straight line, -1 to 1; a high r can hide a constant offset."},
	{"spearman", "Spearman rho", []string{"Spearman rho"},
		"whether light ranks runs in deep's order, -1 to 1, whatever the scale."},
	{"ccc", "Lin's CCC", []string{"Lin's CCC", "CCC"},
		"concordance correlation: how close the score pairs lie to the line light = deep (1 is on it); unlike Pearson r it drops when light is offset or stretched."},
	{"bland-altman", "Bland-Altman", []string{"Bland-Altman", "limit of agreement", "limits of agreement"},
		"deep minus light per run against their mean: the bias is the average difference, and 95% of single runs differ by no more than the limits of agreement."},
	{"brier", "Brier score", []string{"Brier score", "Brier"},
		"mean squared error of a probability forecast: 0 is perfect, 0.25 is what always saying 50% scores."},
	{"bss", "BSS", []string{"BSS"},
		"Brier skill score: the improvement over always forecasting the base rate; 0 is no skill, 1 perfect."},
	{"murphy", "Murphy reliability, resolution, uncertainty", []string{"Murphy"},
		"the Brier score split into reliability (how far stated probabilities are from what happens; lower is better), resolution (how well forecasts separate outcomes; higher is better) and uncertainty (set by the data)."},
	{"corp", "CORP MCB, DSC, UNC", []string{"MCB", "DSC", "UNC", "CORP"},
		"the Brier score as miscalibration (MCB: probabilities systematically off, 0 is calibrated) minus discrimination (DSC: separating passes from fails, higher is better) plus uncertainty (UNC: the data's own)."},
	{"calibration-score", "calibration (0-100)", []string{"calibration (0-100)"},
		"how well stated probabilities come true at those rates, on 0-100: 100 is perfectly calibrated."},
	{"base-rate", "base rate", []string{"base rate"},
		"the share of runs deep passes; near 0% or 100%, raw agreement is easy and kappa is harsh."},
	{"ac1", "Gwet's AC1", []string{"Gwet's AC1", "AC1"},
		"chance-corrected agreement that, unlike kappa, is not dragged down when one verdict dominates."},
	{"alpha", "Krippendorff's alpha", []string{"Krippendorff's alpha", "Krippendorff alpha"},
		"chance-corrected agreement that allows missing verdicts; the ordinal version treats partial as between fail and pass."},
	{"class-wise", "sensitivity, specificity, balanced accuracy", []string{"sensitivity", "specificity", "balanced accuracy"},
		"the share of deep's passes light passes too, the share of deep's non-passes light does not pass, and their average."},
	{"ppi", "PPI (prediction-powered inference)", []string{"stratified_ppi", "ppi_calibrated", "ppi", "PPI", "lambda"},
		"estimates deep's figure over all runs from light on every run plus deep on a subset, correcting light's bias with the subset; lambda 1 uses light at full weight, 0 ignores it."},
	{"ipw", "IPW", []string{"IPW", "ipw"},
		"inverse probability weighting: each deep-inspected run counts in proportion to how unlikely it was to be chosen."},
	{"rogan-gladen", "Rogan-Gladen", []string{"Rogan-Gladen", "rogan_gladen"},
		"corrects a pass rate measured by an imperfect judge with that judge's sensitivity and specificity."},
	{"effective-n", "effective n", []string{"effective n", "effective independent votes"},
		"how many independent deep inspections (or votes) the figure is worth."},
	{"flip-rate", "flip rate", []string{"flip rate"},
		"the share of runs whose repeated inspections did not all give the same verdict."},
}

// termAt returns the glossary term whose spelling starts s[i:] as a whole
// word, and the spelling's length; nil when none does. Longer spellings
// win ("linear kappa" over "kappa").
func termAt(s string, i int) (*glossaryTerm, int) {
	if i > 0 && isWordByte(s[i-1]) {
		return nil, 0
	}
	var best *glossaryTerm
	n := 0
	for k := range glossary {
		for _, m := range glossary[k].Match {
			if len(m) > n && strings.HasPrefix(s[i:], m) && (i+len(m) == len(s) || !isWordByte(s[i+len(m)]) || !isWordByte(m[len(m)-1])) {
				best, n = &glossary[k], len(m)
			}
		}
	}
	return best, n
}

// linkTerms writes s with every glossary term in it linked: the plain
// parts through esc, each term through link.
func linkTerms(s string, esc func(string) string, link func(t *glossaryTerm, text string) string) string {
	var b strings.Builder
	last := 0
	for i := 0; i < len(s); i++ {
		t, n := termAt(s, i)
		if t == nil {
			continue
		}
		b.WriteString(esc(s[last:i]))
		b.WriteString(link(t, s[i:i+n]))
		i += n - 1
		last = i + 1
	}
	b.WriteString(esc(s[last:]))
	return b.String()
}

// mdLinked is mdText with each glossary term linked to the glossary.
func mdLinked(s string) string {
	return linkTerms(s, mdText, func(_ *glossaryTerm, text string) string {
		return "[" + mdText(text) + "](#" + glossaryID + ")"
	})
}

// htmlLinked escapes s for HTML with each glossary term linked to its
// line, its plain words as the link's title (shown on hover).
func htmlLinked(s string) template.HTML {
	return template.HTML(linkTerms(s, template.HTMLEscapeString, func(t *glossaryTerm, text string) string {
		return `<a class="term" href="#` + glossaryID + "-" + t.ID + `" title="` + template.HTMLEscapeString(t.Words) + `">` +
			template.HTMLEscapeString(text) + "</a>"
	}))
}

// glossaryID is the glossary section's anchor.
const glossaryID = "glossary"

// withGlossary adds the glossary section to a page that uses a glossary
// term in a heading, a table's header or row labels, or a paragraph: the
// terms it uses, in glossary order, each with its line.
func withGlossary(p page) page {
	used := map[string]bool{}
	scan := func(s string) {
		for i := 0; i < len(s); i++ {
			if t, n := termAt(s, i); t != nil {
				used[t.ID] = true
				i += n - 1
			}
		}
	}
	for _, s := range p.Sections {
		scan(s.Heading)
		for _, bl := range s.Blocks {
			scan(bl.Text)
			if bl.Table != nil {
				for _, h := range bl.Table.Header {
					scan(h)
				}
				for _, r := range bl.Table.Rows {
					if len(r) > 0 {
						scan(r[0])
					}
				}
			}
		}
	}
	if len(used) == 0 {
		return p
	}
	var terms []glossaryTerm
	for _, t := range glossary {
		if used[t.ID] {
			terms = append(terms, t)
		}
	}
	p.Sections = append(p.Sections, section{ID: glossaryID, Heading: "Glossary", Blocks: []block{
		{Text: "What the statistics in this report mean, in plain words."},
		{Terms: terms},
	}})
	return p
}

// glossaryTable is the glossary as a table: term and plain words.
func glossaryTable(terms []glossaryTerm) *table {
	t := &table{Header: []string{"term", "in plain words"}, Plain: true}
	for _, g := range terms {
		t.Rows = append(t.Rows, []string{g.Term, g.Words})
	}
	return t
}
