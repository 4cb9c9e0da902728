package pairwise

import (
	"context"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/evalcal/evalcal/advisor"
)

// readFixture reads testdata/NAME with ReadJSONL.
func readFixture(t *testing.T, name string) ([]Verdict, []BadLine) {
	t.Helper()
	f, err := os.Open("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	vs, bad, err := ReadJSONL(context.Background(), f, name, DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	return vs, bad
}

// TestAnalyseHandWorked checks the position section of the hand-made
// testdata/judge.jsonl against testdata/deep.jsonl. By hand: pairs p01-p11
// are judged in both orders, p12 in one; p01, p02, p03, p04, p05 (a tie
// both ways), p09 and p10 keep their winner (7/11). The kept verdicts
// naming a winner are 11 in order ab (p05 ties) and 9 in order ba (p05
// and p11 tie); the first slot wins ab: p01 p02 p06 p07 p09 p11 p12, ba:
// p03 p04 p06 p07 p10, 12/20. Of the 7 consistent pairs all but p04
// match deep (6/7); with the 4 inconsistent pairs abstained, 6/11. The
// line-24 p01 verdict is a duplicate; line 25 has winner "c".
func TestAnalyseHandWorked(t *testing.T) {
	judge, bad := readFixture(t, "judge.jsonl")
	deepVs, deepBad := readFixture(t, "deep.jsonl")
	if len(deepBad) != 0 {
		t.Fatalf("deep fixture bad lines: %v", deepBad)
	}
	if len(bad) != 1 || bad[0].Line != 25 || bad[0].Field != "winner" || bad[0].File != "judge.jsonl" {
		t.Errorf("bad lines %+v, want one at judge.jsonl:25 field winner", bad)
	}
	deep := Deep{}
	for _, v := range deepVs {
		deep[v.PairID] = v.Winner
	}
	got := Analyse(judge, deep)
	if len(got) != 1 || got[0].Judge != "llm-a" {
		t.Fatalf("judges %+v, want llm-a only", got)
	}
	p := got[0]
	for _, c := range []struct {
		name      string
		got, want [2]int
	}{
		{"pairs, both orders", [2]int{p.Pairs, p.BothOrders}, [2]int{12, 11}},
		{"verdicts, duplicates", [2]int{p.Verdicts, p.Duplicates}, [2]int{24, 1}},
		{"consistency", [2]int{p.Consistency.Count, p.Consistency.N}, [2]int{7, 11}},
		{"first slot", [2]int{p.FirstSlot.Count, p.FirstSlot.N}, [2]int{12, 20}},
		{"accuracy consistent", [2]int{p.Accuracy.ConsistentOnly.Count, p.Accuracy.ConsistentOnly.N}, [2]int{6, 7}},
		{"accuracy abstained", [2]int{p.Accuracy.Abstained.Count, p.Accuracy.Abstained.N}, [2]int{6, 11}},
	} {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	// References: scipy.stats.binomtest(12, 20, 0.5).pvalue;
	// sklearn.metrics.cohen_kappa_score([0,0,2,2,1,0,2], [0,0,2,0,1,0,2],
	// labels=[0,1,2], weights="linear") and weights=None;
	// statsmodels proportion_confint(7, 11, method="wilson") (scipy 1.10.1,
	// sklearn 1.2.1, statsmodels 0.13.5).
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"first-slot p", p.FirstSlot.P, 0.5034446716308594},
		{"linear kappa", p.Agreement.KappaLinear.Value, 0.7083333333333333},
		{"unweighted kappa", p.Agreement.KappaUnweighted.Value, 0.7666666666666666},
		{"consistency lower", p.Consistency.CI95.Lower, 0.35380117450784887},
		{"consistency upper", p.Consistency.CI95.Upper, 0.8483352890463243},
	} {
		if math.Abs(c.got-c.want) > 1e-12 {
			t.Errorf("%s = %.16g, want %.16g", c.name, c.got, c.want)
		}
	}
	if p.Trust != advisor.TrustInsufficient {
		t.Errorf("trust %s with 7 consistent pairs, want %s", p.Trust, advisor.TrustInsufficient)
	}
}

// plantedJudge is n pairs judged in both orders: the first consistent
// ones agree with deep (which alternates a, b), the rest flip with the
// slot (the first slot always wins).
func plantedJudge(n, consistent int) ([]Verdict, Deep) {
	var vs []Verdict
	deep := Deep{}
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("p%03d", i)
		w := WinnerA
		if i%2 == 1 {
			w = WinnerB
		}
		deep[id] = w
		ab, ba := w, w
		if i >= consistent {
			ab, ba = WinnerA, WinnerB
		}
		vs = append(vs, Verdict{PairID: id, RunA: id + "x", RunB: id + "y", Order: OrderAB, Winner: ab, Judge: "j"},
			Verdict{PairID: id, RunA: id + "x", RunB: id + "y", Order: OrderBA, Winner: ba, Judge: "j"})
	}
	return vs, deep
}

// TestTrustCappedByConsistency: a judge perfect on its consistent pairs
// gates when it is consistent, and is capped at monitor, with the reason,
// when the consistency's lower bound is under 80%.
func TestTrustCappedByConsistency(t *testing.T) {
	vs, deep := plantedJudge(200, 200)
	p := Analyse(vs, deep)[0]
	if p.Trust != advisor.TrustGate {
		t.Errorf("consistent perfect judge: trust %s (%v), want gate", p.Trust, p.Why)
	}
	vs, deep = plantedJudge(200, 150) // 75% consistent
	p = Analyse(vs, deep)[0]
	if p.Trust != advisor.TrustMonitor {
		t.Errorf("75%% consistent judge: trust %s, want monitor", p.Trust)
	}
	why := strings.Join(p.Why, "; ")
	if !strings.Contains(why, "capped at monitor by position consistency") || !strings.Contains(why, "150/200") {
		t.Errorf("why does not give the cap: %s", why)
	}
	if p.Accuracy.ConsistentOnly.Count != 150 || p.Accuracy.Abstained.N != 200 || p.Accuracy.Abstained.Count != 150 {
		t.Errorf("accuracies %+v", p.Accuracy)
	}
	if p.FirstSlot.Count != 150+100 || p.FirstSlot.N != 400 {
		t.Errorf("first slot %d/%d, want 250/400", p.FirstSlot.Count, p.FirstSlot.N)
	}
}

// TestAnalyseWithoutDeep: no deep side gives no accuracy and an
// insufficient_evidence verdict that says why.
func TestAnalyseWithoutDeep(t *testing.T) {
	vs, _ := plantedJudge(20, 20)
	p := Analyse(vs, nil)[0]
	if p.Accuracy != nil || p.Agreement != nil || p.Trust != advisor.TrustInsufficient {
		t.Errorf("without deep: %+v", p)
	}
}
