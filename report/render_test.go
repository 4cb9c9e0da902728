package report

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/evalcal/evalcal/gates"
	"github.com/evalcal/evalcal/statistician"
)

func TestMarkdownMatchesGolden(t *testing.T) {
	b, err := Markdown(buildReport(fixtureRuns))
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "testdata/render/synthetic.md", b)
}

func TestHTMLMatchesGolden(t *testing.T) {
	b, err := HTML(buildReport(fixtureRuns))
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "testdata/render/synthetic.html", b)
}

// The first Markdown line is the verdict with the Wilson interval from the
// report, so a CI step summary shows it at the top. 10 of 14 runs agree:
// Wilson 95% (z = 1.96) for 10/14 is [0.4535, 0.8828] (hand-worked:
// (p + z²/2n ± z sqrt(p(1-p)/n + z²/4n²)) / (1 + z²/n)).
func TestMarkdownFirstLineIsTheVerdict(t *testing.T) {
	b, err := Markdown(buildReport(fixtureRuns))
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(string(b), "\n")
	want := "**Light agrees with deep on 71.4% of runs (10/14, Wilson 95% 45.4–88.3%) · confidence low · bias optimistic · partial**"
	if first != want {
		t.Errorf("first line:\n got %s\nwant %s", first, want)
	}
}

func TestRenderersAreDeterministicAcrossYAMLRoundTrip(t *testing.T) {
	r := buildReport(fixtureRuns)
	y, err := r.YAML()
	if err != nil {
		t.Fatal(err)
	}
	back, err := ParseReport(y)
	if err != nil {
		t.Fatal(err)
	}
	for name, render := range map[string]func(*Report) ([]byte, error){"markdown": Markdown, "html": HTML} {
		a, err := render(r)
		if err != nil {
			t.Fatal(err)
		}
		b, err := render(back)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs after a YAML round trip", name)
		}
	}
}

func TestHTMLIsSelfContained(t *testing.T) {
	b, err := HTML(buildReport(fixtureRuns))
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for _, bad := range []string{"<script", "http://", "https://", "<?xml", "src="} {
		if bad == "http://" {
			// SVG namespaces are identifiers, not fetched.
			s = strings.ReplaceAll(strings.ReplaceAll(s, `xmlns="http://www.w3.org/2000/svg"`, ""), `xmlns:xlink="http://www.w3.org/1999/xlink"`, "")
		}
		if strings.Contains(s, bad) {
			t.Errorf("html contains %q", bad)
		}
	}
	if n := strings.Count(s, "<svg"); n != 6 {
		t.Errorf("html has %d charts, want 6 (2 scatter, 2 Bland-Altman, confusion, reliability)", n)
	}
}

// A bin with no forecasts has no rate: the diagram draws a point and a bar
// for each of the two filled bins and nothing for the empty one.
func TestReliabilityDiagramDrawsNoBarForAnEmptyBin(t *testing.T) {
	bins := []statistician.ReliabilityBin{
		{Lower: 0, Upper: 0.5, Count: 4, Hits: 1, MeanForecast: 0.3, ObservedRate: 0.25, RateCI95: statistician.Interval{Lower: 0.0456, Upper: 0.6994}},
		{Lower: 0.5, Upper: 0.8, Count: 0, Reason: "empty bin"},
		{Lower: 0.8, Upper: 1, Count: 5, Hits: 4, MeanForecast: 0.9, ObservedRate: 0.8, RateCI95: statistician.Interval{Lower: 0.3755, Upper: 0.9638}},
	}
	withEmpty, err := reliabilitySVG(bins)
	if err != nil {
		t.Fatal(err)
	}
	without, err := reliabilitySVG([]statistician.ReliabilityBin{bins[0], bins[2]})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(withEmpty, without) {
		t.Error("an empty bin changed the diagram; it must draw nothing")
	}
	only, err := reliabilitySVG([]statistician.ReliabilityBin{bins[0]})
	if err != nil {
		t.Fatal(err)
	}
	paths := regexp.MustCompile(`<path `)
	if len(paths.FindAll(without, -1)) <= len(paths.FindAll(only, -1)) {
		t.Error("a second filled bin drew nothing")
	}
}

func TestMarkdownEscapesReportText(t *testing.T) {
	r := buildReport(fixtureRuns)
	r.Failures[0].Reason = "bad | cell <script>alert(1)</script>\nsecond line"
	b, err := Markdown(r)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(b, []byte("<script>")) || bytes.Contains(b, []byte("bad | cell")) {
		t.Errorf("unescaped text in markdown:\n%s", b)
	}
	h, err := HTML(r)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(h, []byte("<script>")) {
		t.Error("unescaped <script> in html")
	}
}

func TestRenderersRefuseNilReport(t *testing.T) {
	if _, err := Markdown(nil); err == nil {
		t.Error("Markdown(nil) succeeded")
	}
	if _, err := HTML(nil); err == nil {
		t.Error("HTML(nil) succeeded")
	}
}

func TestReadReportReadsYAMLAndJSON(t *testing.T) {
	r := buildReport(fixtureRuns)
	dir := t.TempDir()
	y, _ := r.YAML()
	j, _ := r.JSON()
	for name, data := range map[string][]byte{"r.yaml": y, "r.json": j} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := ReadReport(path)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if cmp.Diff(got.AgreementRate, r.AgreementRate) != "" || len(got.Comparisons) != len(r.Comparisons) {
			t.Errorf("%s: read back %+v", name, got.AgreementRate)
		}
	}
}

func TestReadReportRefusesNewerSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "new.yaml")
	if err := os.WriteFile(path, []byte("schema_version: 99\nagreement_rate: {percent: \"changed meaning\"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := ReadReport(path)
	if !errors.Is(err, ErrNewerSchema) {
		t.Fatalf("err = %v, want ErrNewerSchema", err)
	}
	for _, want := range []string{"schema_version 99", "reads up to " + strconv.Itoa(SchemaVersion), "upgrade evalcal", path} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message %q lacks %q", err, want)
		}
	}
}

func TestReadReportRefusesDocumentsThatAreNotReports(t *testing.T) {
	for name, data := range map[string]string{
		"no version": "generated_by: x\n",
		"zero":       `{"schema_version": 0}`,
		"garbage":    "{{{",
		"empty":      "",
	} {
		if _, err := ParseReport([]byte(data)); err == nil {
			t.Errorf("%s: parsed", name)
		}
	}
	if _, err := ReadReport(filepath.Join(t.TempDir(), "missing.yaml")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

func TestTrendAndGateSectionsShowEveryFigure(t *testing.T) {
	tr := CompareReports(buildReport(fixtureRuns[:8]), buildReport(fixtureRuns))
	gs, err := gates.Parse([]string{"agreement.lower >= 80", "confidence >= low"})
	if err != nil {
		t.Fatal(err)
	}
	md := string(writeMarkdown(page{Title: "t", Verdict: "v", Sections: []section{
		trendSection(tr), gatesSection(gates.Check(gs, buildReport(fixtureRuns))),
	}}))
	for _, want := range []string{
		"| agreement (points) | 62.5 | 71.4 | 8.9 | [-26.4, 45.0] | no |",
		"| calibration (light as forecast) |",
		"runs only now: 20250101-100000-bbb005, 20250101-100000-ccc001",
		"runs only before: none",
		"| agreement.lower &gt;= 80 | agreement_rate.wilson95.lower | 45.3509 | FAIL |",
		"| confidence &gt;= low | confidence | low | pass |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("missing %q in\n%s", want, md)
		}
	}
}

func TestMarkdownCapsTheDisagreementsTableForPRComments(t *testing.T) {
	r := buildReport(generatedRuns(200, 20, 30, "run"))
	if len(r.Disagreements) != 180 {
		t.Fatalf("%d disagreements, want 180", len(r.Disagreements))
	}
	b, err := Markdown(r)
	if err != nil {
		t.Fatal(err)
	}
	md := string(b)
	if n := strings.Count(md, "| verdict_split | pass |"); n != MarkdownDisagreementRows {
		t.Errorf("%d rows, want %d", n, MarkdownDisagreementRows)
	}
	if !strings.Contains(md, "130 more disagreements") || len(md) > 65536 {
		t.Errorf("no note of the rest, or %d characters", len(md))
	}
	h, err := HTML(r)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(h), "<td>verdict_split</td><td>pass</td>"); n != 180 {
		t.Errorf("html lists %d disagreements, want 180", n)
	}
}
