package render

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalcal/evalcal/report/reportio"
	"github.com/evalcal/evalcal/report/reporttest"
)

// The history view: Markdown golden and HTML golden; the failed night is
// marked in the banner, in the table and, in each chart, as the one red
// triangle.
func TestHistoryRenderersMatchGoldenAndMarkFailedGates(t *testing.T) {
	dir := t.TempDir()
	reporttest.WriteNightly(t, dir)
	h, err := reportio.ReadHistory(context.Background(), []string{dir})
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
	if !strings.Contains(head, "**GATES FAILED on 1 of 3 reports**") || !strings.Contains(head, "- 2026-03-02: agreement.lower >= 80") {
		t.Errorf("banner lacks the failed night:\n%s", head)
	}
	for _, want := range []string{
		"| 2026-03-01 | ", "| all 1 passed |",
		"| 2026-03-02 | ", "| FAILED 1 of 2: agreement.lower >= 80 |",
		"| 2026-03-03 | ", "| 45.23% (ppi, 20 runs) | [31.00%, 60.00%] | none requested |",
		"| 71.43% | [45.35%, 88.28%] | 0.512 | [0.0944, 0.929] |",
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
	if _, err := HistoryMarkdown(reportio.History{}); !errors.Is(err, reportio.ErrNoHistory) {
		t.Errorf("markdown: %v", err)
	}
	if _, err := HistoryHTML(reportio.History{}); !errors.Is(err, reportio.ErrNoHistory) {
		t.Errorf("html: %v", err)
	}
}
