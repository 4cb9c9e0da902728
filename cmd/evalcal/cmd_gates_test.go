package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalcal/evalcal/report/reportio"
)

// The bundled corpus gives agreement 78.3% with Wilson [64.4, 87.7],
// confidence medium and linear kappa 0.726 with interval [0.560, 0.892]
// (testdata/run/corpus.golden).
func TestRunGates(t *testing.T) {
	t.Chdir(repoRoot(t))
	tests := []struct {
		name    string
		require []string
		code    int
		failed  int
	}{
		{"bound passes", []string{"agreement.lower >= 60"}, 0, 0},
		{"bound fails", []string{"agreement.lower >= 80"}, 3, 1},
		{"interval without a bound uses the lower bound", []string{"agreement >= 70"}, 3, 1},
		{"naming the point uses the point", []string{"agreement.percent >= 70"}, 0, 0},
		{"ordinal", []string{"confidence >= medium"}, 0, 0},
		{"ordinal fails", []string{"confidence >= high"}, 3, 1},
		{"kappa bound", []string{"kappa.linear.lower >= 0.6"}, 3, 1},
		{"two of three fail", []string{"agreement.lower >= 80", "confidence >= medium", "kappa.linear.lower >= 0.6"}, 3, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "r.yaml")
			args := []string{"run", "--no-cache", "-o", out}
			for _, r := range tt.require {
				args = append(args, "--require", r)
			}
			_, stderr, code := runCLI(t, append(args, "testdata/runs")...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, tt.code, stderr)
			}
			if got := strings.Count(stderr, "evalcal: gate failed: "); got != tt.failed {
				t.Errorf("%d 'gate failed' lines on stderr, want %d:\n%s", got, tt.failed, stderr)
			}
			r, err := reportio.ReadReport(out)
			if err != nil {
				t.Fatalf("report not written: %v", err)
			}
			if len(r.Gates) != len(tt.require) {
				t.Errorf("report records %d gates, want %d", len(r.Gates), len(tt.require))
			}
		})
	}
}

func TestRunGateErrorsComeBeforeAnyWork(t *testing.T) {
	t.Chdir(repoRoot(t))
	for _, expr := range []string{"agreemnt.lower >= 80", "agreement.lower >=", ">= 80", "agreement.lower ~ 80", "confidence >= extreme"} {
		var out, errb bytes.Buffer
		cache := t.TempDir()
		err := run(context.Background(), []string{"run", "--cache", cache, "--require", expr, "testdata/runs"}, &out, &errb)
		if code := exitCode(err); code != 2 {
			t.Errorf("--require %q: exit %d, want 2 (err %v)", expr, code, err)
		}
		if entries, _ := os.ReadDir(cache); len(entries) != 0 || out.Len() != 0 {
			t.Errorf("--require %q: work was done before the usage error", expr)
		}
	}
}

func TestRunTrendAgainstABaseline(t *testing.T) {
	t.Chdir(repoRoot(t))
	dir := t.TempDir()
	before := filepath.Join(dir, "before.yaml")
	if _, stderr, code := runCLI(t, "run", "--no-cache", "-o", before, "--inspections", "testdata/inspections/twelve.jsonl"); code != 0 {
		t.Fatalf("baseline: exit %d: %s", code, stderr)
	}
	// Same inputs again: no change is distinguishable from noise. With 12
	// runs a zero change still has a Newcombe interval of about +-33.8
	// points, so a gate on its lower bound at -5 fails and one at -40
	// passes: gates on trends use the interval, not the point.
	same := filepath.Join(dir, "same.yaml")
	args := []string{"run", "--no-cache", "-o", same, "--baseline", before, "--inspections", "testdata/inspections/twelve.jsonl"}
	if _, stderr, code := runCLI(t, append(args, "--require", "trend.agreement.lower > -5")...); code != 3 {
		t.Fatalf("trend gate at -5 with 12 runs: exit %d, want 3: %s", code, stderr)
	}
	if _, stderr, code := runCLI(t, append(args, "--require", "trend.agreement.lower > -40")...); code != 0 {
		t.Fatalf("trend gate at -40: exit %d, want 0: %s", code, stderr)
	}
	r, err := reportio.ReadReport(same)
	if err != nil || r.Trend == nil {
		t.Fatalf("no trend: %v", err)
	}
	if r.Trend.Agreement.Distinguishable || len(r.Trend.Distinguishable) != 0 || *r.Trend.Agreement.Difference != 0 {
		t.Errorf("identical inputs: trend %+v", r.Trend.Agreement)
	}
	// All 12 agree now against 8 of 12 before: a real change.
	now := filepath.Join(dir, "now.yaml")
	if _, stderr, code := runCLI(t, "run", "--no-cache", "-o", now, "--baseline", before, "--inspections", "testdata/inspections/agree.jsonl"); code != 0 {
		t.Fatalf("now: exit %d: %s", code, stderr)
	}
	r, err = reportio.ReadReport(now)
	if err != nil {
		t.Fatal(err)
	}
	a := r.Trend.Agreement
	if a.Difference == nil || *a.Difference < 33 || *a.Difference > 34 || !a.Distinguishable || a.CI95.Lower <= 0 {
		t.Errorf("8/12 -> 12/12: agreement change %+v, want about +33.3 points, distinguishable", a)
	}
	// A trend gate without a baseline is a usage error before any work.
	if _, _, code := runCLI(t, "run", "--no-cache", "--require", "trend.agreement.lower > -5", "--inspections", "testdata/inspections/twelve.jsonl"); code != 2 {
		t.Errorf("trend gate without -baseline: exit %d, want 2", code)
	}
	// A baseline that is not a report is an input error.
	if _, _, code := runCLI(t, "run", "--no-cache", "--baseline", "testdata/inspections/twelve.jsonl", "--inspections", "testdata/inspections/twelve.jsonl"); code != 2 {
		t.Errorf("bad baseline: exit %d, want 2", code)
	}
}

func TestRunWritesMarkdownAndHTML(t *testing.T) {
	t.Chdir(repoRoot(t))
	md, _, code := runCLI(t, "run", "--no-cache", "--format", "markdown", "--inspections", "testdata/inspections/twelve.jsonl")
	// The banner, above the title, says the agreement.
	banner, _, _ := strings.Cut(md, "\n# evalcal calibration report")
	if code != 0 || !strings.Contains(banner, "66.67%") {
		t.Errorf("markdown: exit %d, banner %q", code, banner)
	}
	html, _, code := runCLI(t, "run", "--no-cache", "--format", "html", "--inspections", "testdata/inspections/twelve.jsonl")
	if code != 0 || !strings.Contains(html, "<svg") {
		t.Errorf("html: exit %d, no inline svg", code)
	}
}

func TestShardRefusesGatesAndBaseline(t *testing.T) {
	if _, _, code := runCLI(t, "run", "--shard", "1/2", "--require", "agreement.lower >= 1", "testdata/runs"); code != 2 {
		t.Errorf("--shard with --require: exit %d, want 2", code)
	}
}
