package report

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"

	"github.com/evalcal/evalcal/comparator"
	"github.com/evalcal/evalcal/inspection"
)

// Precision is how many digits the document encoder writes for a floating
// point number. Every document evalcal writes (run, merge, score, calls,
// gate) follows one rule, applied by the document encoders
// (internal/reportenc: WriteYAML, WriteJSON) when they
// write; the value in memory is not changed.
//
// The rule, in order (the first that applies wins):
//
//  1. A number inside a value of one of the types in exactTypes (per-run
//     input data echoed in the report: inspection.Inspection, inspection.Cost,
//     inspection.Usage, comparator.Comparison, comparator.Scores, the
//     report's Inputs and Inclusion probabilities) is Exact, so that
//     merge, which recomputes every statistic from the per-run data,
//     stays exact.
//  2. Otherwise the number's key path (the mapping keys from the document
//     root to the number, list positions left out) is matched against
//     precisionRules; the first pattern that matches the end of the path
//     gives the class.
//  3. Otherwise the number is a Statistic.
//
// Integers (Go int and uint types: counts, n, seeds) are always written as
// integers. NaN and ±Inf are refused with an error naming the field path:
// an undefined figure is null, never NaN. A result of -0 is written as 0.
//
// Rounding is half away from zero at the decimal digit of the number's
// shortest decimal representation (the digits strconv.FormatFloat(x, 'g',
// -1, 64) prints, which is what a reader of the unrounded document saw):
// 2.675 is 2.68 at 2 decimals even though the binary double is slightly
// below 2.675, and 0.24624999999999997 is 0.24625 at 6 significant digits.
// The rounded decimal is then written in the document's usual number
// syntax (YAML as yaml.v3 writes a float64, JSON as encoding/json does),
// which gives back exactly the rounded digits; p-values are the exception,
// always written as d.dde±XX.
type Precision int

const (
	// Statistic is 6 significant digits: probabilities, Brier scores,
	// kappas, correlations, standard errors, bin edges, z values and every
	// float no other class claims.
	Statistic Precision = iota
	// Percent is 2 decimals: percentages, 0-100 scores and differences of
	// them in points, and their intervals.
	Percent
	// PValue is 3 significant digits in scientific notation (1.23e-05).
	PValue
	// Exact is the shortest decimal that reads back as the same float64.
	Exact
)

// String names the class as the README's table does.
func (p Precision) String() string {
	switch p {
	case Statistic:
		return "statistic (6 significant digits)"
	case Percent:
		return "percent (2 decimals)"
	case PValue:
		return "p-value (3 significant digits, scientific)"
	case Exact:
		return "exact (shortest round trip)"
	}
	return fmt.Sprintf("Precision(%d)", int(p))
}

// precisionRule maps a key-path pattern to a class. A pattern is a
// dot-separated list of key globs matched against the END of a number's
// key path: "p" matches a key p anywhere, "mean_score_delta.*.sd" matches
// sd two levels under mean_score_delta, and "**" matches one or more keys
// ("agreement_rate.**" is every number anywhere under agreement_rate). In a
// glob, "*" matches any run of characters ("*_percent").
type precisionRule struct {
	pattern string
	class   Precision
}

// precisionRules is the key table of the precision rule (see Precision),
// first match wins. Keys of the current documents each entry matches are
// listed beside it; TestGoldenNumbersFollowThePrecisionRule keeps that
// list true.
var precisionRules = []precisionRule{
	// p-values: score_correlation.{runtime_fidelity,task_effectiveness}.p,
	// leniency.mcnemar_p, recommendations[].test.p.
	{"p", PValue},
	{"p_value", PValue},
	{"pvalue", PValue},
	{"*_p_value", PValue},
	{"*_p", PValue},

	// Chance-robust and class-wise agreement: coefficients and fractions in
	// [0, 1], never percent: agreement_robust.{alpha_nominal,alpha_ordinal}.{value,observed_disagreement,expected_disagreement},
	// agreement_robust.ac1.{value,se,ci95.*,percent_agreement,chance_agreement},
	// agreement_robust.class_wise.{sensitivity,specificity,base_rate}.{value,wilson95.*},
	// agreement_robust.class_wise.{balanced_accuracy,balanced_accuracy_ci95.*}.
	{"agreement_robust.**", Statistic},

	// Percentages: agreement_rate.percent, agreement_by_system[].percent,
	// sample.composition.success_failure.success_percent,
	// recommendations[].expected_impact.{agreement,current}_percent.
	{"*percent", Percent},
	// Percentage points: recommendations[].expected_impact.gain_points.
	{"*_points", Percent},
	// A recommendation's expected and current agreement intervals, and
	// its proposed verdict cuts on light's 0-100 score:
	// recommendations[].expected_impact.{agreement,current}_ci95.{lower,upper},
	// recommendations[].cuts.{fail_below,pass_at}. (test.alpha is a
	// Statistic.)
	{"expected_impact.*_ci95.*", Percent},
	{"recommendations.cuts.*", Percent},
	// Costs as spent and as priced: merge adds the shards' usd and
	// seconds, and prices and the budget are the user's inputs:
	// cost.{light,deep}.{usd,seconds,price.*}, cost.budget_usd. (Per-run
	// costs and the deep-to-light ratio are Statistics.)
	{"cost.*.usd", Exact},
	{"cost.*.seconds", Exact},
	{"cost.*.price.*", Exact},
	{"cost.budget_usd", Exact},
	// The same for the pairwise calls of each order and a perturbation's
	// calls: position.cost_by_order[].{usd,seconds,price.*},
	// perturbations[].cost.{usd,seconds,price.*}.
	{"cost_by_order.usd", Exact},
	{"cost_by_order.seconds", Exact},
	{"cost_by_order.price.*", Exact},
	{"perturbations.cost.usd", Exact},
	{"perturbations.cost.seconds", Exact},
	{"perturbations.cost.price.*", Exact},
	// The sample's composition describes the runs: sizes in bytes and
	// service counts (floats only because of the median) are data, not
	// estimates: sample.composition.{size_bytes,services_declared}.{min,median,max}.
	{"composition.**", Exact},
	// The agreement rate and its intervals are in percent:
	// agreement_rate.wilson95.{lower,upper},
	// agreement_by_system[].{wilson95,simultaneous95}.{lower,upper}.
	{"agreement_rate.**", Percent},
	// The ranking document's agreements and their intervals (evalcal
	// rank): candidates[].agreement.{percent,wilson95.*},
	// candidates[].panel.members[].agreement.{percent,wilson95.*}.
	{"candidates.agreement.**", Percent},
	{"members.agreement.**", Percent},
	{"agreement_by_system.**", Percent},
	// The slices (run --by): agreement intervals and pass rates in
	// percent, differences of pass rates in points, p-values:
	// slices[].slices[].{wilson95,simultaneous95}.*,
	// slices[].slices[].{light,deep}_pass_rate.{percent,se,ci95.*},
	// slices[].comparisons[].{deep,light}.{points,se,ci95.*,p,p_holm}.
	// (kappa_linear is a Statistic; leniency.mcnemar_p a p-value.)
	{"slices.slices.wilson95.*", Percent},
	{"slices.slices.simultaneous95.*", Percent},
	{"slices.slices.*_pass_rate.**", Percent},
	{"slices.comparisons.*.points", Percent},
	{"slices.comparisons.*.se", Percent},
	{"slices.comparisons.*.ci95.*", Percent},
	{"slices.comparisons.*.p_holm", PValue},
	// The system-clustered agreement interval is in percent too:
	// agreement_clustered.ci95.{lower,upper} (design_effect is a ratio).
	{"agreement_clustered.ci95.*", Percent},
	// Pass rates at the verdict level, in percent:
	// leniency.{light,deep}_pass_rate.
	{"leniency.*_rate", Percent},
	// A plan's agreement row is in percent: the observed rate it plans at
	// and the Wilson lower bound it reaches: agreement.{at_rate,achieved}.
	{"agreement.at_rate", Percent},
	{"agreement.achieved", Percent},
	// Trust or escalate: the intervals of coverage, escalated share and
	// agreement are in percent (escalation.{coverage,escalated,agreement}.ci95.*);
	// thresholds and confidences are compared with the runs' confidences
	// again by run --escalate, so they are exact:
	// escalation.threshold, escalation.curve[].threshold,
	// escalation.needed.at_threshold, escalation.runs[].confidence.
	{"escalation.*.ci95.*", Percent},
	{"escalation.threshold", Exact},
	{"escalation.curve.threshold", Exact},
	{"escalation.needed.at_threshold", Exact},
	{"escalation.runs.confidence", Exact},
	// Estimates of deep's mean 0-100 scores over all runs:
	// estimate.{runtime_fidelity,task_effectiveness}.{classical,ppi,ipw,rogan_gladen,stratified_ppi,ppi_calibrated}.{point,se,ci95.*}
	// (effective_n and lambda are Statistics, as are the pass-rate
	// estimates).
	{"estimate.runtime_fidelity.*.point", Percent},
	{"estimate.runtime_fidelity.*.se", Percent},
	{"estimate.runtime_fidelity.*.ci95.*", Percent},
	{"estimate.task_effectiveness.*.point", Percent},
	{"estimate.task_effectiveness.*.se", Percent},
	{"estimate.task_effectiveness.*.ci95.*", Percent},
	// The clustered estimates of deep's mean scores:
	// estimate.{runtime_fidelity,task_effectiveness}.clustered.{classical,ppi}.{point,se,ci95.*}.
	{"estimate.runtime_fidelity.clustered.*.point", Percent},
	{"estimate.runtime_fidelity.clustered.*.se", Percent},
	{"estimate.runtime_fidelity.clustered.*.ci95.*", Percent},
	{"estimate.task_effectiveness.clustered.*.point", Percent},
	{"estimate.task_effectiveness.clustered.*.se", Percent},
	{"estimate.task_effectiveness.clustered.*.ci95.*", Percent},
	// The bias section's score-gap regression is in score points:
	// bias.score_gap.coefficients[].{estimate,se,ci.*} (t is a
	// Statistic; the leniency regression's coefficients are
	// probabilities, Statistics too).
	{"bias.score_gap.coefficients.estimate", Percent},
	{"bias.score_gap.coefficients.se", Percent},
	{"bias.score_gap.coefficients.ci.*", Percent},
	// Deep-minus-light score deltas are in 0-100 score points:
	// mean_score_delta.*.{mean,sd}, mean_score_delta.*.ci95.{lower,upper},
	// mean_score_delta.*.bland_altman.{bias,sd,lower_loa,upper_loa},
	// mean_score_delta.*.bland_altman.*_ci.{lower,upper}. (ccc is a
	// coefficient: a Statistic.)
	{"mean_score_delta.*.mean", Percent},
	{"mean_score_delta.*.sd", Percent},
	{"mean_score_delta.*.ci95.*", Percent},
	{"mean_score_delta.*.bland_altman.**", Percent},
	// The report trend's agreement (points) and mean score deltas.
	{"trend.agreement.**", Percent},
	{"trend.mean_delta.**", Percent},
	// The 0-100 calibration score and its changes: forecast.calibration,
	// groups[].calibration and lowest_calibration.calibration (score and
	// calls documents),
	// trend.calibration.*, trend.groups[].calibration.*.
	{"calibration", Percent},
	{"calibration.**", Percent},
	// 0-100 inspection scores wherever they are not per-run input data,
	// and spreads of them: repeatability.{light,deep}.score_spread.*.
	{"runtime_fidelity", Percent},
	{"task_effectiveness", Percent},
	{"runtime_fidelity_delta", Percent},
	{"task_effectiveness_delta", Percent},
}

// exactTypes are the types whose numbers are written exactly: per-run
// input data as the inspector gave it, and what comparator.Comparison
// copies from it.
var exactTypes = map[reflect.Type]bool{
	// What the report was computed from, compared between shards by
	// merge, and the recorded inclusion probabilities merge recomputes
	// the estimates from.
	reflect.TypeFor[Inputs]():                true,
	reflect.TypeFor[Inclusion]():             true,
	reflect.TypeFor[inspection.Inspection](): true,
	reflect.TypeFor[inspection.Cost]():       true,
	reflect.TypeFor[inspection.Usage]():      true,
	reflect.TypeFor[comparator.Comparison](): true,
	reflect.TypeFor[comparator.Scores]():     true,
}

// PrecisionOf returns the class the key table gives a number at the
// dotted key path (list positions left out, e.g.
// "agreement_by_system.wilson95.lower"), ignoring the type rule.
func PrecisionOf(path string) Precision {
	return classifyKeys(strings.Split(path, "."))
}

// PrecisionOfKeys is PrecisionOf of the path's keys, root first (the
// encoders' call: they keep the keys as they walk).
func PrecisionOfKeys(keys []string) Precision { return classifyKeys(keys) }

// IsExact reports whether t is one of the exact types of the precision
// rule (see Precision): every number inside a value of t is Exact.
func IsExact(t reflect.Type) bool { return exactTypes[t] }

// classifyKeys applies precisionRules to a key path.
func classifyKeys(keys []string) Precision {
	for _, r := range compiledRules {
		if matchSuffix(r.segs, keys) {
			return r.class
		}
	}
	return Statistic
}

type compiledRule struct {
	segs  []string
	class Precision
}

var compiledRules = func() []compiledRule {
	out := make([]compiledRule, len(precisionRules))
	for i, r := range precisionRules {
		out[i] = compiledRule{strings.Split(r.pattern, "."), r.class}
	}
	return out
}()

// matchSuffix reports whether the pattern segments match the end of keys.
func matchSuffix(segs, keys []string) bool {
	if len(segs) == 0 {
		return true
	}
	last := segs[len(segs)-1]
	if last == "**" {
		// One or more keys, then the rest of the pattern; try the
		// shortest tails first.
		rest := segs[:len(segs)-1]
		for n := 1; n <= len(keys); n++ {
			if matchSuffix(rest, keys[:len(keys)-n]) && (len(rest) > 0 || n == len(keys)) {
				return true
			}
		}
		return false
	}
	if len(keys) == 0 || !globMatch(last, keys[len(keys)-1]) {
		return false
	}
	if len(segs) == 1 {
		return true
	}
	return matchSuffix(segs[:len(segs)-1], keys[:len(keys)-1])
}

// globMatch matches a key against a glob whose only metacharacter is "*"
// (any run of characters).
func globMatch(glob, key string) bool {
	if !strings.Contains(glob, "*") {
		return glob == key
	}
	parts := strings.Split(glob, "*")
	if !strings.HasPrefix(key, parts[0]) {
		return false
	}
	key = key[len(parts[0]):]
	for i := 1; i < len(parts)-1; i++ {
		j := strings.Index(key, parts[i])
		if j < 0 {
			return false
		}
		key = key[j+len(parts[i]):]
	}
	return strings.HasSuffix(key, parts[len(parts)-1])
}

// RoundFloat rounds x as the class p says, half away from zero at the
// decimal digit of x's shortest decimal representation (bitSize 64, or 32
// for a float32 value). Exact returns x unchanged; PValue rounds to 3
// significant digits. -0 becomes 0. NaN and ±Inf are returned unchanged.
func RoundFloat(x float64, p Precision, bitSize int) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return x
	}
	var r float64
	switch p {
	case Exact:
		r = x
	case Percent:
		r = roundDecimal(x, bitSize, 0, 2)
	case PValue:
		r = roundDecimal(x, bitSize, 3, 0)
	default:
		r = roundDecimal(x, bitSize, 6, 0)
	}
	if r == 0 {
		return 0 // no -0
	}
	return r
}

// FormatDecimals writes x with exactly decimals digits after the point
// (0 to 15), rounded as the precision rule rounds: half away from zero
// at the decimal digit of x's shortest representation (0.7575 -> 0.758,
// where fmt's %.3f gives 0.757 from the binary value), -0 as 0. It is for
// renderers that show fewer digits than the document holds. NaN and ±Inf
// are written as strconv writes them.
func FormatDecimals(x float64, decimals int) string {
	decimals = min(max(decimals, 0), 15)
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return strconv.FormatFloat(x, 'f', decimals, 64)
	}
	r := roundDecimal(x, 64, 0, decimals)
	if r == 0 {
		r = 0 // no -0
	}
	return strconv.FormatFloat(r, 'f', decimals, 64)
}

// RoundDecimal rounds x as the precision rule rounds, half away from zero
// on the digits of its shortest decimal representation: to sig
// significant digits when sig > 0, else to decimals digits after the
// point. -0 becomes 0; NaN and ±Inf are returned as they are. It is the
// one implementation of the rule the renderers (report/render) display by.
func RoundDecimal(x float64, sig, decimals int) float64 {
	if x == 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return x + 0 // -0 + 0 is +0
	}
	return roundDecimal(x, 64, sig, decimals) + 0
}

// NotANumber is what a figure that is NaN or infinite shows in text.
const NotANumber = "n/a"

// FormatP writes a p-value to 3 significant digits in e-notation:
// "1.23e-05", "6.25e-01", "1.00e+00"; NaN and ±Inf as NotANumber.
func FormatP(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return NotANumber
	}
	return strconv.FormatFloat(RoundDecimal(x, 3, 0), 'e', 2, 64)
}

// roundDecimal rounds x half away from zero, on the digits of its
// shortest decimal representation, to sig significant digits (sig > 0) or
// else to decimals digits after the point.
func roundDecimal(x float64, bitSize, sig, decimals int) float64 {
	if x == 0 {
		return 0
	}
	var buf [32]byte
	// d.ddddde±XX: the digits and the decimal exponent of the shortest
	// representation.
	s := strconv.AppendFloat(buf[:0], math.Abs(x), 'e', -1, bitSize)
	e := 0
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == 'e' {
			exp, err := strconv.Atoi(string(s[i+1:]))
			if err != nil {
				return x // cannot happen: strconv wrote it
			}
			e = exp
			s = s[:i]
			break
		}
	}
	digits := make([]byte, 0, len(s))
	for _, c := range s {
		if c != '.' {
			digits = append(digits, c)
		}
	}
	// x = 0.d1d2d3... x 10^point
	point := e + 1
	keep := sig
	if sig <= 0 {
		keep = point + decimals
	}
	if keep >= len(digits) {
		return x // already short enough
	}
	if keep < 0 {
		return 0
	}
	up := digits[keep] >= '5'
	kept := digits[:keep]
	if up {
		// Add one at the last kept digit, carrying.
		i := len(kept) - 1
		for ; i >= 0; i-- {
			if kept[i] < '9' {
				kept[i]++
				break
			}
			kept[i] = '0'
		}
		if i < 0 {
			kept = append([]byte{'1'}, kept...)
			point++
		}
	}
	if len(kept) == 0 {
		return 0
	}
	// value = 0.kept x 10^point = kept x 10^(point-len(kept))
	str := string(kept) + "e" + strconv.Itoa(point-len(kept))
	r, err := strconv.ParseFloat(str, 64)
	if err != nil {
		return x // cannot happen for a finite x
	}
	if math.Signbit(x) {
		r = -r
	}
	return r
}

// The display rule: how the Markdown and HTML documents, and the summary
// sentence every format carries, show a figure to a reader. Each figure
// has one display form, written by one of the functions below and nowhere
// else, so that a figure never reads at two precisions on one screen
// (issue 28: "kappa 0.73" in the sentence and "0.72619" in the table):
//
//   - percentages, 0-100 scores and points: 2 decimals, as in the
//     documents ("78.26%", "-5.70");
//   - every other statistic (kappa, correlations, Brier, ratios, dollars):
//     DisplayStatDigits significant digits, trailing zeros trimmed,
//     e-notation below 1e-4 ("0.726", "0.0167", "1.23e-05");
//   - p-values: DisplayPDigits significant digits, as a reader quotes
//     them ("0.18", "0.0012", "3.7e-13").
//
// The machine documents (YAML, JSON) keep the Precision classes above:
// people and later commands compute on them.
const (
	DisplayStatDigits = 3
	DisplayPDigits    = 2
)

// DisplayStat writes a statistic to DisplayStatDigits significant digits
// (rounded as RoundDecimal rounds), trailing zeros trimmed, in e-notation
// below 1e-4 or from 1e21; NaN and ±Inf as NotANumber.
func DisplayStat(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return NotANumber
	}
	r := RoundDecimal(x, DisplayStatDigits, 0)
	if a := math.Abs(r); a != 0 && (a < 1e-4 || a >= 1e21) {
		return strconv.FormatFloat(r, 'e', -1, 64)
	}
	return strconv.FormatFloat(r, 'f', -1, 64)
}

// DisplayP writes a p-value to DisplayPDigits significant digits: "0.18",
// "1", "0.0012", and e-notation below 1e-4 ("3.7e-13"); NaN and ±Inf as
// NotANumber.
func DisplayP(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return NotANumber
	}
	r := RoundDecimal(x, DisplayPDigits, 0)
	if a := math.Abs(r); a != 0 && a < 1e-4 {
		return strconv.FormatFloat(r, 'e', -1, 64)
	}
	return strconv.FormatFloat(r, 'f', -1, 64)
}

// DisplayScore writes a 0-100 score or a difference of them (points) to 2
// decimals: "71.43", "-5.70", "0.00".
func DisplayScore(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return NotANumber
	}
	return strconv.FormatFloat(RoundDecimal(x, 0, 2), 'f', 2, 64)
}

// DisplayPercent writes a percentage to 2 decimals: "71.43%".
func DisplayPercent(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return NotANumber
	}
	return DisplayScore(x) + "%"
}

// DisplayUSD writes dollars as a statistic: "$0.00041", "$0.0167".
func DisplayUSD(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return NotANumber
	}
	return "$" + DisplayStat(x)
}
