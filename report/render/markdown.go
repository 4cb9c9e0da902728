package render

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"

	"github.com/evalcal/evalcal/forecast"
	"github.com/evalcal/evalcal/gates"
	"github.com/evalcal/evalcal/internal/reportenc"
	"github.com/evalcal/evalcal/report"
)

// page is a document laid out once and written by each renderer
// (Markdown, HTML), so that both show the same figures in the same order.
// It holds display strings only: every number was computed upstream and
// is only rounded here, by the precision rule (see fmtStat).
type page struct {
	Title  string
	Banner banner
	// Contents asks the HTML renderer for a table of contents after the
	// banner, so that every section is one click from the top.
	Contents bool
	Sections []section
}

// banner is the top of a page: the answer before the details.
type banner struct {
	// Badge is the verdict in a word or two ("MONITOR"), Level its kind
	// for the HTML style (gate, monitor, explore, insufficient, none) and
	// Meaning what it lets a team do, in one line. All empty for
	// documents without a trust verdict (score, calls).
	Badge, Level, Meaning string
	// Lead is the document in one line (the first Markdown line when
	// there is no badge).
	Lead string
	// Text holds the summary's sentences.
	Text []string
	// AlertTitle heads Alerts: the failed gates, one line each.
	AlertTitle string
	Alerts     []string
	// Why lists the reasons of the verdict.
	Why []string
	// Advice is the priority-1 recommendation in one line.
	Advice string
	// Notes say what the document sets aside or could not read, each
	// pointing at the section that lists it.
	Notes []note
}

// note is a banner note linking to a section (by its ID).
type note struct {
	Text   string
	Anchor string
}

// section is a titled part of a page. ID is its HTML anchor.
type section struct {
	ID      string
	Heading string
	Blocks  []block
}

// block is one of: a paragraph (Text), a bullet list (Items), a table, a
// command to copy (Code), or a figure. Figures are drawn in HTML only;
// every figure's numbers are also in a table.
type block struct {
	Text   string
	Items  []string
	Table  *table
	Code   string
	Figure *figure
	// Terms is the glossary's list (withGlossary).
	Terms []glossaryTerm
}

// table is a simple grid; the first column is a row label.
type table struct {
	Header []string
	Rows   [][]string
	// Plain tables link no glossary term (the glossary's own).
	Plain bool
}

// Numeric reports, per column, whether it holds numbers (every non-empty
// cell starts like one or is "n/a", and one cell at least is not empty),
// so renderers right-align it. The first column is a label.
func (t *table) Numeric() []bool {
	out := make([]bool, len(t.Header))
	for j := 1; j < len(out); j++ {
		filled := false
		out[j] = true
		for _, row := range t.Rows {
			if j >= len(row) || row[j] == "" {
				continue
			}
			filled = true
			if !numericCell.MatchString(row[j]) {
				out[j] = false
				break
			}
		}
		out[j] = out[j] && filled
	}
	return out
}

// numericCell is a cell that reads as a number: "n/a" with or without a
// reason, an interval, or a number (with $, %, x, a "/second" or a note
// after a space: "41.23% (ppi, 47 runs)", "80/75").
var numericCell = regexp.MustCompile(`^(n/a.*|\[.*\]|[-+]?\$?\d[\d.]*(e[-+]\d+)?[%x]?(/\d[\d.]*)?( .*)?)$`)

// figure is an inline SVG chart with its caption.
type figure struct {
	Caption string
	SVG     []byte
	Err     string // why the chart could not be drawn, shown instead
}

// Markdown renders the calibration report as GitHub-flavoured Markdown fit
// for a pull-request comment or a CI step summary. It starts with the
// verdict: the trust level as a badge with its meaning, the summary
// sentence, the failed gates and what the report sets aside. Then come
// the headline figures and the recommendations, the statistics (agreement,
// kappa, leniency, confusion, estimate, scores, light's score as a
// forecast, repeatability, cost), the warnings, and the per-run listings
// last (disagreements, light-only runs, failed inspections, invalid runs,
// runs read only in part), ending with the command line that reproduces
// it. Figures follow the precision rule (see fmtStat); undefined figures
// show "n/a" with the reason. The output is deterministic; it fails only
// on a nil report.
func Markdown(r *report.Report) ([]byte, error) {
	if r == nil {
		return nil, fmt.Errorf("report: markdown: nil report")
	}
	// Rendered from the report as its document says it (the precision
	// rule), so run --format markdown and render of the YAML agree.
	r, err := reportenc.Rounded(r)
	if err != nil {
		return nil, fmt.Errorf("report: markdown: %w", err)
	}
	return writeMarkdown(calibrationPage(r, false)), nil
}

// writeMarkdown writes a page as Markdown.
func writeMarkdown(p page) []byte {
	p = withGlossary(p)
	var b bytes.Buffer
	writeMarkdownBanner(&b, p.Banner)
	fmt.Fprintf(&b, "\n# %s\n", mdText(p.Title))
	for _, s := range p.Sections {
		fmt.Fprintf(&b, "\n## %s\n", mdText(s.Heading))
		for _, bl := range s.Blocks {
			switch {
			case bl.Terms != nil:
				b.WriteString("\n")
				writeMarkdownTable(&b, glossaryTable(bl.Terms))
			case bl.Table != nil:
				b.WriteString("\n")
				writeMarkdownTable(&b, bl.Table)
			case bl.Items != nil:
				b.WriteString("\n")
				for _, it := range bl.Items {
					fmt.Fprintf(&b, "- %s\n", mdText(it))
				}
			case bl.Code != "":
				fence := "```"
				for strings.Contains(bl.Code, fence) {
					fence += "`"
				}
				fmt.Fprintf(&b, "\n%ssh\n%s\n%s\n", fence, bl.Code, fence)
			case bl.Text != "":
				fmt.Fprintf(&b, "\n%s\n", mdLinked(bl.Text))
			}
		}
	}
	return b.Bytes()
}

// writeMarkdownBanner writes the banner: the badge line (or the lead line)
// first, so that the first line of the document is its answer.
func writeMarkdownBanner(b *bytes.Buffer, bn banner) {
	if bn.Badge != "" {
		fmt.Fprintf(b, "**%s** · %s\n", mdText(bn.Badge), mdText(bn.Meaning))
		if bn.Lead != "" {
			fmt.Fprintf(b, "\n%s\n", mdText(bn.Lead))
		}
	} else {
		fmt.Fprintf(b, "**%s**\n", mdText(bn.Lead))
	}
	for _, t := range bn.Text {
		fmt.Fprintf(b, "\n%s\n", mdText(t))
	}
	if len(bn.Alerts) > 0 {
		fmt.Fprintf(b, "\n**%s**\n\n", mdText(bn.AlertTitle))
		for _, a := range bn.Alerts {
			fmt.Fprintf(b, "- %s\n", mdText(a))
		}
	}
	if len(bn.Why) > 0 {
		b.WriteString("\nWhy:\n\n")
		for _, w := range bn.Why {
			fmt.Fprintf(b, "- %s\n", mdText(w))
		}
	}
	if bn.Advice != "" {
		fmt.Fprintf(b, "\n**Do first:** %s\n", mdText(bn.Advice))
	}
	if len(bn.Notes) > 0 {
		var parts []string
		for _, n := range bn.Notes {
			parts = append(parts, n.Text)
		}
		fmt.Fprintf(b, "\n%s\n", mdText(notesLead+strings.Join(parts, " · ")+notesTail))
	}
}

// notesLead and notesTail frame the banner's notes.
const (
	notesLead = "Set aside or incomplete: "
	notesTail = " (each listed below)."
)

// writeMarkdownTable writes a table; glossary terms in its header and row
// labels link to the glossary (unless the table is Plain).
func writeMarkdownTable(b *bytes.Buffer, t *table) {
	cells := func(row []string, header bool) {
		b.WriteString("|")
		for j, c := range row {
			if c != "" && !t.Plain && (header || j == 0) {
				b.WriteString(" " + mdLinked(c) + " |")
				continue
			}
			b.WriteString(" " + mdCell(c) + " |")
		}
		b.WriteString("\n")
	}
	cells(t.Header, true)
	b.WriteString("|")
	for _, n := range t.Numeric() {
		if n {
			b.WriteString(" ---: |")
		} else {
			b.WriteString(" --- |")
		}
	}
	b.WriteString("\n")
	for _, r := range t.Rows {
		cells(r, false)
	}
}

// mdEscaper escapes the characters that would turn report text (run ids,
// flag descriptions, inspector reasons) into Markdown or HTML markup:
// emphasis, code, links and table cell breaks. Underscores are left alone
// (GitHub does not emphasise inside words) except at a word's edge, and
// <, > and & only where they could start markup, see mdText.
var mdEscaper = strings.NewReplacer(
	`\`, `\\`, "`", "\\`", "*", `\*`, "](", `]\(`, "|", `\|`,
	"\r\n", " ", "\n", " ", "\r", " ",
)

// mdText escapes s for a Markdown line; see mdEscaper. A '<' is escaped
// (a CommonMark backslash escape, "\<") only before a letter, '/', '!' or
// '?', where it could open raw HTML or an autolink; an '&' only where it
// starts an entity ("&amp;", "&#60;"); a '>' only first, where
// it would open a block quote. So "p < 0.05" and "fail < partial < pass"
// read as written in the Markdown source too, never "&lt;" (issue 28).
func mdText(s string) string {
	s = mdEscaper.Replace(s)
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		next := byte(0)
		if i+1 < len(s) {
			next = s[i+1]
		}
		switch c := s[i]; {
		case c == '_' && (i == 0 || i == len(s)-1 || !isWordByte(s[i-1]) || !isWordByte(next)):
			b.WriteByte('\\')
		case c == '#' && i == 0, c == '>' && i == 0:
			b.WriteByte('\\')
		case c == '<' && (isLetter(next) || next == '/' || next == '!' || next == '?'):
			b.WriteByte('\\')
		case c == '&' && entityAt(s[i+1:]):
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// entityAt reports whether s (what follows an '&') reads as the rest of
// an HTML entity: a name or '#' and digits, then ';' (at most 32 bytes).
func entityAt(s string) bool {
	for i := 0; i < len(s) && i < 32; i++ {
		c := s[i]
		switch {
		case c == ';':
			return i > 0
		case isLetter(c) || c >= '0' && c <= '9' || c == '#' && i == 0:
		default:
			return false
		}
	}
	return false
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

// mdCell is mdText for a table cell; an empty cell shows a dash.
func mdCell(s string) string {
	if s == "" {
		return "–"
	}
	return mdText(s)
}

func drawFigure(caption string, draw func() ([]byte, error)) *figure {
	svg, err := draw()
	if err != nil {
		return &figure{Caption: caption, Err: err.Error()}
	}
	return &figure{Caption: caption, SVG: svg}
}

// reliabilityTable lists the bins of a reliability table, with the hits
// column when the document holds hits; an empty bin shows "n/a" and its
// reason instead of a rate (never 0).
func reliabilityTable(b report.BinnedMurphy, hits bool) *table {
	t := &table{Header: []string{"bin (" + string(b.Method) + ")", "count", "hits", "mean forecast", "observed rate", "Wilson 95%"}}
	for _, bin := range b.Table {
		row := []string{fmtStat(bin.Lower) + "–" + fmtStat(bin.Upper), fmtCount(bin.Count), fmtCount(bin.Hits), "n/a", "n/a", fmtNA(firstNonEmpty(bin.Reason, "empty bin"))}
		if bin.Count > 0 && bin.MeanForecast != nil && bin.ObservedRate != nil && bin.RateCI95 != nil {
			row[3], row[4], row[5] = fmtStat(*bin.MeanForecast), fmtStat(*bin.ObservedRate), fmtStatCI(*bin.RateCI95)
		}
		if !hits {
			row = append(row[:2], row[3:]...)
		}
		t.Rows = append(t.Rows, row)
	}
	if !hits {
		t.Header = append(t.Header[:2], t.Header[3:]...)
	}
	return t
}

func warningSection(ws []string) section {
	s := section{ID: "warnings", Heading: "Warnings"}
	if len(ws) == 0 {
		s.Blocks = append(s.Blocks, block{Text: "None."})
		return s
	}
	var items []string
	for _, w := range ws {
		items = append(items, readerWords(w))
	}
	s.Blocks = append(s.Blocks, block{Items: items})
	return s
}

// yamlPathWords says, in a reader's words, where a report's YAML path is
// shown in the Markdown and HTML documents: a warning saying "see
// sample.runs[].warnings" means the section listing them.
var yamlPathWords = []struct{ path, words string }{
	{"; see sample.runs[].warnings", ` (listed below under "` + headingReadInPart + `")`},
	{"see sample.runs[].warnings", `listed below under "` + headingReadInPart + `"`},
	{"sample.runs[].warnings", `"` + headingReadInPart + `" below`},
	{"listed under failures", `listed below under "` + headingFailures + `"`},
	{"sample.invalid", `"` + headingInvalid + `" below`},
	{"sample.rejected", `"` + headingRejected + `" below`},
	{"light_only", `"` + headingLightOnly + `" below`},
}

// readerWords rewrites the YAML paths a report's text may name into the
// sections that show them here.
func readerWords(s string) string {
	for _, w := range yamlPathWords {
		s = strings.ReplaceAll(s, w.path, w.words)
	}
	return s
}

func listOrNone(ids []string) string {
	if len(ids) == 0 {
		return "none"
	}
	return strings.Join(ids, ", ")
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

// trendSection lays out a Trend: each figure before and now, the
// difference with its 95% interval and whether it is distinguishable from
// noise, then the runs present on one side only.
func trendSection(t report.Trend) section {
	s := section{ID: "trend", Heading: "Trend against the baseline"}
	s.Blocks = append(s.Blocks, block{Text: fmt.Sprintf("Baseline: %s, %d runs, content %s.", t.Baseline.GeneratedBy, t.Baseline.SampleSize, t.Baseline.ContentHash)})
	if len(t.Judges) > 0 {
		s.Blocks = append(s.Blocks, block{Text: "The judge changed since the baseline, so the figures compare two judges:"}, block{Items: t.Judges})
	}
	if now, before := len(t.RunsOnlyNow), len(t.RunsOnlyBefore); now > 0 || before > 0 {
		s.Blocks = append(s.Blocks, block{Text: fmt.Sprintf("Caution: the baseline compared other runs (%s only now, %s only before): "+
			"\"distinguishable\" says a figure differs, which other runs alone can cause; it does not say light changed.",
			plural(now, "run", "runs"), plural(before, "run", "runs"))})
	}
	tb := table{Header: []string{"figure", "before", "now", "difference", "95% interval", "distinguishable", "method"}}
	for _, c := range []struct {
		name   string
		ch     report.Change
		format func(float64) string
	}{
		{"agreement (percent, points)", t.Agreement, fmtScore}, {"kappa linear", t.KappaLinear, fmtStat},
		{"mean delta runtime_fidelity (points)", t.MeanDelta.RuntimeFidelity, fmtScore},
		{"mean delta task_effectiveness (points)", t.MeanDelta.TaskEffectiveness, fmtScore},
		{"correlation runtime_fidelity", t.Correlation.RuntimeFidelity, fmtStat}, {"correlation task_effectiveness", t.Correlation.TaskEffectiveness, fmtStat},
		{"Brier (light as forecast)", t.Brier, fmtStat}, {"calibration (light as forecast, 0-100)", t.Calibration, fmtScore},
	} {
		tb.Rows = append(tb.Rows, changeRow(c.name, c.ch, c.format))
	}
	s.Blocks = append(s.Blocks, block{Table: &tb}, block{Items: []string{
		"runs only now: " + listOrNone(t.RunsOnlyNow),
		"runs only before: " + listOrNone(t.RunsOnlyBefore),
	}})
	return s
}

// changeRow is one figure's row of a trend table: before, now, the
// difference, its interval (or the reason there is none), whether it is
// distinguishable from noise, and the method.
func changeRow(name string, ch report.Change, format func(float64) string) []string {
	opt := func(x *float64) string {
		if x == nil {
			return "n/a"
		}
		return format(*x)
	}
	ci, dist := fmtNA(ch.Reason), "no"
	if ch.CI95 != nil {
		ci = "[" + format(ch.CI95.Lower) + ", " + format(ch.CI95.Upper) + "]"
	}
	if ch.Distinguishable {
		dist = "yes"
	}
	return []string{name, opt(ch.Before), opt(ch.Now), opt(ch.Difference), ci, dist, ch.Method}
}

// scoreTrendSection lays out a score document's trend: per group the
// Brier and calibration changes, then the groups on one side only.
func scoreTrendSection(t forecast.ScoreTrend) section {
	s := section{ID: "trend", Heading: "Trend against the baseline"}
	var base []string
	for _, in := range t.Baseline {
		base = append(base, in.Path+" (sha256 "+in.SHA256+")")
	}
	s.Blocks = append(s.Blocks, block{Text: "Baseline: " + listOrNone(base) + "."})
	tb := table{Header: []string{"group / figure", "before", "now", "difference", "95% interval", "distinguishable", "method"}}
	for _, g := range t.Groups {
		tb.Rows = append(tb.Rows, changeRow(g.Key+" Brier", g.Brier, fmtStat), changeRow(g.Key+" calibration (0-100)", g.Calibration, fmtScore))
	}
	s.Blocks = append(s.Blocks, block{Table: &tb}, block{Items: []string{
		"groups only now: " + listOrNone(t.GroupsOnlyNow),
		"groups only before: " + listOrNone(t.GroupsOnlyBefore),
	}})
	return s
}

// compositeSection lays out the composite score per agent and season:
// each term's value, given weight and the weight it carries once the
// unmeasured terms' weights are spread.
func compositeSection(cs []forecast.GroupComposite) section {
	t := table{Header: []string{"agent", "season", "composite", "terms (value x effective weight)"}}
	for _, c := range cs {
		var terms []string
		for _, term := range c.Terms {
			terms = append(terms, compositeTermText(term))
		}
		t.Rows = append(t.Rows, []string{c.Agent, c.Season, optStat(c.Score, c.Reason), strings.Join(terms, "; ")})
	}
	return section{ID: "composite", Heading: "Composite score", Blocks: []block{{Table: &t}}}
}

// gatesSection lays out gate results: one row per gate and value, each
// value in its field's precision class.
func gatesSection(rs []gates.Result) section {
	s := section{ID: "gates", Heading: "Gates"}
	if len(rs) == 0 {
		s.Blocks = append(s.Blocks, block{Text: "No gates were requested."})
		return s
	}
	failed := len(gates.Failed(rs))
	s.Blocks = append(s.Blocks, block{Text: fmt.Sprintf("%d of %d gates passed, %d failed.", len(rs)-failed, len(rs), failed)})
	t := table{Header: []string{"gate", "compared field", "value", "result", "message"}}
	for _, r := range rs {
		t.Rows = append(t.Rows, []string{r.Expr, r.Field, gateValue(r), map[bool]string{true: "pass", false: "FAIL"}[r.Pass], r.Message})
	}
	s.Blocks = append(s.Blocks, block{Table: &t})
	return s
}

// gateValue is the value a gate compared, in its field's class, or its
// word, or "n/a" when the value was missing.
func gateValue(r gates.Result) string {
	switch {
	case r.Value != nil:
		return fieldClass(r.Field)(*r.Value)
	case r.Text != "":
		return r.Text
	}
	return "n/a"
}

// gateAlerts puts the failed gates into the banner, one line a gate: the
// expression and the value it saw (or why it had none); a gate on a score
// or calls document names each group it failed on, in one line, never
// one line a group without the group (issue 28).
func gateAlerts(bn *banner, rs []gates.Result) {
	failed := gates.FailedByExpr(rs)
	if len(failed) == 0 {
		return
	}
	total := map[string]bool{}
	for _, r := range rs {
		total[r.Expr] = true
	}
	bn.AlertTitle = fmt.Sprintf("GATES FAILED: %d of %d", len(failed), len(total))
	for _, f := range failed {
		groups := f.Groups()
		if len(groups) == 0 {
			bn.Alerts = append(bn.Alerts, f.Expr+": "+gateWhy(f.Results[0]))
			continue
		}
		parts := make([]string, len(f.Results))
		for i, g := range f.Results {
			parts[i] = gates.GroupOf(g.Field) + " (" + gateSeen(g) + ")"
		}
		bn.Alerts = append(bn.Alerts, fmt.Sprintf("%s fails on %d of %s: %s", f.Expr, len(f.Results),
			plural(groupCount(rs, f.Expr), "group", "groups"), strings.Join(parts, ", ")))
	}
}

// groupCount is the number of results of the gate expr (one a group).
func groupCount(rs []gates.Result, expr string) int {
	n := 0
	for _, r := range rs {
		if r.Expr == expr {
			n++
		}
	}
	return n
}

// gateWhy is what a failed gate saw: "the value is 45.35", or why it had
// none.
func gateWhy(g gates.Result) string {
	if v := gateValue(g); v != "n/a" {
		return "the value is " + v
	}
	return gateSeen(g)
}

// gateSeen is a failed gate's value ("1.50"), or "n/a: why".
func gateSeen(g gates.Result) string {
	if v := gateValue(g); v != "n/a" {
		return v
	}
	if _, why, ok := strings.Cut(g.Message, ": fail: "); ok {
		if _, rest, ok := strings.Cut(why, " is not available: "); ok {
			return "n/a: " + rest
		}
		return why
	}
	return "no value"
}

// compositeTermText is one composite term as "term value x effective
// (weight w)", or "term unmeasured (weight w spread)".
func compositeTermText(t forecast.CompositeTerm) string {
	if t.Value == nil {
		return fmt.Sprintf("%s unmeasured (weight %s spread)", t.Term, fmtStat(t.Weight))
	}
	return fmt.Sprintf("%s %s x %s (weight %s)", t.Term, fmtStat(*t.Value), fmtStat(t.Effective), fmtStat(t.Weight))
}

// plural writes "1 warning" or "3 warnings".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmtCount(n) + " " + many
}

// anchorOf makes an HTML id from a free-form key: letters, digits and
// hyphens; anything else becomes a hyphen.
func anchorOf(s string) string {
	var b strings.Builder
	for _, c := range strings.ToLower(s) {
		if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' {
			b.WriteRune(c)
		} else {
			b.WriteByte('-')
		}
	}
	return b.String()
}
