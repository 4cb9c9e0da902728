package report_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/evalcal/evalcal/internal/reportenc"
	"github.com/evalcal/evalcal/pairwise"
	"github.com/evalcal/evalcal/perturb"
	. "github.com/evalcal/evalcal/report"
	"github.com/evalcal/evalcal/report/render"
	"github.com/evalcal/evalcal/report/reportio"
	"github.com/evalcal/evalcal/report/reporttest"
	"github.com/evalcal/evalcal/runner"
	"github.com/evalcal/evalcal/statistician"
	"github.com/google/go-cmp/cmp"
)

// positionFixture is the fixture report with a position section and two
// perturbation tests, one without a result.
func positionFixture(t *testing.T) *Report {
	t.Helper()
	r := reporttest.Fixture(0)
	vs := []pairwise.Verdict{
		{PairID: "p1", RunA: "r1", RunB: "r2", Winner: "a", Order: "ab", Judge: "openai:m"},
		{PairID: "p1", RunA: "r1", RunB: "r2", Winner: "b", Order: "ba", Judge: "openai:m"},
		{PairID: "p2", RunA: "r1", RunB: "r3", Winner: "tie", Order: "ab", Judge: "openai:m"},
		{PairID: "p2", RunA: "r1", RunB: "r3", Winner: "tie", Order: "ba", Judge: "openai:m"},
	}
	usd, perRun := 0.0123456789, 0.00617283945
	cost := SideCost{SideCost: runner.SideCost{Identity: "openai:m@x/pairwise@y", Model: "m", Inspections: 2, Calls: 2, Tokens: 2000, USD: &usd, Seconds: 1.25},
		Price: &runner.Price{Input: 0.15, Output: 0.6}, PerRun: &perRun}
	r.Position = &Position{PairsFile: "pairs.jsonl", Pairs: 2, Orders: 2, Identity: "openai:m@x/pairwise@y", DeepRule: "rule",
		Judge:       pairwise.Analyse(vs, pairwise.Deep{"p1": "a", "p2": "tie"})[0],
		CostByOrder: []PositionCost{{Order: "ab", SideCost: cost}, {Order: "ba", SideCost: cost}},
		Verdicts:    vs, Failures: []PositionFailure{{PairID: "p3", Order: "ba", Reason: "names no winner"}},
		BadLines: pairwise.BadLines{Count: 1, Lines: []pairwise.BadLine{{File: "pairs.jsonl", Line: 4, Field: "run_b", Error: "missing"}}}}
	r.Perturbations = []Perturbation{
		{Kind: PerturbOrder, Identity: "openai:m@x/perturb=order@1", Runs: 3, Cost: cost,
			Result: &perturb.Result{N: 3, FlipRate: 2.0 / 3, NoiseRate: 1.0 / 3, Excess: 1.0 / 3, CI: statistician.Interval{Lower: -1.0 / 3, Upper: 1}, Flipped: []string{"r1", "r2"}}},
		{Kind: PerturbRubric, File: "alt.tmpl", Identity: "openai:m@z", Missing: 3, Reason: "no run has a perturbed verdict", Cost: cost},
	}
	return r
}

// TestPositionSectionsReadBackAndRender: the position and perturbation
// sections read back from YAML and JSON and re-encode to the same bytes,
// and the Markdown and HTML reports show them.
func TestPositionSectionsReadBackAndRender(t *testing.T) {
	r := positionFixture(t)
	for format, enc := range map[string]func(any) ([]byte, error){"yaml": reportenc.EncodeYAML, "json": reportenc.EncodeJSON} {
		first, err := enc(r)
		if err != nil {
			t.Fatal(err)
		}
		back, err := reportio.ParseReport(first)
		if err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		if back.Position == nil || len(back.Position.Verdicts) != 4 || len(back.Perturbations) != 2 || *back.Position.CostByOrder[0].USD != 0.0123456789 {
			t.Fatalf("%s: read back %+v %+v", format, back.Position, back.Perturbations)
		}
		second, err := enc(back)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(first, second) {
			t.Errorf("%s: re-encoding differs (-first +second):\n%s", format, cmp.Diff(string(first), string(second)))
		}
	}
	md, err := render.Markdown(r)
	if err != nil {
		t.Fatal(err)
	}
	html, err := render.HTML(r)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Position bias (pairwise)", "consistency (same winner in both orders): 1/2 = 50.00%", "first slot wins: 2/2 = 100.00%",
		"Perturbation tests", "33.33%", "r1, r2", "no run has a perturbed verdict"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("Markdown lacks %q", want)
		}
		if !strings.Contains(string(html), want) {
			t.Errorf("HTML lacks %q", want)
		}
	}
}
