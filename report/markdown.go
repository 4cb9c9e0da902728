package report

import (
	"bytes"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/evalcal/evalcal/comparator"
	"github.com/evalcal/evalcal/forecast"
	"github.com/evalcal/evalcal/gates"
	"github.com/evalcal/evalcal/statistician"
	"github.com/evalcal/evalcal/statistician/aggregate"
)

// page is a document laid out once and written by each renderer
// (Markdown, HTML), so that both show the same figures in the same order.
// It holds display strings only: every number was computed upstream and
// is only rounded here.
type page struct {
	Title    string
	Verdict  string // the one-line summary, first line of the Markdown
	Sections []section
}

// section is a titled part of a page.
type section struct {
	Heading string
	Blocks  []block
}

// block is one of: a paragraph (Text), a bullet list (Items), a table, or
// a figure. Figures are drawn in HTML only; Markdown shows their caption
// nowhere, since every figure's numbers are also in a table.
type block struct {
	Text   string
	Items  []string
	Table  *table
	Figure *figure
}

// table is a simple grid; the first column is a row label.
type table struct {
	Header []string
	Rows   [][]string
}

// Numeric reports, per column, whether it holds numbers (every non-empty
// cell starts like one), so renderers right-align it. The first column is
// a label.
func (t *table) Numeric() []bool {
	out := make([]bool, len(t.Header))
	for j := 1; j < len(out); j++ {
		out[j] = true
		for _, row := range t.Rows {
			if j < len(row) && row[j] != "" && !strings.ContainsRune("0123456789-+[", rune(row[j][0])) {
				out[j] = false
				break
			}
		}
	}
	return out
}

// figure is an inline SVG chart with its caption.
type figure struct {
	Caption string
	SVG     []byte
	Err     string // why the chart could not be drawn, shown instead
}

// Markdown renders the calibration report as GitHub-flavoured Markdown fit
// for a pull-request comment or a CI step summary. The first line is the
// verdict: agreement with its Wilson 95% interval, confidence and bias.
// Then come a table per score (correlation, mean delta, Bland-Altman,
// CCC), kappa, the verdict confusion matrix, light's score as a forecast,
// the disagreements, recommendations, failures and warnings. Numbers are
// rounded for display only. The output is deterministic; it fails only on
// a nil report.
func Markdown(r *Report) ([]byte, error) {
	if r == nil {
		return nil, fmt.Errorf("report: markdown: nil report")
	}
	return writeMarkdown(calibrationPage(r, false)), nil
}

// writeMarkdown writes a page as Markdown.
func writeMarkdown(p page) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "**%s**\n\n", mdText(p.Verdict))
	fmt.Fprintf(&b, "# %s\n", mdText(p.Title))
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
			case bl.Text != "":
				fmt.Fprintf(&b, "\n%s\n", mdText(bl.Text))
			}
		}
	}
	return b.Bytes()
}

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

// calibrationPage lays out a calibration report. With plots it adds the
// charts (HTML).
func calibrationPage(r *Report, plots bool) page {
	p := page{Title: "evalcal calibration report", Verdict: verdictLine(r)}
	p.Sections = append(p.Sections, summarySection(r))
	if r.Gates != nil {
		p.Sections = append(p.Sections, gatesSection(r.Gates))
	}
	if r.Trend != nil {
		p.Sections = append(p.Sections, trendSection(*r.Trend))
	}
	for _, sc := range []struct {
		name string
		corr aggregate.Correlation
		d    aggregate.ScoreDelta
	}{
		{"runtime_fidelity", r.ScoreCorrelation.RuntimeFidelity, r.MeanScoreDelta.RuntimeFidelity},
		{"task_effectiveness", r.ScoreCorrelation.TaskEffectiveness, r.MeanScoreDelta.TaskEffectiveness},
	} {
		s := scoreSection(sc.name, sc.corr, sc.d)
		if plots {
			s.Blocks = append(s.Blocks,
				block{Figure: drawFigure("light vs deep "+sc.name+", with the identity line (deep = light)", func() ([]byte, error) { return scatterSVG(r.Comparisons, sc.name) })},
				block{Figure: drawFigure("Bland-Altman plot of "+sc.name+": deep - light against the pair's mean, with the bias and the 95% limits of agreement", func() ([]byte, error) { return blandAltmanSVG(r.Comparisons, sc.name, sc.d.BlandAltman) })},
			)
		}
		p.Sections = append(p.Sections, s)
	}
	p.Sections = append(p.Sections, kappaSection(r.Kappa))
	cs := confusionSection(r.Confusion)
	if plots {
		cs.Blocks = append(cs.Blocks, block{Figure: drawFigure("verdict confusion matrix (rows light, columns deep)", func() ([]byte, error) { return confusionSVG(r.Confusion) })})
	}
	p.Sections = append(p.Sections, cs)
	fs := forecastSection(r.Forecast)
	if plots && r.Forecast.Reliability != nil {
		fs.Blocks = append(fs.Blocks, block{Figure: drawFigure("reliability diagram of light's score as a forecast of a deep pass, with Wilson 95% bars per bin", func() ([]byte, error) { return reliabilitySVG(r.Forecast.Reliability.Table) })})
	}
	p.Sections = append(p.Sections, fs,
		disagreementSection(r, !plots),
		recommendationSection(r),
		failureSection(r),
		warningSection(r.Warnings),
		inputsSection(r))
	return p
}

func drawFigure(caption string, draw func() ([]byte, error)) *figure {
	svg, err := draw()
	if err != nil {
		return &figure{Caption: caption, Err: err.Error()}
	}
	return &figure{Caption: caption, SVG: svg}
}

// verdictLine is the report in one line.
func verdictLine(r *Report) string {
	a := r.AgreementRate
	if a.N == 0 {
		return fmt.Sprintf("No runs were compared · confidence %s · bias %s", r.Confidence, r.BiasDirection)
	}
	s := fmt.Sprintf("Light agrees with deep on %s%% of runs (%d/%d, Wilson 95%% %s–%s%%) · confidence %s · bias %s",
		num(a.Value(), 1), a.Matches, a.N, num(a.Interval().Lower, 1), num(a.Interval().Upper, 1), r.Confidence, r.BiasDirection)
	if r.Preliminary {
		s += " · preliminary"
	}
	if r.Partial {
		s += " · partial"
	}
	return s
}

func summarySection(r *Report) section {
	a := r.AgreementRate
	b := r.DisagreementBreakdown
	rows := [][]string{
		{"agreement", pct(a.Value()) + " (" + strconv.Itoa(a.Matches) + "/" + strconv.Itoa(a.N) + ")", interval(a.Interval(), 1, "%")},
		{"confidence", r.Confidence, ""},
		{"preliminary", strconv.FormatBool(r.Preliminary), ""},
		{"bias direction", r.BiasDirection, ""},
		{"sample size", strconv.Itoa(r.SampleSize), ""},
		{"partial (failed inspections)", strconv.FormatBool(r.Partial), strconv.Itoa(len(r.Failures)) + " failed"},
	}
	bd := table{Header: []string{"disagreement type", "runs"}, Rows: [][]string{
		{string(comparator.VerdictSplit), strconv.Itoa(b.VerdictSplit)},
		{string(comparator.FalseNegative), strconv.Itoa(b.FalseNegative)},
		{string(comparator.SeverityMismatch), strconv.Itoa(b.SeverityMismatch)},
		{string(comparator.FalsePositive), strconv.Itoa(b.FalsePositive)},
	}}
	blocks := []block{
		{Table: &table{Header: []string{"figure", "value", "95% interval"}, Rows: rows}},
		{Table: &bd},
	}
	if len(r.AgreementBySystem) > 0 {
		st := table{Header: []string{"system", "agreement", "runs", "95% interval", "simultaneous 95% (all systems)"}}
		for _, sa := range r.AgreementBySystem {
			st.Rows = append(st.Rows, []string{sa.System, pct(sa.Percent), strconv.Itoa(sa.Matches) + "/" + strconv.Itoa(sa.N),
				interval(sa.Wilson95, 1, "%"), interval(sa.Simultaneous, 1, "%")})
		}
		blocks = append(blocks, block{Table: &st})
	}
	return section{Heading: "Summary", Blocks: blocks}
}

func scoreSection(name string, c aggregate.Correlation, d aggregate.ScoreDelta) section {
	var rows [][]string
	switch {
	case c.R != nil:
		ci := ""
		if c.CI95 != nil {
			ci = interval(*c.CI95, 2, "")
		}
		rows = append(rows, []string{"Pearson r", num(*c.R, 3), ci, strconv.Itoa(c.N)})
		if c.Spearman != nil {
			rows = append(rows, []string{"Spearman rho", num(*c.Spearman, 3), "", strconv.Itoa(c.N)})
		}
	default:
		rows = append(rows, []string{"Pearson r", "n/a", firstNonEmpty(c.Insufficient, c.Undefined), strconv.Itoa(c.N)})
	}
	if d.CI95 != nil {
		rows = append(rows, []string{"mean delta (deep - light)", num(d.Mean, 2), interval(*d.CI95, 2, ""), strconv.Itoa(d.N)})
	} else {
		rows = append(rows, []string{"mean delta (deep - light)", num(d.Mean, 2), d.Reason, strconv.Itoa(d.N)})
	}
	rows = append(rows, []string{"direction", d.Direction, "", ""})
	ba := d.BlandAltman
	if ba.Reason == "" {
		rows = append(rows,
			[]string{"Bland-Altman bias", num(ba.Bias, 2), interval(ba.BiasCI, 2, ""), strconv.Itoa(ba.N)},
			[]string{"lower limit of agreement", num(ba.Lower, 2), interval(ba.LowerCI, 2, ""), ""},
			[]string{"upper limit of agreement", num(ba.Upper, 2), interval(ba.UpperCI, 2, ""), ""})
	} else {
		rows = append(rows, []string{"Bland-Altman", "n/a", ba.Reason, strconv.Itoa(ba.N)})
	}
	if d.CCC.Reason == "" {
		rows = append(rows, []string{"Lin's CCC", num(d.CCC.Value, 3), interval(d.CCC.CI95, 3, ""), strconv.Itoa(d.CCC.N)})
	} else {
		rows = append(rows, []string{"Lin's CCC", "n/a", d.CCC.Reason, strconv.Itoa(d.CCC.N)})
	}
	return section{Heading: "Score: " + name, Blocks: []block{{Table: &table{Header: []string{"statistic", "value", "95% interval", "n"}, Rows: rows}}}}
}

func kappaSection(k aggregate.KappaSection) section {
	row := func(name string, v statistician.Kappa) []string {
		if v.Reason != "" {
			return []string{name, "n/a", v.Reason, "", strconv.Itoa(v.N)}
		}
		return []string{name, num(v.Value, 3), interval(v.CI95, 3, ""), num(v.SE, 3), strconv.Itoa(v.N)}
	}
	t := table{Header: []string{"Cohen's kappa", "value", "95% interval", "SE", "n"}, Rows: [][]string{
		row("unweighted", k.Unweighted), row("linear", k.Linear), row("quadratic", k.Quadratic),
	}}
	return section{Heading: "Verdict agreement (kappa)", Blocks: []block{
		{Table: &t},
		{Text: fmt.Sprintf("Raw agreement %s, prevalence- and bias-adjusted kappa (PABAK) %s.", num(k.RawAgreement, 3), num(k.PABAK, 3))},
	}}
}

func confusionSection(c aggregate.Confusion) section {
	header := []string{c.Rows + " \\ " + c.Columns}
	for _, o := range c.Order {
		header = append(header, c.Columns+" "+o)
	}
	var rows [][]string
	for i, o := range c.Order {
		row := []string{c.Rows + " " + o}
		for j := range c.Order {
			v := 0
			if i < len(c.Counts) && j < len(c.Counts[i]) {
				v = c.Counts[i][j]
			}
			row = append(row, strconv.Itoa(v))
		}
		rows = append(rows, row)
	}
	return section{Heading: "Verdict confusion matrix", Blocks: []block{
		{Table: &table{Header: header, Rows: rows}},
		{Items: []string{
			"light pass, deep fail: " + listOrNone(c.LightPassDeepFail),
			"light fail, deep pass: " + listOrNone(c.LightFailDeepPass),
		}},
	}}
}

func forecastSection(f aggregate.Forecast) section {
	s := section{Heading: "Light's score as a forecast of a deep pass"}
	s.Blocks = append(s.Blocks, block{Text: fmt.Sprintf("Forecast p = %s of \"%s\"; %d runs, %d deep passes (base rate %s).",
		f.Probability, f.Of, f.N, f.DeepPasses, num(f.BaseRate, 3))})
	if f.Reason != "" {
		s.Blocks = append(s.Blocks, block{Text: "Not fully scored: " + f.Reason})
	}
	var rows [][]string
	if f.Brier != nil {
		rows = append(rows, []string{"Brier score", num(*f.Brier, 4)})
	}
	if f.Calibration != nil {
		rows = append(rows, []string{"calibration (0-100)", num(*f.Calibration, 1)})
	}
	if f.CORP != nil {
		rows = append(rows,
			[]string{"CORP miscalibration (MCB)", num(f.CORP.MCB, 4)},
			[]string{"CORP discrimination (DSC)", num(f.CORP.DSC, 4)},
			[]string{"CORP uncertainty (UNC)", num(f.CORP.UNC, 4)})
	}
	if len(rows) > 0 {
		s.Blocks = append(s.Blocks, block{Table: &table{Header: []string{"score", "value"}, Rows: rows}})
	}
	if f.Reliability != nil {
		s.Blocks = append(s.Blocks, block{Table: reliabilityTable(*f.Reliability, true)})
	}
	return s
}

// reliabilityTable lists the bins of a reliability table, with the hits
// column when the document holds hits; an empty bin shows its reason
// instead of a rate.
func reliabilityTable(b statistician.BinnedMurphy, hits bool) *table {
	t := &table{Header: []string{"bin (" + string(b.Method) + ")", "count", "hits", "mean forecast", "observed rate", "Wilson 95%"}}
	for _, bin := range b.Table {
		row := []string{num(bin.Lower, 3) + "–" + num(bin.Upper, 3), strconv.Itoa(bin.Count), strconv.Itoa(bin.Hits), "", "", firstNonEmpty(bin.Reason, "empty bin")}
		if bin.Count > 0 {
			row[3], row[4], row[5] = num(bin.MeanForecast, 3), num(bin.ObservedRate, 3), interval(bin.RateCI95, 3, "")
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

// MarkdownDisagreementRows caps the disagreements table of the Markdown
// summary, which must fit a pull-request comment (65,536 characters on
// GitHub); the HTML report and the YAML list them all.
const MarkdownDisagreementRows = 50

func disagreementSection(r *Report, capped bool) section {
	s := section{Heading: "Disagreements"}
	if len(r.Disagreements) == 0 {
		s.Blocks = append(s.Blocks, block{Text: "None: light and deep agree on every run."})
		return s
	}
	t := table{Header: []string{"run", "system", "type", "light", "deep", "light RF/TE", "deep RF/TE", "deep only", "light only", "both"}}
	for i, c := range r.Disagreements {
		if capped && i == MarkdownDisagreementRows {
			break
		}
		typ := ""
		if c.DisagreementType != nil {
			typ = string(*c.DisagreementType)
		}
		t.Rows = append(t.Rows, []string{c.RunID, c.System, typ, c.LightVerdict, c.DeepVerdict,
			num(c.Light.RuntimeFidelity, 0) + "/" + num(c.Light.TaskEffectiveness, 0),
			num(c.Deep.RuntimeFidelity, 0) + "/" + num(c.Deep.TaskEffectiveness, 0),
			strings.Join(c.FlagOverlap.DeepOnly, ", "), strings.Join(c.FlagOverlap.LightOnly, ", "), strings.Join(c.FlagOverlap.Both, ", ")})
	}
	s.Blocks = append(s.Blocks, block{Table: &t})
	if n := len(r.Disagreements) - len(t.Rows); n > 0 {
		s.Blocks = append(s.Blocks, block{Text: fmt.Sprintf("%d more disagreements are listed in the YAML and HTML reports.", n)})
	}
	return s
}

func recommendationSection(r *Report) section {
	s := section{Heading: "Recommendations"}
	if len(r.Recommendations) == 0 {
		s.Blocks = append(s.Blocks, block{Text: "None."})
		return s
	}
	recs := append(r.Recommendations[:0:0], r.Recommendations...)
	sort.SliceStable(recs, func(i, j int) bool { return recs[i].Priority < recs[j].Priority })
	var items []string
	for _, rec := range recs {
		im := rec.ExpectedImpact
		items = append(items, fmt.Sprintf("P%d %s: %s. Change: %s. Expected impact: agreement %s%% → %s%% (+%s points, %d of %d verdicts resolved).",
			rec.Priority, rec.Target, rec.Rationale, rec.ProposedChange,
			num(im.CurrentPercent, 1), num(im.AgreementPercent, 1), num(im.GainPoints, 1), im.VerdictsResolved, im.N))
	}
	s.Blocks = append(s.Blocks, block{Items: items})
	return s
}

func failureSection(r *Report) section {
	s := section{Heading: "Failures"}
	if len(r.Failures) == 0 {
		s.Blocks = append(s.Blocks, block{Text: "None: every inspection succeeded."})
		return s
	}
	t := table{Header: []string{"run", "depth", "attempts", "reason"}}
	for _, f := range r.Failures {
		t.Rows = append(t.Rows, []string{f.RunID, string(f.Depth), strconv.Itoa(f.Attempts), f.Reason})
	}
	s.Blocks = append(s.Blocks, block{Text: "The report is partial: the statistics cover only the runs both depths inspected."}, block{Table: &t})
	return s
}

func warningSection(ws []string) section {
	s := section{Heading: "Warnings"}
	if len(ws) == 0 {
		s.Blocks = append(s.Blocks, block{Text: "None."})
		return s
	}
	s.Blocks = append(s.Blocks, block{Items: append([]string(nil), ws...)})
	return s
}

func inputsSection(r *Report) section {
	in := r.Inputs
	items := []string{
		"generated by: " + r.GeneratedBy + " (schema_version " + strconv.Itoa(r.SchemaVersion) + ")",
		"inspector: " + in.Inspector,
		"seed: " + strconv.FormatUint(in.Seed, 10),
		"content hash: " + in.ContentHash,
		"command line: evalcal " + strings.Join(in.CommandLine, " "),
	}
	if len(in.Paths) > 0 {
		items = append(items, "paths: "+strings.Join(in.Paths, ", "))
	}
	if in.Inspections != "" {
		items = append(items, "inspections: "+in.Inspections)
	}
	return section{Heading: "Reproducibility", Blocks: []block{{Items: items}}}
}

// num formats x with d decimals for display; it never prints "-0".
func num(x float64, d int) string {
	s := strconv.FormatFloat(x, 'f', d, 64)
	if strings.Trim(s, "-0.") == "" {
		s = strings.TrimPrefix(s, "-")
	}
	return s
}

func pct(x float64) string { return num(x, 1) + "%" }

// interval formats [lower, upper] with d decimals and a unit suffix.
func interval(iv statistician.Interval, d int, unit string) string {
	return "[" + num(iv.Lower, d) + unit + ", " + num(iv.Upper, d) + unit + "]"
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
// line naming the groups and the weakest calibration, a table of every
// group (Brier, calibration, base rate, Brier skill with its bootstrap
// interval, label), then per group its Murphy and CORP terms and its
// reliability table. A null figure shows its reason. It fails only on a
// nil document.
func ScoreMarkdown(doc *forecast.ScoreReport) ([]byte, error) {
	if doc == nil {
		return nil, fmt.Errorf("report: score markdown: nil document")
	}
	return writeMarkdown(scorePage(doc, false)), nil
}

// optNum formats a nullable number, or the reason it is null.
func optNum(x *float64, d int, reason string) string {
	if x == nil {
		return firstNonEmpty(reason, "n/a")
	}
	return num(*x, d)
}

func scorePage(doc *forecast.ScoreReport, plots bool) page {
	p := page{Title: "evalcal forecast scores by " + doc.Options.By}
	weakest, weakestKey := math.Inf(1), ""
	for _, g := range doc.Groups {
		if g.Calibration != nil && *g.Calibration < weakest {
			weakest, weakestKey = *g.Calibration, g.Key
		}
	}
	p.Verdict = fmt.Sprintf("%d group(s) by %s", len(doc.Groups), doc.Options.By)
	if weakestKey != "" {
		p.Verdict += fmt.Sprintf(" · lowest calibration %s (%s)", num(weakest, 1), weakestKey)
	}
	if doc.BadLines.Count > 0 {
		p.Verdict += fmt.Sprintf(" · %d bad line(s)", doc.BadLines.Count)
	}
	t := table{Header: []string{"group", "n", "binary", "ordinal", "Brier", "calibration (0-100)", "base rate", "BSS", "BSS 95%", "label"}}
	for _, g := range doc.Groups {
		ci := g.BSSCIReason
		if g.BSSCI95 != nil {
			ci = interval(*g.BSSCI95, 3, "")
		}
		t.Rows = append(t.Rows, []string{g.Key, strconv.Itoa(g.N), strconv.Itoa(g.Binary), strconv.Itoa(g.Ordinal),
			optNum(g.Brier, 4, g.BrierReason), optNum(g.Calibration, 1, g.CalibrationReason), optNum(g.BaseRate, 3, ""),
			optNum(g.BSS, 3, g.BSSReason), ci, g.Label})
	}
	p.Sections = append(p.Sections, section{Heading: "Groups", Blocks: []block{{Table: &t}}})
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
		"generated by: "+doc.GeneratedBy+" (schema_version "+strconv.Itoa(doc.SchemaVersion)+")")
	p.Sections = append(p.Sections, badLineSection(doc.BadLines), warningSection(doc.Warnings),
		section{Heading: "Reproducibility", Blocks: []block{{Items: inputs}}})
	return p
}

// learningBlocks lays out a group's learning trend: the verdict, the
// slopes with their intervals, the windows, and (HTML) the terms over time.
func learningBlocks(key string, tr forecast.TrendResult, plots bool) []block {
	verdict := fmt.Sprintf("Learning trend (windows of %d): %s; learning: %t", tr.Window, tr.Verdict, tr.Learning)
	blocks := []block{{Text: verdict}}
	slope := func(name string, s *forecast.Slope) []string {
		if s == nil {
			return []string{name, "–", "fewer than 3 windows"}
		}
		return []string{name, num(s.Estimate, 5), interval(s.CI95, 5, "")}
	}
	blocks = append(blocks, block{Table: &table{Header: []string{"slope per window", "estimate", "95% interval"},
		Rows: [][]string{slope("resolution", tr.Resolution), slope("reliability", tr.Reliability)}}})
	wt := table{Header: []string{"window", "n", "from", "to", "Brier", "reliability", "resolution", "uncertainty"}}
	for _, w := range tr.Windows {
		wt.Rows = append(wt.Rows, []string{strconv.Itoa(w.Index), strconv.Itoa(w.N), w.From.Format("2006-01-02 15:04"), w.To.Format("2006-01-02 15:04"),
			num(w.Brier, 4), num(w.Reliability, 4), num(w.Resolution, 4), num(w.Uncertainty, 4)})
	}
	blocks = append(blocks, block{Table: &wt})
	if plots && len(tr.Windows) > 0 {
		blocks = append(blocks, block{Figure: drawFigure("Murphy terms of "+key+" per window over time: learning is a rising resolution line",
			func() ([]byte, error) { return murphyTrendSVG(key, tr) })})
	}
	return blocks
}

func scoreGroupSection(g forecast.ScoredGroup, plots bool) section {
	s := section{Heading: "Group: " + g.Key}
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
			[]string{"Murphy reliability (exact)", num(m.Exact.Reliability, 4)},
			[]string{"Murphy resolution (exact)", num(m.Exact.Resolution, 4)},
			[]string{"Murphy uncertainty", num(m.Exact.Uncertainty, 4)},
			[]string{"within-bin variance (binned)", num(m.Binned.WithinBinVariance, 4)},
			[]string{"within-bin covariance (binned)", num(m.Binned.WithinBinCovariance, 4)})
	} else if g.MurphyReason != "" {
		rows = append(rows, []string{"Murphy decomposition", g.MurphyReason})
	}
	if g.CORP != nil {
		rows = append(rows, []string{"CORP MCB", num(g.CORP.MCB, 4)}, []string{"CORP DSC", num(g.CORP.DSC, 4)}, []string{"CORP UNC", num(g.CORP.UNC, 4)})
	} else if g.CORPReason != "" {
		rows = append(rows, []string{"CORP decomposition", g.CORPReason})
	}
	if g.RPS != nil {
		rows = append(rows, []string{"ranked probability score", num(g.RPS.Mean, 4)}, []string{"RPSS", optNum(g.RPS.RPSS, 3, g.RPS.RPSSReason)})
	}
	if len(rows) > 0 {
		s.Blocks = append(s.Blocks, block{Table: &table{Header: []string{"term", "value"}, Rows: rows}})
	}
	if g.Murphy != nil {
		bins := binsOf(g.Murphy.Binned)
		s.Blocks = append(s.Blocks, block{Table: reliabilityTable(statistician.BinnedMurphy{Method: statistician.Binning(g.Murphy.Binned.Method), Table: bins}, false)})
		if plots {
			s.Blocks = append(s.Blocks, block{Figure: drawFigure("reliability diagram of "+g.Key+", with Wilson 95% bars per bin", func() ([]byte, error) { return reliabilitySVG(bins) })})
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
	s := section{Heading: "Bad lines"}
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
		t.Rows = append(t.Rows, []string{l.File, strconv.Itoa(l.Line), l.Field, l.Error})
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

// CallsMarkdown renders a calls document as Markdown: a first line with
// the number of resolved calls and the weakest measured calibration, a
// table of agent-season records, passports, tampered calls, bad lines and
// warnings. A null calibration shows its reason.
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
		t.Rows = append(t.Rows, []string{g.Agent, g.Season, strconv.Itoa(g.Counted), strconv.Itoa(g.Resolved), strconv.Itoa(g.Right),
			strconv.Itoa(g.Wrong), strconv.Itoa(g.Pending), strconv.Itoa(g.Refused), optNum(g.Brier, 4, ""), optNum(g.Calibration, 1, g.Reason)})
	}
	p.Verdict = fmt.Sprintf("%d resolved call(s) in %d agent-season(s)", resolved, len(v.Groups))
	if weakestKey != "" {
		p.Verdict += fmt.Sprintf(" · lowest calibration %s (%s)", num(weakest, 1), weakestKey)
	}
	if len(v.Tampered) > 0 || v.Unsealed > 0 {
		p.Verdict += fmt.Sprintf(" · %d tampered, %d unsealed", len(v.Tampered), v.Unsealed)
	}
	pt := table{Header: []string{"agent", "resolved", "correct"}}
	for _, ps := range v.Passports {
		pt.Rows = append(pt.Rows, []string{ps.Agent, strconv.Itoa(ps.Resolved), strconv.Itoa(ps.Correct)})
	}
	tt := table{Header: []string{"call", "agent", "file", "line"}}
	for _, c := range v.Tampered {
		tt.Rows = append(tt.Rows, []string{c.ID, c.Agent, c.File, strconv.Itoa(c.Line)})
	}
	bl := forecast.BadLines{Count: len(v.BadLines), Lines: v.BadLines}
	p.Sections = []section{{Heading: "Agents by season", Blocks: []block{{Table: &t}}}}
	if v.Gates != nil {
		p.Sections = append(p.Sections, gatesSection(v.Gates))
	}
	if v.Composite != nil {
		p.Sections = append(p.Sections, compositeSection(v.Composite))
	}
	p.Sections = append(p.Sections, []section{
		{Heading: "Passports", Blocks: []block{{Table: &pt}}},
		{Heading: "Tampered calls", Blocks: []block{{Table: &tt}, {Text: fmt.Sprintf("%d counted call(s) carry no seal.", v.Unsealed)}}},
		badLineSection(bl),
		warningSection(v.Warnings),
		{Heading: "Inputs", Blocks: []block{{Items: []string{"calls: " + v.Calls, "prices: " + v.Prices, "as of: " + v.AsOf}}}},
	}...)
	return p
}

// trendSection lays out a Trend: each figure before and now, the
// difference with its 95% interval and whether it is distinguishable from
// noise, then the runs present on one side only.
func trendSection(t Trend) section {
	s := section{Heading: "Trend against the baseline"}
	s.Blocks = append(s.Blocks, block{Text: fmt.Sprintf("Baseline: %s, %d runs, content %s.", t.Baseline.GeneratedBy, t.Baseline.SampleSize, t.Baseline.ContentHash)})
	tb := table{Header: []string{"figure", "before", "now", "difference", "95% interval", "distinguishable", "method"}}
	for _, c := range []struct {
		name string
		ch   Change
		d    int
	}{
		{"agreement (points)", t.Agreement, 1}, {"kappa linear", t.KappaLinear, 3},
		{"mean delta runtime_fidelity", t.MeanDelta.RuntimeFidelity, 2}, {"mean delta task_effectiveness", t.MeanDelta.TaskEffectiveness, 2},
		{"correlation runtime_fidelity", t.Correlation.RuntimeFidelity, 3}, {"correlation task_effectiveness", t.Correlation.TaskEffectiveness, 3},
		{"Brier (light as forecast)", t.Brier, 4}, {"calibration (light as forecast)", t.Calibration, 1},
	} {
		tb.Rows = append(tb.Rows, changeRow(c.name, c.ch, c.d))
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
func changeRow(name string, ch Change, digits int) []string {
	ci, dist := ch.Reason, "no"
	if ch.CI95 != nil {
		ci = interval(*ch.CI95, digits, "")
	}
	if ch.Distinguishable {
		dist = "yes"
	}
	return []string{name, optNum(ch.Before, digits, ""), optNum(ch.Now, digits, ""), optNum(ch.Difference, digits, ""), ci, dist, ch.Method}
}

// scoreTrendSection lays out a score document's trend: per group the
// Brier and calibration changes, then the groups on one side only.
func scoreTrendSection(t forecast.ScoreTrend) section {
	s := section{Heading: "Trend against the baseline"}
	var base []string
	for _, in := range t.Baseline {
		base = append(base, in.Path+" (sha256 "+in.SHA256+")")
	}
	s.Blocks = append(s.Blocks, block{Text: "Baseline: " + listOrNone(base) + "."})
	tb := table{Header: []string{"group / figure", "before", "now", "difference", "95% interval", "distinguishable", "method"}}
	for _, g := range t.Groups {
		tb.Rows = append(tb.Rows, changeRow(g.Key+" Brier", g.Brier, 4), changeRow(g.Key+" calibration", g.Calibration, 1))
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
		t.Rows = append(t.Rows, []string{c.Agent, c.Season, optNum(c.Score, 3, c.Reason), strings.Join(terms, "; ")})
	}
	return section{Heading: "Composite score", Blocks: []block{{Table: &t}}}
}

// gatesSection lays out gate results: one row per gate and value.
func gatesSection(rs []gates.Result) section {
	s := section{Heading: "Gates"}
	if len(rs) == 0 {
		s.Blocks = append(s.Blocks, block{Text: "No gates were requested."})
		return s
	}
	t := table{Header: []string{"gate", "field", "value", "result", "message"}}
	for _, r := range rs {
		v := r.Text
		if r.Value != nil {
			v = strconv.FormatFloat(*r.Value, 'g', 6, 64)
		}
		t.Rows = append(t.Rows, []string{r.Expr, r.Field, v, map[bool]string{true: "pass", false: "FAIL"}[r.Pass], r.Message})
	}
	s.Blocks = append(s.Blocks, block{Table: &t})
	return s
}

// compositeTermText is one composite term as "term value x effective
// (weight w)", or "term unmeasured (weight w spread)".
func compositeTermText(t forecast.CompositeTerm) string {
	if t.Value == nil {
		return fmt.Sprintf("%s unmeasured (weight %s spread)", t.Term, num(t.Weight, 3))
	}
	return fmt.Sprintf("%s %s x %s (weight %s)", t.Term, num(*t.Value, 3), num(t.Effective, 3), num(t.Weight, 3))
}
