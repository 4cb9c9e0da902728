package render

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/evalcal/evalcal/gates"
	"github.com/evalcal/evalcal/report"
	"github.com/evalcal/evalcal/report/reporttest"
	"github.com/evalcal/evalcal/statistician/aggregate"
)

// nightlyReports writes three synthetic nightly reports into dir: night 1
// on 8 runs with a gate that passes, night 2 on 11 runs with a gate that
// fails, night 3 on 14 runs with a deep pass-rate estimate (an
// illustrative figure: the history only shows it) and no gate.
func nightlyReports(t *testing.T, dir string) {
	t.Helper()
	write := func(name string, r *report.Report, json bool) {
		var b []byte
		var err error
		if json {
			b, err = r.JSON()
		} else {
			b, err = r.YAML()
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	check := func(r *report.Report, exprs ...string) {
		gs, err := gates.Parse(exprs)
		if err != nil {
			t.Fatal(err)
		}
		r.Gates = gates.Check(gs, r)
		report.Summarize(r)
	}
	n1 := reporttest.Fixture(8)
	check(n1, "confidence >= low")
	n2 := reporttest.Fixture(11)
	check(n2, "agreement.lower >= 80", "confidence >= low")
	n3 := reporttest.Fixture(0)
	n3.Estimate = &aggregate.Estimate{NLight: 20, NDeep: 14, Best: &aggregate.BestEstimate{Method: "ppi", Point: 0.4523, Lower: 0.31, Upper: 0.6}}
	report.Summarize(n3)
	write("2026-03-01.yaml", n1, false)
	write("2026-03-02.json", n2, true)
	write("2026-03-03.yaml", n3, false)
}

func TestReadHistoryReadsADirectoryInNameOrder(t *testing.T) {
	dir := t.TempDir()
	nightlyReports(t, dir)
	// Not reports: a subdirectory, a text file, a score-like document, and
	// a named pipe with a report's name (never opened).
	if err := os.Mkdir(filepath.Join(dir, "old.yaml"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "2026-03-02b.yaml"), []byte("schema_version: 1\ngroups: []\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "2026-03-04.yaml"), 0o644); err != nil {
		t.Fatal(err)
	}
	h, err := ReadHistory(context.Background(), []string{dir})
	if err != nil {
		t.Fatal(err)
	}
	var labels []string
	for _, n := range h.Nights {
		labels = append(labels, n.Label)
	}
	if got := strings.Join(labels, " "); got != "2026-03-01 2026-03-02 2026-03-03" {
		t.Errorf("nights %s", got)
	}
	var skipped []string
	for _, s := range h.Skipped {
		skipped = append(skipped, filepath.Base(s.Path)+": "+s.Reason)
	}
	// Files that are not regular are set aside while listing (in name
	// order), documents that are not reports when read.
	if len(skipped) != 3 || skipped[0] != "2026-03-04.yaml: not a regular file" || skipped[1] != "old.yaml: not a regular file" ||
		!strings.HasPrefix(skipped[2], "2026-03-02b.yaml: report: read ") || !strings.Contains(skipped[2], "does not match the report schema") {
		t.Errorf("skipped:\n%s", strings.Join(skipped, "\n"))
	}
	n2 := h.Nights[1]
	if n2.Gates != 2 || len(n2.GatesFailed) != 1 || n2.GatesFailed[0] != "agreement.lower >= 80" {
		t.Errorf("night 2 gates %d, failed %v", n2.Gates, n2.GatesFailed)
	}
	if h.Nights[2].Estimate == nil || h.Nights[0].Estimate != nil {
		t.Error("only night 3 has an estimate")
	}
}

// Explicit reports keep the order given; a file that cannot be read is
// listed and the rest go on; none read is ErrNoHistory; a cancelled
// context stops the loop.
func TestReadHistoryOrderErrorsAndCancel(t *testing.T) {
	dir := t.TempDir()
	nightlyReports(t, dir)
	paths := []string{filepath.Join(dir, "2026-03-03.yaml"), filepath.Join(dir, "missing.yaml"), filepath.Join(dir, "2026-03-01.yaml")}
	h, err := ReadHistory(context.Background(), paths)
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Nights) != 2 || h.Nights[0].Label != "2026-03-03" || h.Nights[1].Label != "2026-03-01" {
		t.Errorf("nights %+v", h.Nights)
	}
	if len(h.Skipped) != 1 || !strings.Contains(h.Skipped[0].Reason, "no such file") {
		t.Errorf("skipped %+v", h.Skipped)
	}
	if _, err := ReadHistory(context.Background(), []string{filepath.Join(dir, "missing.yaml")}); !errors.Is(err, ErrNoHistory) {
		t.Errorf("err = %v, want ErrNoHistory", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ReadHistory(ctx, []string{dir}); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

// The history view: Markdown golden and HTML golden; the failed night is
// marked in the banner, in the table and, in each chart, as the one red
// triangle.
func TestHistoryRenderersMatchGoldenAndMarkFailedGates(t *testing.T) {
	dir := t.TempDir()
	nightlyReports(t, dir)
	h, err := ReadHistory(context.Background(), []string{dir})
	if err != nil {
		t.Fatal(err)
	}
	for i := range h.Nights {
		h.Nights[i].Path = filepath.Base(h.Nights[i].Path) // goldens without the temp dir
	}
	md, err := HistoryMarkdown(h)
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "testdata/render/history.md", md)
	page, err := HistoryHTML(h)
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "testdata/render/history.html", page)

	doc := string(md)
	head, _, _ := strings.Cut(doc, "\n# evalcal nightly history\n")
	if !strings.Contains(head, "**GATES FAILED on 1 of 3 reports**") || !strings.Contains(head, "- 2026-03-02: agreement.lower &gt;= 80") {
		t.Errorf("banner lacks the failed night:\n%s", head)
	}
	for _, want := range []string{
		"| 2026-03-01 | ", "| all 1 passed |",
		"| 2026-03-02 | ", "| FAILED 1 of 2: agreement.lower &gt;= 80 |",
		"| 2026-03-03 | ", "| 45.23% (ppi, 20 runs) | [31.00%, 60.00%] | none requested |",
		"| 71.43% | [45.35%, 88.28%] | 0.511628 | [0.0943603, 0.928896] |",
	} {
		if !strings.Contains(doc, want) {
			t.Errorf("markdown lacks %q", want)
		}
	}
	svgs := strings.Split(string(page), "<svg")[1:]
	if len(svgs) != 3 {
		t.Fatalf("%d charts, want agreement, kappa and the estimate", len(svgs))
	}
	for i, svg := range svgs {
		// A triangle glyph is a closed three-point path; the failed
		// night's is filled with failColor.
		if n := strings.Count(svg, "style=\"fill:#B42318\""); n != 1 && i < 2 {
			t.Errorf("chart %d marks %d failed nights, want 1", i, n)
		}
		if n := strings.Count(svg, "style=\"fill:#1F5FA8\""); (i < 2 && n != 2) || (i == 2 && n != 1) {
			t.Errorf("chart %d draws %d passing nights", i, n)
		}
	}
}

func TestHistoryRenderersRefuseAnEmptySeries(t *testing.T) {
	if _, err := HistoryMarkdown(History{}); !errors.Is(err, ErrNoHistory) {
		t.Errorf("markdown: %v", err)
	}
	if _, err := HistoryHTML(History{}); !errors.Is(err, ErrNoHistory) {
		t.Errorf("html: %v", err)
	}
}
