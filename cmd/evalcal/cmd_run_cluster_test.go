package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// clusterFixture is the cluster and bias fixture of the calibrate
// package: 102 runs of 12 systems named like models over 17 tasks
// (metadata.task), some routed to OpenAI (metadata.model_family).
const clusterFixture = "calibrate/testdata/clusterbias/runs.jsonl"

// TestRunClusterAndFamilyThroughTheBinary: --cluster names the clustering
// of agreement_clustered and of the trust rule, --family adds a system to
// the judge's family (--judge-family), and the report records both.
func TestRunClusterAndFamilyThroughTheBinary(t *testing.T) {
	skipShort(t)
	r := runBinary(t, binOptions{}, "run", "--inspections", clusterFixture, "--cluster", "task", "--judge-family", "openai",
		"--family", "grok-2=openai", "--family", "llama-3-70b=meta", "--no-cache", "--quiet", "--format", "json")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var rep struct {
		Summary struct {
			Trust string
			Why   []string
		}
		Inputs struct {
			Cluster     string
			Families    map[string]string
			JudgeFamily string `json:"judge_family"`
		}
		AgreementClustered struct {
			Field    string
			Method   string
			Clusters int
			CI95     *struct{ Lower, Upper float64 }
		} `json:"agreement_clustered"`
		Bias struct {
			JudgeFamily       string `json:"judge_family"`
			JudgeFamilySource string `json:"judge_family_source"`
			SameFamilyRuns    int    `json:"same_family_runs"`
			Families          []struct{ System, Family, Source string }
			SameFamily        struct{ Tested, Significant bool } `json:"same_family"`
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Inputs.Cluster != "task" || rep.Inputs.JudgeFamily != "openai" || rep.Inputs.Families["grok-2"] != "openai" || len(rep.Inputs.Families) != 2 {
		t.Errorf("inputs %+v", rep.Inputs)
	}
	c := rep.AgreementClustered
	if c.Field != "task" || c.Method != "CR2-BM-Wilson" || c.Clusters != 17 || c.CI95 == nil {
		t.Errorf("agreement_clustered %+v", c)
	}
	if len(rep.Summary.Why) == 0 || !strings.Contains(rep.Summary.Why[0], "clustered by task") {
		t.Errorf("why %q does not say the bound is clustered", rep.Summary.Why)
	}
	b := rep.Bias
	// 36 runs of gpt-4o, gpt-4o-mini and o3-mini by their names, 5 of
	// grok-2 by --family, 15 routed to OpenAI by metadata.model_family
	// (not the 5 of llama-3-70b: --family comes first).
	if b.JudgeFamily != "openai" || b.JudgeFamilySource != "--judge-family" || b.SameFamilyRuns != 56 || !b.SameFamily.Tested {
		t.Errorf("bias %+v", b)
	}
	var sources []string
	for _, f := range b.Families {
		sources = append(sources, f.System+": "+f.Family+" from "+f.Source)
	}
	for _, want := range []string{"grok-2: openai from --family", "llama-3-70b: meta from --family", "claude-3-haiku: anthropic from system name",
		"o3-mini: openai from system name", "mistral-large: openai from metadata.model_family", "mistral-large: mistral from system name"} {
		if !slices.Contains(sources, want) {
			t.Errorf("families %q lack %q", sources, want)
		}
	}
	if slices.Contains(sources, "llama-3-70b: openai from metadata.model_family") {
		t.Errorf("metadata.model_family overrode --family: %q", sources)
	}
}

// TestRunRejectsBadClusterAndFamilyFlags: a field that cannot cluster
// runs and a --family without '=' are usage errors (exit 2) naming the
// flag.
func TestRunRejectsBadClusterAndFamilyFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--cluster", ""}, "--cluster: cannot cluster by \"\""},
		{[]string{"--cluster", " task"}, "give system or a metadata field name"},
		{[]string{"--family", "gpt-4o"}, "--family must be SYSTEM=FAMILY"},
		{[]string{"--family", "a=x", "--family", "a=y"}, "two families"},
		{[]string{"--deep-policy", "clusters"}, "uniform, uncertain, stratified or cluster"},
	} {
		var out, errb bytes.Buffer
		err := run(context.Background(), append([]string{"run", "--inspections", "../../" + clusterFixture}, c.args...), &out, &errb)
		if code := exitCode(err); code != 2 || !strings.Contains(fmt.Sprint(err), c.want) {
			t.Errorf("%v: exit %d, error %v; want 2 and %q", c.args, code, err, c.want)
		}
	}
}
