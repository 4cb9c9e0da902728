package statistician

import (
	"math"
	"strings"
	"testing"
)

func TestFleissKappaHandWorkedTwoRaters(t *testing.T) {
	// P_i = 1, 0, 1, 1, 1, 0 -> P_bar = 2/3; p = (1/2, 1/2) -> P_e = 1/2;
	// kappa = (2/3 - 1/2)/(1/2) = 1/3. SENull = sqrt(2/(6 2 1))
	// sqrt(1/4 - 0)/(1/2) = sqrt(1/6) = 0.4082483.
	r := FleissKappa([][]int{{2, 0}, {1, 1}, {0, 2}, {2, 0}, {0, 2}, {1, 1}}, 0.95)
	if r.Reason != "" || math.Abs(r.Value-1.0/3) > 1e-15 || math.Abs(r.SENull-math.Sqrt(1.0/6)) > 1e-15 ||
		r.Items != 6 || r.Ratings != 2 || r.Categories != 2 {
		t.Errorf("got %+v", r)
	}
	if !r.CI.Contains(r.Value) || r.CI.Lower < -1 || r.CI.Upper > 1 {
		t.Errorf("interval %+v", r.CI)
	}
}

func TestFleissKappaWikipediaExample(t *testing.T) {
	// The article "Fleiss' kappa" works this table to P_bar = 0.378,
	// P_e = 0.213, kappa = 0.210.
	r := FleissKappa([][]int{{0, 0, 0, 0, 14}, {0, 2, 6, 4, 2}, {0, 0, 3, 5, 6}, {0, 3, 9, 2, 0}, {2, 2, 8, 1, 1},
		{7, 7, 0, 0, 0}, {3, 2, 6, 3, 0}, {2, 5, 3, 2, 2}, {6, 5, 2, 1, 0}, {0, 2, 2, 3, 7}}, 0.95)
	if math.Abs(r.Value-0.210) > 5e-4 {
		t.Errorf("kappa %v, want 0.210", r.Value)
	}
}

func TestFleissKappaDegenerate(t *testing.T) {
	perfect := FleissKappa([][]int{{3, 0, 0}, {0, 3, 0}, {0, 0, 3}, {3, 0, 0}}, 0.95)
	if perfect.Value != 1 || perfect.SE != 0 || perfect.CI != (Interval{Lower: 1, Upper: 1}) || perfect.Reason != "" {
		t.Errorf("perfect agreement: %+v", perfect)
	}
	for name, c := range map[string]struct {
		counts [][]int
		want   string
	}{
		"one category":  {[][]int{{3, 0}, {3, 0}}, "one category"},
		"one item":      {[][]int{{1, 2}}, "items"},
		"unequal K":     {[][]int{{1, 2}, {2, 2}}, "same number"},
		"K = 1":         {[][]int{{1, 0}, {0, 1}}, "rating per item"},
		"negative":      {[][]int{{3, -1}, {1, 1}}, "negative"},
		"ragged":        {[][]int{{1, 1}, {1, 1, 0}}, "categories"},
		"one category2": {[][]int{{2}, {2}}, "categories"},
	} {
		r := FleissKappa(c.counts, 0.95)
		if !strings.Contains(r.Reason, c.want) || r.Value != 0 || r.SE != 0 {
			t.Errorf("%s: %+v, want a reason containing %q", name, r, c.want)
		}
	}
	if r := FleissKappa([][]int{{1, 1}, {2, 0}}, 0); r.Reason == "" {
		t.Errorf("level 0 accepted: %+v", r)
	}
}

func TestRepeatabilityHandWorked(t *testing.T) {
	// Categories fail, partial, pass; K = 3. Run 2 flips; runs 1 and 4
	// pass all three times.
	counts := [][]int{{0, 0, 3}, {0, 1, 2}, {3, 0, 0}, {0, 0, 3}}
	r := Repeatability(counts, 2, 0.95)
	z, _ := ZForLevel(0.95)
	flip, _ := WilsonInterval(1, 4, z)
	all, _ := WilsonInterval(2, 4, z)
	if r.Reason != "" || r.FlipRate != 0.25 || r.PassAllK != 0.5 || r.Repeats != 3 || r.Runs != 4 ||
		r.FlipRateCI != flip || r.PassAllKCI != all {
		t.Errorf("got %+v", r)
	}
	if r := Repeatability(counts, 3, 0.95); r.Reason == "" {
		t.Errorf("pass category 3 of 3 accepted: %+v", r)
	}
	if r := Repeatability([][]int{{1, 2}, {3, 0, 0}}, 0, 0.95); r.Reason == "" {
		t.Errorf("ragged table accepted: %+v", r)
	}
}
