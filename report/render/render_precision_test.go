package render

import (
	"fmt"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The precision rule, as a scan of a rendered document's numbers. Every
// number (a token that is a decimal number, after '$', '+', a trailing
// '%', 'x' or sentence period are set apart; identifiers such as run ids,
// dates, hashes and versions are not numbers) must:
//
//   - have at most 6 significant digits (a statistic in a table at most
//     3, the display rule's report.DisplayStatDigits);
//   - with '%', have at most 2 decimals (exactly 2 in a table cell, where
//     fmtPercent wrote it);
//   - never be -0, and no word may be NaN or Inf;
//   - after "p =" or in a p-value column, be at most 2 significant digits
//     (report.DisplayPDigits: "0.18", "0.0012", "3.7e-13").
//
// In tables, a cell whose column or row label names percent, points or
// 0-100 is a percentage or score: at most 2 decimals. Any other number
// with more than 2 decimals is a statistic and ends in no 0 (trailing
// zeros are trimmed). Columns of free text (notes, reasons, messages) get
// the rules for text. SVG (chart coordinates), CSS and the command line
// (the user's own words) are not scanned.
//

var (
	numberToken = regexp.MustCompile(`^-?\d+(\.\d+)?([eE][+-]?\d+)?$`)
	pValueText  = regexp.MustCompile(`^(\d(\.\d)?e[+-]\d\d+|[0-9.]+)$`)
	tokenSplit  = regexp.MustCompile(`[\s,;()\[\]/|=<>:–·→"']+`)
	pContext    = regexp.MustCompile(`(?i)\bp\s*=\s*$|p-value\s*$`)
)

// numberProblems scans text (free text, or a table cell of class cls:
// "text", "percent", "stat", "p") and returns what breaks the rule.
func numberProblems(text, cls string, checkP bool) []string {
	var out []string
	for _, w := range strings.Fields(text) {
		if w == "NaN" || w == "Inf" || w == "+Inf" || w == "-Inf" || strings.Contains(w, "NaN") {
			out = append(out, fmt.Sprintf("%q: not a number", w))
		}
	}
	// Find each token with its position, to look at what precedes it.
	idx := tokenSplit.FindAllStringIndex(text, -1)
	start := 0
	bounds := [][2]int{}
	for _, m := range idx {
		if m[0] > start {
			bounds = append(bounds, [2]int{start, m[0]})
		}
		start = m[1]
	}
	if start < len(text) {
		bounds = append(bounds, [2]int{start, len(text)})
	}
	for _, b := range bounds {
		tok := text[b[0]:b[1]]
		percent := false
		tok = strings.TrimPrefix(strings.TrimPrefix(tok, "$"), "+")
		if strings.HasSuffix(tok, ".") && numberToken.MatchString(strings.TrimSuffix(tok, ".")) {
			tok = strings.TrimSuffix(tok, ".")
		}
		if strings.HasSuffix(tok, "%") {
			tok, percent = strings.TrimSuffix(tok, "%"), true
		}
		tok = strings.TrimSuffix(tok, "x")
		if !numberToken.MatchString(tok) {
			continue
		}
		mant, _, sci := strings.Cut(strings.ToLower(tok), "e")
		decimals := 0
		if _, frac, ok := strings.Cut(mant, "."); ok {
			decimals = len(frac)
		}
		isP := cls == "p" || checkP && pContext.MatchString(text[:b[0]])
		switch {
		case isP && (!pValueText.MatchString(tok) || significantDigitsOf(tok) > 2):
			out = append(out, fmt.Sprintf("%q: a p-value has at most 2 significant digits", tok))
		case strings.Trim(mant, "-0.") == "" && strings.HasPrefix(tok, "-"):
			out = append(out, fmt.Sprintf("%q: -0", tok))
		case (decimals > 0 || sci) && significantDigitsOf(tok) > 6:
			out = append(out, fmt.Sprintf("%q: more than 6 significant digits", tok))
		case percent && decimals > 2:
			out = append(out, fmt.Sprintf("%q%%: a percentage has at most 2 decimals", tok))
		case percent && cls != "text" && decimals != 2:
			out = append(out, fmt.Sprintf("%q%%: a percentage in a table has 2 decimals", tok))
		case cls == "percent" && decimals > 2:
			out = append(out, fmt.Sprintf("%q: a percentage or 0-100 score has at most 2 decimals", tok))
		case cls == "stat" && !isP && (decimals > 2 || sci) && significantDigitsOf(tok) > 3:
			out = append(out, fmt.Sprintf("%q: a statistic is shown to at most 3 significant digits", tok))
		case cls == "stat" && !isP && !sci && decimals > 2 && strings.HasSuffix(mant, "0"):
			out = append(out, fmt.Sprintf("%q: a statistic's trailing zeros are trimmed", tok))
		}
	}
	return out
}

// cellClass is the class of a table cell by its column header and row
// label.
func cellClass(header, rowLabel string) string {
	h := strings.ToLower(header)
	for _, word := range []string{"note", "reason", "message", "why", "what could not be read", "error", "method", "terms",
		"path", "file", "field", "gate", "run", "type", "only", "both", "verdicts", "label", "trust", "inputs", "gates", "plain words"} {
		if strings.Contains(h, word) {
			return "text"
		}
	}
	if h == "p" || strings.Contains(h, "p-value") {
		return "p"
	}
	labels := strings.ToLower(strings.ReplaceAll(header+" "+rowLabel, "95%", ""))
	for _, word := range []string{"%", "percent", "points", "0-100"} {
		if strings.Contains(labels, word) {
			return "percent"
		}
	}
	return "stat"
}

// tableProblems scans a table (header, then rows; column 0 the label).
func tableProblems(header []string, rows [][]string) []string {
	var out []string
	for _, row := range rows {
		for j, c := range row {
			if j == 0 || j >= len(header) {
				out = append(out, numberProblems(c, "text", true)...)
				continue
			}
			cls := cellClass(header[j], row[0])
			out = append(out, numberProblems(c, cls, cls == "text")...)
		}
	}
	return out
}

var mdUnescaper = strings.NewReplacer(`\|`, "|", `\*`, "*", `\_`, "_", "\\`", "`", `\\`, `\`, `\#`, "#", `]\(`, "](",
	`\<`, "<", `\>`, ">", `\&`, "&")

// splitMarkdownRow splits a table row on the cell bars that are not
// escaped.
func splitMarkdownRow(line string) []string {
	line = strings.TrimSpace(line)
	line = strings.TrimSuffix(strings.TrimPrefix(line, "|"), "|")
	var cells []string
	var cur strings.Builder
	for i := 0; i < len(line); i++ {
		if line[i] == '\\' && i+1 < len(line) {
			cur.WriteByte(line[i])
			cur.WriteByte(line[i+1])
			i++
			continue
		}
		if line[i] == '|' {
			cells = append(cells, mdUnescaper.Replace(strings.TrimSpace(cur.String())))
			cur.Reset()
			continue
		}
		cur.WriteByte(line[i])
	}
	return append(cells, mdUnescaper.Replace(strings.TrimSpace(cur.String())))
}

// markdownProblems scans a Markdown document.
func markdownProblems(doc string) []string {
	var out []string
	lines := strings.Split(doc, "\n")
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		switch {
		case strings.HasPrefix(l, "```"):
			for i++; i < len(lines) && !strings.HasPrefix(lines[i], "```"); i++ {
			}
		case strings.HasPrefix(l, "|"):
			header := splitMarkdownRow(l)
			var rows [][]string
			for i += 2; i < len(lines) && strings.HasPrefix(lines[i], "|"); i++ {
				rows = append(rows, splitMarkdownRow(lines[i]))
			}
			i--
			out = append(out, tableProblems(header, rows)...)
		default:
			text := mdUnescaper.Replace(strings.TrimPrefix(l, "- "))
			out = append(out, numberProblems(text, "text", true)...)
		}
	}
	return out
}

var (
	htmlDrop    = regexp.MustCompile(`(?s)<style>.*?</style>|<svg.*?</svg>|<pre><code>.*?</code></pre>`)
	htmlTable   = regexp.MustCompile(`(?s)<table>.*?</table>`)
	htmlRow     = regexp.MustCompile(`(?s)<tr>(.*?)</tr>`)
	htmlCell    = regexp.MustCompile(`(?s)<t[hd][^>]*>(.*?)</t[hd]>`)
	htmlBlock   = regexp.MustCompile(`(?s)<(p|li|h1|h2|figcaption|strong|title|nav)[^>]*>(.*?)</(p|li|h1|h2|figcaption|strong|title|nav)>`)
	htmlTag     = regexp.MustCompile(`<[^>]*>`)
	htmlUnescap = func(s string) string { return html.UnescapeString(htmlTag.ReplaceAllString(s, "")) }
)

// htmlProblems scans an HTML document.
func htmlProblems(doc string) []string {
	var out []string
	doc = htmlDrop.ReplaceAllString(doc, "")
	for _, t := range htmlTable.FindAllString(doc, -1) {
		var header []string
		var rows [][]string
		for k, r := range htmlRow.FindAllStringSubmatch(t, -1) {
			var cells []string
			for _, c := range htmlCell.FindAllStringSubmatch(r[1], -1) {
				cells = append(cells, htmlUnescap(c[1]))
			}
			if k == 0 {
				header = cells
			} else {
				rows = append(rows, cells)
			}
		}
		out = append(out, tableProblems(header, rows)...)
	}
	doc = htmlTable.ReplaceAllString(doc, "")
	for _, b := range htmlBlock.FindAllStringSubmatch(doc, -1) {
		text := htmlUnescap(b[2])
		out = append(out, numberProblems(text, "text", true)...)
	}
	return out
}

// renderedGoldens are every Markdown and HTML golden file evalcal's
// renderers wrote.
func renderedGoldens(t *testing.T) []string {
	t.Helper()
	var files []string
	for _, pattern := range []string{"../../testdata/render/*.md", "../../testdata/render/*.html", "../../testdata/run/*.md.golden", "../../testdata/run/*.html.golden"} {
		m, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	return files
}

// Every golden Markdown and HTML document follows the precision rule.
func TestEveryRenderedGoldenFollowsThePrecisionRule(t *testing.T) {
	files := renderedGoldens(t)
	if len(files) < 12 {
		t.Fatalf("found %d golden documents, want the render and run goldens", len(files))
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var problems []string
		if strings.Contains(f, ".html") {
			problems = htmlProblems(string(data))
		} else {
			problems = markdownProblems(string(data))
		}
		if len(problems) > 0 {
			t.Errorf("%s: %d numbers break the precision rule, the first: %s", f, len(problems), strings.Join(problems[:min(8, len(problems))], "; "))
		}
	}
}

// The scan finds what the rule forbids, in text and in tables of both
// formats: the figures of issue 10 among them.
func TestPrecisionScanCatchesViolations(t *testing.T) {
	for name, doc := range map[string]string{
		"too many digits":       "agreement 78.26086956521739 of runs",
		"percent decimals":      "agreement 78.261% of runs",
		"p in decimals":         "Pearson r 0.7, p = 0.0312",
		"negative zero":         "delta -0.00 points",
		"NaN":                   "kappa NaN",
		"stat trailing zero":    "| figure | value |\n| --- | ---: |\n| kappa | 0.500 |",
		"table percent":         "| figure | value |\n| --- | ---: |\n| agreement | 78.3% |",
		"points":                "| statistic | value |\n| --- | ---: |\n| mean delta (points) | -5.714 |",
		"p column":              "| test | p |\n| --- | ---: |\n| McNemar | 0.03125 |",
		"seventeen-digit float": "| score | value |\n| --- | ---: |\n| Brier | 0.24624999999999997 |",
		"stat at 5 digits":      "| figure | value |\n| --- | ---: |\n| kappa | 0.72619 |",
		"p in e-notation at 3":  "McNemar p = 1.80e-01, not significant",
	} {
		if p := markdownProblems(doc); len(p) == 0 {
			t.Errorf("markdown %s: not caught", name)
		}
		h := "<p>" + doc + "</p>"
		if strings.HasPrefix(doc, "|") {
			lines := strings.Split(doc, "\n")
			head, row := splitMarkdownRow(lines[0]), splitMarkdownRow(lines[2])
			h = "<table><thead><tr><th>" + strings.Join(head, "</th><th>") + "</th></tr></thead><tbody><tr><td>" + strings.Join(row, "</td><td>") + "</td></tr></tbody></table>"
		}
		if p := htmlProblems(h); len(p) == 0 {
			t.Errorf("html %s: not caught", name)
		}
	}
	for name, doc := range map[string]string{
		"ids and dates": "run 20260101-100022-r00022 on 2026-03-10T00:00:00Z, sha256:0000000000000000000000000000000000000000000000000000000000000014, evalcal 0.1.0",
		"good figures":  "agreement 78.26% [64.43%, 87.74%], kappa 0.246, p = 1.2e-05, p = 0.18, $0.000262, 49.9x, -5.71 points.",
		"good table":    "| figure | value | 95% interval |\n| --- | ---: | ---: |\n| kappa | 0.5 | [0.0944, 0.929] |\n| mean delta (points) | -5.70 | [-15.71, 4.28] |",
	} {
		if p := markdownProblems(doc); len(p) > 0 {
			t.Errorf("%s: flagged %v", name, p)
		}
	}
}
