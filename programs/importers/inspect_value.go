package importers

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/evalcal/evalcal/inspection"
)

// mapSample maps the chosen score of a sample under opts (see the
// package documentation); covered is false when the sample has no value
// from the scorer and no error.
func mapSample(s inspectSample, name, key, selector string, opts Options) (r result, covered bool) {
	sc, has := s.scores.get(name)
	var v float64
	var kind valueKind
	var err error
	if has {
		if sc.err != nil {
			err = sc.err
		} else {
			v, kind, err = inspectValue(sc.value, key, opts)
		}
	}
	if s.hasError {
		// The sample did not complete: fail, whatever the scorer said.
		insp := inspection.Inspection{Verdict: inspection.VerdictFail}
		if has && err == nil && kind == valued {
			insp = opts.scored(v)
			insp.Verdict = inspection.VerdictFail
		}
		insp.Flags = []inspection.Flag{{ID: FlagRunError, Severity: inspection.SeverityCritical,
			Description: "inspect_ai recorded an error that halted the sample", Evidence: s.errMessage}}
		insp.Summary = truncate("sample error: "+s.errMessage, SummaryRunes)
		return result{insp: insp}, true
	}
	if !has || kind == absent {
		return result{}, false
	}
	field := "scores." + name + ".value"
	if key != "" {
		field += "." + key
	}
	if err != nil {
		var fe *inspection.FieldError
		if !errors.As(err, &fe) {
			err = &inspection.FieldError{Field: field, Err: err}
		}
		return result{err: sampleError(s, err)}, true
	}
	if kind == unscored {
		return result{err: sampleError(s, &inspection.FieldError{Field: field,
			Err: errors.New("null or NaN: the scorer could not render a verdict (Score.unscored)")})}, true
	}
	insp := opts.scored(v)
	if kind == noAnswer {
		insp.Flags = []inspection.Flag{{ID: FlagNoAnswer, Severity: inspection.SeverityWarning,
			Description: "the scorer recorded no answer (N)", Evidence: sc.answer}}
	}
	if s.limit != "" {
		insp.Flags = append(insp.Flags, inspection.Flag{ID: FlagLimit, Severity: inspection.SeverityWarning,
			Description: "inspect_ai halted the sample at its " + s.limit, Evidence: s.limit})
	}
	summary := selector + " = " + valueText(sc.value, key)
	if sc.explanation != "" {
		summary += ": " + sc.explanation
	}
	insp.Summary = truncate(summary, SummaryRunes)
	return result{insp: insp}, true
}

// valueText shows the value mapped: a string as it is, anything else as
// its JSON.
func valueText(value json.RawMessage, key string) string {
	if key != "" {
		var m map[string]json.RawMessage
		if json.Unmarshal(value, &m) == nil {
			value = m[key]
		}
	}
	var s string
	if json.Unmarshal(value, &s) == nil {
		return truncate(oneLine(s), 60)
	}
	return truncate(oneLine(string(value)), 60)
}

// valueKind is what a score value turned out to be.
type valueKind int

const (
	valued   valueKind = iota // a value in [0, 1]
	noAnswer                  // "N": 0, and a no-answer flag
	unscored                  // null (NaN or an infinity in the log): no verdict
	absent                    // a dict value without the key asked for
)

// inspectValue maps a Score value to a number in [0, 1], following
// inspect_ai's value_to_float (scorer/_metric.py): "C" 1, "P" 0.5, "I" 0,
// "N" 0 (noAnswer); other strings, lower-cased, "yes" and "true" 1, "no"
// and "false" 0, a finite number written as a string that number;
// booleans 1 and 0; numbers as they are. Where value_to_float warns and
// returns 0, this is an error instead: a string it cannot read, a list, a
// dict (unless key names one of its entries, mapped by the same rules),
// and a number outside [0, 1]. opts override the mapping: a string in
// opts.Values maps to its number first (N keeps its no-answer flag), and
// numbers are divided by opts.Max when it is set.
func inspectValue(value json.RawMessage, key string, opts Options) (float64, valueKind, error) {
	t := bytes.TrimSpace(value)
	if len(t) == 0 {
		return 0, 0, errors.New("missing")
	}
	switch t[0] {
	case '[':
		return 0, 0, fmt.Errorf("a list (%s) cannot be mapped to one verdict", truncate(string(t), 60))
	case '{':
		var m map[string]json.RawMessage
		if err := json.Unmarshal(t, &m); err != nil {
			return 0, 0, err
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		if key == "" {
			return 0, 0, fmt.Errorf("a dict of %s: name one entry with #SCORER.KEY", strings.Join(keys, ", "))
		}
		entry, ok := m[key]
		if !ok {
			return 0, absent, nil
		}
		if e := bytes.TrimSpace(entry); len(e) > 0 && (e[0] == '{' || e[0] == '[') {
			return 0, 0, fmt.Errorf("entry %q is not a single value", key)
		}
		return inspectValue(entry, "", opts)
	}
	if key != "" {
		return 0, 0, fmt.Errorf("%s is not a dict, so it has no entry %q", truncate(string(t), 40), key)
	}
	switch {
	case string(t) == "null":
		return 0, unscored, nil
	case string(t) == "true":
		return 1, valued, nil
	case string(t) == "false":
		return 0, valued, nil
	case t[0] == '"':
		var s string
		if err := json.Unmarshal(t, &s); err != nil {
			return 0, 0, err
		}
		return inspectString(s, opts)
	}
	x, err := strconv.ParseFloat(string(t), 64)
	if err != nil {
		return 0, 0, fmt.Errorf("%s is not a value", truncate(string(t), 40))
	}
	return opts.numeric(x)
}

// inspectString maps a string value: one of opts.Values first, then
// value_to_float's order: the exact C, P, I, N, then yes/true/no/false in
// any case, then a number.
func inspectString(s string, opts Options) (float64, valueKind, error) {
	if x, ok := opts.Values[s]; ok {
		if s == "N" {
			return x, noAnswer, nil
		}
		return x, valued, nil
	}
	switch s {
	case "C":
		return 1, valued, nil
	case "P":
		return 0.5, valued, nil
	case "I":
		return 0, valued, nil
	case "N":
		return 0, noAnswer, nil
	}
	switch strings.ToLower(s) {
	case "yes", "true":
		return 1, valued, nil
	case "no", "false":
		return 0, valued, nil
	}
	x, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
		return 0, 0, fmt.Errorf("%q is not C, P, I, N, yes, no, true, false or a number%s", truncate(s, 40), unmappedHint(s))
	}
	return opts.numeric(x)
}
