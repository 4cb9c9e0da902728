package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Two assertions of one promptfoo results file on the two sides: the runs
// are the file's tests, nothing else is needed.
func TestRunComparesTwoPromptfooAssertions(t *testing.T) {
	t.Chdir(repoRoot(t))
	file := "programs/importers/testdata/promptfoo/two-assertions.json"
	out, stderr, code := runCLI(t, "run", "--no-cache", "--quiet", "--format", "json",
		"--light", "promptfoo:"+file+"#contains", "--deep", "promptfoo:"+file+"#llm-rubric")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var r struct {
		Inputs struct {
			Light, Deep struct{ Spec, Identity string }
		}
		SampleSize int `json:"sample_size"`
		Failures   []struct {
			RunID string `json:"run_id"`
		}
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(r.Inputs.Light.Identity, "promptfoo:") || !strings.HasSuffix(r.Inputs.Deep.Identity, "#llm-rubric") {
		t.Errorf("inputs %+v", r.Inputs)
	}
	// Six test x prompt cells; the grader failed on one deep assertion.
	if r.SampleSize+len(r.Failures) != 6 || len(r.Failures) != 1 || r.Failures[0].RunID != "test2-prompt1" {
		t.Errorf("sample size %d, failures %+v", r.SampleSize, r.Failures)
	}
}

// A real inspect_ai log: its samples are the runs, one task is not a
// homogeneous-sample error, and a missing scorer is a usage error listing
// the ones there are.
func TestRunReadsAnInspectLog(t *testing.T) {
	t.Chdir(repoRoot(t))
	log := filepath.Join("..", "shared", "inspect-samples", "2025-05-12T20-28-13-04-00_popularity.json")
	if _, err := os.Stat(log); err != nil {
		t.Skip("../shared/inspect-samples is absent")
	}
	_, stderr, code := runCLI(t, "run", "--no-cache", "--quiet", "--light", "inspect:"+log+"#match", "--deep", "inspect:"+log+"#match")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var errb strings.Builder
	err := run(t.Context(), []string{"run", "--no-cache", "--light", "inspect:" + log + "#nosuch", "--deep", "inspect:" + log}, &errb, &errb)
	if exitCode(err) != exitUsage || !strings.Contains(err.Error(), "match") {
		t.Errorf("unknown scorer: exit %d: %v", exitCode(err), err)
	}
}

// Mapping options in a spec reach the importer (the report's identity
// names them) and a bad one is a usage error naming it, before any file
// is read.
func TestRunPassesMappingOptionsToTheImporters(t *testing.T) {
	t.Chdir(repoRoot(t))
	file := "programs/importers/testdata/promptfoo/two-assertions.json"
	out, stderr, code := runCLI(t, "run", "--no-cache", "--quiet", "--format", "json",
		"--light", "promptfoo:"+file+"#contains", "--deep", "promptfoo:"+file+"#llm-rubric?pass=0.85")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var r struct {
		Inputs struct {
			Deep struct{ Spec, Identity string }
		}
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(r.Inputs.Deep.Identity, "#llm-rubric?pass=0.85") {
		t.Errorf("deep identity %q does not name the options", r.Inputs.Deep.Identity)
	}
	for _, spec := range []string{"inspect:no/such.eval#match?max=0", "promptfoo:no/such.json#?max=10", "inspect:no/such.eval#?P=0,P=1"} {
		var errb strings.Builder
		err := run(t.Context(), []string{"run", "--no-cache", "--light", spec, "--deep", spec}, &errb, &errb)
		if exitCode(err) != exitUsage || !strings.Contains(err.Error(), "run: --light: ") || !strings.Contains(err.Error(), "option ") {
			t.Errorf("%s: exit %d: %v; want exit 2 naming the option", spec, exitCode(err), err)
		}
	}
}

// One scorer in two logs (two grader models over the same samples) as
// light and deep: the runs pair by sample id. The second log is the shared
// one with one sample's verdict flipped, written to a temporary directory.
func TestRunPairsOneScorerAcrossTwoLogs(t *testing.T) {
	t.Chdir(repoRoot(t))
	log := filepath.Join("..", "shared", "inspect-samples", "2025-05-12T20-28-13-04-00_popularity.json")
	raw, err := os.ReadFile(log)
	if err != nil {
		t.Skip("../shared/inspect-samples is absent")
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	samples := doc["samples"].([]any)
	first := samples[0].(map[string]any)["scores"].(map[string]any)["match"].(map[string]any)
	if first["value"] != "C" {
		t.Fatalf("the shared log changed: sample 1 scored %v", first["value"])
	}
	first["value"] = "I" // the second grader fails sample 1
	other := filepath.Join(t.TempDir(), "grader2.json")
	b, _ := json.Marshal(doc)
	if err := os.WriteFile(other, b, 0o644); err != nil {
		t.Fatal(err)
	}
	out, stderr, code := runCLI(t, "run", "--no-cache", "--quiet", "--format", "json",
		"--light", "inspect:"+log+"#match", "--deep", "inspect:"+other+"#match")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var r struct {
		Inputs struct {
			Light, Deep struct{ Identity string }
		}
		AgreementRate struct {
			Matches, N int
		} `json:"agreement_rate"`
		Disagreements []struct {
			RunID        string `json:"run_id"`
			LightVerdict string `json:"light_verdict"`
			DeepVerdict  string `json:"deep_verdict"`
		}
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	// Samples 1, 2, 3 scored C, C, I by the first grader; I, C, I by the second.
	if r.AgreementRate.Matches != 2 || r.AgreementRate.N != 3 || len(r.Disagreements) != 1 ||
		r.Disagreements[0].RunID != "1" || r.Disagreements[0].LightVerdict != "pass" || r.Disagreements[0].DeepVerdict != "fail" {
		t.Errorf("agreement %+v, disagreements %+v", r.AgreementRate, r.Disagreements)
	}
	if r.Inputs.Light.Identity == r.Inputs.Deep.Identity {
		t.Errorf("two logs, one identity %q", r.Inputs.Light.Identity)
	}
}
