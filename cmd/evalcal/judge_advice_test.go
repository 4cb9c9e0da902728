package main

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// judgeLine is one saved inspection as an LLM judge or a human label
// gives it: verdict, scores and a summary, no flags.
func judgeLine(id, system, depth, verdict string, rf, te float64, summary string) string {
	b, _ := json.Marshal(map[string]any{
		"run_id": id, "system": system, "depth": depth, "verdict": verdict,
		"runtime_fidelity": rf, "task_effectiveness": te, "summary": summary,
		"flags": []any{}, "services": []any{},
	})
	return string(b)
}

func verdictAt(x, failBelow, passAt float64) string {
	switch {
	case x >= passAt:
		return "pass"
	case x >= failBelow:
		return "partial"
	}
	return "fail"
}

// writeJudged writes n runs judged by a light judge whose verdicts follow
// DESIGN's 40/70 lines on a continuous score and a stricter deep judge
// (lines 55/85 on a noisy copy of the same quality), or, with balanced,
// light and deep as two equally good pass/fail judges with binary scores.
func writeJudged(t *testing.T, n int, balanced bool) string {
	t.Helper()
	r := rand.New(rand.NewPCG(11, 12))
	var lines []string
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("20261201-%06d-%06x", i, i)
		sys := []string{"bug-triage", "docs-sync", "release-notes"}[i%3]
		q := 100 * r.Float64()
		if balanced {
			truth := q >= 50
			lp, dp := truth, truth
			if r.Float64() < 0.1 {
				lp = !lp
			}
			if r.Float64() < 0.1 {
				dp = !dp
			}
			v := func(p bool) (string, float64) {
				if p {
					return "pass", 100
				}
				return "fail", 0
			}
			lv, ls := v(lp)
			dv, ds := v(dp)
			lines = append(lines, judgeLine(id, sys, "light", lv, ls, ls, "light judge"), judgeLine(id, sys, "deep", dv, ds, ds, "deep judge"))
			continue
		}
		x := math.Round(100*q) / 100
		lv := verdictAt(x, 40, 70)
		d := q + 6*r.NormFloat64()
		dv := verdictAt(d, 55, 85)
		deepSummary := "The response reads well and follows the request."
		if lv == "pass" && dv != "pass" {
			deepSummary = "Reads well, but the cited figures are unsupported by any source."
		}
		lines = append(lines,
			judgeLine(id, sys, "light", lv, x, x, "The response reads well and follows the request."),
			judgeLine(id, sys, "deep", dv, math.Max(0, math.Min(100, d)), math.Max(0, math.Min(100, d)), deepSummary))
	}
	p := filepath.Join(t.TempDir(), "judged.jsonl")
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// A lenient LLM judge against a stricter one, saved as inspections with
// no flags: the report recommends new cuts on light's score (with the
// held-out agreement and its test) and names light's lenient pass bar
// and the words deep's summaries use on the runs light passes too
// easily; the summary and the Markdown and HTML banners show priority 1.
// Two equally good pass/fail judges give neither.
func TestRunAdvisesOnJudgeVerdictsWithoutFlags(t *testing.T) {
	in := writeJudged(t, 400, false)
	dir := t.TempDir()
	for _, ext := range []string{"yaml", "md", "html"} {
		if _, stderr, code := runCLI(t, "run", "--no-cache", "--inspections", in, "-o", filepath.Join(dir, "r."+ext)); code != 0 {
			t.Fatalf("run -o r.%s: exit %d: %s", ext, code, stderr)
		}
	}
	raw, err := os.ReadFile(filepath.Join(dir, "r.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Summary struct {
			Advice string `yaml:"advice"`
		} `yaml:"summary"`
		Recommendations []struct {
			Priority       int    `yaml:"priority"`
			Rule           string `yaml:"rule"`
			ProposedChange string `yaml:"proposed_change"`
			ExpectedImpact struct {
				AgreementPercent float64 `yaml:"agreement_percent"`
				CurrentPercent   float64 `yaml:"current_percent"`
				Basis            string  `yaml:"basis"`
			} `yaml:"expected_impact"`
			Test *struct {
				P     *float64 `yaml:"p"`
				Alpha float64  `yaml:"alpha"`
			} `yaml:"test"`
			Cuts *struct {
				FailBelow float64 `yaml:"fail_below"`
				PassAt    float64 `yaml:"pass_at"`
			} `yaml:"cuts"`
		} `yaml:"recommendations"`
	}
	if err := yaml.Unmarshal(raw, &rep); err != nil {
		t.Fatal(err)
	}
	rules := map[string]int{}
	for i, r := range rep.Recommendations {
		rules[r.Rule] = i
	}
	ti, ok := rules["threshold"]
	if !ok {
		t.Fatalf("no threshold recommendation: %+v", rep.Recommendations)
	}
	th := rep.Recommendations[ti]
	if th.Cuts == nil || th.Cuts.PassAt < 75 || th.Cuts.PassAt > 95 || th.Test == nil || th.Test.P == nil || *th.Test.P >= 0.05 ||
		th.ExpectedImpact.AgreementPercent <= th.ExpectedImpact.CurrentPercent || !strings.Contains(th.ExpectedImpact.Basis, "cross-validation") {
		t.Errorf("threshold recommendation %+v: want a pass cut near deep's 85, p < 0.05 and a held-out gain", th)
	}
	li, ok := rules["leniency"]
	if !ok {
		t.Fatalf("no leniency recommendation: %+v", rep.Recommendations)
	}
	if le := rep.Recommendations[li]; !strings.Contains(le.ProposedChange, `"unsupported"`) || !strings.Contains(le.ProposedChange, `"cited"`) {
		t.Errorf("leniency does not name deep's criteria from the summaries: %q", le.ProposedChange)
	}
	if _, ok := rules["edge-cases"]; ok {
		t.Error("edge-cases (keep light's criteria) beside tested findings that they should change")
	}
	first := rep.Recommendations[0]
	if first.Priority != 1 || !strings.HasPrefix(rep.Summary.Advice, fmt.Sprintf("Priority 1 [%s] ", first.Rule)) {
		t.Errorf("summary.advice %q does not give priority 1 (%s)", rep.Summary.Advice, first.Rule)
	}
	md, _ := os.ReadFile(filepath.Join(dir, "r.md"))
	html, _ := os.ReadFile(filepath.Join(dir, "r.html"))
	head := string(md)
	if i := strings.Index(head, "\n# "); i > 0 {
		head = head[:i]
	}
	if !strings.Contains(head, "**Do first:** Priority 1 ["+first.Rule) {
		t.Errorf("the Markdown banner lacks the priority-1 advice:\n%s", head)
	}
	if !strings.Contains(string(html), `<p class="advice" id="advice"><strong>Do first:</strong> Priority 1 [`+first.Rule) {
		t.Error("the HTML banner lacks the priority-1 advice")
	}
	if !strings.Contains(string(md), "Test: exact McNemar") {
		t.Error("the Markdown recommendations do not show the tests")
	}

	// Two equally good pass/fail judges: no threshold (binary scores), no
	// leniency (a balanced split).
	in = writeJudged(t, 400, true)
	out, stderr, code := runCLI(t, "run", "--no-cache", "--inspections", in)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, rule := range []string{"rule: threshold", "rule: leniency"} {
		if strings.Contains(out, rule) {
			t.Errorf("balanced binary judges: %s fired", rule)
		}
	}
}
