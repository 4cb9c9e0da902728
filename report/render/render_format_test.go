package render

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
)

// The display precision rule against an independent reference: the
// values of testdata/render/precision_reference.json were computed by
// testdata/render/precision_reference.py (Python 3.11 decimal,
// ROUND_HALF_UP on Decimal(repr(x)): the shortest digits rounded half away
// from zero), exactly as the strings must read.
func TestDisplayPrecisionMatchesPythonDecimal(t *testing.T) {
	data, err := os.ReadFile("../../testdata/render/precision_reference.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref struct {
		Rows []struct{ X, Score, Stat, P string }
	}
	if err := json.Unmarshal(data, &ref); err != nil {
		t.Fatal(err)
	}
	if len(ref.Rows) < 30 {
		t.Fatalf("only %d reference rows", len(ref.Rows))
	}
	for _, r := range ref.Rows {
		x, err := strconv.ParseFloat(r.X, 64)
		if err != nil {
			t.Fatal(err)
		}
		if got := fmtScore(x); got != r.Score {
			t.Errorf("fmtScore(%s) = %s, want %s", r.X, got, r.Score)
		}
		if got := fmtStat(x); got != r.Stat {
			t.Errorf("fmtStat(%s) = %s, want %s", r.X, got, r.Stat)
		}
		if got := fmtP(math.Abs(x)); got != r.P {
			t.Errorf("fmtP(%s) = %s, want %s", r.X, got, r.P)
		}
	}
}

// Hand-worked cases of each helper, including the two figures.
func TestDisplayPrecisionHandWorked(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{fmtPercent(78.26086956521739), "78.26%"},
		{fmtStat(0.24624999999999997), "0.246"},
		{fmtStat(0.72619), "0.726"},
		{fmtP(0.18), "0.18"},
		{fmtP(0.0012345), "0.0012"},
		{fmtPercent(100), "100.00%"},
		{fmtRunScore(80), "80"},
		{fmtRunScore(72.5), "72.5"},
		{fmtRunScore(72.125), "72.13"},
		{fmtUSD(0.0002617021276595745), "$0.000262"},
		{fmtP(3.7371e-13), "3.7e-13"},
		{fmtP(1), "1"},
		{fmtStat(-0.0), "0"},
		{fmtScore(-0.001), "0.00"},
		{fmtStat(math.NaN()), "n/a"},
		{fmtPercent(math.Inf(1)), "n/a"},
		{fmtNA(""), "n/a"},
		{fmtNA("empty bin"), "n/a (empty bin)"},
		{optPercent(nil, "no run has both verdicts"), "n/a (no run has both verdicts)"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

// Property: a statistic reads back within half a unit of its third
// significant digit, and has at most three; a score within 0.005.
func TestDisplayPrecisionRoundTripsWithinHalfAUnit(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 20000; i++ {
		x := (rng.Float64() - 0.5) * math.Pow(10, float64(rng.IntN(16)-8))
		s := fmtStat(x)
		back, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatalf("fmtStat(%v) = %q: %v", x, s, err)
		}
		if d := significantDigitsOf(s); d > 3 {
			t.Fatalf("fmtStat(%v) = %q has %d significant digits", x, s, d)
		}
		if x != 0 {
			unit := math.Pow(10, math.Floor(math.Log10(math.Abs(x)))-2)
			if math.Abs(back-x) > unit/2*(1+1e-9) {
				t.Fatalf("fmtStat(%v) = %q is off by %v (unit %v)", x, s, back-x, unit)
			}
		}
		sc := fmtScore(x * 100)
		back, _ = strconv.ParseFloat(sc, 64)
		if math.Abs(back-x*100) > 0.005*(1+1e-9) || !strings.Contains(sc, ".") || len(sc)-strings.Index(sc, ".") != 3 {
			t.Fatalf("fmtScore(%v) = %q", x*100, sc)
		}
	}
}

// significantDigitsOf counts the significant digits of a decimal string:
// its mantissa's digits without leading zeros, and without the trailing
// zeros of a whole number (placeholders: 3266740 has six).
func significantDigitsOf(s string) int {
	mant, _, _ := strings.Cut(strings.ToLower(s), "e")
	mant = strings.TrimPrefix(mant, "-")
	if !strings.Contains(mant, ".") {
		mant = strings.TrimRight(mant, "0")
	}
	return len(strings.TrimLeft(strings.Replace(mant, ".", "", 1), "0"))
}

// A gate's value takes its field's class.
func TestFieldClassFollowsTheKeyRule(t *testing.T) {
	for _, c := range []struct {
		field string
		x     float64
		want  string
	}{
		{"agreement_rate.wilson95.lower", 45.350915670106815, "45.35"},
		{"agreement_by_system[alpha].percent", 70, "70.00"},
		{"kappa.linear.ci95.lower", 0.0943603123, "0.0944"},
		{"score_correlation.runtime_fidelity.p", 0.00432101, "0.0043"},
		{"leniency.mcnemar_p", 0.03125, "0.031"},
		{"groups[alice].calibration", 31.234, "31.23"},
		{"mean_score_delta.runtime_fidelity.mean", -5.714285714285714, "-5.71"},
		{"forecast.brier", 0.24624999999999997, "0.246"},
		// Keys the precision table has and a hand-kept copy missed.
		{"leniency.light_pass_rate", 42.00498132004981, "42.00"},
		{"estimate.runtime_fidelity.ppi.point", 71.234567, "71.23"},
		{"agreement_clustered.ci95.lower", 69.87123, "69.87"},
	} {
		if got := fieldClass(c.field)(c.x); got != c.want {
			t.Errorf("%s: %q, want %q", c.field, got, c.want)
		}
	}
}
