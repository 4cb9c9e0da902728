package report

import (
	"bytes"
	"fmt"
	"math"
	"regexp"
	"strings"

	"github.com/evalcal/evalcal/forecast"
	"github.com/evalcal/evalcal/gates"
	"github.com/evalcal/evalcal/statistician"
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
}

// table is a simple grid; the first column is a row label.
type table struct {
	Header []string
	Rows   [][]string
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
func Markdown(r *Report) ([]byte, error) {
	if r == nil {
		return nil, fmt.Errorf("report: markdown: nil report")
	}
	// Rendered from the report as its document says it (the precision
	// rule), so run --format markdown and render of the YAML agree.
	r, err := Rounded(r)
	if err != nil {
		return nil, fmt.Errorf("report: markdown: %w", err)
	}
	return writeMarkdown(calibrationPage(r, false)), nil
}

// writeMarkdown writes a page as Markdown.
func writeMarkdown(p page) []byte {
	var b bytes.Buffer
	writeMarkdownBanner(&b, p.Banner)
	fmt.Fprintf(&b, "\n# %s\n", mdText(p.Title))
	for _, s := range p.Sections {
		fmt.Fprintf(&b, "\n## %s\n", mdText(s.Heading))
		for _, bl := range s.Blocks {
			switch {
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
				fmt.Fprintf(&b, "\n%s\n", mdText(bl.Text))
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

func writeMarkdownTable(b *bytes.Buffer, t *table) {
	cells := func(row []string) {
		b.WriteString("|")
		for _, c := range row {
			b.WriteString(" " + mdCell(c) + " |")
		}
		b.WriteString("\n")
	}
	cells(t.Header)
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
		cells(r)
	}
}

// mdEscaper escapes the characters that would turn report text (run ids,
// flag descriptions, inspector reasons) into Markdown or HTML markup:
// emphasis, code, raw HTML, links and table cell breaks. Underscores are
// left alone (GitHub does not emphasise inside words) except at a word's
// edge, see mdText.
var mdEscaper = strings.NewReplacer(
	`\`, `\\`, "`", "\\`", "*", `\*`, "](", `]\(`,
	"<", "&lt;", ">", "&gt;", "&", "&amp;", "|", `\|`,
	"\r\n", " ", "\n", " ", "\r", " ",
)

// mdText escapes s for a Markdown line; see mdEscaper.
func mdText(s string) string {
	s = mdEscaper.Replace(s)
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '_' && (i == 0 || i == len(s)-1 || !isWordByte(s[i-1]) || !isWordByte(s[i+1])) {
			b.WriteByte('\\')
		}
		if s[i] == '#' && i == 0 {
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

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
func reliabilityTable(b statistician.BinnedMurphy, hits bool) *table {
	t := &table{Header: []string{"bin (" + string(b.Method) + ")", "count", "hits", "mean forecast", "observed rate", "Wilson 95%"}}
	for _, bin := range b.Table {
		row := []string{fmtStat(bin.Lower) + "–" + fmtStat(bin.Upper), fmtCount(bin.Count), fmtCount(bin.Hits), "n/a", "n/a", fmtNA(firstNonEmpty(bin.Reason, "empty bin"))}
		if bin.Count > 0 {
			row[3], row[4], row[5] = fmtStat(bin.MeanForecast), fmtStat(bin.ObservedRate), fmtStatCI(bin.RateCI95)
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

// ScoreMarkdown renders an evalcal score document as Markdown: a first
// line naming the groups and the weakest calibration, the failed gates, a
// table of every group (Brier, calibration, base rate, Brier skill with
// its bootstrap interval, label), then per group its Murphy and CORP terms
// and its reliability table. Figures follow the precision rule; a null
// figure shows "n/a" and its reason. It fails only on a nil document.
func ScoreMarkdown(doc *forecast.ScoreReport) ([]byte, error) {
	if doc == nil {
		return nil, fmt.Errorf("report: score markdown: nil document")
	}
	return writeMarkdown(scorePage(doc, false)), nil
}

func scorePage(doc *forecast.ScoreReport, plots bool) page {
	p := page{Title: "evalcal forecast scores by " + doc.Options.By}
	weakest, weakestKey := math.Inf(1), ""
	for _, g := range doc.Groups {
		if g.Calibration != nil && *g.Calibration < weakest {
			weakest, weakestKey = *g.Calibration, g.Key
		}
	}
	lead := fmt.Sprintf("%d group(s) by %s", len(doc.Groups), doc.Options.By)
	if weakestKey != "" {
		lead += fmt.Sprintf(" · lowest calibration %s (%s)", fmtScore(weakest), weakestKey)
	}
	if doc.BadLines.Count > 0 {
		lead += fmt.Sprintf(" · %d bad line(s)", doc.BadLines.Count)
	}
	p.Banner = banner{Lead: lead}
	gateAlerts(&p.Banner, doc.Gates)
	if doc.BadLines.Count > 0 {
		p.Banner.Notes = append(p.Banner.Notes, note{plural(doc.BadLines.Count, "bad line", "bad lines"), "bad-lines"})
	}
	if n := len(doc.Warnings); n > 0 {
		p.Banner.Notes = append(p.Banner.Notes, note{plural(n, "warning", "warnings"), "warnings"})
	}
	t := table{Header: []string{"group", "n", "binary", "ordinal", "Brier", "calibration (0-100)", "base rate", "BSS", "BSS 95%", "label"}}
	for _, g := range doc.Groups {
		ci := fmtNA(g.BSSCIReason)
		if g.BSSCI95 != nil {
			ci = fmtStatCI(*g.BSSCI95)
		}
		t.Rows = append(t.Rows, []string{g.Key, fmtCount(g.N), fmtCount(g.Binary), fmtCount(g.Ordinal),
			optStat(g.Brier, g.BrierReason), optScore(g.Calibration, g.CalibrationReason), optStat(g.BaseRate, ""),
			optStat(g.BSS, g.BSSReason), ci, g.Label})
	}
	p.Sections = append(p.Sections, section{ID: "groups", Heading: "Groups", Blocks: []block{{Table: &t}}})
	if doc.Gates != nil {
		p.Sections = append(p.Sections, gatesSection(doc.Gates))
	}
	if doc.Trend != nil {
		p.Sections = append(p.Sections, scoreTrendSection(*doc.Trend))
	}
	for _, g := range doc.Groups {
		p.Sections = append(p.Sections, scoreGroupSection(g, plots))
	}
	var inputs []string
	for _, in := range doc.Inputs {
		inputs = append(inputs, in.Path+" (sha256 "+in.SHA256+")")
	}
	o := doc.Options
	inputs = append(inputs,
		fmt.Sprintf("options: by %s, min resolved %d, %d %s bins, seed %d, %d resamples", o.By, o.MinResolved, o.Bins, o.Binning, o.Seed, o.Resamples),
		"generated by: "+doc.GeneratedBy+" (schema_version "+fmtCount(doc.SchemaVersion)+")")
	repro := section{ID: "reproducibility", Heading: "Reproducibility", Blocks: []block{{Items: inputs}}}
	if len(doc.CommandLine) > 0 {
		repro.Blocks = append(repro.Blocks, block{Text: "Command line:"}, block{Code: commandLine("score", doc.CommandLine)})
	}
	p.Sections = append(p.Sections, badLineSection(doc.BadLines), warningSection(doc.Warnings), repro)
	return p
}

// learningBlocks lays out a group's learning trend: the verdict, the
// slopes with their intervals, the windows, and (HTML) the terms over time.
func learningBlocks(key string, tr forecast.TrendResult, plots bool) []block {
	verdict := fmt.Sprintf("Learning trend (windows of %d): %s; learning: %t", tr.Window, tr.Verdict, tr.Learning)
	blocks := []block{{Text: verdict}}
	slope := func(name string, s *forecast.Slope) []string {
		if s == nil {
			return []string{name, "n/a", fmtNA("fewer than 3 windows")}
		}
		return []string{name, fmtStat(s.Estimate), fmtStatCI(s.CI95)}
	}
	blocks = append(blocks, block{Table: &table{Header: []string{"slope per window", "estimate", "95% interval"},
		Rows: [][]string{slope("resolution", tr.Resolution), slope("reliability", tr.Reliability)}}})
	wt := table{Header: []string{"window", "n", "from", "to", "Brier", "reliability", "resolution", "uncertainty"}}
	for _, w := range tr.Windows {
		wt.Rows = append(wt.Rows, []string{fmtCount(w.Index), fmtCount(w.N), w.From.Format("2006-01-02 15:04"), w.To.Format("2006-01-02 15:04"),
			fmtStat(w.Brier), fmtStat(w.Reliability), fmtStat(w.Resolution), fmtStat(w.Uncertainty)})
	}
	blocks = append(blocks, block{Table: &wt})
	if plots && len(tr.Windows) > 0 {
		blocks = append(blocks, block{Figure: drawFigure("Murphy terms of "+key+" per window over time: learning is a rising resolution line",
			func() ([]byte, error) { return murphyTrendSVG(key, tr) })})
	}
	return blocks
}

func scoreGroupSection(g forecast.ScoredGroup, plots bool) section {
	s := section{ID: "group-" + anchorOf(g.Key), Heading: "Group: " + g.Key}
	if g.Label != "" {
		label := "Label: " + g.Label
		if g.LabelReason != "" {
			label += ": " + g.LabelReason
		}
		s.Blocks = append(s.Blocks, block{Text: label})
	}
	var rows [][]string
	if g.Murphy != nil {
		m := g.Murphy
		rows = append(rows,
			[]string{"Murphy reliability (exact)", fmtStat(m.Exact.Reliability)},
			[]string{"Murphy resolution (exact)", fmtStat(m.Exact.Resolution)},
			[]string{"Murphy uncertainty", fmtStat(m.Exact.Uncertainty)},
			[]string{"within-bin variance (binned)", fmtStat(m.Binned.WithinBinVariance)},
			[]string{"within-bin covariance (binned)", fmtStat(m.Binned.WithinBinCovariance)})
	} else if g.MurphyReason != "" {
		rows = append(rows, []string{"Murphy decomposition", fmtNA(g.MurphyReason)})
	}
	if g.CORP != nil {
		rows = append(rows, []string{"CORP MCB", fmtStat(g.CORP.MCB)}, []string{"CORP DSC", fmtStat(g.CORP.DSC)}, []string{"CORP UNC", fmtStat(g.CORP.UNC)})
	} else if g.CORPReason != "" {
		rows = append(rows, []string{"CORP decomposition", fmtNA(g.CORPReason)})
	}
	if g.RPS != nil {
		rows = append(rows, []string{"ranked probability score", fmtStat(g.RPS.Mean)}, []string{"RPSS", optStat(g.RPS.RPSS, g.RPS.RPSSReason)})
	}
	if len(rows) > 0 {
		s.Blocks = append(s.Blocks, block{Table: &table{Header: []string{"term", "value"}, Rows: rows}})
	}
	if g.Murphy != nil {
		bins := binsOf(g.Murphy.Binned)
		s.Blocks = append(s.Blocks, block{Table: reliabilityTable(statistician.BinnedMurphy{Method: statistician.Binning(g.Murphy.Binned.Method), Table: bins}, false)})
		if plots {
			s.Blocks = append(s.Blocks, block{Figure: drawFigure("reliability diagram of "+g.Key+": marker area by the bin's forecasts, Wilson 95% bars, empty bins not drawn",
				func() ([]byte, error) { return reliabilitySVG(bins) })})
		}
	}
	if g.Learning != nil {
		s.Blocks = append(s.Blocks, learningBlocks(g.Key, *g.Learning, plots)...)
	} else if g.LearningReason != "" {
		s.Blocks = append(s.Blocks, block{Text: "Learning trend: " + g.LearningReason})
	}
	for _, w := range g.Warnings {
		s.Blocks = append(s.Blocks, block{Text: "Warning: " + w})
	}
	return s
}

// binsOf turns a score document's bins (nullable rates) into reliability
// bins; a bin without a rate becomes an empty bin with its reason.
func binsOf(b forecast.BinnedScores) []statistician.ReliabilityBin {
	out := make([]statistician.ReliabilityBin, 0, len(b.Table))
	for _, bs := range b.Table {
		rb := statistician.ReliabilityBin{Lower: bs.Lower, Upper: bs.Upper, Count: bs.Count, Reason: bs.Reason}
		if bs.MeanForecast == nil || bs.ObservedRate == nil || bs.RateCI95 == nil {
			rb.Count = 0
			rb.Reason = firstNonEmpty(bs.Reason, "empty bin")
		} else {
			rb.MeanForecast, rb.ObservedRate, rb.RateCI95 = *bs.MeanForecast, *bs.ObservedRate, *bs.RateCI95
		}
		out = append(out, rb)
	}
	return out
}

func badLineSection(b forecast.BadLines) section {
	s := section{ID: "bad-lines", Heading: "Bad lines"}
	if b.Count == 0 {
		s.Blocks = append(s.Blocks, block{Text: "None."})
		return s
	}
	s.Blocks = append(s.Blocks, block{Table: badLineTable(b.Lines)})
	if b.Count > len(b.Lines) {
		s.Blocks = append(s.Blocks, block{Text: fmt.Sprintf("%d bad lines in all; the first %d are listed.", b.Count, len(b.Lines))})
	}
	return s
}

func badLineTable(lines []forecast.BadLine) *table {
	t := &table{Header: []string{"file", "line", "field", "error"}}
	for _, l := range lines {
		t.Rows = append(t.Rows, []string{l.File, fmtCount(l.Line), l.Field, l.Error})
	}
	return t
}

// CallsView is what the calls renderers show of an evalcal calls
// document: the as-of time, inputs, per agent-season scores, passports,
// tampered calls and bad lines.
type CallsView struct {
	AsOf      string
	Calls     string
	Prices    string
	Groups    []forecast.GroupScore
	Passports []forecast.Passport
	Tampered  []forecast.CallRef
	Unsealed  int
	BadLines  []forecast.BadLine
	Warnings  []string
	Composite []forecast.GroupComposite
	Gates     []gates.Result
}

// CallsViewOf is the part of a calls document the calls renderers read.
func CallsViewOf(doc *forecast.CallsDocument) CallsView {
	return CallsView{AsOf: doc.AsOf, Calls: doc.Calls, Prices: doc.Prices, Groups: doc.Groups, Passports: doc.Passports,
		Tampered: doc.Tampered, Unsealed: doc.Unsealed, BadLines: doc.BadLines, Warnings: doc.Warnings,
		Composite: doc.Composite, Gates: doc.Gates}
}

// CallsMarkdown renders a calls document as Markdown: a first line with
// the number of resolved calls and the weakest measured calibration, the
// failed gates, a table of agent-season records, passports, tampered
// calls, bad lines and warnings. A null calibration shows "n/a" and its
// reason.
func CallsMarkdown(v CallsView) ([]byte, error) { return writeMarkdown(callsPage(v)), nil }

func callsPage(v CallsView) page {
	p := page{Title: "evalcal trading calls as of " + v.AsOf}
	resolved, weakest, weakestKey := 0, math.Inf(1), ""
	t := table{Header: []string{"agent", "season", "counted", "resolved", "right", "wrong", "pending", "refused", "Brier", "calibration (0-100)"}}
	for _, g := range v.Groups {
		resolved += g.Resolved
		if g.Calibration != nil && *g.Calibration < weakest {
			weakest, weakestKey = *g.Calibration, g.Agent+" "+g.Season
		}
		t.Rows = append(t.Rows, []string{g.Agent, g.Season, fmtCount(g.Counted), fmtCount(g.Resolved), fmtCount(g.Right),
			fmtCount(g.Wrong), fmtCount(g.Pending), fmtCount(g.Refused), optStat(g.Brier, ""), optScore(g.Calibration, g.Reason)})
	}
	lead := fmt.Sprintf("%d resolved call(s) in %d agent-season(s)", resolved, len(v.Groups))
	if weakestKey != "" {
		lead += fmt.Sprintf(" · lowest calibration %s (%s)", fmtScore(weakest), weakestKey)
	}
	if len(v.Tampered) > 0 || v.Unsealed > 0 {
		lead += fmt.Sprintf(" · %d tampered, %d unsealed", len(v.Tampered), v.Unsealed)
	}
	p.Banner = banner{Lead: lead}
	gateAlerts(&p.Banner, v.Gates)
	if n := len(v.BadLines); n > 0 {
		p.Banner.Notes = append(p.Banner.Notes, note{plural(n, "bad line", "bad lines"), "bad-lines"})
	}
	if n := len(v.Warnings); n > 0 {
		p.Banner.Notes = append(p.Banner.Notes, note{plural(n, "warning", "warnings"), "warnings"})
	}
	pt := table{Header: []string{"agent", "resolved", "correct"}}
	for _, ps := range v.Passports {
		pt.Rows = append(pt.Rows, []string{ps.Agent, fmtCount(ps.Resolved), fmtCount(ps.Correct)})
	}
	tt := table{Header: []string{"call", "agent", "file", "line"}}
	for _, c := range v.Tampered {
		tt.Rows = append(tt.Rows, []string{c.ID, c.Agent, c.File, fmtCount(c.Line)})
	}
	bl := forecast.BadLines{Count: len(v.BadLines), Lines: v.BadLines}
	p.Sections = []section{{ID: "agents", Heading: "Agents by season", Blocks: []block{{Table: &t}}}}
	if v.Gates != nil {
		p.Sections = append(p.Sections, gatesSection(v.Gates))
	}
	if v.Composite != nil {
		p.Sections = append(p.Sections, compositeSection(v.Composite))
	}
	p.Sections = append(p.Sections, []section{
		{ID: "passports", Heading: "Passports", Blocks: []block{{Table: &pt}}},
		{ID: "tampered", Heading: "Tampered calls", Blocks: []block{{Table: &tt}, {Text: fmt.Sprintf("%d counted call(s) carry no seal.", v.Unsealed)}}},
		badLineSection(bl),
		warningSection(v.Warnings),
		{ID: "inputs", Heading: "Inputs", Blocks: []block{{Items: []string{"calls: " + v.Calls, "prices: " + v.Prices, "as of: " + v.AsOf}}}},
	}...)
	return p
}

// trendSection lays out a Trend: each figure before and now, the
// difference with its 95% interval and whether it is distinguishable from
// noise, then the runs present on one side only.
func trendSection(t Trend) section {
	s := section{ID: "trend", Heading: "Trend against the baseline"}
	s.Blocks = append(s.Blocks, block{Text: fmt.Sprintf("Baseline: %s, %d runs, content %s.", t.Baseline.GeneratedBy, t.Baseline.SampleSize, t.Baseline.ContentHash)})
	tb := table{Header: []string{"figure", "before", "now", "difference", "95% interval", "distinguishable", "method"}}
	for _, c := range []struct {
		name   string
		ch     Change
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
func changeRow(name string, ch Change, format func(float64) string) []string {
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

// gateAlerts puts the failed gates into the banner, one line each: the
// expression and the value it saw (or why it had none).
func gateAlerts(bn *banner, rs []gates.Result) {
	failed := gates.Failed(rs)
	if len(failed) == 0 {
		return
	}
	bn.AlertTitle = fmt.Sprintf("GATES FAILED: %d of %d", len(failed), len(rs))
	for _, g := range failed {
		line := g.Expr
		if v := gateValue(g); v != "n/a" {
			line += ": the value is " + v
		} else if _, why, ok := strings.Cut(g.Message, ": fail: "); ok {
			line += ": " + why
		} else {
			line += ": no value"
		}
		bn.Alerts = append(bn.Alerts, line)
	}
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
