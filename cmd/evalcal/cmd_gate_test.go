package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"gopkg.in/yaml.v3"
)

var gateExampleArgs = []string{"gate", "--events", "../../testdata/gate/events.jsonl", "--history", "../../testdata/gate/history.jsonl"}

func TestGateExampleDecisions(t *testing.T) {
	out, stderr, code := runCLI(t, gateExampleArgs...)
	if code != 0 {
		t.Fatalf("exit %d, stderr %s", code, stderr)
	}
	var doc struct {
		Decisions []struct {
			Candidate, Layer, Decision string
			N                          int `yaml:"n"`
			Hits, K                    int
			Baseline                   struct {
				Rate   float64
				Source string
			}
		}
		BadLines []struct {
			Line  int
			Field string
		} `yaml:"bad_lines"`
	}
	if err := yaml.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("output is not YAML: %v", err)
	}
	var got []string
	for _, d := range doc.Decisions {
		got = append(got, d.Layer+"/"+d.Candidate+" "+d.Decision+" "+d.Baseline.Source)
	}
	// See testdata/gate/make_examples.py: the task baseline is 3 of 10
	// history records; the conversation layer has 5 records, so 0.5.
	want := []string{
		"conversation/angry-user-escalates retire default",
		"conversation/long-thread-drift shadow default",
		"conversation/refund-keyword adopt default",
		"task/formatter-before-retry adopt history",
		"task/friday-changes-break inject history",
		"task/large-diff-risk demote history",
		"task/late-night-risk shadow history",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("decisions (-want +got):\n%s", diff)
	}
	if d := doc.Decisions[4]; d.N != 12 || d.Hits != 11 || d.K != 3 || d.Baseline.Rate != 0.3 {
		t.Errorf("friday-changes-break: n=%d hits=%d k=%d baseline=%v, want 12, 11, 3, 0.3", d.N, d.Hits, d.K, d.Baseline.Rate)
	}
	if len(doc.BadLines) != 1 || doc.BadLines[0].Field != "seq" {
		t.Errorf("bad lines %+v, want the one bad seq", doc.BadLines)
	}
}

func TestGateGolden(t *testing.T) {
	for golden, extra := range map[string][]string{
		"testdata/gate/example.golden.yaml": nil,
		"testdata/gate/example.golden.json": {"--format", "json"},
	} {
		out, stderr, code := runCLI(t, append(append([]string{}, gateExampleArgs...), extra...)...)
		if code != 0 {
			t.Fatalf("exit %d, stderr %s", code, stderr)
		}
		checkGolden(t, golden, []byte(out))
	}
}

func TestGateWritesOutputFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "gate.yaml")
	stdout, _, code := runCLI(t, append(append([]string{}, gateExampleArgs...), "-o", path)...)
	if code != 0 || stdout != "" {
		t.Fatalf("exit %d, stdout %q", code, stdout)
	}
	if data, err := os.ReadFile(path); err != nil || len(data) == 0 {
		t.Errorf("output file: %v, %d bytes", err, len(data))
	}
}

func TestGateUsageAndInputErrors(t *testing.T) {
	for _, tt := range []struct {
		args []string
		code int
	}{
		{[]string{"gate"}, exitUsage},
		{[]string{"gate", "--events", "missing.jsonl"}, exitUsage},
		{[]string{"gate", "--events", "../../testdata/gate/events.jsonl", "--history", "missing.jsonl"}, exitUsage},
		{[]string{"gate", "--events", "../../testdata/gate/events.jsonl", "--format", "toml"}, exitUsage},
		{[]string{"gate", "--events", "../../testdata/gate/events.jsonl"}, 0},
	} {
		_, stderr, code := runCLI(t, tt.args...)
		if code != tt.code {
			t.Errorf("%v: exit %d, want %d (stderr %s)", tt.args, code, tt.code, stderr)
		}
	}
}

// readRepoFile reads a file relative to the repository root.
func readRepoFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot(t), path))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// writeTempFile writes content to dir/name and returns the path.
func writeTempFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
