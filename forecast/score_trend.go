package forecast

import (
	"math"
	"sort"

	"github.com/evalcal/evalcal/statistician"
)

// ScoreTrend compares a score document with a baseline document (last
// night's): per group present in both, the Brier score and the
// calibration score before and now, with the difference's 95% interval and
// whether it is distinguishable from noise; and the groups present only
// now or only before. The two documents are treated as independent
// samples.
type ScoreTrend struct {
	Baseline []ScoreInput  `yaml:"baseline" json:"baseline"`
	Groups   []GroupChange `yaml:"groups" json:"groups"`
	// Distinguishable lists the keys of the groups whose Brier change is
	// distinguishable from noise, sorted.
	Distinguishable  []string `yaml:"distinguishable" json:"distinguishable"`
	GroupsOnlyNow    []string `yaml:"groups_only_now" json:"groups_only_now"`
	GroupsOnlyBefore []string `yaml:"groups_only_before" json:"groups_only_before"`
}

// GroupChange is one group's change against the baseline.
type GroupChange struct {
	Key   string `yaml:"key" json:"key"`
	Brier Change `yaml:"brier" json:"brier"`
	// Calibration changes by -400 times the Brier change while neither
	// document's score is clamped at 0 or 100.
	Calibration Change `yaml:"calibration" json:"calibration"`
}

// Change is one figure before and now, and the difference now - before
// with its 95% interval. Distinguishable is true when the interval
// excludes 0. Undefined numbers are null and Reason says why.
type Change struct {
	Before          *float64               `yaml:"before" json:"before"`
	Now             *float64               `yaml:"now" json:"now"`
	Difference      *float64               `yaml:"difference" json:"difference"`
	CI95            *statistician.Interval `yaml:"ci95" json:"ci95"`
	Distinguishable bool                   `yaml:"distinguishable" json:"distinguishable"`
	Method          string                 `yaml:"method" json:"method"`
	Reason          string                 `yaml:"reason,omitempty" json:"reason,omitempty"`
}

// CompareScoreReports compares cur with prev (the baseline). The Brier
// change's interval is Welch's (statistician.WelchDifference) from each
// group's Brier score, its standard error brier_se and its binary count:
// SD = SE * sqrt(n).
func CompareScoreReports(prev, cur *ScoreReport) ScoreTrend {
	t := ScoreTrend{Baseline: prev.Inputs, Groups: []GroupChange{}, Distinguishable: []string{},
		GroupsOnlyNow: []string{}, GroupsOnlyBefore: []string{}}
	before := map[string]ScoredGroup{}
	for _, g := range prev.Groups {
		before[g.Key] = g
	}
	now := map[string]bool{}
	for _, g := range cur.Groups {
		now[g.Key] = true
		b, ok := before[g.Key]
		if !ok {
			t.GroupsOnlyNow = append(t.GroupsOnlyNow, g.Key)
			continue
		}
		c := GroupChange{Key: g.Key, Brier: brierChange(b, g)}
		c.Calibration = calibrationChange(b, g, c.Brier)
		if c.Brier.Distinguishable {
			t.Distinguishable = append(t.Distinguishable, g.Key)
		}
		t.Groups = append(t.Groups, c)
	}
	for _, g := range prev.Groups {
		if !now[g.Key] {
			t.GroupsOnlyBefore = append(t.GroupsOnlyBefore, g.Key)
		}
	}
	sort.Slice(t.Groups, func(i, j int) bool { return t.Groups[i].Key < t.Groups[j].Key })
	for _, s := range [][]string{t.Distinguishable, t.GroupsOnlyNow, t.GroupsOnlyBefore} {
		sort.Strings(s)
	}
	return t
}

func brierChange(b, g ScoredGroup) Change {
	c := Change{Before: b.Brier, Now: g.Brier, Method: "welch"}
	switch {
	case b.Brier == nil || g.Brier == nil:
		c.Reason = "no Brier score on one side"
		return c
	case b.BrierSE == nil || g.BrierSE == nil:
		c.Reason = "no standard error on one side (fewer than 2 binary forecasts)"
		return c
	}
	sd := func(x ScoredGroup) float64 { return *x.BrierSE * sqrtInt(x.Binary) }
	d, err := statistician.WelchDifference(*g.Brier, sd(g), g.Binary, *b.Brier, sd(b), b.Binary)
	if err != nil {
		c.Reason = err.Error()
		return c
	}
	diff, ci := rounded(d.Estimate), statistician.Interval{Lower: rounded(d.CI.Lower), Upper: rounded(d.CI.Upper)}
	c.Difference, c.CI95 = &diff, &ci
	c.Distinguishable = ci.Lower > 0 || ci.Upper < 0
	return c
}

func calibrationChange(b, g ScoredGroup, brier Change) Change {
	c := Change{Before: b.Calibration, Now: g.Calibration, Method: "-400 x brier change"}
	switch {
	case b.Calibration == nil || g.Calibration == nil:
		c.Reason = "no calibration score on one side (under min-resolved)"
		return c
	case brier.Difference == nil:
		c.Reason = "no Brier change: " + brier.Reason
		return c
	case *b.Calibration <= 0 || *g.Calibration <= 0 || *b.Calibration >= 100 || *g.Calibration >= 100:
		c.Reason = "a calibration score is clamped at 0 or 100, so its change is not -400 x the Brier change"
		return c
	}
	diff := rounded(*g.Calibration - *b.Calibration)
	ci := statistician.Interval{Lower: rounded(-400 * brier.CI95.Upper), Upper: rounded(-400 * brier.CI95.Lower)}
	c.Difference, c.CI95, c.Distinguishable = &diff, &ci, brier.Distinguishable
	return c
}

func sqrtInt(n int) float64 {
	if n <= 0 {
		return 0
	}
	return math.Sqrt(float64(n))
}
