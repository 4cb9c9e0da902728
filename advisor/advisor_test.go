package advisor

import (
	"fmt"
	"strings"
	"testing"

	"github.com/evalcal/evalcal/comparator"
	"github.com/evalcal/evalcal/inspection"
	"github.com/evalcal/evalcal/runner"
	"github.com/evalcal/evalcal/statistician/aggregate"
)

type run struct {
	light, deep string
	deepFlags   []string
	lightFlags  []string
	drop        float64
}

func build(runs []run) ([]comparator.Comparison, aggregate.Stats) {
	var pairs []runner.Pair
	for i, r := range runs {
		id := fmt.Sprintf("r%02d", i)
		l := inspection.Inspection{RunID: id, Verdict: r.light, RuntimeFidelity: 80, TaskEffectiveness: 75}
		d := inspection.Inspection{RunID: id, Verdict: r.deep, RuntimeFidelity: 80 - r.drop, TaskEffectiveness: 75 - r.drop}
		for _, f := range r.lightFlags {
			l.Flags = append(l.Flags, inspection.Flag{ID: f, Severity: "warning"})
		}
		for _, f := range r.deepFlags {
			d.Flags = append(d.Flags, inspection.Flag{ID: f, Severity: "warning"})
		}
		pairs = append(pairs, runner.Pair{Light: l, Deep: d})
	}
	cs := comparator.Compare(pairs)
	return cs, aggregate.Compute(cs, aggregate.DefaultOptions())
}

func TestLowAgreementPutsMostCommonTypeFirstWithComputedImpact(t *testing.T) {
	var runs []run
	for i := 0; i < 4; i++ { // 4 verdict splits, light optimistic, deep finds placeholder-output
		runs = append(runs, run{light: "pass", deep: "fail", deepFlags: []string{"placeholder-output"}, drop: 40})
	}
	runs = append(runs, run{light: "pass", deep: "pass", deepFlags: []string{"order-mismatch"}})
	for i := 0; i < 5; i++ {
		runs = append(runs, run{light: "pass", deep: "pass"})
	}
	cs, st := build(runs)
	recs := advise(cs, st)
	if len(recs) == 0 {
		t.Fatal("no recommendations")
	}
	first := recs[0]
	if first.Rule != "most-common-type" || first.Priority != 1 {
		t.Fatalf("first = %+v, want the most common type (verdict_split)", first)
	}
	// 6/10 agree now; resolving the 4 splits gives 10/10.
	if first.ExpectedImpact.CurrentPercent != 60 || first.ExpectedImpact.AgreementPercent != 100 || first.ExpectedImpact.VerdictsResolved != 4 {
		t.Errorf("impact = %+v, want 60 -> 100 with 4 verdicts resolved", first.ExpectedImpact)
	}
	var cluster, optimistic bool
	for _, r := range recs {
		if r.Rule == "cluster" && r.Target == "light check for placeholder-output" {
			cluster = true
		}
		if r.Rule == "cluster" && r.Target == "light check for order-mismatch" {
			t.Errorf("a deep-only flag on one run is not a cluster: %+v", r)
		}
		if r.Rule == "optimistic" {
			optimistic = true
		}
	}
	if !cluster || !optimistic {
		t.Errorf("want cluster and optimistic recommendations, got %+v", recs)
	}
	for i, r := range recs {
		if r.Priority != i+1 {
			t.Errorf("priority %d at position %d", r.Priority, i)
		}
	}
}

func TestAllAgreeAsksForAdversarialRuns(t *testing.T) {
	var runs []run
	for i := 0; i < 12; i++ {
		runs = append(runs, run{light: "pass", deep: "pass"})
	}
	recs := advise(build(runs))
	if len(recs) != 1 || recs[0].Rule != "all-agree" {
		t.Fatalf("recs = %+v, want only all-agree", recs)
	}
}

func TestSmallSampleIsPreliminary(t *testing.T) {
	recs := advise(build([]run{{light: "pass", deep: "pass"}, {light: "fail", deep: "fail"}, {light: "partial", deep: "partial"}}))
	var prelim bool
	for _, r := range recs {
		prelim = prelim || r.Rule == "preliminary"
	}
	if !prelim {
		t.Errorf("3 runs: want a preliminary recommendation, got %+v", recs)
	}
}

func TestPessimisticLightNamesItsFalsePositives(t *testing.T) {
	var runs []run
	for i := 0; i < 10; i++ {
		runs = append(runs, run{light: "partial", deep: "partial", lightFlags: []string{"slow-step"}, drop: -8})
	}
	recs := advise(build(runs))
	found := false
	for _, r := range recs {
		if r.Rule == "pessimistic" {
			found = true
			if len(r.Addresses) != 10 {
				t.Errorf("pessimistic addresses %d runs, want 10", len(r.Addresses))
			}
		}
	}
	if !found {
		t.Errorf("want a pessimistic recommendation, got %+v", recs)
	}
}

func TestAdviceIsDeterministic(t *testing.T) {
	runs := []run{{light: "pass", deep: "fail", deepFlags: []string{"a", "b"}, drop: 30}, {light: "pass", deep: "fail", deepFlags: []string{"b", "a"}, drop: 30}, {light: "pass", deep: "pass"}}
	a := fmt.Sprintf("%+v", advise(build(runs)))
	for i := 0; i < 5; i++ {
		if b := fmt.Sprintf("%+v", advise(build(runs))); a != b {
			t.Fatalf("advice differs between calls:\n%s\n%s", a, b)
		}
	}
}

func TestBiasFromAScaleOffsetIsNamedAsSuch(t *testing.T) {
	var runs []run
	for i := 0; i < 10; i++ { // verdicts agree, deep 8 points higher: an offset, not a criterion
		runs = append(runs, run{light: "pass", deep: "pass", drop: -8})
	}
	runs = append(runs, run{light: "partial", deep: "pass", lightFlags: []string{"x"}, drop: -8})
	recs := advise(build(runs))
	for _, r := range recs {
		if r.Rule == "pessimistic" {
			if !strings.Contains(r.ProposedChange, "scale offset") || !strings.Contains(r.ProposedChange, "+8.0") {
				t.Errorf("pessimistic change does not name the +8.0 scale offset: %s", r.ProposedChange)
			}
			return
		}
	}
	t.Errorf("no pessimistic recommendation: %+v", recs)
}

func TestHighAgreementFocusesOnEdgeCases(t *testing.T) {
	var runs []run
	for i := 0; i < 19; i++ {
		runs = append(runs, run{light: "pass", deep: "pass"})
	}
	runs = append(runs, run{light: "pass", deep: "partial", deepFlags: []string{"rare"}, drop: 12})
	recs := advise(build(runs))
	var edge *Recommendation
	for i := range recs {
		if recs[i].Rule == "edge-cases" {
			edge = &recs[i]
		}
		if recs[i].Rule == "most-common-type" {
			t.Errorf("95%% agreement is not low; got %+v", recs[i])
		}
	}
	if edge == nil || len(edge.Addresses) != 1 || edge.ExpectedImpact.AgreementPercent != 100 {
		t.Fatalf("edge-cases recommendation = %+v, want one addressing the single split (95%% -> 100%%)", edge)
	}
}

func TestSeverityMismatchesAreAligned(t *testing.T) {
	var runs []run
	for i := 0; i < 10; i++ {
		runs = append(runs, run{light: "partial", deep: "partial"})
	}
	cs, _ := build(runs)
	for i := 0; i < 3; i++ { // same flag, other severity at deep
		cs[i].FlagOverlap.SeverityMismatches = []string{"x: light warning, deep critical"}
		dt := comparator.SeverityMismatch
		cs[i].DisagreementType = &dt
	}
	recs := advise(cs, aggregate.Compute(cs, aggregate.DefaultOptions()))
	for _, r := range recs {
		if r.Rule == "severity" {
			if len(r.Addresses) != 3 || r.ExpectedImpact.GainPoints != 0 {
				t.Errorf("severity recommendation %+v: want 3 runs and no verdict gain (verdicts already agree)", r)
			}
			return
		}
	}
	t.Errorf("no severity recommendation in %+v", recs)
}

func TestRuleTableNamesEachRuleOnceInRankOrderOfItsTests(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range Rules() {
		if r.Name == "" || r.Fire == nil || seen[r.Name] {
			t.Errorf("rule %q: empty, without Fire, or listed twice", r.Name)
		}
		seen[r.Name] = true
	}
	// The tested rules fire first: edge-cases and leniency read what fired.
	rs := Rules()
	for i := 1; i < len(rs); i++ {
		if rs[i].Rank == RankTested && rs[i-1].Rank != RankTested {
			t.Errorf("tested rule %s fires after an untested one", rs[i].Name)
		}
	}
}

// advise is Advise for the builtin inspector on both sides, the phrasing
// the tests below were written for.
func advise(cs []comparator.Comparison, st aggregate.Stats) []Recommendation {
	return Advise(Input{Comparisons: cs, Stats: st, LightSpec: "builtin", DeepSpec: "builtin"})
}
