package calibrate

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/evalcal/evalcal/advisor"
	"github.com/evalcal/evalcal/inspection"
	"github.com/evalcal/evalcal/programs/builtin"
	"github.com/evalcal/evalcal/report"
	"github.com/evalcal/evalcal/runner"
	"github.com/evalcal/evalcal/sampler"
)

// corpus is the bundled corpus (49 runs, four eras).
const corpus = "../testdata/runs"

func builtinConfig() Config {
	b := builtin.New()
	return Config{
		Paths: []string{corpus}, Light: b, Deep: b, LightSpec: "builtin", DeepSpec: "builtin",
		Sample:      sampler.SelectOptions{Seed: 1},
		Runner:      runner.Options{Jobs: 4, Timeout: runner.DefaultTimeout},
		Bins:        10,
		GeneratedBy: "evalcal test",
	}
}

func mustRun(t *testing.T, cfg Config) *report.Report {
	t.Helper()
	rep, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func TestRunOnTheBundledCorpusAnswersFirst(t *testing.T) {
	rep := mustRun(t, builtinConfig())
	if rep.SampleSize != len(rep.Comparisons) || rep.SampleSize < 40 {
		t.Fatalf("sample size %d, comparisons %d", rep.SampleSize, len(rep.Comparisons))
	}
	s := rep.Summary
	switch s.Trust {
	case advisor.TrustGate, advisor.TrustMonitor, advisor.TrustExplore, advisor.TrustInsufficient:
	default:
		t.Fatalf("trust %q", s.Trust)
	}
	for _, want := range []string{"verdicts agree on", "linear kappa", "priority 1:"} {
		if !strings.Contains(s.Sentence, want) {
			t.Errorf("sentence %q lacks %q", s.Sentence, want)
		}
	}
	if rep.Inputs.Inspector != builtin.Identity || rep.Inputs.Light.Identity != builtin.Identity || rep.Inputs.Deep.Spec != "builtin" {
		t.Errorf("inputs %+v", rep.Inputs)
	}
	if rep.Estimate != nil || rep.LightOnly != nil || rep.Inclusion != nil || rep.Repeats != nil {
		t.Errorf("deep on every run, once: no estimate, light-only, inclusion or repeats expected")
	}
	if rep.Cost.Light.Inspections != rep.SampleSize || rep.Cost.Light.USD == nil || *rep.Cost.Light.USD != 0 {
		t.Errorf("light cost %+v, want every run inspected for $0", rep.Cost.Light)
	}
}

// ignoreShardOnly leaves out what a merged report cannot equal: nothing but
// the warning a shard carries is expected to differ.
var ignoreVolatile = cmpopts.IgnoreFields(runner.SideCost{}, "Seconds")

func TestShardsMergeToTheUnshardedReport(t *testing.T) {
	whole := mustRun(t, builtinConfig())
	for _, n := range []int{1, 2, 3, 7} {
		var shards []*report.Report
		var names []string
		for i := 1; i <= n; i++ {
			cfg := builtinConfig()
			if n > 1 {
				cfg.ShardIndex, cfg.ShardCount = i, n
			} else {
				cfg.ShardIndex, cfg.ShardCount = 1, 1
			}
			rep := mustRun(t, cfg)
			if n == 1 {
				rep.Inputs.Shard = "1/1"
			}
			shards = append(shards, rep)
			names = append(names, "shard"+string(rune('0'+i)))
		}
		merged, err := Merge(shards, names, Finish{})
		if err != nil {
			t.Fatalf("n=%d: %v", n, err)
		}
		if d := cmp.Diff(whole, merged, ignoreVolatile, cmpopts.EquateEmpty()); d != "" {
			t.Errorf("n=%d: merged differs from the unsharded report (-whole +merged):\n%s", n, d)
		}
	}
}

func shardsOf(t *testing.T, n int) ([]*report.Report, []string) {
	var shards []*report.Report
	var names []string
	for i := 1; i <= n; i++ {
		cfg := builtinConfig()
		cfg.ShardIndex, cfg.ShardCount = i, n
		shards = append(shards, mustRun(t, cfg))
		names = append(names, "s"+string(rune('0'+i))+".yaml")
	}
	return shards, names
}

func TestMergeRefusesShardsThatDoNotAccountForTheirRuns(t *testing.T) {
	shards, names := shardsOf(t, 3)
	emptied := *shards[1]
	emptied.Comparisons = nil
	if _, err := Merge([]*report.Report{shards[0], &emptied, shards[2]}, names, Finish{}); err == nil ||
		!strings.Contains(err.Error(), "s2.yaml (shard 2/3) has no result for its runs") {
		t.Errorf("emptied shard: err %v", err)
	}
	stray := *shards[0]
	stray.Comparisons = append(append(stray.Comparisons[:0:0], stray.Comparisons...), shards[1].Comparisons[0])
	if _, err := Merge([]*report.Report{&stray, shards[1], shards[2]}, names, Finish{}); err == nil ||
		!strings.Contains(err.Error(), "which is not one of its sampled runs") {
		t.Errorf("stray comparison: err %v", err)
	}
	foreign := *shards[2]
	foreign.Inputs.Seed = 99
	if _, err := Merge([]*report.Report{shards[0], shards[1], &foreign}, names, Finish{}); err == nil ||
		!strings.Contains(err.Error(), "inputs.seed differs") {
		t.Errorf("other job: err %v", err)
	}
	spelled := *shards[2]
	spelled.Inputs.CommandLine = append([]string{"--format", "json"}, spelled.Inputs.CommandLine...)
	if _, err := Merge([]*report.Report{shards[0], shards[1], &spelled}, names, Finish{}); err != nil {
		t.Errorf("a flag that cannot change results stopped the merge: %v", err)
	}
	huge := *shards[0]
	huge.Inputs.Shard = "1/2000000000"
	if _, err := Merge([]*report.Report{&huge}, names[:1], Finish{}); err == nil || !strings.Contains(err.Error(), "at most 10000 shards") {
		t.Errorf("huge shard count: err %v", err)
	}
}

func TestShardOfIsStableAndSpreadsRuns(t *testing.T) {
	counts := make([]int, 4)
	for i := range 4000 {
		id := "run-" + string(rune('a'+i%26)) + strings.Repeat("x", i%7) + string(rune('0'+i%10)) + string(rune(i))
		s := ShardOf(id, 4)
		if s < 1 || s > 4 || ShardOf(id, 4) != s {
			t.Fatalf("shard %d of %q", s, id)
		}
		counts[s-1]++
	}
	for _, c := range counts {
		if c < 850 || c > 1150 {
			t.Errorf("shard sizes %v, want about 1000 each", counts)
			break
		}
	}
}

func TestUniformDeepSubsetInspectsDeepOnNRuns(t *testing.T) {
	cfg := builtinConfig()
	cfg.Subset = Subset{N: 12, Seed: 7}
	rep := mustRun(t, cfg)
	if len(rep.Comparisons) != 12 || len(rep.LightOnly)+12 != len(rep.Sample.Runs) {
		t.Fatalf("comparisons %d, light only %d, sampled %d", len(rep.Comparisons), len(rep.LightOnly), len(rep.Sample.Runs))
	}
	if rep.Cost.Deep.Inspections != 12 || rep.Cost.Light.Inspections != len(rep.Sample.Runs) {
		t.Errorf("deep inspections %d light %d", rep.Cost.Deep.Inspections, rep.Cost.Light.Inspections)
	}
	want := 12 / float64(len(rep.Sample.Runs))
	deep := 0
	for _, in := range rep.Inclusion {
		if in.Pi == nil || math.Abs(*in.Pi-want) > 1e-15 {
			t.Fatalf("pi %v, want %v", in.Pi, want)
		}
		if in.Deep {
			deep++
		}
	}
	if deep != 12 || rep.Inputs.DeepSubset == nil || rep.Inputs.DeepSubset.Policy != PolicyUniform || rep.Estimate == nil {
		t.Errorf("deep %d, inputs %+v, estimate %v", deep, rep.Inputs.DeepSubset, rep.Estimate)
	}
	// Sharded, the same runs get deep.
	shards, names := func() ([]*report.Report, []string) {
		var s []*report.Report
		var n []string
		for i := 1; i <= 2; i++ {
			c := cfg
			c.ShardIndex, c.ShardCount = i, 2
			s = append(s, mustRun(t, c))
			n = append(n, "s")
		}
		return s, n
	}()
	merged, err := Merge(shards, append(names[:1], "t"), Finish{})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(rep, merged, ignoreVolatile, cmpopts.EquateEmpty()); d != "" {
		t.Errorf("sharded uniform subset differs (-whole +merged):\n%s", d)
	}
}

func TestUncertainDeepSubsetFavoursUnsureRunsAboveAFloor(t *testing.T) {
	cfg := builtinConfig()
	cfg.Subset = Subset{Fraction: 0.3, Policy: PolicyUncertain, Seed: 3}
	rep := mustRun(t, cfg)
	n := float64(len(rep.Sample.Runs))
	floor := UniformFloorShare * 0.3
	sum := 0.0
	for _, in := range rep.Inclusion {
		if in.Pi == nil || *in.Pi < floor-1e-12 || *in.Pi > 1 {
			t.Fatalf("pi %v outside [%v, 1]", in.Pi, floor)
		}
		sum += *in.Pi
	}
	if math.Abs(sum-0.3*n) > 1e-9 {
		t.Errorf("sum of pi %v, want the expected deep count %v", sum, 0.3*n)
	}
	if rep.Inputs.DeepSubset.MinPi != floor {
		t.Errorf("min pi %v, want %v", rep.Inputs.DeepSubset.MinPi, floor)
	}
}

func TestWaterFillCapsAtOneAndKeepsTheTotal(t *testing.T) {
	got := waterFill([]float64{0.2, 0.2, 2.0, 0.6}, 3)
	sum := 0.0
	for _, p := range got {
		if p > 1+1e-12 {
			t.Fatalf("%v exceeds 1", got)
		}
		sum += p
	}
	if math.Abs(sum-3) > 1e-12 || got[2] != 1 {
		t.Errorf("%v (sum %v), want the big one capped at 1 and a total of 3", got, sum)
	}
}

func TestUncertaintyIsHighNearThresholdsAndForPartial(t *testing.T) {
	cases := []struct {
		in   inspection.Inspection
		want float64
	}{
		{inspection.Inspection{Verdict: inspection.VerdictPartial, RuntimeFidelity: 100, TaskEffectiveness: 100}, 1},
		{inspection.Inspection{Verdict: inspection.VerdictPass, RuntimeFidelity: 70, TaskEffectiveness: 95}, 1},
		{inspection.Inspection{Verdict: inspection.VerdictPass, RuntimeFidelity: 100, TaskEffectiveness: 100}, 0},
		{inspection.Inspection{Verdict: inspection.VerdictPass, RuntimeFidelity: 85, TaskEffectiveness: 90}, 0.5},
	}
	for _, c := range cases {
		if got := uncertainty([]inspection.Inspection{c.in}); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("uncertainty(%+v) = %v, want %v", c.in, got, c.want)
		}
	}
}
