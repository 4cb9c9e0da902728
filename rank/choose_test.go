package rank

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// allPass makes n runs that deep passed; the candidate fails the runs in
// [from, to) and passes the rest.
func allPass(name string, n, from, to int, usd *float64) Input {
	in := Input{Name: name, Spec: "exec:" + name, USDPer1k: usd}
	for i := 0; i < n; i++ {
		v := Pass
		if i >= from && i < to {
			v = Fail
		}
		in.Outcomes = append(in.Outcomes, Outcome{RunID: fmt.Sprintf("r%03d", i), Light: v, Deep: Pass})
	}
	return in
}

func usd(x float64) *float64 { return &x }

// handMade: A agrees on 100 of 100 runs, B on 99 (one discordant run
// against A: p = 1), C on 70 and D on 69 (30 and 31 discordant runs
// against A: p < 1e-8; C against D one run: p = 1). So the tie groups
// are {A, B} and {C, D}; with costs A $10, B $1, C $0.5, D $2 the
// front is A (best), B (cheaper than A), C (cheapest); D is beaten by C
// on both; and the choice is B, the cheaper of the top group.
func handMade(costs [4]*float64) []Input {
	return []Input{
		allPass("D", 100, 0, 31, costs[3]),
		allPass("C", 100, 0, 30, costs[2]),
		allPass("B", 100, 99, 100, costs[1]),
		allPass("A", 100, 0, 0, costs[0]),
	}
}

func names(cs []Candidate) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Name)
	}
	return out
}

func TestGroupsParetoAndChoiceHandMade(t *testing.T) {
	doc, err := Rank(handMade([4]*float64{usd(10), usd(1), usd(0.5), usd(2)}))
	if err != nil {
		t.Fatal(err)
	}
	if got := names(doc.Candidates); !slices.Equal(got, []string{"A", "B", "C", "D"}) {
		t.Errorf("order %v", got)
	}
	if len(doc.Groups) != 2 || !slices.Equal(doc.Groups[0].Members, []string{"A", "B"}) || !slices.Equal(doc.Groups[1].Members, []string{"C", "D"}) {
		t.Errorf("groups %+v, want [A B] [C D]", doc.Groups)
	}
	if !slices.Equal(doc.Pareto, []string{"A", "B", "C"}) {
		t.Errorf("pareto %v, want [A B C]", doc.Pareto)
	}
	if doc.Summary.Use != "B" || !strings.HasPrefix(doc.Summary.Sentence, "Use B: no test separates it from the best, A") ||
		doc.Summary.CostAxis != AxisUSD {
		t.Errorf("summary %+v", doc.Summary)
	}
	if len(doc.Pairwise) != 6 {
		t.Errorf("%d pairs, want 6", len(doc.Pairwise))
	}
}

func TestChoiceWithoutCosts(t *testing.T) {
	doc, err := Rank(handMade([4]*float64{}))
	if err != nil {
		t.Fatal(err)
	}
	if doc.Summary.CostAxis != AxisNone || doc.Summary.Use != "A" || !slices.Equal(doc.Pareto, []string{"A"}) {
		t.Errorf("summary %+v pareto %v", doc.Summary, doc.Pareto)
	}
	if !strings.Contains(doc.Summary.Sentence, "no test separates it from B") {
		t.Errorf("sentence %q", doc.Summary.Sentence)
	}
}

// With one USD cost missing, seconds are compared when every candidate
// has them.
func TestCostAxisFallsBackToSeconds(t *testing.T) {
	in := handMade([4]*float64{usd(10), nil, usd(0.5), usd(2)})
	secs := []float64{5, 50, 1, 1} // D, C, B, A
	for i := range in {
		in[i].SecondsPer1k = usd(secs[i])
	}
	doc, err := Rank(in)
	if err != nil {
		t.Fatal(err)
	}
	// A is best and, at 1 s, as cheap as B: A is chosen, and B (same
	// cost, lower agreement) is beaten; C (50 s) is beaten by A; D (5 s,
	// 69%) too.
	if doc.Summary.CostAxis != AxisSeconds || doc.Summary.Use != "A" || !slices.Equal(doc.Pareto, []string{"A"}) {
		t.Errorf("summary %+v pareto %v", doc.Summary, doc.Pareto)
	}
}

// Two candidates equal on agreement and cost are both on the front; a
// single separated best is its own group.
func TestParetoTiesAndSeparatedBest(t *testing.T) {
	in := []Input{allPass("x", 100, 0, 40, usd(1)), allPass("y", 100, 60, 100, usd(1)), allPass("z", 100, 0, 0, usd(3))}
	doc, err := Rank(in)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(doc.Pareto, []string{"z", "x", "y"}) {
		t.Errorf("pareto %v, want [z x y]", doc.Pareto)
	}
	if len(doc.Groups) != 2 || !slices.Equal(doc.Groups[0].Members, []string{"z"}) {
		t.Errorf("groups %+v", doc.Groups)
	}
	// x and y fail different runs: 40 discordant each way, p = 1.
	if !slices.Equal(doc.Groups[1].Members, []string{"x", "y"}) {
		t.Errorf("groups %+v", doc.Groups)
	}
	if doc.Summary.Use != "z" || !strings.Contains(doc.Summary.Sentence, "separate it from every other candidate") {
		t.Errorf("summary %+v", doc.Summary)
	}
}

func TestRankRefusesBadInput(t *testing.T) {
	if _, err := Rank([]Input{allPass("a", 3, 0, 0, nil)}); err == nil {
		t.Error("one candidate accepted")
	}
	if _, err := Rank([]Input{allPass("a", 3, 0, 0, nil), allPass("a", 3, 0, 0, nil)}); err == nil {
		t.Error("duplicate names accepted")
	}
}
