package report_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/evalcal/evalcal/comparator"
	"github.com/evalcal/evalcal/internal/reportenc"
	"github.com/evalcal/evalcal/report"
	"github.com/evalcal/evalcal/report/reportio"
	"github.com/evalcal/evalcal/report/reporttest"
)

// fullListingsReport is the synthetic report with every per-run listing a
// runs file can hold filled in, and more disagreements than a report with
// a runs file keeps.
func fullListingsReport() *report.Report {
	r := reporttest.Generated(130, 20, 15, "run")
	r.LightOnly = []report.LightOnlyRun{{RunID: "lo-1", System: "alpha", LightVerdict: "pass",
		Light: comparator.Scores{RuntimeFidelity: 81.123456789, TaskEffectiveness: 70}}}
	pi := 0.123456789123
	r.Inclusion = []report.Inclusion{{RunID: "lo-1", Pi: &pi}, {RunID: "run-000", Pi: nil, Deep: true}}
	r.Repeats = []report.RunRepeats{{RunID: "run-000", Light: []report.Repeat{{Verdict: "pass", Scores: comparator.Scores{RuntimeFidelity: 1.5}}}, Deep: []report.Repeat{}}}
	r.Sample.Rejected = []string{"saved.jsonl:7: no run_id"}
	conf := 0.987654321987
	r.Escalation = &report.Escalation{Runs: []report.EscalationRun{{RunID: "run-001", Confidence: &conf, DecidedBy: "light", LightVerdict: "pass", FinalVerdict: "pass"}}}
	r.Trend = &report.Trend{RunsOnlyNow: []string{"run-002"}, RunsOnlyBefore: []string{"old-1", "old-2"}, Distinguishable: []string{}}
	return r
}

func encodeBoth(t *testing.T, r *report.Report) (string, string) {
	t.Helper()
	y, err := reportenc.EncodeYAML(r)
	if err != nil {
		t.Fatal(err)
	}
	j, err := reportenc.EncodeJSON(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(y), string(j)
}

// TestRunsFileRoundTrip: a report split into a small report and a runs
// file reads back (ParseReport then report.LoadRunsFile) to the very report,
// byte for byte in YAML and JSON, and the split leaves its input alone.
func TestRunsFileRoundTrip(t *testing.T) {
	r := fullListingsReport()
	if len(r.Disagreements) <= report.RunsFileKeptDisagreements || len(r.Recommendations) == 0 || len(r.Recommendations[0].Addresses) == 0 {
		t.Fatalf("fixture: %d disagreements, %d recommendations: want more than %d and addresses", len(r.Disagreements), len(r.Recommendations), report.RunsFileKeptDisagreements)
	}
	wantY, wantJ := encodeBoth(t, r)
	dir := t.TempDir()
	small, err := reportenc.SplitRuns(context.Background(), r, filepath.Join(dir, "r.runs.jsonl"), "r.runs.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if y, j := encodeBoth(t, r); y != wantY || j != wantJ {
		t.Fatal("reportenc.SplitRuns modified the report it was given")
	}
	if len(small.Comparisons) != 0 || len(small.Sample.Runs) != 0 || len(small.Disagreements) != report.RunsFileKeptDisagreements ||
		len(small.Recommendations[0].Addresses) != 0 || len(small.Escalation.Runs) != 0 || len(small.Trend.RunsOnlyBefore) != 0 {
		t.Fatalf("the split report still lists runs: %d comparisons, %d sample runs, %d disagreements",
			len(small.Comparisons), len(small.Sample.Runs), len(small.Disagreements))
	}
	want := map[string]int{"confusion.light_pass_deep_fail": len(r.Confusion.LightPassDeepFail),
		"confusion.light_fail_deep_pass": len(r.Confusion.LightFailDeepPass), "comparisons": len(r.Comparisons), "light_only": 1, "inclusion": 2,
		"repeats": 1, "failures": 1, "sample.runs": len(r.Sample.Runs), "sample.invalid": 1, "sample.rejected": 1,
		"escalation.runs": 1, "trend.runs_only_now": 1, "trend.runs_only_before": 2}
	addr := 0
	for _, rec := range r.Recommendations {
		addr += len(rec.Addresses)
	}
	want["recommendations.addresses"] = addr
	for k, v := range want {
		if small.RunsFile.Sections[k] != v {
			t.Errorf("runs_file.sections[%s] = %d, want %d", k, small.RunsFile.Sections[k], v)
		}
	}
	// Read back, the report with its runs file is the report without one
	// read back, from YAML and from JSON.
	for _, f := range []struct {
		name       string
		full, part func() ([]byte, error)
	}{
		{"yaml", func() ([]byte, error) { return reportenc.EncodeYAML(r) }, func() ([]byte, error) { return reportenc.EncodeYAML(small) }},
		{"json", func() ([]byte, error) { return reportenc.EncodeJSON(r) }, func() ([]byte, error) { return reportenc.EncodeJSON(small) }},
	} {
		wantY, wantJ := encodeBoth(t, parseDoc(t, f.full))
		back := parseDoc(t, f.part)
		if back.RunsFile == nil || back.RunsFile.Path != "r.runs.jsonl" {
			t.Fatalf("%s: runs_file not read back: %+v", f.name, back.RunsFile)
		}
		if err := report.LoadRunsFile(context.Background(), back, dir); err != nil {
			t.Fatal(err)
		}
		if y, j := encodeBoth(t, back); y != wantY || j != wantJ {
			t.Errorf("%s: the report read back with its runs file differs from the report written without one:\n%s\n%s",
				f.name, firstDiff(y, wantY), firstDiff(j, wantJ))
		}
	}
}

func parseDoc(t *testing.T, enc func() ([]byte, error)) *report.Report {
	t.Helper()
	doc, err := enc()
	if err != nil {
		t.Fatal(err)
	}
	r, err := reportio.ParseReport(doc)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestRunsFileRefused: a runs file that was edited, cut short, is
// missing, or holds a line of another kind or an unknown section is an
// error naming the file (and the line).
func TestRunsFileRefused(t *testing.T) {
	r := fullListingsReport()
	dir := t.TempDir()
	path := filepath.Join(dir, "r.runs.jsonl")
	small, err := reportenc.SplitRuns(context.Background(), r, path, "r.runs.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	orig, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	load := func(data []byte, rf report.RunsFile) error {
		t.Helper()
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		c := *small
		c.Recommendations = slices.Clone(small.Recommendations)
		c.RunsFile = &rf
		return report.LoadRunsFile(context.Background(), &c, dir)
	}
	edited := bytes.Replace(orig, []byte(`"verdict_match":true`), []byte(`"verdict_match":false`), 1)
	lines := bytes.SplitAfter(orig, []byte("\n"))
	// A file whose hash is right but whose lines are not a runs file's:
	// each is refused for its content, not only its hash.
	rehash := func(data []byte, sections map[string]int) report.RunsFile {
		rf := *small.RunsFile
		sum := sha256.Sum256(data)
		rf.SHA256, rf.Bytes, rf.Sections = hex.EncodeToString(sum[:]), int64(len(data)), sections
		return rf
	}
	cases := []struct {
		name string
		data []byte
		rf   report.RunsFile
		want string
	}{
		{"edited", edited, *small.RunsFile, "SHA-256"},
		{"cut short", orig[:len(orig)-10], *small.RunsFile, "no newline"},
		{"a line of another kind", []byte("{\"run_id\":\"x\"}\n"), rehash([]byte("{\"run_id\":\"x\"}\n"), nil), "r.runs.jsonl:1: not a runs file line"},
		{"unknown section", []byte("{\"section\":\"mystery\",\"item\":1}\n"), rehash([]byte("{\"section\":\"mystery\",\"item\":1}\n"), nil), "unknown section"},
		{"counts differ", lines[0], rehash(lines[0], map[string]int{"comparisons": 2}), "sections"},
		{"bad item", []byte("{\"section\":\"comparisons\",\"item\":{\"run_id\":7}}\n"),
			rehash([]byte("{\"section\":\"comparisons\",\"item\":{\"run_id\":7}}\n"), map[string]int{"comparisons": 1}), "r.runs.jsonl:1: comparisons"},
	}
	for _, c := range cases {
		err := load(c.data, c.rf)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "r.runs.jsonl") {
			t.Errorf("%s: got %v, want an error naming the file and saying %q", c.name, err, c.want)
		}
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	c := *small
	if err := report.LoadRunsFile(context.Background(), &c, dir); err == nil || !strings.Contains(err.Error(), "r.runs.jsonl") {
		t.Errorf("missing runs file: got %v", err)
	}
	noEsc := *small
	noEsc.Escalation = nil
	if err := os.WriteFile(path, orig, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := report.LoadRunsFile(context.Background(), &noEsc, dir); err == nil || !strings.Contains(err.Error(), "no escalation section") {
		t.Errorf("runs file listing a section the report lacks: got %v", err)
	}
}

// firstDiff shows the first line where got and want differ.
func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range min(len(g), len(w)) {
		if g[i] != w[i] {
			return fmt.Sprintf("line %d: got %q, want %q", i+1, g[i], w[i])
		}
	}
	return fmt.Sprintf("%d lines, want %d", len(g), len(w))
}
