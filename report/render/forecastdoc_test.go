package render

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/evalcal/evalcal/forecast"
)

// scoreDoc reads a copy of the score command's golden output on the worked
// example (testdata/score/worked.golden), kept so these goldens are stable.
func scoreDoc(t *testing.T) *forecast.ScoreReport {
	t.Helper()
	b, err := os.ReadFile("../../testdata/render/score.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var doc forecast.ScoreReport
	if err := yaml.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	doc.Derive() // the copy predates lowest_calibration, as a reader's old file may
	return &doc
}

// callsView reads a copy of the calls command's golden output on its
// example (testdata/calls/example.golden.yaml).
func callsView(t *testing.T) CallsView {
	t.Helper()
	b, err := os.ReadFile("../../testdata/render/calls.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var doc forecast.CallsDocument
	if err := yaml.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	doc.Derive() // the copy predates resolved and lowest_calibration, as a reader's old file may
	return CallsViewOf(&doc)
}

func TestScoreMarkdownMatchesGolden(t *testing.T) {
	b, err := ScoreMarkdown(scoreDoc(t))
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "testdata/render/score.md", b)
}

func TestScoreHTMLMatchesGoldenWithADiagramPerGroup(t *testing.T) {
	doc := scoreDoc(t)
	b, err := ScoreHTML(doc)
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "testdata/render/score.html", b)
	withBins := 0
	for _, g := range doc.Groups {
		if g.Murphy != nil {
			withBins++
		}
	}
	if n := bytes.Count(b, []byte("<svg")); n != withBins || n == 0 {
		t.Errorf("%d diagrams for %d groups with a reliability table", n, withBins)
	}
}

func TestCallsRenderersMatchGolden(t *testing.T) {
	v := callsView(t)
	md, err := CallsMarkdown(v)
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "testdata/render/calls.md", md)
	h, err := CallsHTML(v)
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "testdata/render/calls.html", h)
}

// A null calibration shows the document's reason, never a number.
func TestCallsMarkdownShowsTheReasonForANullCalibration(t *testing.T) {
	v := CallsView{AsOf: "2026-03-10T00:00:00Z", Groups: []forecast.GroupScore{{Agent: "birch", Season: "q1", Resolved: 3, Reason: "3 resolved calls; calibration needs at least 5"}}}
	b, _ := CallsMarkdown(v)
	if !strings.Contains(string(b), "| n/a (3 resolved calls; calibration needs at least 5) |") {
		t.Errorf("reason missing:\n%s", b)
	}
}

func TestScoreRenderersRefuseNil(t *testing.T) {
	if _, err := ScoreMarkdown(nil); err == nil {
		t.Error("ScoreMarkdown(nil) succeeded")
	}
	if _, err := ScoreHTML(nil); err == nil {
		t.Error("ScoreHTML(nil) succeeded")
	}
}
