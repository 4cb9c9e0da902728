package render

import (
	"bytes"
	"fmt"
	"html/template"

	"github.com/evalcal/evalcal/forecast"
	"github.com/evalcal/evalcal/internal/reportenc"
	"github.com/evalcal/evalcal/report"
)

// HTML renders the calibration report as one self-contained HTML file: the
// Markdown's sections in the same order, a verdict banner and a table of
// contents at the top, and charts drawn with gonum/plot as inline SVG (the
// verdict confusion heat map in the table's order, light vs deep scatter
// per score on equal axes with the identity line and the number of runs
// at each point, Bland-Altman plots with bias and limits, and the
// reliability diagram of light's score as a forecast with markers sized by
// the bin's runs and Wilson bars per non-empty bin). Page and charts use
// one font family (fontFamily). It uses inline CSS only, no script and no
// network. The output is deterministic; it fails only on a nil report or
// a template error.
func HTML(r *report.Report) ([]byte, error) {
	if r == nil {
		return nil, fmt.Errorf("report: html: nil report")
	}
	r, err := reportenc.Rounded(r)
	if err != nil {
		return nil, fmt.Errorf("report: html: %w", err)
	}
	return writeHTML(calibrationPage(r, true))
}

// fontFamily is the one font family of the HTML pages and their charts:
// Liberation Sans, which gonum/plot lays the charts out with, then the
// fonts metrically compatible with it (Arial, Helvetica), so that a
// viewer without Liberation draws page and charts alike.
const fontFamily = `"Liberation Sans", Arial, Helvetica, sans-serif`

// htmlPage is the page template. The SVG is produced by gonum/plot from
// numbers, and its text is escaped by the SVG canvas, so it is inlined as
// trusted HTML; every other string is escaped by html/template.
var htmlPage = template.Must(template.New("page").Funcs(template.FuncMap{
	"svg":    func(b []byte) template.HTML { return template.HTML(b) },
	"font":   func() template.CSS { return template.CSS(fontFamily) },
	"linked": htmlLinked,
}).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>{{.Title}}</title>
<style>
body{font-family:{{font}};margin:0 auto;max-width:72rem;padding:.6rem 1rem 2rem;color:#1b1b1b;line-height:1.4}
h1{font-size:1.15rem;margin:.5rem 0 .2rem;color:#444}
h2{font-size:1.15rem;border-bottom:1px solid #ddd;padding-bottom:.15rem;margin:1.4rem 0 .4rem}
.banner{border-left:6px solid #57606a;background:#f4f5f7;padding:.5rem .9rem;margin:0}
.banner p{margin:.3rem 0}
.banner ul{margin:.2rem 0;padding-left:1.3rem}
.verdict{font-size:1.05rem;font-weight:600}
.badge{display:inline-block;color:#fff;background:#57606a;border-radius:.25rem;padding:.05rem .5rem;margin-right:.4rem;letter-spacing:.04em}
.trust-gate{border-color:#1a7f37;background:#eef8f0}.trust-gate .badge{background:#1a7f37}
.trust-monitor{border-color:#9a6700;background:#fff8e5}.trust-monitor .badge{background:#9a6700}
.trust-explore{border-color:#b42318;background:#fdf0ef}.trust-explore .badge{background:#b42318}
.alert{border:2px solid #b42318;background:#fff;color:#8a1c12;padding:.3rem .6rem;margin:.4rem 0}
.why,.notes{font-size:.9rem;color:#333}
nav.contents{font-size:.85rem;margin:.4rem 0 0;line-height:1.6}
nav.contents a{margin-right:.7rem;white-space:nowrap}
table{border-collapse:collapse;margin:.5rem 0;font-size:.88rem}
th,td{border:1px solid #d0d7de;padding:.2rem .45rem;text-align:left;vertical-align:top}
.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
th{background:#f6f8fa}
pre{background:#f6f8fa;border:1px solid #d0d7de;padding:.5rem;overflow-x:auto;white-space:pre-wrap;word-break:break-all}
figure{display:inline-block;margin:.6rem 1rem .6rem 0;vertical-align:top}
figure svg{max-width:100%;height:auto}
figcaption{font-size:.85rem;color:#555;max-width:26rem}
.error{color:#a40000}
a.term{color:inherit;text-decoration:underline dotted}
dl.glossary dt{font-weight:600;margin-top:.4rem}dl.glossary dd{margin:0 0 0 1.2rem}
</style>
</head>
<body>
<header class="banner trust-{{or .Banner.Level "none"}}" id="verdict">
{{- with .Banner}}
{{- if .Badge}}
<p class="verdict"><span class="badge">{{.Badge}}</span>{{.Meaning}}</p>
{{- if .Lead}}
<p>{{.Lead}}</p>
{{- end}}
{{- else}}
<p class="verdict">{{.Lead}}</p>
{{- end}}
{{- range .Text}}
<p>{{.}}</p>
{{- end}}
{{- if .Alerts}}
<div class="alert" id="gates-failed"><strong>{{.AlertTitle}}</strong>
<ul>
{{- range .Alerts}}
<li>{{.}}</li>
{{- end}}
</ul>
</div>
{{- end}}
{{- if .Why}}
<ul class="why">
{{- range .Why}}
<li>{{.}}</li>
{{- end}}
</ul>
{{- end}}
{{- if .Advice}}
<p class="advice" id="advice"><strong>Do first:</strong> {{.Advice}}</p>
{{- end}}
{{- if .Notes}}
<p class="notes">Set aside or incomplete: {{range $i, $n := .Notes}}{{if $i}} · {{end}}<a href="#{{$n.Anchor}}">{{$n.Text}}</a>{{end}} (each listed below).</p>
{{- end}}
{{- end}}
</header>
{{- if .Contents}}
<nav class="contents" id="contents">Contents:
{{- range .Sections}} <a href="#{{.ID}}">{{.Heading}}</a>{{end}}
</nav>
{{- end}}
<h1>{{.Title}}</h1>
{{- range .Sections}}
<section id="{{.ID}}">
<h2>{{.Heading}}</h2>
{{- range .Blocks}}
{{- if .Table}}
<table>
{{- $num := .Table.Numeric}}
{{- $plain := .Table.Plain}}
<thead><tr>{{range $j, $h := .Table.Header}}<th{{if index $num $j}} class="n"{{end}}>{{if $plain}}{{$h}}{{else}}{{linked $h}}{{end}}</th>{{end}}</tr></thead>
<tbody>
{{- range .Table.Rows}}
<tr>{{range $j, $c := .}}<td{{if index $num $j}} class="n"{{end}}>{{if not $c}}–{{else if or $plain $j}}{{$c}}{{else}}{{linked $c}}{{end}}</td>{{end}}</tr>
{{- end}}
</tbody>
</table>
{{- else if .Items}}
<ul>
{{- range .Items}}
<li>{{.}}</li>
{{- end}}
</ul>
{{- else if .Terms}}
<dl class="glossary">
{{- range .Terms}}
<dt id="glossary-{{.ID}}">{{.Term}}</dt><dd>{{.Words}}</dd>
{{- end}}
</dl>
{{- else if .Code}}
<pre><code>{{.Code}}</code></pre>
{{- else if .Figure}}
<figure>
{{- if .Figure.Err}}
<p class="error">chart not drawn: {{.Figure.Err}}</p>
{{- else}}
{{svg .Figure.SVG}}
{{- end}}
<figcaption>{{.Figure.Caption}}</figcaption>
</figure>
{{- else if .Text}}
<p>{{linked .Text}}</p>
{{- end}}
{{- end}}
</section>
{{- end}}
</body>
</html>
`))

// writeHTML writes a page as a self-contained HTML document. Section ids
// are made unique (a second "x" becomes "x-2"), so that every link of the
// contents and the banner leads to one place.
func writeHTML(p page) ([]byte, error) {
	p = withGlossary(p)
	seen := map[string]int{"verdict": 1, "contents": 1, "gates-failed": 1}
	sections := make([]section, len(p.Sections))
	for i, s := range p.Sections {
		if s.ID == "" {
			s.ID = "section-" + anchorOf(s.Heading)
		}
		base := s.ID
		for seen[s.ID] > 0 {
			seen[base]++
			s.ID = fmt.Sprintf("%s-%d", base, seen[base])
		}
		seen[s.ID]++
		sections[i] = s
	}
	p.Sections = sections
	var b bytes.Buffer
	if err := htmlPage.Execute(&b, p); err != nil {
		return nil, fmt.Errorf("report: html: %w", err)
	}
	return b.Bytes(), nil
}

// ScoreHTML renders an evalcal score document as one self-contained HTML
// file: the Markdown's tables plus a reliability diagram per group (its
// binned table, markers sized by the bin's forecasts, Wilson 95% bars,
// nothing drawn for an empty bin).
func ScoreHTML(doc *forecast.ScoreReport) ([]byte, error) {
	if doc == nil {
		return nil, fmt.Errorf("report: score html: nil document")
	}
	return writeHTML(scorePage(doc, true))
}

// CallsHTML renders a calls document as one self-contained HTML file with
// the tables of CallsMarkdown.
func CallsHTML(v CallsView) ([]byte, error) { return writeHTML(callsPage(v)) }
