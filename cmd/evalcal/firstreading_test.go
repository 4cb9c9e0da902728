package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// Issue 28, item 7: what a new user saw on first use, each checked.

// The LLM sides' default of 4 retries is in the help of every command
// that takes --retries.
func TestRetriesHelpNamesTheLLMDefault(t *testing.T) {
	for _, cmd := range []string{"run", "rank", "drift", "anchor freeze"} {
		out, _, code := runCLI(t, append(strings.Fields(cmd), "--help")...)
		if code != 0 {
			t.Fatalf("%s --help: exit %d", cmd, code)
		}
		if !strings.Contains(strings.Join(strings.Fields(out), " "), "(4 for an LLM side unless given)") {
			t.Errorf("%s --help does not name the LLM sides' default of 4 retries", cmd)
		}
	}
}

// A missing file is named once: "open missing.jsonl: no such file",
// never "open missing.jsonl: open missing.jsonl: ...".
func TestMissingFileIsNamedOnce(t *testing.T) {
	t.Chdir(repoRoot(t))
	for _, args := range [][]string{
		{"run", "--light", "builtin", "--deep", "saved:missing.jsonl", "testdata/runs"},
		{"run", "--inspector", "inspect:missing.json"},
		{"merge", "missing.yaml", "missing2.yaml"},
	} {
		stderr, code := runCLIPrinted(t, args...)
		if code == 0 || stderr == "" || strings.Count(stderr, "missing.") != 1+strings.Count(stderr, "missing2") {
			t.Errorf("%v: exit %d, stderr names the file more than once: %s", args, code, stderr)
		}
	}
}

// A price file of the wrong shape is explained in the user's words, not
// in Go types.
func TestPriceFileErrorsAvoidGoTypes(t *testing.T) {
	t.Chdir(repoRoot(t))
	dir := t.TempDir()
	for body, want := range map[string]string{
		"m:\n  - 1\n":                     "line 2: a list where a price {input: X, output: Y, cached_input: Z} belongs",
		"m:\n  input: abc\n  output: 1\n": `line 2: text "abc" where a number belongs`,
	} {
		path := filepath.Join(dir, "p.yaml")
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		stderr, code := runCLIPrinted(t, "run", "--light", "builtin", "--deep", "builtin", "--price-file", path, "testdata/runs")
		if code != 2 || !strings.Contains(stderr, want) || strings.Contains(stderr, "runner.") || strings.Contains(stderr, "!!") ||
			strings.Contains(stderr, "float64") {
			t.Errorf("price file %q: exit %d, stderr %q, want %q", body, code, stderr, want)
		}
	}
}

// The gate document says which version of what wrote it, as every other
// evalcal document does.
func TestGateDocumentHasSchemaVersionAndGenerator(t *testing.T) {
	out, _, code := runCLI(t, "gate", "--events", "../../testdata/gate/events.jsonl")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	var doc struct {
		SchemaVersion int    `yaml:"schema_version"`
		GeneratedBy   string `yaml:"generated_by"`
	}
	if err := yaml.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.SchemaVersion != 1 || doc.GeneratedBy != "evalcal "+version {
		t.Errorf("schema_version %d, generated_by %q", doc.SchemaVersion, doc.GeneratedBy)
	}
}

// A calls document with a failed gate says so near its top, naming each
// gate once with the groups it failed on.
func TestCallsDocumentCarriesTheFailedGates(t *testing.T) {
	out, _, code := runCLI(t, append(append([]string{}, callsExampleArgs...), "--require", "calibration >= 90")...)
	if code != 3 {
		t.Fatalf("exit %d, want 3", code)
	}
	want := "gates_failed: 'GATES FAILED: 1 of 1 gate: calibration >= 90 on 3 of 3 groups (atlas/2026-q1, birch/2026-q1, birch/2026-q2)'"
	head := strings.Join(strings.SplitN(out, "\n", 5)[:4], "\n")
	if !strings.Contains(head, want) {
		t.Errorf("the document's first lines lack %q:\n%s", want, head)
	}
	md, _, _ := runCLI(t, append(append([]string{}, callsExampleArgs...), "--require", "calibration >= 90", "--format", "markdown")...)
	if strings.Count(md, "- calibration >= 90") != 1 || !strings.Contains(md, "calibration >= 90 fails on 3 of 3 groups: atlas/2026-q1 (1.50)") {
		t.Errorf("the Markdown banner repeats the gate or does not name its groups:\n%s", md[:min(len(md), 600)])
	}
}

// The same source on both sides agrees 100% by construction: the report
// says so.
func TestSameSourceOnBothSidesIsWarned(t *testing.T) {
	log := filepath.Join(repoRoot(t), "..", "shared", "inspect-samples", "2025-05-12T20-28-13-04-00_popularity.json")
	if _, err := os.Stat(log); err != nil {
		t.Skip("no ../shared/inspect-samples")
	}
	out, _, code := runCLI(t, "run", "--light", "inspect:"+log, "--deep", "inspect:"+log, "--no-cache")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	if !strings.Contains(out, "light and deep are the same source") || !strings.Contains(out, "100% by construction") {
		t.Errorf("no same-source warning in:\n%s", out[:min(len(out), 2000)])
	}
}

// An inspect_ai log directory (logs/) is read: its logs' samples are runs.
func TestInspectLogDirectoryIsAccepted(t *testing.T) {
	dir := filepath.Join(repoRoot(t), "..", "shared", "inspect-samples")
	if _, err := os.Stat(dir); err != nil {
		t.Skip("no ../shared/inspect-samples")
	}
	out, stderr, code := runCLI(t, "run", "--light", "inspect:"+dir+"#match", "--deep", "inspect:"+dir+"#match", "--no-cache", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(out, `"2025-05-12T20-28-13-04-00_popularity.json/1"`) {
		t.Errorf("no run of the popularity log in the report")
	}
}
