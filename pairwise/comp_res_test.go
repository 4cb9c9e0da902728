package pairwise

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// compResDir is the comp_res directory of the shared real judge data (see
// testdata/comp_res_reference.py for its provenance).
var compResDir = filepath.Join("..", "..", "shared", "real-judge-data", "summeval", "comp_res", "gpt-3.5-turbo-0301")

// compResReference is testdata/comp_res_reference.json: the counts and
// statistics of each judge computed directly from the files by
// comp_res_reference.py (scipy, statsmodels, sklearn).
type compResReference struct {
	Judges map[string]struct {
		Pairs             int        `json:"pairs"`
		Consistency       [2]int     `json:"consistency"`
		ConsistencyCI95   [2]float64 `json:"consistency_ci95"`
		FirstSlot         [2]int     `json:"first_slot"`
		FirstSlotP        float64    `json:"first_slot_p"`
		AccConsistent     [2]int     `json:"acc_consistent"`
		AccConsistentCI95 [2]float64 `json:"acc_consistent_ci95"`
		AccAbstained      [2]int     `json:"acc_abstained"`
		KappaLinear       float64    `json:"kappa_linear"`
		KappaUnweighted   float64    `json:"kappa_unweighted"`
	} `json:"judges"`
}

// TestCompResMatchesDirectCounts is the done-when test of the position
// section: on the real comp_res files (gpt-3.5-turbo judging two systems'
// summaries in both orders, human expert means as deep), every judge's
// consistency, first-slot rate and both accuracies equal the direct
// counts to the count, and the intervals, p and kappas equal the
// reference packages' values.
func TestCompResMatchesDirectCounts(t *testing.T) {
	if _, err := os.Stat(compResDir); err != nil {
		t.Skipf("shared comp_res data absent: %v", err)
	}
	raw, err := os.ReadFile(filepath.Join("testdata", "comp_res_reference.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ref compResReference
	if err := json.Unmarshal(raw, &ref); err != nil {
		t.Fatal(err)
	}
	vs, deep, bad, err := ReadCompRes(context.Background(), compResDir, DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	if len(bad) != 0 {
		t.Errorf("bad lines in the real files: %v", bad)
	}
	got := Analyse(vs, deep)
	if len(got) != len(ref.Judges) || len(got) == 0 {
		t.Fatalf("%d judges, reference has %d", len(got), len(ref.Judges))
	}
	for _, p := range got {
		r, ok := ref.Judges[p.Judge]
		if !ok {
			t.Errorf("judge %q not in the reference", p.Judge)
			continue
		}
		counts := []struct {
			name string
			got  [2]int
			want [2]int
		}{
			{"consistency", [2]int{p.Consistency.Count, p.Consistency.N}, r.Consistency},
			{"first slot", [2]int{p.FirstSlot.Count, p.FirstSlot.N}, r.FirstSlot},
			{"accuracy (consistent only)", [2]int{p.Accuracy.ConsistentOnly.Count, p.Accuracy.ConsistentOnly.N}, r.AccConsistent},
			{"accuracy (inconsistent abstained)", [2]int{p.Accuracy.Abstained.Count, p.Accuracy.Abstained.N}, r.AccAbstained},
			{"pairs", [2]int{p.Pairs, p.BothOrders}, [2]int{r.Pairs, r.Pairs}},
		}
		for _, c := range counts {
			if c.got != c.want {
				t.Errorf("%s: %s = %d/%d, direct count %d/%d", p.Judge, c.name, c.got[0], c.got[1], c.want[0], c.want[1])
			}
		}
		near := func(what string, got, want float64) {
			t.Helper()
			if math.Abs(got-want) > 1e-9*math.Max(1, math.Abs(want)) {
				t.Errorf("%s: %s = %.12g, reference %.12g", p.Judge, what, got, want)
			}
		}
		near("consistency lower", p.Consistency.CI95.Lower, r.ConsistencyCI95[0])
		near("consistency upper", p.Consistency.CI95.Upper, r.ConsistencyCI95[1])
		near("accuracy lower", p.Accuracy.ConsistentOnly.CI95.Lower, r.AccConsistentCI95[0])
		near("accuracy upper", p.Accuracy.ConsistentOnly.CI95.Upper, r.AccConsistentCI95[1])
		near("first-slot p", p.FirstSlot.P, r.FirstSlotP)
		near("linear kappa", p.Agreement.KappaLinear.Value, r.KappaLinear)
		near("unweighted kappa", p.Agreement.KappaUnweighted.Value, r.KappaUnweighted)
		if p.Consistency.CI95.Lower < MinConsistencyLower && p.Trust == "gate" {
			t.Errorf("%s: trust gate with consistency lower bound %v", p.Judge, p.Consistency.CI95.Lower)
		}
	}
}
