package render_test

import (
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/evalcal/evalcal/advisor"
	"github.com/evalcal/evalcal/report"
	"github.com/evalcal/evalcal/report/render"
)

// Opposite verdict-level words: advice that says the other way than the
// summary's "at the pass line light is lenient (strict)".
var againstVerdict = map[string][]string{
	"lenient": {"light is strict", "too strict", "understates the pass rate", "lower light's bar", "relax"},
	"strict":  {"light is lenient", "too lenient", "overstates the pass rate", "raise light's bar"},
}

// conflictingScore is the score-level direction that runs against each
// verdict-level one; where a report shows both, its advice must say why
// (advisor.Direction.Why).
var conflictingScore = map[string]string{"lenient": "pessimistic", "strict": "optimistic"}

const whyMarker = "the scores and the verdicts point different ways"

var (
	verdictDir = regexp.MustCompile(`at the pass line light is (lenient|strict)`)
	scoreDir   = regexp.MustCompile(`(?:bias_direction: |bias of light's scores \| |bias of light's scores</td><td>)(optimistic|pessimistic|neutral)`)
)

// Every golden calibration report, in every format, tells one story: the
// advice never points the other way than the summary's direction of
// light's error at the pass line, and where the scores' bias runs against
// it, the advice says why.
func TestGoldenReportsAgreeOnTheDirectionOfLightsError(t *testing.T) {
	var files []string
	for _, pat := range []string{"run/*.golden", "render/synthetic.*", "render/trust-*"} {
		m, err := filepath.Glob(filepath.Join("..", "..", "testdata", pat))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) < 8 {
		t.Fatalf("found %d golden reports, want the run and render goldens", len(files))
	}
	checked := 0
	for _, path := range files {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		if strings.HasSuffix(path, ".html") || strings.HasSuffix(path, ".html.golden") {
			text = html.UnescapeString(text)
		}
		advice := adviceText(text)
		if advice == "" {
			continue
		}
		m := verdictDir.FindStringSubmatch(text)
		if m == nil {
			continue
		}
		checked++
		dir := m[1]
		for _, w := range againstVerdict[dir] {
			if strings.Contains(advice, w) {
				t.Errorf("%s: the summary says light is %s at the pass line, the advice says %q", path, dir, w)
			}
		}
		if s := scoreDir.FindStringSubmatch(text); s != nil && s[1] == conflictingScore[dir] && !strings.Contains(advice, whyMarker) {
			t.Errorf("%s: light is %s at the pass line and %s on scores, and the advice does not say why", path, dir, s[1])
		}
	}
	if checked == 0 {
		t.Fatal("no golden report states a direction at the pass line: the test checks nothing")
	}
}

// adviceText is the advice of a report in any format: the summary's
// advice line and the recommendations section.
func adviceText(text string) string {
	var parts []string
	lines := strings.Split(text, "\n")
	in := false
	for _, l := range lines {
		switch {
		case strings.HasPrefix(l, "  advice: "), strings.Contains(l, "Do first:"):
			parts = append(parts, l)
		case l == "recommendations:", l == "## Recommendations", strings.Contains(l, "<h2>Recommendations</h2>"):
			in = true
		case in && (strings.HasPrefix(l, "## ") || strings.Contains(l, "<h2>") ||
			len(l) > 0 && l[0] >= 'a' && l[0] <= 'z' && strings.Contains(l, ":") && !strings.HasPrefix(l, " ")):
			in = false
		case in:
			parts = append(parts, l)
		}
	}
	return strings.Join(parts, "\n")
}

// A recommendations section that ranks tested estimates beside upper
// bounds says which priorities are which (advisor.RankingNote).
func TestRecommendationsSectionLabelsTestedAndUpperBoundImpacts(t *testing.T) {
	r := &report.Report{SchemaVersion: report.SchemaVersion, Recommendations: []advisor.Recommendation{
		{Priority: 1, Rule: "threshold", Target: "cuts", ExpectedImpact: advisor.Impact{CurrentPercent: 70, AgreementPercent: 80, GainPoints: 10, Basis: advisor.BasisCrossValidated}},
		{Priority: 2, Rule: "cluster", Target: "check", ExpectedImpact: advisor.Impact{CurrentPercent: 70, AgreementPercent: 100, GainPoints: 30, Basis: advisor.BasisResolved}},
	}}
	r.Derive() // as calibrate.Fill does
	b, err := render.Markdown(r)
	if err != nil {
		t.Fatal(err)
	}
	if want := "priority 1 carries a tested estimate"; !strings.Contains(string(b), want) || !strings.Contains(string(b), "priority 2 carries an upper bound") {
		t.Errorf("the recommendations do not say which impacts are tested:\n%s", b)
	}
}
