package render

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/evalcal/evalcal/gates"
	"github.com/evalcal/evalcal/internal/reportenc"
	"github.com/evalcal/evalcal/report"
	"github.com/evalcal/evalcal/report/reportio"
	"github.com/evalcal/evalcal/report/reporttest"
	"github.com/evalcal/evalcal/statistician"
)

func TestMarkdownMatchesGolden(t *testing.T) {
	b, err := Markdown(reporttest.Fixture(0))
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "testdata/render/synthetic.md", b)
}

func TestHTMLMatchesGolden(t *testing.T) {
	b, err := HTML(reporttest.Fixture(0))
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "testdata/render/synthetic.html", b)
}

// The Markdown starts with the verdict: the first line is the trust
// badge and its meaning, then the summary sentence, all before the title.
func TestMarkdownStartsWithTheTrustBadgeAndSentence(t *testing.T) {
	for trust, want := range map[string]string{
		"gate":                  "**GATE** · Light can gate CI in deep's place.",
		"monitor":               "**MONITOR** · Use light for trends and dashboards, not to gate CI.",
		"explore":               "**EXPLORE** · Light is not yet a proxy for deep: keep deep in the loop.",
		"insufficient_evidence": "**INSUFFICIENT EVIDENCE** · Too little evidence to tell whether light can stand in for deep.",
		"":                      "**NO VERDICT** · This report carries no trust verdict; the figures below still hold.",
	} {
		r := reporttest.Fixture(0)
		r.Summary = report.Summary{Trust: trust, Sentence: "The sentence for " + trust + "."}
		if trust == "" {
			r.Summary.Sentence = ""
		}
		b, err := Markdown(r)
		if err != nil {
			t.Fatal(err)
		}
		head, _, ok := strings.Cut(string(b), "\n# evalcal calibration report\n")
		if !ok {
			t.Fatalf("%q: no title", trust)
		}
		first, rest, _ := strings.Cut(head, "\n")
		if first != want {
			t.Errorf("%q: first line\n got %s\nwant %s", trust, first, want)
		}
		sentence := r.Summary.Sentence
		if trust == "" {
			// Without a summary the banner says the agreement: 10 of 14
			// runs, Wilson 95% for 10/14 is [0.4535, 0.8828] (hand-worked:
			// (p + z²/2n ± z sqrt(p(1-p)/n + z²/4n²)) / (1 + z²/n), z = 1.96).
			sentence = "Light agrees with deep on 71.43% of runs (10 of 14, Wilson 95% [45.35%, 88.28%]); confidence low; bias optimistic; partial."
		}
		if !strings.Contains(rest, "\n"+sentence+"\n") {
			t.Errorf("%q: the banner lacks the sentence %q:\n%s", trust, sentence, head)
		}
	}
}

// A failed gate is in the banner, before the title (Markdown) and inside
// the banner element (HTML), with its expression and the value it saw.
func TestFailedGatesAreInTheBanner(t *testing.T) {
	r := reporttest.Fixture(0)
	gs, err := gates.Parse([]string{"agreement.lower >= 80", "confidence >= low"})
	if err != nil {
		t.Fatal(err)
	}
	r.Gates = gates.Check(gs, r)
	report.Summarize(r)
	md, err := Markdown(r)
	if err != nil {
		t.Fatal(err)
	}
	head, _, _ := strings.Cut(string(md), "\n# evalcal calibration report\n")
	for _, want := range []string{"**GATES FAILED: 1 of 2**", "- agreement.lower >= 80: the value is 45.35"} {
		if !strings.Contains(head, want) {
			t.Errorf("markdown banner lacks %q:\n%s", want, head)
		}
	}
	h, err := HTML(r)
	if err != nil {
		t.Fatal(err)
	}
	_, afterOpen, _ := strings.Cut(string(h), `<header class="banner`)
	banner, _, _ := strings.Cut(afterOpen, "</header>")
	for _, want := range []string{"GATES FAILED: 1 of 2", "agreement.lower &gt;= 80: the value is 45.35"} {
		if !strings.Contains(banner, want) {
			t.Errorf("html banner lacks %q:\n%s", want, banner)
		}
	}
	// Without failures there is no alert.
	r.Gates = r.Gates[1:]
	report.Summarize(r)
	md, _ = Markdown(r)
	if strings.Contains(string(md), "GATES FAILED") {
		t.Error("a report whose gates passed shows GATES FAILED")
	}
}

// The headline figures and the recommendations come first, the per-run
// listings last, in both formats.
func TestSectionsComeInTheOrderAReaderNeeds(t *testing.T) {
	r := reporttest.Fixture(0)
	md, _ := Markdown(r)
	h, _ := HTML(r)
	order := []string{"Headline figures", "Recommendations", "Verdict agreement", "Score: runtime_fidelity",
		"Light's score as a forecast of a deep pass", "Cost", "Warnings", "Disagreements", headingFailures, headingInvalid,
		headingReadInPart, "Reproducibility"}
	for name, doc := range map[string]string{"markdown": string(md), "html": string(h)} {
		last := -1
		for _, heading := range order {
			marker := "\n## " + heading + "\n"
			if name == "html" {
				marker = "<h2>" + strings.ReplaceAll(heading, "'", "&#39;") + "</h2>"
			}
			i := strings.Index(doc, marker)
			if i < 0 {
				t.Errorf("%s: no section %q", name, heading)
				continue
			}
			if i < last {
				t.Errorf("%s: %q comes too early", name, heading)
			}
			last = i
		}
	}
}

func TestRenderersAreDeterministicAcrossYAMLRoundTrip(t *testing.T) {
	r := reporttest.Fixture(0)
	y, err := reportenc.EncodeYAML(r)
	if err != nil {
		t.Fatal(err)
	}
	back, err := reportio.ParseReport(y)
	if err != nil {
		t.Fatal(err)
	}
	for name, render := range map[string]func(*report.Report) ([]byte, error){"markdown": Markdown, "html": HTML} {
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
	b, err := HTML(reporttest.Fixture(0))
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
	bins := []report.ReliabilityBin{
		{Lower: 0, Upper: 0.5, Count: 4, Hits: 1, MeanForecast: ptrTo(0.3), ObservedRate: ptrTo(0.25), RateCI95: &statistician.Interval{Lower: 0.0456, Upper: 0.6994}},
		{Lower: 0.5, Upper: 0.8, Count: 0, Reason: "empty bin"},
		{Lower: 0.8, Upper: 1, Count: 5, Hits: 4, MeanForecast: ptrTo(0.9), ObservedRate: ptrTo(0.8), RateCI95: &statistician.Interval{Lower: 0.3755, Upper: 0.9638}},
	}
	withEmpty, err := reliabilitySVG(bins)
	if err != nil {
		t.Fatal(err)
	}
	without, err := reliabilitySVG([]report.ReliabilityBin{bins[0], bins[2]})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(withEmpty, without) {
		t.Error("an empty bin changed the diagram; it must draw nothing")
	}
	only, err := reliabilitySVG([]report.ReliabilityBin{bins[0]})
	if err != nil {
		t.Fatal(err)
	}
	paths := regexp.MustCompile(`<path `)
	if len(paths.FindAll(without, -1)) <= len(paths.FindAll(only, -1)) {
		t.Error("a second filled bin drew nothing")
	}
}

func TestMarkdownEscapesReportText(t *testing.T) {
	r := reporttest.Fixture(0)
	r.Failures[0].Reason = "bad | cell <script>alert(1)</script>\nsecond line"
	b, err := Markdown(r)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(bytes.ReplaceAll(b, []byte(`\<`), nil), []byte("<script>")) || bytes.Contains(b, []byte("bad | cell")) {
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

// Comparisons read as written in the Markdown source (issue 28: "&gt;="
// everywhere); what could open markup is backslash-escaped, as CommonMark
// allows for any ASCII punctuation.
func TestMarkdownWritesComparisonsAsWritten(t *testing.T) {
	for in, want := range map[string]string{
		"agreement.lower >= 80":           "agreement.lower >= 80",
		"fail < partial < pass; p < 0.05": "fail < partial < pass; p < 0.05",
		"R&D, 3 & 4":                      "R&D, 3 & 4",
		"<script>x</script>":              `\<script>x\</script>`,
		"&amp; &#60;":                     `\&amp; \&#60;`,
		"> quoted":                        `\> quoted`,
		"<!-- c --> <?x":                  `\<!-- c --> \<?x`,
	} {
		if got := mdText(in); got != want {
			t.Errorf("mdText(%q) = %q, want %q", in, got, want)
		}
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

func TestMarkdownCapsTheDisagreementsTableForPRComments(t *testing.T) {
	r := reporttest.Generated(200, 20, 30, "run")
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

// A side that is not billed per token (builtin) shows no token count in
// the cost table (issue 28: builtin inspections showed token counts).
func TestBuiltinSidesShowNoTokens(t *testing.T) {
	var c report.Cost
	c.Light.Identity, c.Light.Inspections, c.Light.Tokens = "builtin/1", 46, 31934
	c.Deep.Identity, c.Deep.Inspections, c.Deep.Tokens, c.Deep.Model = "openai:m@1", 46, 5000, "m"
	s := costSection(c)
	rows := s.Blocks[0].Table.Rows
	if rows[0][6] != "–" || rows[1][6] != "5000" {
		t.Errorf("tokens cells %q and %q, want – for builtin and 5000 for the model", rows[0][6], rows[1][6])
	}
}
