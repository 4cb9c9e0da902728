package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// scoreInput is an input of testdata/score as seen from this package.
func scoreInput(name string) string {
	return filepath.Join("..", "..", "testdata", "score", name)
}

// runScore runs evalcal score in-process and returns what a golden file
// holds: stdout, then stderr and the exit code with the error, if any.
func runScore(t *testing.T, args ...string) (doc string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	err := run(context.Background(), append([]string{"score"}, args...), &out, &errb)
	code = exitCode(err)
	var b strings.Builder
	b.WriteString(out.String())
	if err != nil {
		fmt.Fprintf(&b, "--- exit %d: %v\n", code, err)
	}
	return b.String(), code
}

func TestScoreGolden(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		wantCode int
	}{
		{"worked", []string{scoreInput("worked.jsonl")}, 0},
		{"worked_fixed_json", []string{"--format", "json", "--binning", "fixed", "--bins", "4", "--baseline-rate", "0.5", scoreInput("worked.jsonl")}, 0},
		{"worked_by_team", []string{scoreInput("worked.jsonl"), "--by", "team", "--seed", "7"}, 0},
		{"three_way", []string{scoreInput("three_way.jsonl")}, 0},
		{"bad_lines", []string{scoreInput("bad_lines.jsonl")}, 0},
		{"bad_lines_strict", []string{"--strict", scoreInput("bad_lines.jsonl")}, exitUsage},
		{"missing_file", []string{scoreInput("no-such-file.jsonl")}, exitUsage},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, code := runScore(t, tt.args...)
			if code != tt.wantCode {
				t.Errorf("exit %d, want %d\n%s", code, tt.wantCode, got)
			}
			checkGolden(t, filepath.Join("testdata", "score", tt.name+".golden"), []byte(got))
		})
	}
}

func TestScoreRejectsBadFlagsBeforeReading(t *testing.T) {
	tests := []struct {
		args []string
		flag string
	}{
		{[]string{"--format", "xml"}, "-format"},
		{[]string{"--bins", "0"}, "-bins"},
		{[]string{"--binning", "quantile"}, "-binning"},
		{[]string{"--min-resolved", "-1"}, "-min-resolved"},
		{[]string{"--baseline-rate", "1"}, "-baseline-rate"},
		{[]string{"--baseline-rate", "abc"}, "-baseline-rate"},
		{[]string{"--by", ""}, "-by"},
	}
	for _, tt := range tests {
		// The file does not exist: a flag error must come first.
		got, code := runScore(t, append(tt.args, scoreInput("no-such-file.jsonl"))...)
		if code != exitUsage || !strings.Contains(got, tt.flag) {
			t.Errorf("score %v: exit %d, %q; want exit 2 naming %s", tt.args, code, got, tt.flag)
		}
	}
	if got, code := runScore(t, scoreInput("worked.jsonl"), scoreInput("worked.jsonl")); code != exitUsage {
		t.Errorf("two files: exit %d, %q; want 2", code, got)
	}
	if got, code := runScore(t); code != exitUsage {
		t.Errorf("no file: exit %d, %q; want 2", code, got)
	}
}

// The worked examples of issue 2, read back from the command's YAML.
func TestScoreWorkedExamplesThroughTheCommand(t *testing.T) {
	doc, code := runScore(t, scoreInput("worked.jsonl"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, doc)
	}
	var rep struct {
		Groups []struct {
			Key         string   `yaml:"key"`
			N           int      `yaml:"n"`
			Brier       *float64 `yaml:"brier"`
			Calibration *float64 `yaml:"calibration"`
			Label       string   `yaml:"label"`
		} `yaml:"groups"`
	}
	if err := yaml.Unmarshal([]byte(doc), &rep); err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{"seventy": 32, "sixty": 4, "eighty": 36, "ninety-right": 64, "ninety-wrong": 0, "half": 0}
	seen := 0
	for _, g := range rep.Groups {
		w, ok := want[g.Key]
		if !ok {
			continue
		}
		seen++
		if g.Calibration == nil || *g.Calibration < w-1e-9 || *g.Calibration > w+1e-9 {
			t.Errorf("%s: calibration %v, want %v", g.Key, g.Calibration, w)
		}
	}
	if seen != len(want) {
		t.Errorf("found %d of the %d worked groups", seen, len(want))
	}
}

func TestScoreWritesTheReportAtomicallyWithOAndReadsStdin(t *testing.T) {
	out := filepath.Join(t.TempDir(), "report.json")
	if doc, code := runScore(t, "-o", out, "--format", "json", scoreInput("three_way.jsonl")); code != 0 || doc != "" {
		t.Fatalf("exit %d, stdout %q; want 0 and nothing on stdout", code, doc)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var rep map[string]any
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatalf("report is not JSON: %v", err)
	}
	for _, k := range []string{"schema_version", "generated_by", "inputs", "groups", "bad_lines", "warnings"} {
		if _, ok := rep[k]; !ok {
			t.Errorf("report has no %q", k)
		}
	}
}

// BenchmarkScoreCommand runs evalcal score end to end on the file named by
// EVALCAL_SCORE_BENCH_FILE (see testdata/bench/score/run.sh); it is
// skipped without it.
func BenchmarkScoreCommand(b *testing.B) {
	path := os.Getenv("EVALCAL_SCORE_BENCH_FILE")
	if path == "" {
		b.Skip("EVALCAL_SCORE_BENCH_FILE not set")
	}
	for b.Loop() {
		var out, errb bytes.Buffer
		if err := run(context.Background(), []string{"score", "--format", "json", path}, &out, &errb); err != nil {
			b.Fatal(err)
		}
	}
}
