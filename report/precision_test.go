package report

import (
	"encoding/json"
	"math"
	"os"
	"regexp"
	"strconv"
	"testing"
)

// TestRoundFloatMatchesPythonDecimal checks RoundFloat and the number
// syntax against testdata/reference/precision/round_ref.json, computed by
// round_ref.py with Python 3.11.7's decimal module: ROUND_HALF_UP (ties
// away from zero) on Decimal(repr(x)), quantize(Decimal("0.01")) for
// Percent, Context(prec=6).plus for Statistic, Context(prec=3).plus for
// PValue. 1,369 cases: the examples (0.24624999999999997 ->
// 0.24625, 78.26086956521739 -> 78.26), decimal ties whose double is just
// below the tie (2.675 -> 2.68), carries (99.995 -> 100), ±0, subnormals,
// 1.8e308, figures of the goldens, and seeded random values. The rounded
// value must equal the reference exactly (tolerance 0), and the text must
// be the class's syntax.
func TestRoundFloatMatchesPythonDecimal(t *testing.T) {
	data, err := os.ReadFile("../testdata/reference/precision/round_ref.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref struct {
		Provenance string
		Cases      []struct{ X, Percent, Statistic, PValue string }
	}
	if err := json.Unmarshal(data, &ref); err != nil {
		t.Fatal(err)
	}
	if len(ref.Cases) < 1000 {
		t.Fatalf("only %d reference cases", len(ref.Cases))
	}
	pvalueSyntax := regexp.MustCompile(`^-?[0-9]\.[0-9]{2}e[-+][0-9]{2,3}$`)
	for _, c := range ref.Cases {
		x, err := strconv.ParseFloat(c.X, 64)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range []struct {
			class Precision
			want  string
			key   string
		}{
			{Percent, c.Percent, "percent"},
			{Statistic, c.Statistic, "brier"},
			{PValue, c.PValue, "p"},
		} {
			want, err := strconv.ParseFloat(k.want, 64)
			if math.IsInf(want, 0) {
				continue // rounding up past the largest double: the value is kept
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := RoundFloat(x, k.class, 64); got != want || got == 0 && math.Signbit(got) {
				t.Errorf("RoundFloat(%s, %v) = %v, reference %s", c.X, k.class, got, k.want)
			}
			// The text each encoder writes reads back as the same value.
			var p docPath
			p.pushKey(k.key)
			for _, asJSON := range []bool{false, true} {
				b, err := p.appendFloat(nil, x, 64, asJSON, true)
				if err != nil {
					t.Fatal(err)
				}
				got, err := strconv.ParseFloat(string(b), 64)
				if err != nil || got != want || got == 0 && math.Signbit(got) {
					t.Errorf("%v of %s written %q (json %v), reference %s", k.class, c.X, b, asJSON, k.want)
				}
				if k.class == PValue && !pvalueSyntax.Match(b) {
					t.Errorf("p-value %s written %q, want d.dde±XX", c.X, b)
				}
			}
		}
	}
}

// TestRoundFloatHandWorked pins the rule on cases worked by hand.
func TestRoundFloatHandWorked(t *testing.T) {
	tenth, fifth := 0.1, 0.2 // variables: Go's constant arithmetic is exact
	for _, c := range []struct {
		x     float64
		class Precision
		yaml  string
	}{
		{0.24624999999999997, Statistic, "0.24625"},
		{78.26086956521739, Percent, "78.26"},
		{2.675, Percent, "2.68"},   // the double is 2.67499999...; its shortest decimal is a tie
		{-2.675, Percent, "-2.68"}, // away from zero
		{99.995, Percent, "100"},
		{-0.001, Percent, "0"}, // not -0
		{math.Copysign(0, -1), Statistic, "0"},
		{1234567, Statistic, "1.23457e+06"},
		{2.604166666667999e-05, Statistic, "2.60417e-05"},
		{0.016518977188140944, PValue, "1.65e-02"},
		{0.0009995, PValue, "1.00e-03"},
		{1, PValue, "1.00e+00"},
		{0, PValue, "0.00e+00"},
		{tenth + fifth, Exact, "0.30000000000000004"},
	} {
		var p docPath
		p.pushKey(map[Precision]string{Statistic: "brier", Percent: "percent", PValue: "p", Exact: "x"}[c.class])
		if c.class == Exact {
			p.exact = 1
		}
		b, err := p.appendFloat(nil, c.x, 64, false, true)
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != c.yaml {
			t.Errorf("%v of %v = %q, want %q", c.class, c.x, b, c.yaml)
		}
	}
}

// TestPrecisionOfKeyTable pins the key table on every kind of path it
// must tell apart.
func TestPrecisionOfKeyTable(t *testing.T) {
	for path, want := range map[string]Precision{
		"agreement_rate.percent":                                       Percent,
		"agreement_rate.wilson95.lower":                                Percent,
		"agreement_by_system.simultaneous95.upper":                     Percent,
		"sample.composition.success_failure.success_percent":           Percent,
		"recommendations.expected_impact.agreement_percent":            Percent,
		"recommendations.expected_impact.gain_points":                  Percent,
		"mean_score_delta.runtime_fidelity.mean":                       Percent,
		"mean_score_delta.task_effectiveness.ci95.lower":               Percent,
		"mean_score_delta.runtime_fidelity.bland_altman.upper_loa":     Percent,
		"mean_score_delta.runtime_fidelity.bland_altman.bias_ci.lower": Percent,
		"mean_score_delta.runtime_fidelity.ccc.value":                  Statistic,
		"mean_score_delta.runtime_fidelity.ccc.ci95.lower":             Statistic,
		"forecast.calibration":                                         Percent,
		"groups.calibration":                                           Percent,
		"trend.calibration.ci95.upper":                                 Percent,
		"trend.groups.calibration.difference":                          Percent,
		"trend.agreement.difference":                                   Percent,
		"trend.mean_delta.runtime_fidelity.now":                        Percent,
		"trend.correlation.runtime_fidelity.now":                       Statistic,
		"trend.kappa_linear.ci95.lower":                                Statistic,
		"score_correlation.runtime_fidelity.p":                         PValue,
		"score_correlation.runtime_fidelity.r":                         Statistic,
		"mcnemar.p_value":                                              PValue,
		"exact_p":                                                      PValue,
		"forecast.reliability.table.rate_ci95.lower":                   Statistic,
		"forecast.brier":                                               Statistic,
		"groups.murphy.binned.table.lower":                             Statistic,
		"decisions.z":                                                  Statistic,
		"composite.score":                                              Statistic,
		"summary.runtime_fidelity":                                     Percent,
		"sample.composition.size_bytes.median":                         Statistic,
		"kappa.unweighted.value":                                       Statistic,
		"pool":                                                         Statistic, // not a p-value: "*_p" needs the underscore
	} {
		if got := PrecisionOf(path); got != want {
			t.Errorf("PrecisionOf(%q) = %v, want %v", path, got, want)
		}
	}
}

// TestExactTypesKeepEveryDigit: numbers inside per-run input data are
// written shortest-round-trip whatever their key, so merge recomputes
// from the same values.
func TestExactTypesKeepEveryDigit(t *testing.T) {
	r := buildReport(fixtureRuns[:3])
	r.Comparisons[0].Light.RuntimeFidelity = 66.66666666666667
	tenth, fifth := 0.1, 0.2
	r.Comparisons[0].RuntimeFidelityDelta = tenth + fifth
	for _, enc := range []func(any) ([]byte, error){EncodeYAML, EncodeJSON} {
		b, err := enc(r)
		if err != nil {
			t.Fatal(err)
		}
		back, err := ParseReport(b)
		if err != nil {
			t.Fatal(err)
		}
		if got := back.Comparisons[0].Light.RuntimeFidelity; got != 66.66666666666667 {
			t.Errorf("light runtime_fidelity read back as %v", got)
		}
		if got := back.Comparisons[0].RuntimeFidelityDelta; got != tenth+fifth {
			t.Errorf("runtime_fidelity_delta read back as %v", got)
		}
		if got := back.AgreementRate.Percent; got != RoundFloat(r.AgreementRate.Percent, Percent, 64) {
			t.Errorf("agreement percent read back as %v, want it rounded to 2 decimals", got)
		}
	}
}
