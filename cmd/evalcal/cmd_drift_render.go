package main

import (
	"bytes"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/evalcal/evalcal/drift"
	"github.com/evalcal/evalcal/report/reportio"
)

// driftNight is one drift document of a series render --history shows.
type driftNight struct {
	label, path string
	doc         *drift.Document
}

// readDriftSeries reads the drift documents among paths (files, or the
// *.yaml, *.yml and *.json files of directories, in file-name order), as
// render --history reads reports; files that are not drift documents are
// left to the report reader.
func readDriftSeries(paths []string) []driftNight {
	var out []driftNight
	add := func(path string) {
		data, err := os.ReadFile(path)
		if err != nil || !drift.IsDocument(data) {
			return
		}
		d, err := drift.ParseDocument(data, path)
		if err != nil {
			return // reportio.ReadHistory lists it as skipped, with its reason
		}
		out = append(out, driftNight{label: strings.TrimSuffix(filepath.Base(path), filepath.Ext(path)), path: path, doc: d})
	}
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			continue
		}
		if !fi.IsDir() {
			add(p)
			continue
		}
		entries, err := os.ReadDir(p)
		if err != nil {
			continue
		}
		for _, e := range entries {
			switch strings.ToLower(filepath.Ext(e.Name())) {
			case ".yaml", ".yml", ".json":
				if e.Type().IsRegular() {
					add(filepath.Join(p, e.Name()))
				}
			}
		}
	}
	return out
}

// withoutDrift drops the drift documents from the reports not read: they
// are shown in their own section.
func withoutDrift(skipped []reportio.HistorySkip, nights []driftNight) []reportio.HistorySkip {
	shown := map[string]bool{}
	for _, n := range nights {
		shown[n.path] = true
	}
	out := skipped[:0]
	for _, s := range skipped {
		if !shown[s.Path] {
			out = append(out, s)
		}
	}
	return out
}

// driftRows are the drift section's table: a header and one row a night.
func driftRows(nights []driftNight) [][]string {
	rows := [][]string{{"night", "anchors", "light flips", "to pass / to not pass", "McNemar p", "held to", "agreement with deep", "judge changed", "drift"}}
	for _, n := range nights {
		d, f := n.doc, n.doc.Light.Flips
		held := strconv.FormatFloat(d.Alpha, 'g', -1, 64) + " (one night)"
		if h := d.History; h != nil && len(h.Nights) > 0 {
			held = strconv.FormatFloat(h.Nights[len(h.Nights)-1].Threshold, 'g', 3, 64) + fmt.Sprintf(" (night %d)", h.Looks)
		}
		agreement := "n/a"
		if a := d.Light.AgreementWithDeep; a != nil {
			agreement = fmt.Sprintf("%s (%s points [%s, %s])", pct(a.Now), pts(a.Change.Estimate), pts(a.Change.CI.Lower), pts(a.Change.CI.Upper))
		}
		changed := "no"
		if c := d.Judges.Light.Changed; len(c) > 0 {
			changed = strings.Join(c, "; ")
		}
		verdict := "no"
		if d.Detected {
			verdict = "**detected**"
		}
		rows = append(rows, []string{n.label, shortHash(d.Anchors.Hash),
			fmt.Sprintf("%d of %d (%s [%s, %s])", f.Count, f.N, pct(f.Rate), pct(f.CI.Lower), pct(f.CI.Upper)),
			fmt.Sprintf("%d / %d", f.ToPass, f.ToNotPass), strconv.FormatFloat(f.McNemarP, 'g', 3, 64), held, agreement, changed, verdict})
	}
	return rows
}

func pct(p float64) string { return strconv.FormatFloat(100*p, 'f', 2, 64) + "%" }
func pts(d float64) string { return strconv.FormatFloat(100*d, 'f', 2, 64) }

// driftSummary is the section's first line.
func driftSummary(nights []driftNight) string {
	last := nights[len(nights)-1].doc
	state := "no drift detected"
	if last.Detected {
		state = "drift detected"
	}
	return fmt.Sprintf("%d drift %s; the latest (%s): %s.", len(nights), plural("check", len(nights)), nights[len(nights)-1].label, state)
}

// driftMarkdown is the drift section in Markdown, "" without a night.
func driftMarkdown(nights []driftNight) []byte {
	if len(nights) == 0 {
		return nil
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "\n## Drift checks\n\n%s\n\n", driftSummary(nights))
	for i, row := range driftRows(nights) {
		for j := range row {
			row[j] = strings.ReplaceAll(row[j], "|", `\|`)
		}
		fmt.Fprintf(&b, "| %s |\n", strings.Join(row, " | "))
		if i == 0 {
			fmt.Fprintf(&b, "|%s\n", strings.Repeat("---|", len(row)))
		}
	}
	return b.Bytes()
}

// driftHTML is the drift section as HTML, "" without a night.
func driftHTML(nights []driftNight) []byte {
	if len(nights) == 0 {
		return nil
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "<section id=\"drift\"><h2>Drift checks</h2>\n<p>%s</p>\n<table>\n", html.EscapeString(driftSummary(nights)))
	for i, row := range driftRows(nights) {
		tag := "td"
		if i == 0 {
			tag = "th"
		}
		b.WriteString("<tr>")
		for _, cell := range row {
			bold := strings.HasPrefix(cell, "**")
			cell = html.EscapeString(strings.Trim(cell, "*"))
			if bold {
				cell = "<strong>" + cell + "</strong>"
			}
			fmt.Fprintf(&b, "<%s>%s</%s>", tag, cell, tag)
		}
		b.WriteString("</tr>\n")
	}
	b.WriteString("</table></section>\n")
	return b.Bytes()
}

// withDriftSection adds the drift section to a history page: appended to
// Markdown, before </body> in HTML (a page of drift checks only when no
// report was read).
func withDriftSection(page []byte, nights []driftNight, htmlPage bool) []byte {
	if len(nights) == 0 {
		return page
	}
	if !htmlPage {
		if len(page) == 0 {
			return bytes.TrimPrefix(driftMarkdown(nights), []byte("\n"))
		}
		return append(page, driftMarkdown(nights)...)
	}
	if len(page) == 0 {
		return append(append([]byte("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>Drift checks</title></head><body>\n"),
			driftHTML(nights)...), "</body></html>\n"...)
	}
	if i := bytes.LastIndex(page, []byte("</body>")); i >= 0 {
		return append(append(append([]byte{}, page[:i]...), driftHTML(nights)...), page[i:]...)
	}
	return append(page, driftHTML(nights)...)
}
