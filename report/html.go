package report

import (
	"bytes"
	"fmt"
	"html/template"

	"github.com/evalcal/evalcal/forecast"
)

// HTML renders the calibration report as one self-contained HTML file:
// the Markdown summary's sections plus charts drawn with gonum/plot as
// inline SVG (the verdict confusion heat map, light vs deep scatter per
// score with the identity line, Bland-Altman plots with bias and limits,
// and the reliability diagram of light's score as a forecast with Wilson
// bars per non-empty bin). It uses inline CSS only, no script and no
// network. The output is deterministic; it fails only on a nil report or
// a template error.
func HTML(r *Report) ([]byte, error) {
	if r == nil {
		return nil, fmt.Errorf("report: html: nil report")
	}
	return writeHTML(calibrationPage(r, true))
}

// htmlPage is the page template. The SVG is produced by gonum/plot from
// numbers, and its text is escaped by the SVG canvas, so it is inlined as
// trusted HTML; every other string is escaped by html/template.
var htmlPage = template.Must(template.New("page").Funcs(template.FuncMap{
	"svg": func(b []byte) template.HTML { return template.HTML(b) },
}).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>{{.Title}}</title>
<style>
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,"Liberation Sans",sans-serif;margin:2rem auto;max-width:72rem;padding:0 1rem;color:#1b1b1b;line-height:1.45}
h1{font-size:1.6rem;margin:.2rem 0 1rem}
h2{font-size:1.2rem;border-bottom:1px solid #ddd;padding-bottom:.2rem;margin-top:2rem}
.verdict{font-size:1.1rem;font-weight:600;background:#f2f6fb;border-left:4px solid #1f5fa8;padding:.6rem .8rem}
table{border-collapse:collapse;margin:.6rem 0;font-size:.9rem}
th,td{border:1px solid #d0d7de;padding:.25rem .5rem;text-align:left;vertical-align:top}
.n{text-align:right;font-variant-numeric:tabular-nums}
th{background:#f6f8fa}
figure{display:inline-block;margin:.6rem 1rem .6rem 0;vertical-align:top}
figure svg{max-width:100%;height:auto}
figcaption{font-size:.85rem;color:#555;max-width:26rem}
.error{color:#a40000}
</style>
</head>
<body>
<p class="verdict">{{.Verdict}}</p>
<h1>{{.Title}}</h1>
{{- range .Sections}}
<section>
<h2>{{.Heading}}</h2>
{{- range .Blocks}}
{{- if .Table}}
<table>
{{- $num := .Table.Numeric}}
<thead><tr>{{range $j, $h := .Table.Header}}<th{{if index $num $j}} class="n"{{end}}>{{$h}}</th>{{end}}</tr></thead>
<tbody>
{{- range .Table.Rows}}
<tr>{{range $j, $c := .}}<td{{if index $num $j}} class="n"{{end}}>{{if $c}}{{$c}}{{else}}–{{end}}</td>{{end}}</tr>
{{- end}}
</tbody>
</table>
{{- else if .Items}}
<ul>
{{- range .Items}}
<li>{{.}}</li>
{{- end}}
</ul>
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
<p>{{.Text}}</p>
{{- end}}
{{- end}}
</section>
{{- end}}
</body>
</html>
`))

// writeHTML writes a page as a self-contained HTML document.
func writeHTML(p page) ([]byte, error) {
	var b bytes.Buffer
	if err := htmlPage.Execute(&b, p); err != nil {
		return nil, fmt.Errorf("report: html: %w", err)
	}
	return b.Bytes(), nil
}

// ScoreHTML renders an evalcal score document as one self-contained HTML
// file: the Markdown's tables plus a reliability diagram per group (its
// binned table, Wilson 95% bars, nothing drawn for an empty bin).
func ScoreHTML(doc *forecast.ScoreReport) ([]byte, error) {
	if doc == nil {
		return nil, fmt.Errorf("report: score html: nil document")
	}
	return writeHTML(scorePage(doc, true))
}

// CallsHTML renders a calls document as one self-contained HTML file with
// the tables of CallsMarkdown.
func CallsHTML(v CallsView) ([]byte, error) { return writeHTML(callsPage(v)) }
