package calibrate

import (
	"encoding/json"
	"math"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/evalcal/evalcal/programs/saved"
	"github.com/evalcal/evalcal/report"
	"github.com/evalcal/evalcal/runner"
	"github.com/evalcal/evalcal/sampler"
	"github.com/evalcal/evalcal/statistician"
)

// clusterBiasFixture is 102 runs of 12 systems named like models over 17
// tasks (metadata.task), with a planted same-family leniency for an
// OpenAI judge (some runs routed to OpenAI by metadata.model_family) and
// a length effect on metadata.output_length
// (testdata/clusterbias/make_fixture.py); reference.json holds the
// figures reference.py computed from it with statsmodels and R's
// clubSandwich.
const clusterBiasFixture = "testdata/clusterbias/"

type refCoefficient struct {
	Name               string
	Estimate, SE, T, P float64
	CI                 [2]float64
}

type refRegression struct {
	DF           int
	Coefficients []refCoefficient
}

type refBias struct {
	ScoreGap refRegression `json:"score_gap"`
	Leniency refRegression
}

type refClustered struct {
	Percent      float64
	Clusters     int
	DF           float64
	EffectiveN   float64 `json:"effective_n"`
	CI95         [2]float64
	DesignEffect float64 `json:"design_effect"`
}

type refEstimate struct {
	Point, SE float64
	CI95      [2]float64
	DF        float64
}

type clusterBiasReference struct {
	All struct {
		AgreementClustered refClustered `json:"agreement_clustered"`
		Bias               refBias
	}
	Slices  struct{ Bias refBias }
	ByTask  struct{ Bias refBias } `json:"by_task"`
	Cluster struct {
		AgreementClustered refClustered `json:"agreement_clustered"`
		Estimate           struct {
			Chosen            []string
			Clusters          int
			LabelledRuns      int                    `json:"labelled_runs"`
			PassRate          map[string]refEstimate `json:"pass_rate"`
			RuntimeFidelity   map[string]refEstimate `json:"runtime_fidelity"`
			TaskEffectiveness map[string]refEstimate `json:"task_effectiveness"`
		}
	}
}

// clusterBiasRun runs the pipeline on the fixture as saved inspections on
// both sides with the cluster and family settings of cfg.
func clusterBiasRun(t *testing.T, edit func(*Config)) *report.Report {
	t.Helper()
	insp, runs, err := saved.Load(clusterBiasFixture + "runs.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Runs: runs, Light: insp, Deep: insp, LightSpec: "saved:runs.jsonl", DeepSpec: "saved:runs.jsonl",
		Sample: sampler.SelectOptions{Seed: 1}, Runner: runner.Options{Jobs: 2, Timeout: runner.DefaultTimeout}, Bins: 10}
	edit(&cfg)
	return mustRun(t, cfg)
}

func readClusterBiasReference(t *testing.T) clusterBiasReference {
	t.Helper()
	raw, err := os.ReadFile(clusterBiasFixture + "reference.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref clusterBiasReference
	if err := json.Unmarshal(raw, &ref); err != nil {
		t.Fatal(err)
	}
	return ref
}

const refTol = 1e-9

func near(t *testing.T, what string, got, want float64) {
	t.Helper()
	if math.Abs(got-want) > refTol*math.Max(1, math.Abs(want)) {
		t.Errorf("%s = %.15g, reference %.15g", what, got, want)
	}
}

func checkClustered(t *testing.T, what string, c report.ClusteredRate, want refClustered) {
	t.Helper()
	if c.CI95 == nil || c.DF == nil || c.EffectiveN == nil || c.DesignEffect == nil || c.Percent == nil {
		t.Fatalf("%s: %+v has no interval", what, c)
	}
	if c.Clusters != want.Clusters || c.Method != statistician.MethodCR2BMWilson {
		t.Errorf("%s: %d clusters by %s, reference %d (CR2-BM-Wilson)", what, c.Clusters, c.Method, want.Clusters)
	}
	near(t, what+".percent", *c.Percent, want.Percent)
	near(t, what+".df", *c.DF, want.DF)
	near(t, what+".effective_n", *c.EffectiveN, want.EffectiveN)
	near(t, what+".ci95.lower", c.CI95.Lower, want.CI95[0])
	near(t, what+".ci95.upper", c.CI95.Upper, want.CI95[1])
	near(t, what+".design_effect", *c.DesignEffect, want.DesignEffect)
}

func checkRegression(t *testing.T, what string, got report.Regression, want refRegression) {
	t.Helper()
	if got.Reason != "" || len(got.Coefficients) != len(want.Coefficients) || got.DF != want.DF || got.Covariance != "HC3" {
		t.Fatalf("%s: %+v, reference %+v", what, got, want)
	}
	for i, w := range want.Coefficients {
		c := got.Coefficients[i]
		if c.Name != w.Name {
			t.Fatalf("%s: coefficient %d is %s, reference %s", what, i, c.Name, w.Name)
		}
		near(t, what+"."+c.Name+".estimate", c.Estimate, w.Estimate)
		near(t, what+"."+c.Name+".se", c.SE, w.SE)
		near(t, what+"."+c.Name+".t", c.T, w.T)
		near(t, what+"."+c.Name+".p", c.P, w.P)
		near(t, what+"."+c.Name+".ci.lower", c.CI.Lower, w.CI[0])
		near(t, what+"."+c.Name+".ci.upper", c.CI.Upper, w.CI[1])
	}
}

// TestClusterAndBiasSectionsMatchStatsmodelsAndClubSandwich runs the
// pipeline on the fixture and compares agreement_clustered with R's
// clubSandwich CR2/Bell-McCaffrey (in the Wilson form on the effective
// size, computed in numpy), the bias section with statsmodels' OLS HC3,
// and the estimate section under --deep-policy cluster with statsmodels'
// CR1 cluster-robust mean and a numpy implementation of clustered PPI++.
func TestClusterAndBiasSectionsMatchStatsmodelsAndClubSandwich(t *testing.T) {
	ref := readClusterBiasReference(t)

	all := clusterBiasRun(t, func(c *Config) { c.Cluster, c.JudgeFamily = "task", "openai" })
	checkClustered(t, "all.agreement_clustered", all.AgreementClustered, ref.All.AgreementClustered)
	b := all.Bias
	if b == nil || b.JudgeFamily != "openai" || b.Runs != 102 || b.SameFamilyRuns != 56 || b.NoLength != 0 || b.Length != biasLengthMetadata {
		t.Fatalf("bias %+v: want openai, 102 runs, 56 of the judge's family (36 by name, 20 by metadata), lengths from metadata", b)
	}
	checkRegression(t, "all.bias.score_gap", b.ScoreGap, ref.All.Bias.ScoreGap)
	checkRegression(t, "all.bias.leniency", b.Leniency, ref.All.Bias.Leniency)
	if !b.SameFamily.Significant || !strings.Contains(all.Summary.Sentence, "same-family effect") {
		t.Errorf("the planted same-family effect is not flagged: %+v; summary %q", b.SameFamily, all.Summary.Sentence)
	}
	if all.Summary.Trust == "gate" {
		t.Errorf("trust gate despite a significant same-family effect")
	}
	if !slices.ContainsFunc(all.Summary.Why, func(s string) bool { return strings.Contains(s, "clustered by task") }) {
		t.Errorf("the trust reasons do not say the bound is clustered: %q", all.Summary.Why)
	}

	sl := clusterBiasRun(t, func(c *Config) {})
	if sl.Bias == nil || sl.Bias.JudgeFamily != "" || sl.Bias.SameFamily.Tested {
		t.Fatalf("bias without a judge family: %+v", sl.Bias)
	}
	checkRegression(t, "slices.bias.score_gap", sl.Bias.ScoreGap, ref.Slices.Bias.ScoreGap)
	checkRegression(t, "slices.bias.leniency", sl.Bias.Leniency, ref.Slices.Bias.Leniency)

	bt := clusterBiasRun(t, func(c *Config) { c.JudgeFamily, c.By = "openai", []string{"task"} })
	if bt.Bias == nil || bt.Bias.Slice != "task" || bt.Bias.ReferenceSlice != "task-00" {
		t.Fatalf("bias by task: %+v", bt.Bias)
	}
	checkRegression(t, "by_task.bias.score_gap", bt.Bias.ScoreGap, ref.ByTask.Bias.ScoreGap)
	checkRegression(t, "by_task.bias.leniency", bt.Bias.Leniency, ref.ByTask.Bias.Leniency)

	cl := clusterBiasRun(t, func(c *Config) {
		c.Cluster = "task"
		c.Subset = Subset{Fraction: 0.5, Policy: PolicyCluster, Seed: 1}
	})
	re := ref.Cluster.Estimate
	var chosen []string
	for _, c := range cl.Comparisons {
		if !slices.Contains(chosen, c.Metadata["task"]) {
			chosen = append(chosen, c.Metadata["task"])
		}
	}
	slices.Sort(chosen)
	if !slices.Equal(chosen, re.Chosen) || len(cl.Comparisons) != re.LabelledRuns {
		t.Fatalf("deep on the tasks %v (%d runs), reference %v (%d)", chosen, len(cl.Comparisons), re.Chosen, re.LabelledRuns)
	}
	checkClustered(t, "cluster.agreement_clustered", cl.AgreementClustered, ref.Cluster.AgreementClustered)
	e := cl.Estimate
	if e == nil || e.Cluster == nil || !e.Cluster.WholeClusters || e.Cluster.Clusters != re.Clusters || e.Cluster.LabelledClusters != len(re.Chosen) {
		t.Fatalf("estimate cluster design %+v", e)
	}
	for name, set := range map[string]struct {
		got  report.EstimateSet
		want map[string]refEstimate
	}{"pass_rate": {e.PassRate, re.PassRate}, "runtime_fidelity": {e.RuntimeFidelity, re.RuntimeFidelity},
		"task_effectiveness": {e.TaskEffectiveness, re.TaskEffectiveness}} {
		c := set.got.Clustered
		if c == nil || c.DF == nil {
			t.Fatalf("%s: no clustered estimates", name)
		}
		if set.got.Classical.Reason == "" || set.got.PPI.Reason == "" {
			t.Errorf("%s: the item-level estimates are still given under whole-cluster labelling", name)
		}
		near(t, name+".df", *c.DF, set.want["ppi"].DF)
		for method, m := range map[string]report.MethodEstimate{"classical": c.Classical, "ppi": c.PPI} {
			w := set.want[method]
			if m.Point == nil || m.SE == nil || m.CI95 == nil {
				t.Fatalf("%s.%s: %+v", name, method, m)
			}
			near(t, name+"."+method+".point", *m.Point, w.Point)
			near(t, name+"."+method+".se", *m.SE, w.SE)
			near(t, name+"."+method+".ci95.lower", m.CI95.Lower, w.CI95[0])
			near(t, name+"."+method+".ci95.upper", m.CI95.Upper, w.CI95[1])
		}
	}
	if e.Best == nil || !strings.Contains(e.Best.Method, "clustered by task") {
		t.Errorf("best %+v is not a clustered estimate", e.Best)
	}
}
