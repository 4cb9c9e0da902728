package advisor

import (
	"strings"
	"testing"

	"github.com/evalcal/evalcal/statistician/aggregate"
)

// lenientButPessimistic: light's scores sit 12 points under deep's on
// every run (a cap), yet light passes 6 runs deep marks partial; one run
// carries a light-only flag and splits the other way.
func lenientButPessimistic() []run {
	var runs []run
	for i := 0; i < 6; i++ {
		runs = append(runs, run{light: "pass", deep: "partial", drop: -12})
	}
	runs = append(runs, run{light: "partial", deep: "pass", lightFlags: []string{"error-file"}, drop: -12})
	for i := 0; i < 13; i++ {
		runs = append(runs, run{light: "pass", deep: "pass", drop: -12})
	}
	return runs
}

func TestScoreBiasAgainstTheVerdictsIsAScaleOffsetThatSaysWhy(t *testing.T) {
	cs, _ := build(lenientButPessimistic())
	st := aggregate.ComputeAll(aggregate.Input{Comparisons: cs}, aggregate.DefaultOptions())
	if st.BiasDirection != "pessimistic" || st.Leniency.Direction != "lenient" {
		t.Fatalf("fixture: bias %s, leniency %s; want pessimistic and lenient", st.BiasDirection, st.Leniency.Direction)
	}
	recs := advise(cs, st)
	r := findRule(recs, "pessimistic")
	if r == nil {
		t.Fatalf("no pessimistic recommendation: %+v", recs)
	}
	text := r.Rationale + " " + r.ProposedChange
	for _, w := range []string{"relax", "false positive", "light is strict"} {
		if strings.Contains(text, w) {
			t.Errorf("light is lenient at the pass line, the advice says %q: %s", w, text)
		}
	}
	if !strings.Contains(text, "at the pass line light is lenient") || !strings.Contains(text, "the scores and the verdicts point different ways") ||
		!strings.Contains(text, "+12.00 points") {
		t.Errorf("the advice does not say why the directions differ (the +12.00 offset): %s", text)
	}
	if r.ExpectedImpact.GainPoints != 0 || r.ExpectedImpact.Basis != BasisScale {
		t.Errorf("impact %+v, want no verdict change (BasisScale)", r.ExpectedImpact)
	}
	if recs[0].Rule == "pessimistic" || recs[0].ExpectedImpact.GainPoints <= 0 {
		t.Errorf("a recommendation that changes no verdict ranks first: %+v", recs)
	}
}

func TestScoreBiasWithTheVerdictsKeepsItsChange(t *testing.T) {
	// Strict and pessimistic: no conflict, relax the light-only flag.
	var runs []run
	for i := 0; i < 4; i++ {
		runs = append(runs, run{light: "partial", deep: "pass", lightFlags: []string{"slow-step"}, drop: -12})
	}
	for i := 0; i < 16; i++ {
		runs = append(runs, run{light: "pass", deep: "pass", drop: -6})
	}
	cs, _ := build(runs)
	st := aggregate.ComputeAll(aggregate.Input{Comparisons: cs}, aggregate.DefaultOptions())
	r := findRule(advise(cs, st), "pessimistic")
	if r == nil || !strings.Contains(r.ProposedChange, "relax the criteria behind the light-only flags slow-step") || r.ExpectedImpact.VerdictsResolved != 4 {
		t.Errorf("pessimistic = %+v, want the light-only flag relaxed on its 4 runs", r)
	}
}

func TestZeroImpactNeverRanksFirst(t *testing.T) {
	// Deep raises one flag on 3 runs at the same verdicts as light: the
	// cluster resolves no verdict; edge-cases resolves the one split.
	var runs []run
	for i := 0; i < 3; i++ {
		runs = append(runs, run{light: "pass", deep: "pass", deepFlags: []string{"stale-cache"}})
	}
	for i := 0; i < 16; i++ {
		runs = append(runs, run{light: "pass", deep: "pass"})
	}
	runs = append(runs, run{light: "pass", deep: "fail", drop: 40}) // one split: edge-cases resolves it
	cs, st := build(runs)
	recs := advise(cs, st)
	c := findRule(recs, "cluster")
	if c == nil || c.ExpectedImpact.GainPoints != 0 {
		t.Fatalf("fixture: want a zero-impact cluster, got %+v", recs)
	}
	if recs[0].Rule == "cluster" {
		t.Errorf("zero-impact cluster ranks first: %+v", recs)
	}
}

func TestRankingNoteSaysWhichImpactsAreTested(t *testing.T) {
	recs := []Recommendation{
		{Priority: 1, ExpectedImpact: Impact{Basis: BasisCrossValidated}},
		{Priority: 2, ExpectedImpact: Impact{Basis: BasisImbalance}},
		{Priority: 3, ExpectedImpact: Impact{Basis: BasisResolved}},
		{Priority: 4, ExpectedImpact: Impact{Basis: BasisSample}},
	}
	got := RankingNote(recs)
	if !strings.Contains(got, "priorities 1, 2 carry tested estimates") || !strings.Contains(got, "priority 3 carries an upper bound") {
		t.Errorf("note = %q", got)
	}
	if RankingNote(recs[2:]) != "" || RankingNote(recs[:2]) != "" {
		t.Error("a list of one kind gets a note")
	}
}
