package rank

import (
	"encoding/json"
	"fmt"
	"os"
	"testing"
)

// TestPanelOfMatchesReference checks the panel section (members against
// deep, Fleiss' kappa, Krippendorff's alpha, effective votes) against
// statsmodels and a numpy coincidence-matrix alpha
// (testdata/panel_reference.py).
func TestPanelOfMatchesReference(t *testing.T) {
	data, err := os.ReadFile("testdata/panel_reference.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref struct {
		Sets []struct {
			Seed           int                                   `json:"seed"`
			Deep           []int8                                `json:"deep"`
			Votes          [][]int8                              `json:"votes"`
			Fleiss         float64                               `json:"fleiss"`
			FleissItems    int                                   `json:"fleiss_items"`
			Alpha          float64                               `json:"alpha"`
			EffectiveVotes float64                               `json:"effective_votes"`
			Members        []struct{ Matches, N, Abstained int } `json:"members"`
		} `json:"sets"`
	}
	if err := json.Unmarshal(data, &ref); err != nil {
		t.Fatal(err)
	}
	for _, s := range ref.Sets {
		m := len(s.Votes[0])
		members := make([]Input, m)
		var runs []string
		for u, row := range s.Votes {
			id := fmt.Sprintf("run-%04d", u)
			runs = append(runs, id)
			for j, v := range row {
				if v >= 0 {
					members[j].Outcomes = append(members[j].Outcomes, Outcome{RunID: id, Light: v, Deep: s.Deep[u]})
				}
			}
		}
		for j := range members {
			members[j].Spec = fmt.Sprintf("exec:m%d", j)
			usd := float64(j + 1)
			members[j].USDPer1k = &usd
		}
		sec := PanelOf("majority", members, runs)
		if !near(sec.Fleiss.Value, s.Fleiss, 1e-12) || sec.Fleiss.Items != s.FleissItems {
			t.Errorf("set %d: Fleiss %v over %d runs, want %v over %d", s.Seed, sec.Fleiss.Value, sec.Fleiss.Items, s.Fleiss, s.FleissItems)
		}
		if !near(sec.Krippendorff.Alpha, s.Alpha, 1e-12) {
			t.Errorf("set %d: alpha %v, want %v", s.Seed, sec.Krippendorff.Alpha, s.Alpha)
		}
		if sec.EffectiveVotes == nil || !near(*sec.EffectiveVotes, s.EffectiveVotes, 1e-12) {
			t.Errorf("set %d: effective votes %v, want %v", s.Seed, sec.EffectiveVotes, s.EffectiveVotes)
		}
		for j, want := range s.Members {
			got := sec.Members[j]
			if got.Agreement.Matches != want.Matches || got.Agreement.N != want.N || got.Abstained != want.Abstained {
				t.Errorf("set %d member %d: %d/%d abstained %d, want %d/%d abstained %d", s.Seed, j,
					got.Agreement.Matches, got.Agreement.N, got.Abstained, want.Matches, want.N, want.Abstained)
			}
		}
		if want := float64(m*(m+1)) / 2; sec.Cost.USDPer1k == nil || *sec.Cost.USDPer1k != want {
			t.Errorf("set %d: panel cost %v, want the members' sum %v", s.Seed, sec.Cost.USDPer1k, want)
		}
	}
}
