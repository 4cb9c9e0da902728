package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/evalcal/evalcal/forecast"
)

func decodeScore(t *testing.T, doc string) forecast.ScoreReport {
	t.Helper()
	var r forecast.ScoreReport
	if err := yaml.Unmarshal([]byte(doc), &r); err != nil {
		t.Fatalf("score document does not decode: %v", err)
	}
	return r
}

// testdata/sqlite/prediction.db (make_example.py): agents coder and
// support, 57 settled rows each (and unsettled ones).
func TestScoreSQLite(t *testing.T) {
	t.Chdir(repoRoot(t))
	out, stderr, code := runCLI(t, "score", "--sqlite", "testdata/sqlite/prediction.db")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	r := decodeScore(t, out)
	if len(r.Groups) != 2 || r.Groups[0].Key != "coder" || r.Groups[1].Key != "support" {
		t.Fatalf("groups = %+v", r.Groups)
	}
	for _, g := range r.Groups {
		d := g.CompositeError
		if g.N != 57 || d == nil || d.AsExpected+d.MinorMiss+d.ClearMiss+d.SevereMiss+d.Missing != 57 {
			t.Errorf("%s: n %d, composite_error %+v; want 57 rows in the distribution", g.Key, g.N, d)
		}
	}
	if len(r.Inputs) != 1 || len(r.Inputs[0].SHA256) != 64 {
		t.Errorf("inputs = %+v", r.Inputs)
	}
	// A window of 20 keeps the newest 20 settled rows per agent.
	out, _, code = runCLI(t, "score", "--sqlite", "testdata/sqlite/prediction.db", "--window", "20")
	if r := decodeScore(t, out); code != 0 || r.Groups[0].N != 20 || !strings.Contains(strings.Join(r.Warnings, "\n"), "-window") {
		t.Errorf("window 20: exit %d, n %d, warnings %q", code, r.Groups[0].N, r.Warnings)
	}
}

func TestScoreFlagErrors(t *testing.T) {
	t.Chdir(repoRoot(t))
	for _, args := range [][]string{
		{"score", "--sqlite", "testdata/sqlite/prediction.db", "testdata/score/worked.jsonl"},
		{"score", "--window", "10", "testdata/score/worked.jsonl"},
		{"score", "--sqlite", "testdata/sqlite/prediction.db", "--window", "0"},
		{"score", "--trend", "1", "testdata/score/worked.jsonl"},
		{"score", "--trend", "-3", "testdata/score/worked.jsonl"},
		{"score", "--require", "calibraton >= 30", "testdata/score/worked.jsonl"},
		{"score", "--format", "pdf", "testdata/score/worked.jsonl"},
		{"score", "--sqlite", "testdata/none.db"},
		{"score", "--baseline", "testdata/score/worked.jsonl", "testdata/score/worked.jsonl"},
	} {
		if out, _, code := runCLI(t, args...); code != 2 || out != "" {
			t.Errorf("%v: exit %d with %d bytes of output, want 2 and none", args[1:], code, len(out))
		}
	}
}

func TestScoreTrendFlagAddsLearning(t *testing.T) {
	t.Chdir(repoRoot(t))
	out, stderr, code := runCLI(t, "score", "--sqlite", "testdata/sqlite/prediction.db", "--trend", "10")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, g := range decodeScore(t, out).Groups {
		if g.Learning == nil || len(g.Learning.Windows) != 5 || g.Learning.Verdict == "" {
			t.Errorf("%s: learning %+v, want 5 windows of 10 and a verdict", g.Key, g.Learning)
		}
	}
}

// worked.jsonl calibrations: eighty 36, half 0, ninety-right 64,
// ninety-wrong 0, seventy 32, sharp 49, sixty 4.
func TestScoreGatesApplyToEveryGroup(t *testing.T) {
	t.Chdir(repoRoot(t))
	out, stderr, code := runCLI(t, "score", "--require", "calibration >= 30", "testdata/score/worked.jsonl")
	if code != 3 {
		t.Fatalf("exit %d, want 3: %s", code, stderr)
	}
	if n := strings.Count(stderr, "gate failed"); n != 3 {
		t.Errorf("%d failed-gate lines, want 3 (half, ninety-wrong, sixty):\n%s", n, stderr)
	}
	if r := decodeScore(t, out); len(r.Gates) != 7 {
		t.Errorf("report records %d gate results, want one per group (7)", len(r.Gates))
	}
	if _, stderr, code := runCLI(t, "score", "--require", "calibration >= 0", "testdata/score/worked.jsonl"); code != 0 {
		t.Errorf("calibration >= 0: exit %d: %s", code, stderr)
	}
}

func TestScoreBaselineTrend(t *testing.T) {
	t.Chdir(repoRoot(t))
	prev := filepath.Join(t.TempDir(), "prev.yaml")
	if _, _, code := runCLI(t, "score", "-o", prev, "testdata/score/worked.jsonl"); code != 0 {
		t.Fatal("baseline score failed")
	}
	out, stderr, code := runCLI(t, "score", "--baseline", prev, "testdata/score/worked.jsonl")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	tr := decodeScore(t, out).Trend
	if tr == nil || len(tr.Groups) != 7 || len(tr.Distinguishable) != 0 || len(tr.GroupsOnlyNow)+len(tr.GroupsOnlyBefore) != 0 {
		t.Fatalf("trend against itself = %+v", tr)
	}
	data, _ := os.ReadFile(prev)
	if strings.Contains(string(data), "trend:") {
		t.Errorf("baseline document changed")
	}
}

func TestScoreMarkdown(t *testing.T) {
	t.Chdir(repoRoot(t))
	out, _, code := runCLI(t, "score", "--format", "markdown", "testdata/score/worked.jsonl")
	if code != 0 || !strings.HasPrefix(out, "**7 groups by agent") {
		t.Errorf("exit %d, markdown starts %q", code, out[:min(len(out), 60)])
	}
}

func TestScoreTrendIsDrawnAndTabled(t *testing.T) {
	t.Chdir(repoRoot(t))
	md, _, code := runCLI(t, "score", "--sqlite", "testdata/sqlite/prediction.db", "--trend", "10", "--format", "markdown")
	if code != 0 || strings.Count(md, "Learning trend (windows of 10)") != 2 {
		t.Errorf("markdown: exit %d, %d learning sections, want 2", code, strings.Count(md, "Learning trend (windows of 10)"))
	}
	html, _, code := runCLI(t, "score", "--sqlite", "testdata/sqlite/prediction.db", "--trend", "10", "--format", "html")
	if code != 0 || strings.Count(html, "Murphy terms over time") < 2 || strings.Count(html, "<svg") < 4 {
		t.Errorf("html: exit %d, want a Murphy-terms chart per group", code)
	}
}

func TestScoreMarkdownShowsGatesAndTrend(t *testing.T) {
	t.Chdir(repoRoot(t))
	prev := filepath.Join(t.TempDir(), "prev.yaml")
	if _, _, code := runCLI(t, "score", "-o", prev, "testdata/score/worked.jsonl"); code != 0 {
		t.Fatal("baseline score failed")
	}
	md, _, code := runCLI(t, "score", "--format", "markdown", "--baseline", prev, "--require", "calibration >= 0", "testdata/score/worked.jsonl")
	if code != 0 || !strings.Contains(md, "## Gates") || !strings.Contains(md, "## Trend against the baseline") || !strings.Contains(md, "| seventy [Brier](#glossary) |") {
		t.Errorf("exit %d; markdown lacks the gates or trend section", code)
	}
}
