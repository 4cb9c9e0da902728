package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runOK runs the CLI and fails the test unless it exits 0.
func runOK(t *testing.T, args ...string) string {
	t.Helper()
	out, stderr, code := runCLI(t, args...)
	if code != 0 {
		t.Fatalf("evalcal %s: exit %d: %s", strings.Join(args, " "), code, stderr)
	}
	return out
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A report written with a runs file (--runs-out) reads back as the report
// written without one: render gives the same pages and documents, merge of
// shards with runs files gives the merged report of shards without, and
// the unsharded report with its runs file, byte for byte; --baseline
// gives the same trend.
func TestRunsFileGivesTheSameResults(t *testing.T) {
	saved := savedWithCosts(t, 300)
	dir := t.TempDir()
	inline, split := filepath.Join(dir, "inline"), filepath.Join(dir, "split")
	for _, d := range []string{inline, split, filepath.Join(dir, "shards"), filepath.Join(dir, "merged"), filepath.Join(dir, "base")} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	runOK(t, "run", "--no-cache", "--inspections", saved, "-o", filepath.Join(inline, "r.yaml"))
	runOK(t, "run", "--no-cache", "--inspections", saved, "-o", filepath.Join(split, "r.yaml"), "--runs-out", filepath.Join(split, "r.runs.jsonl"))
	whole, small := readFile(t, filepath.Join(inline, "r.yaml")), readFile(t, filepath.Join(split, "r.yaml"))
	if _, err := os.Stat(filepath.Join(inline, "r.runs.jsonl")); err == nil {
		t.Fatal("300 runs wrote a runs file without --runs-out")
	}
	if !strings.Contains(small, "runs_file:\n  path: r.runs.jsonl\n") || strings.Contains(small, "\ncomparisons:\n  - ") ||
		strings.Contains(small, "\n    - run-") || len(small) > len(whole)/3 {
		t.Fatalf("the report with a runs file (%d bytes, inline %d) does not name it or still lists the runs:\n%.3000s", len(small), len(whole), small)
	}
	for _, format := range []string{"yaml", "json", "markdown", "html"} {
		a := runOK(t, "render", "--format", format, filepath.Join(inline, "r.yaml"))
		b := runOK(t, "render", "--format", format, filepath.Join(split, "r.yaml"))
		if a != b {
			t.Errorf("render --format %s differs with a runs file:\n%s", format, lineDiff(a, b))
		}
	}

	// Shards, each with its runs file, merge to the unsharded report.
	var withRuns, without []string
	for i := 1; i <= 4; i++ {
		p := filepath.Join(dir, "shards", fmt.Sprintf("s%d.yaml", i))
		q := filepath.Join(dir, "shards", fmt.Sprintf("inline-%d.yaml", i))
		runOK(t, "run", "--no-cache", "--inspections", saved, "--shard", fmt.Sprintf("%d/4", i), "-o", p, "--runs-out", strings.TrimSuffix(p, ".yaml")+".runs.jsonl")
		runOK(t, "run", "--no-cache", "--inspections", saved, "--shard", fmt.Sprintf("%d/4", i), "-o", q)
		withRuns, without = append(withRuns, p), append(without, q)
	}
	merged := filepath.Join(dir, "merged", "r.yaml")
	runOK(t, append([]string{"merge", "-o", merged, "--runs-out", filepath.Join(dir, "merged", "r.runs.jsonl")}, withRuns...)...)
	if got := readFile(t, merged); got != small {
		t.Errorf("merged shards with runs files differ from the unsharded report with one:\n%s", lineDiff(small, got))
	}
	if readFile(t, filepath.Join(dir, "merged", "r.runs.jsonl")) != readFile(t, filepath.Join(split, "r.runs.jsonl")) {
		t.Error("the merged runs file differs from the unsharded one")
	}
	if a, b := runOK(t, append([]string{"merge"}, withRuns...)...), runOK(t, append([]string{"merge"}, without...)...); a != b || a != whole {
		t.Errorf("merge of shards with runs files differs from merge of shards without, or from the unsharded report:\n%s\n%s", lineDiff(b, a), lineDiff(whole, a))
	}

	// --baseline reads the baseline's runs file: the same path holding
	// the inline report, then the split one, gives the same report.
	base := filepath.Join(dir, "base", "b.yaml")
	var trends []string
	for _, src := range []string{inline, split} {
		if err := os.WriteFile(base, []byte(readFile(t, filepath.Join(src, "r.yaml"))), 0o644); err != nil {
			t.Fatal(err)
		}
		if src == split {
			if err := os.WriteFile(filepath.Join(dir, "base", "r.runs.jsonl"), []byte(readFile(t, filepath.Join(split, "r.runs.jsonl"))), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		trends = append(trends, runOK(t, "run", "--no-cache", "--inspections", saved, "--baseline", base))
	}
	if trends[0] != trends[1] || !strings.Contains(trends[0], "\ntrend:\n") {
		t.Errorf("--baseline with a runs file gives another report:\n%s", lineDiff(trends[0], trends[1]))
	}
}

// --runs-out goes with a YAML or JSON report, and is neither the report
// nor stdout.
func TestRunsOutRefused(t *testing.T) {
	saved := savedWithCosts(t, 5)
	dir := t.TempDir()
	for _, args := range [][]string{
		{"--format", "markdown", "--runs-out", filepath.Join(dir, "r.jsonl")},
		{"-o", filepath.Join(dir, "r.yaml"), "--runs-out", filepath.Join(dir, "r.yaml")},
		{"--runs-out", "-"},
		{"--runs-out", filepath.Join(dir, "missing", "r.jsonl")},
	} {
		stderr, code := runCLIPrinted(t, append([]string{"run", "--no-cache", "--inspections", saved}, args...)...)
		if code != 2 || !strings.Contains(stderr, "--runs-out") && !strings.Contains(stderr, "does not exist") {
			t.Errorf("run %s: exit %d, want 2 with a message: %s", strings.Join(args, " "), code, stderr)
		}
	}
}

// lineDiff shows the first differing line of two documents.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := range min(len(w), len(g)) {
		if w[i] != g[i] {
			return fmt.Sprintf("line %d:\n want: %s\n got:  %s", i+1, w[i], g[i])
		}
	}
	return fmt.Sprintf("%d lines, want %d", len(g), len(w))
}
