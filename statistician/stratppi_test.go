package statistician

import (
	"math"
	"strings"
	"testing"
)

func TestNeymanAllocation(t *testing.T) {
	cases := []struct {
		n      int
		sizes  []int
		sd     []float64
		minPer int
		want   []int
	}{
		// N_h S_h = 100 x 0.5, 300 x 0.1, 100 x 0.2: 50 : 30 : 20 of 100.
		{100, []int{100, 300, 100}, []float64{0.5, 0.1, 0.2}, 2, []int{50, 30, 20}},
		// Stratum 0 can take 10 only: the rest go 30 : 20 = 54 : 36.
		{100, []int{10, 300, 100}, []float64{5, 0.1, 0.2}, 2, []int{10, 54, 36}},
		// A stratum with no variance gets its floor.
		{20, []int{50, 50}, []float64{0, 0.3}, 2, []int{2, 18}},
		// Fewer labels than floors: the floors.
		{3, []int{50, 50}, []float64{0.1, 0.3}, 2, []int{2, 2}},
		// No variance anywhere: by size.
		{12, []int{30, 10}, []float64{0, 0}, 2, []int{9, 3}},
		// More labels than runs: every run.
		{500, []int{30, 10}, []float64{0.4, 0.1}, 2, []int{30, 10}},
	}
	for _, c := range cases {
		got := NeymanAllocation(c.n, c.sizes, c.sd, c.minPer)
		for h := range got {
			if got[h] != c.want[h] {
				t.Errorf("NeymanAllocation(%d, %v, %v) = %v, want %v", c.n, c.sizes, c.sd, got, c.want)
				break
			}
		}
	}
}

func TestStratPPIDegenerateStrata(t *testing.T) {
	a := Stratum{Name: "a", Y: []float64{1, 0, 1, 1, 0, 1}, FLabelled: []float64{0.9, 0.2, 0.8, 0.7, 0.3, 0.6},
		FUnlabelled: []float64{0.9, 0.1, 0.5, 0.8, 0.2, 0.7, 0.6, 0.4}}
	one := Stratum{Name: "one", Y: []float64{1}, FLabelled: []float64{0.9}, FUnlabelled: []float64{0.8, 0.7}}
	if e := StratPPIMeanOfRuns([]Stratum{a, one}, 0.95); !strings.Contains(e.Reason, `"one"`) || e.Value != 0 {
		t.Errorf("a stratum with one label: %+v", e)
	}
	pooled, names := PoolSmallStrata([]Stratum{a, one, {Name: "two", Y: []float64{0}, FLabelled: []float64{0.1}, FUnlabelled: []float64{0.2}}})
	if len(pooled) != 2 || len(names) != 2 || len(pooled[1].Y) != 2 || len(pooled[1].FUnlabelled) != 3 {
		t.Errorf("pooled %+v, names %v", pooled, names)
	}
	// A fully labelled stratum is exact: the estimate of a alone plus its
	// weight times its mean, with a's variance scaled by its weight.
	full := Stratum{Name: "full", Y: []float64{1, 1, 0, 1}, FLabelled: []float64{1, 1, 0, 1}}
	ea, e := PPIMeanOfRuns(a.Y, a.FLabelled, a.FUnlabelled, 0.95), StratPPIMeanOfRuns([]Stratum{a, full}, 0.95)
	w := 14.0 / 18
	if math.Abs(e.Value-(w*ea.Value+(1-w)*0.75)) > 1e-12 || math.Abs(e.SE-w*ea.SE) > 1e-12 {
		t.Errorf("with a full stratum: %+v, a alone %+v", e, ea)
	}
	// Constant scores in a stratum: no interval.
	c := Stratum{Name: "c", Y: []float64{50, 50, 50}, FLabelled: []float64{40, 60, 50}, FUnlabelled: []float64{55, 45}}
	if e := StratPPIMeanOfRuns([]Stratum{a, c}, 0.95); !strings.HasPrefix(e.Reason, "interval undefined") || e.SE != 0 {
		t.Errorf("constant scores: %+v", e)
	}
}
