package reportenc

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	. "github.com/evalcal/evalcal/report"

	"gopkg.in/yaml.v3"

	"github.com/evalcal/evalcal/forecast"
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
	data, err := os.ReadFile("../../testdata/reference/precision/round_ref.json")
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
	pvalueAnySign := regexp.MustCompile(`^-?[0-9]\.[0-9]{2}e[-+][0-9]{2,3}$`)
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
			if k.class == Percent {
				// FormatDecimals writes the reference's quantized digits
				// (-0.00 as 0.00).
				if got, ref := FormatDecimals(x, 2), strings.Replace(k.want, "-0.00", "0.00", 1); got != ref && math.Abs(x) < 1e15 {
					t.Errorf("FormatDecimals(%s, 2) = %s, reference %s", c.X, got, k.want)
				}
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
				if k.class == PValue && !pvalueAnySign.Match(b) {
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

// TestFormatDecimalsHandWorked: display rounding by the document's rule.
func TestFormatDecimalsHandWorked(t *testing.T) {
	for _, c := range []struct {
		x        float64
		decimals int
		want     string
	}{
		{0.7575, 3, "0.758"}, // %.3f gives 0.757
		{2.675, 2, "2.68"},
		{-2.675, 2, "-2.68"},
		{25.0496, 1, "25.0"},
		{-0.04, 1, "0.0"},
		{99.96, 1, "100.0"},
		{1.5, 0, "2"},
		{0.125, 2, "0.13"},
	} {
		if got := FormatDecimals(c.x, c.decimals); got != c.want {
			t.Errorf("FormatDecimals(%v, %d) = %s, want %s", c.x, c.decimals, got, c.want)
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
		"lowest_calibration.calibration":                               Percent,
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
		"sample.composition.size_bytes.median":                         Exact,
		"kappa.unweighted.value":                                       Statistic,
		"pool":                                                         Statistic, // not a p-value: "*_p" needs the underscore
	} {
		if got := PrecisionOf(path); got != want {
			t.Errorf("PrecisionOf(%q) = %v, want %v", path, got, want)
		}
	}
}

// expandBraces expands "a.{b,c}.d" to a.b.d and a.c.d (nested braces
// expanded left to right).
func expandBraces(p string) []string {
	i := strings.IndexByte(p, '{')
	if i < 0 {
		return []string{p}
	}
	j := strings.IndexByte(p[i:], '}') + i
	var out []string
	for _, alt := range strings.Split(p[i+1:j], ",") {
		out = append(out, expandBraces(p[:i]+alt+p[j+1:])...)
	}
	return out
}

// precisionSpec is the precision rule's table for every current
// document, by document type: the float key paths that are Percent,
// PValue or Exact; every other float is a Statistic. It is the README's
// table; TestDocumentFloatsFollowTheSpec checks the rule gives exactly
// this.
var precisionSpec = map[reflect.Type]map[Precision][]string{
	reflect.TypeFor[Report](): {
		Percent: {
			"agreement_rate.{percent,wilson95.lower,wilson95.upper}",
			"agreement_by_system.{percent,wilson95.lower,wilson95.upper,simultaneous95.lower,simultaneous95.upper}",
			"sample.composition.success_failure.success_percent",
			"mean_score_delta.{runtime_fidelity,task_effectiveness}.{mean,sd,ci95.lower,ci95.upper}",
			"mean_score_delta.{runtime_fidelity,task_effectiveness}.bland_altman.{bias,sd,lower_loa,upper_loa}",
			"mean_score_delta.{runtime_fidelity,task_effectiveness}.bland_altman.{bias_ci,lower_loa_ci,upper_loa_ci}.{lower,upper}",
			"forecast.calibration",
			"recommendations.expected_impact.{agreement_percent,current_percent,gain_points}",
			"recommendations.expected_impact.{agreement_ci95,current_ci95}.{lower,upper}",
			"recommendations.cuts.{fail_below,pass_at}",
			"trend.{agreement,calibration,mean_delta.runtime_fidelity,mean_delta.task_effectiveness}.{before,now,difference,ci95.lower,ci95.upper}",
			"agreement_clustered.{percent,ci95.lower,ci95.upper}", "leniency.{light,deep}_pass_rate",
			"estimate.{runtime_fidelity,task_effectiveness}.{classical,ppi,ipw,rogan_gladen,stratified_ppi,ppi_calibrated}.{point,se,ci95.lower,ci95.upper}",
			"estimate.{runtime_fidelity,task_effectiveness}.clustered.{classical,ppi}.{point,se,ci95.lower,ci95.upper}",
			"bias.score_gap.coefficients.{estimate,se,ci.lower,ci.upper}",
			"repeatability.{light,deep}.score_spread.{runtime_fidelity,task_effectiveness}",
			"escalation.{coverage,escalated,agreement}.{percent,guaranteed_lower_percent,ci95.lower,ci95.upper}",
			"escalation.curve.{coverage_percent,agreement_percent,lower_percent}",
			"escalation.{deep_cost_saved.percent,guarantee.target_agreement_percent}",
			"slices.slices.{percent,wilson95.lower,wilson95.upper,simultaneous95.lower,simultaneous95.upper}",
			"slices.slices.{light_pass_rate,deep_pass_rate}.{percent,se,ci95.lower,ci95.upper}",
			"slices.comparisons.{deep,light}.{points,se,ci95.lower,ci95.upper}",
		},
		PValue: {"score_correlation.{runtime_fidelity,task_effectiveness}.p", "leniency.mcnemar_p", "recommendations.test.p",
			"slices.slices.leniency.mcnemar_p", "slices.comparisons.{deep,light}.{p,p_holm}",
			"bias.{score_gap,leniency}.coefficients.p", "bias.same_family.p", "position.judge.first_slot.p"},
		Exact: {
			"{comparisons,disagreements}.{light_scores,deep_scores}.{runtime_fidelity,task_effectiveness}",
			"{comparisons,disagreements}.{runtime_fidelity_delta,task_effectiveness_delta}",
			"light_only.light_scores.{runtime_fidelity,task_effectiveness}",
			"repeats.{light,deep}.scores.{runtime_fidelity,task_effectiveness}",
			"sample.composition.{size_bytes,services_declared}.{min,median,max}",
			"cost.{light,deep}.{usd,seconds,price.input,price.output,price.cached_input}",
			"cost.budget_usd",
			"position.cost_by_order.{usd,seconds,price.input,price.output,price.cached_input}",
			"perturbations.cost.{usd,seconds,price.input,price.output,price.cached_input}",
			"inclusion.pi",
			"inputs.deep_subset.{expected,min_pi}",
			"inputs.escalation.{target_agreement,risk,policy.threshold}",
			"escalation.{threshold,curve.threshold,needed.at_threshold,runs.confidence}",
		},
	},
	reflect.TypeFor[forecast.ScoreReport](): {
		Percent: {"groups.calibration", "lowest_calibration.calibration", "trend.groups.calibration.{before,now,difference,ci95.lower,ci95.upper}"},
	},
	reflect.TypeFor[forecast.CallsDocument](): {Percent: {"groups.calibration", "lowest_calibration.calibration"}},
	reflect.TypeFor[forecast.GateDocument]():  {},
}

// TestDocumentFloatsFollowTheSpec: the rule (key table and exact types)
// gives every float of every document type the class precisionSpec says;
// run with -v to print the whole table.
func TestDocumentFloatsFollowTheSpec(t *testing.T) {
	for typ, spec := range precisionSpec {
		want := map[string]Precision{}
		for class, patterns := range spec {
			for _, p := range patterns {
				for _, path := range expandBraces(p) {
					want[path] = class
				}
			}
		}
		got := floatKeyPaths(typ)
		for path, class := range want {
			if _, ok := got[path]; !ok {
				t.Errorf("%s: the spec lists %s, which is not a float of the document", typ, path)
				continue
			}
			_ = class
		}
		for _, path := range sortedPaths(got) {
			w, ok := want[path]
			if !ok {
				w = Statistic
			}
			if got[path] != w {
				t.Errorf("%s: %s is %v, the spec says %v", typ, path, got[path], w)
			}
			t.Logf("%-24s %-72s %v", typ, path, got[path])
		}
	}
}

// numberAt is a number of a parsed document: its text and its path with
// list positions.
type numberAt struct {
	path, pattern string // "groups[3].brier", "groups.brier"
	text          string
}

// documentNumbers lists the numbers of a YAML or JSON document in order.
func documentNumbers(t *testing.T, data []byte) []numberAt {
	t.Helper()
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		t.Fatal(err)
	}
	var out []numberAt
	var walk func(n *yaml.Node, path, pattern string)
	walk = func(n *yaml.Node, path, pattern string) {
		switch n.Kind {
		case yaml.DocumentNode:
			for _, c := range n.Content {
				walk(c, path, pattern)
			}
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				k := n.Content[i].Value
				walk(n.Content[i+1], strings.TrimPrefix(path+"."+k, "."), strings.TrimPrefix(pattern+"."+k, "."))
			}
		case yaml.SequenceNode:
			for i, c := range n.Content {
				walk(c, fmt.Sprintf("%s[%d]", path, i), pattern)
			}
		case yaml.ScalarNode:
			if n.Tag == "!!int" || n.Tag == "!!float" {
				out = append(out, numberAt{path, pattern, n.Value})
			}
		}
	}
	walk(&root, "", "")
	return out
}

// significantDigits counts the significant digits of a decimal number's
// text ("0.0012300" -> 3, "1.23e-05" -> 3).
func significantDigits(text string) int {
	mant, _, _ := strings.Cut(strings.ToLower(text), "e")
	mant = strings.TrimLeft(mant, "-+")
	digits := strings.ReplaceAll(mant, ".", "")
	digits = strings.TrimLeft(digits, "0")
	if strings.Contains(mant, ".") {
		digits = strings.TrimRight(digits, "0")
	}
	return len(digits)
}

var (
	integerSyntax = regexp.MustCompile(`^-?[0-9]+$`)
	percentSyntax = regexp.MustCompile(`^-?[0-9]+(\.[0-9]{1,2})?$`)
	pvalueSyntax  = regexp.MustCompile(`^[0-9]\.[0-9]{2}e[-+][0-9]{2}$`)
)

// TestGoldenNumbersFollowThePrecisionRule re-encodes every golden
// document (read into its Go type) as YAML and as JSON and checks every
// number written against the number in the golden file at the same path:
// an integer field stays the same integer; a Percent has at most 2
// decimals and is within 0.005 of the original; a Statistic has at most 6
// significant digits and is within half a unit of the 6th; a p-value is
// d.dde±XX within half a unit of the 3rd digit; an Exact number is the
// original value. None is NaN, none is -0.
func TestGoldenNumbersFollowThePrecisionRule(t *testing.T) {
	checked := map[Precision]int{}
	for _, d := range goldenDocuments(t) {
		data, err := os.ReadFile(d.path)
		if err != nil {
			t.Fatal(err)
		}
		original := map[string]string{}
		for _, n := range documentNumbers(t, data) {
			original[n.path] = n.text
		}
		typed := d.new()
		if err := decodeDocument(data, typed); err != nil {
			t.Fatalf("%s: %v", d.path, err)
		}
		floats := floatKeyPaths(reflect.TypeOf(typed).Elem())
		for format, enc := range map[string]func(any) ([]byte, error){"yaml": EncodeYAML, "json": EncodeJSON} {
			out, err := enc(typed)
			if err != nil {
				t.Fatalf("%s (%s): %v", d.path, format, err)
			}
			for _, n := range documentNumbers(t, out) {
				where := fmt.Sprintf("%s (%s) %s = %s", d.path, format, n.path, n.text)
				orig, ok := original[n.path]
				if !ok {
					if n.text == "0" {
						continue // a field the golden file predates (render/calls.yaml has no schema_version)
					}
					t.Errorf("%s: no number there in the golden file", where)
					continue
				}
				x, err1 := strconv.ParseFloat(n.text, 64)
				o, err2 := strconv.ParseFloat(orig, 64)
				if err1 != nil || err2 != nil {
					t.Errorf("%s: not numbers (%v, %v)", where, err1, err2)
					continue
				}
				if strings.HasPrefix(n.text, "-") && x == 0 {
					t.Errorf("%s: negative zero", where)
				}
				class, isFloat := floats[n.pattern]
				if !isFloat {
					if !integerSyntax.MatchString(n.text) || x != o {
						t.Errorf("%s: an integer field, golden %s", where, orig)
					}
					continue
				}
				checked[class]++
				switch class {
				case Exact:
					if x != o {
						t.Errorf("%s: exact, golden %s", where, orig)
					}
				case Percent:
					if !percentSyntax.MatchString(n.text) || math.Abs(x-o) > 0.005+1e-9 {
						t.Errorf("%s: want 2 decimals of %s", where, orig)
					}
				case PValue:
					if !pvalueSyntax.MatchString(n.text) || math.Abs(x-o) > 0.005*math.Abs(o)+1e-300 {
						t.Errorf("%s: want 3 significant digits of %s as d.dde±XX", where, orig)
					}
				case Statistic:
					half := 0.0
					if o != 0 {
						half = 5 * math.Pow(10, math.Floor(math.Log10(math.Abs(o)))-6)
					}
					if significantDigits(n.text) > 6 || math.Abs(x-o) > half*(1+1e-9) {
						t.Errorf("%s: want 6 significant digits of %s", where, orig)
					}
				}
			}
		}
	}
	for _, c := range []Precision{Percent, PValue, Statistic, Exact} {
		if checked[c] == 0 {
			t.Errorf("no %v number in the goldens was checked", c)
		}
	}
	t.Logf("numbers checked per class: %v", checked)
}
