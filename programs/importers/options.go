package importers

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/evalcal/evalcal/inspection"
)

// Options override how a Source maps the tool's values to inspections;
// the zero value is the mapping of the package documentation. A spec
// gives them after the scorer or assertion (see ParseSelector).
type Options struct {
	// Values maps a string value of an inspect_ai score, matched exactly
	// (case and all), to x in [0, 1]; it is looked up before the default
	// mapping, so "P": 0 makes P a fail. inspect_ai only.
	Values map[string]float64
	// Max, when above 0, divides the numeric values of an inspect_ai
	// score (numbers, and numbers written as strings; not booleans nor
	// mapped strings), which must then lie in [0, Max]. inspect_ai only.
	Max float64
	// Pass and Fail, when not nil, are the verdict thresholds on x: pass
	// when x >= Pass, fail when x < Fail, partial in between, with
	// 0 <= Fail <= Pass <= 1. For inspect_ai each replaces its default
	// (0.7 and 0.4). For promptfoo, Pass makes the verdict the score's
	// instead of promptfoo's own pass or fail, and Fail defaults to Pass
	// (no partial); Fail alone is an error.
	Pass, Fail *float64
}

// A Dialect is what one tool's ?OPTIONS may say and how its thresholds
// default. Each importer declares its own next to its loader
// (inspectDialect in inspect.go, promptfooDialect in promptfoo.go) and
// hands it to sourceKind, so that a new importer with its own options
// touches no shared file.
type Dialect struct {
	// Name is the spec kind, which messages name.
	Name string
	// Refuse says why an option key other than pass= and fail= is refused
	// ("" accepts it: max= or a string value's mapping); nil accepts
	// every key.
	Refuse func(key string) string
	// FailFollowsPass: pass= replaces the tool's own verdict by the
	// score's; fail= defaults to pass= (no partial) and is refused
	// without it.
	FailFollowsPass bool
}

// option keys that are not string values, and the prefix that makes a
// key a string value whatever it is (value.pass=1 maps the value "pass").
const (
	optMax      = "max"
	optPass     = "pass"
	optFail     = "fail"
	valuePrefix = "value."
)

// ParseSelector splits the selector SplitSpec returns into the scorer or
// assertion and its options, at the last "?":
//
//	match?P=0,N=0.5,max=10   scorer "match" with options
//	?max=10                  the log's only scorer, with options
//	polite??                 assertion "polite?" (a name holding a "?"
//	                         needs a trailing one), no options
//
// The options are KEY=VALUE pairs separated by commas, each key once,
// VALUE a finite number:
//
//	max=M      M > 0: numeric values are divided by M (inspect only)
//	pass=T     the pass threshold, T in [0, 1]
//	fail=F     the fail threshold, F in [0, 1], F <= T
//	VALUE=x    any other key: the string value VALUE maps to x in [0, 1]
//	           (inspect only)
//	value.VALUE=x  the same for any VALUE, including max, pass and fail
//	           (a scorer whose values are the words "pass" and "fail")
//
// The dialect d refuses what its tool cannot take (promptfoo takes pass
// and fail only: its scores are in [0, 1] already and it has no string
// values). An error names the option and why it is refused.
func ParseSelector(d Dialect, selector string) (name string, opts Options, err error) {
	kind := d.Name
	i := strings.LastIndexByte(selector, '?')
	if i < 0 {
		return selector, Options{}, nil
	}
	name, text := selector[:i], selector[i+1:]
	if text == "" {
		return name, Options{}, nil
	}
	bad := func(item, why string) error { return fmt.Errorf("%s: option %q: %s", kind, item, why) }
	seen := map[string]bool{}
	for _, item := range strings.Split(text, ",") {
		key, v, ok := strings.Cut(item, "=")
		if !ok || key == "" {
			return "", Options{}, bad(item, "want KEY=VALUE (max=M, pass=T, fail=F, or a string value's mapping such as P=0)")
		}
		if seen[key] {
			return "", Options{}, bad(item, key+" is given twice")
		}
		seen[key] = true
		x, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return "", Options{}, bad(item, fmt.Sprintf("%q is not a finite number", v))
		}
		if key != optPass && key != optFail && d.Refuse != nil {
			if why := d.Refuse(key); why != "" {
				return "", Options{}, bad(item, why)
			}
		}
		switch key {
		case optMax:
			if !(x > 0) {
				return "", Options{}, bad(item, "max must be above 0")
			}
			opts.Max = x
		case optPass, optFail:
			if !(x >= 0 && x <= 1) {
				return "", Options{}, bad(item, key+" is a threshold on the mapped value, in [0, 1] (after max=, if given)")
			}
			if key == optPass {
				opts.Pass = &x
			} else {
				opts.Fail = &x
			}
		default:
			if !(x >= 0 && x <= 1) {
				return "", Options{}, bad(item, "a string value maps to a number in [0, 1]")
			}
			value := strings.TrimPrefix(key, valuePrefix)
			if opts.Values == nil {
				opts.Values = map[string]float64{}
			}
			if _, twice := opts.Values[value]; twice {
				return "", Options{}, bad(item, "the value "+strconv.Quote(value)+" is mapped twice")
			}
			opts.Values[value] = x
		}
	}
	if err := opts.checkThresholds(d); err != nil {
		return "", Options{}, err
	}
	return name, opts, nil
}

// checkThresholds checks fail <= pass, the defaults counted.
func (o Options) checkThresholds(d Dialect) error {
	pass, fail := o.thresholds(d)
	switch {
	case d.FailFollowsPass && o.Fail != nil && o.Pass == nil:
		return fmt.Errorf("%s: option \"fail=%s\": give pass= too: without it the verdict is %s's own", d.Name, num(*o.Fail), d.Name)
	case fail > pass:
		return fmt.Errorf("%s: options: fail=%s is above pass=%s (a default unless given): a verdict cannot be both", d.Name, num(fail), num(pass))
	}
	return nil
}

// thresholds are the pass and fail thresholds in force in dialect d.
func (o Options) thresholds(d Dialect) (pass, fail float64) {
	pass, fail = passAt, failBelow
	if o.Pass != nil {
		pass = *o.Pass
		if d.FailFollowsPass {
			fail = pass
		}
	}
	if o.Fail != nil {
		fail = *o.Fail
	}
	return pass, fail
}

// String is the options in one canonical form, keys sorted, numbers as
// Go's shortest 'g' form ("N=0.5,P=0,max=10"), or "" for none. A
// source's identity ends with "?" and it, since the options change the
// inspections.
func (o Options) String() string {
	var items []string
	for k, v := range o.Values {
		if k == optMax || k == optPass || k == optFail || strings.HasPrefix(k, valuePrefix) {
			k = valuePrefix + k // as ParseSelector reads it back
		}
		items = append(items, k+"="+num(v))
	}
	if o.Max > 0 {
		items = append(items, optMax+"="+num(o.Max))
	}
	if o.Pass != nil {
		items = append(items, optPass+"="+num(*o.Pass))
	}
	if o.Fail != nil {
		items = append(items, optFail+"="+num(*o.Fail))
	}
	slices.Sort(items)
	return strings.Join(items, ",")
}

// identitySuffix is what the options add to a source's identity.
func (o Options) identitySuffix() string {
	if s := o.String(); s != "" {
		return "?" + s
	}
	return ""
}

func num(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// scored is the inspection of a value v in [0, 1] under the inspect_ai
// thresholds in force: both scores 100*v; pass when v >= pass, fail when
// v < fail, partial otherwise.
func (o Options) scored(v float64) inspection.Inspection {
	pass, fail := o.thresholds(inspectDialect)
	return inspection.Inspection{RuntimeFidelity: 100 * v, TaskEffectiveness: 100 * v, Verdict: verdictAt(v, pass, fail)}
}

// verdictAt is the verdict of x under the cuts: pass at pass or above,
// fail below fail, partial between.
func verdictAt(x, pass, fail float64) string {
	switch {
	case x >= pass:
		return inspection.VerdictPass
	case x < fail:
		return inspection.VerdictFail
	}
	return inspection.VerdictPartial
}

// promptfooVerdict is a promptfoo result's inspection: promptfoo's own
// pass or fail, or with pass= the score's verdict; both scores
// 100*score.
func (o Options) promptfooVerdict(passed bool, score float64) inspection.Inspection {
	insp := inspection.Inspection{RuntimeFidelity: 100 * score, TaskEffectiveness: 100 * score, Verdict: inspection.VerdictFail}
	if o.Pass == nil {
		if passed {
			insp.Verdict = inspection.VerdictPass
		}
		return insp
	}
	pass, fail := o.thresholds(promptfooDialect)
	insp.Verdict = verdictAt(score, pass, fail)
	return insp
}

// numeric maps a number x of an inspect_ai score: divided by Max when it
// is set; it must lie in [0, 1] (in [0, Max] before the division).
func (o Options) numeric(x float64) (float64, valueKind, error) {
	if o.Max > 0 {
		if !(x >= 0 && x <= o.Max) {
			return 0, 0, fmt.Errorf("%v is outside [0, %v] (max=%v)", x, o.Max, o.Max)
		}
		return x / o.Max, valued, nil
	}
	if !(x >= 0 && x <= 1) {
		return 0, 0, fmt.Errorf("%v is outside [0, 1]%s", x, outsideHint(x))
	}
	return x, valued, nil
}

// unmappedHint suggests mapping a string value inspect_ai's mapping does
// not know, when the spec syntax can name it.
func unmappedHint(s string) string {
	if s == "" || strings.ContainsAny(s, ",=?#") || s == optMax || s == optPass || s == optFail {
		return ""
	}
	return fmt.Sprintf(": map it with inspect:LOG#SCORER?%s=x (x in [0, 1])", s)
}

// outsideHint suggests max= for a value that looks like a rubric score.
func outsideHint(x float64) string {
	if x > 1 && x <= 100 {
		return ": for scores on another scale give max=, e.g. inspect:LOG#SCORER?max=10"
	}
	return ""
}
