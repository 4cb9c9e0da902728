package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// trendChange is one change of the report's trend section as written.
type trendChange struct {
	Before     *float64 `json:"before"`
	Now        *float64 `json:"now"`
	Difference *float64 `json:"difference"`
	CI95       *struct {
		Lower float64 `json:"lower"`
		Upper float64 `json:"upper"`
	} `json:"ci95"`
	Reason string `json:"reason"`
}

type trendDoc struct {
	Trend struct {
		Agreement   trendChange            `json:"agreement"`
		KappaLinear trendChange            `json:"kappa_linear"`
		MeanDelta   map[string]trendChange `json:"mean_delta"`
		Correlation map[string]trendChange `json:"correlation"`
		Brier       trendChange            `json:"brier"`
		Calibration trendChange            `json:"calibration"`
	} `json:"trend"`
}

func (d trendDoc) changes() map[string]trendChange {
	m := map[string]trendChange{"agreement": d.Trend.Agreement, "kappa_linear": d.Trend.KappaLinear,
		"brier": d.Trend.Brier, "calibration": d.Trend.Calibration}
	for k, c := range d.Trend.MeanDelta {
		m["mean_delta."+k] = c
	}
	for k, c := range d.Trend.Correlation {
		m["correlation."+k] = c
	}
	return m
}

// readTrend reads the trend section of a JSON report.
func readTrend(t *testing.T, path string) trendDoc {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var d trendDoc
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return d
}

// A report compared with itself (the same corpus and flags run twice, the
// first written as YAML and read back as the baseline) gives every
// difference exactly 0 and every trend defined, Brier and calibration
// included (issue 28, item 3): the trend recomputes both sides from the
// exact per-run comparisons, not from the baseline's rounded statistics.
func TestBaselineOfTheSameRunGivesZeroDifferences(t *testing.T) {
	skipShort(t)
	dir := t.TempDir()
	first, second := filepath.Join(dir, "first.yaml"), filepath.Join(dir, "second.json")
	for _, args := range [][]string{
		{"run", "--quiet", "--no-cache", "-o", first, "testdata/runs"},
		{"run", "--quiet", "--no-cache", "--baseline", first, "-o", second, "testdata/runs"},
	} {
		if r := runBinary(t, binOptions{}, args...); r.code != 0 {
			t.Fatalf("%v: exit %d\n%s", args, r.code, r.stderr)
		}
	}
	ch := readTrend(t, second).changes()
	if len(ch) != 8 {
		t.Fatalf("want 8 trend figures, got %d: %v", len(ch), ch)
	}
	for name, c := range ch {
		switch {
		case c.Reason != "" || c.Difference == nil || c.CI95 == nil:
			t.Errorf("%s: not defined against an identical baseline: %+v (reason %q)", name, c, c.Reason)
		case *c.Difference != 0:
			t.Errorf("%s: difference %g against an identical baseline, want exactly 0", name, *c.Difference)
		case *c.Before != *c.Now:
			t.Errorf("%s: before %g, now %g", name, *c.Before, *c.Now)
		}
	}
}

// Two nights of different corpora (twelve.jsonl, then agree.jsonl as
// saved inspections): the Brier and calibration trends match an
// independent computation (testdata/reference/trend/trend_ref.py:
// scikit-learn's Brier score, statsmodels' Welch interval), to the
// document's precision: 6 significant digits for the Brier score, 2
// decimals for calibration points.
func TestBrierTrendNightToNightMatchesReference(t *testing.T) {
	skipShort(t)
	b, err := os.ReadFile(filepath.Join(repoRoot(t), "testdata/reference/trend/trend_values.json"))
	if err != nil {
		t.Fatal(err)
	}
	type ref struct{ Before, Now, Difference, Lower, Upper float64 }
	var want struct {
		Before, Now        string
		Brier, Calibration ref
	}
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	night1, night2 := filepath.Join(dir, "night1.yaml"), filepath.Join(dir, "night2.json")
	for _, args := range [][]string{
		{"run", "--quiet", "--no-cache", "--inspections", want.Before, "-o", night1},
		{"run", "--quiet", "--no-cache", "--inspections", want.Now, "--baseline", night1, "-o", night2},
	} {
		if r := runBinary(t, binOptions{}, args...); r.code != 0 {
			t.Fatalf("%v: exit %d\n%s", args, r.code, r.stderr)
		}
	}
	d := readTrend(t, night2)
	for _, c := range []struct {
		name string
		got  trendChange
		want ref
		tol  func(float64) float64
	}{
		{"brier", d.Trend.Brier, want.Brier, func(x float64) float64 { return 5e-6*math.Abs(x) + 1e-12 }},
		{"calibration", d.Trend.Calibration, want.Calibration, func(float64) float64 { return 0.005 + 1e-9 }},
	} {
		g := c.got
		if g.Reason != "" || g.Difference == nil || g.CI95 == nil || g.Before == nil || g.Now == nil {
			t.Errorf("%s: not defined: %+v (reason %q)", c.name, g, g.Reason)
			continue
		}
		for _, v := range []struct {
			what      string
			got, want float64
		}{
			{"before", *g.Before, c.want.Before}, {"now", *g.Now, c.want.Now},
			{"difference", *g.Difference, c.want.Difference},
			{"ci95.lower", g.CI95.Lower, c.want.Lower}, {"ci95.upper", g.CI95.Upper, c.want.Upper},
		} {
			if math.Abs(v.got-v.want) > c.tol(v.want) {
				t.Errorf("%s %s = %.10g, reference %.10g", c.name, v.what, v.got, v.want)
			}
		}
	}
}
