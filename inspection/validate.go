package inspection

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
)

// inspectionJSON is the wire form of an Inspection: pointers tell a
// missing field from a zero one, and `program` is the older name of
// `system`.
type inspectionJSON struct {
	RunID             *string   `json:"run_id"`
	System            *string   `json:"system"`
	Program           *string   `json:"program"`
	Depth             *string   `json:"depth"`
	RuntimeFidelity   *float64  `json:"runtime_fidelity"`
	TaskEffectiveness *float64  `json:"task_effectiveness"`
	Services          []Service `json:"services"`
	Flags             []Flag    `json:"flags"`
	Verdict           *string   `json:"verdict"`
	Summary           string    `json:"summary"`
	Cost              Cost      `json:"cost"`
}

// ParseInspection decodes one inspection JSON object (schema in
// docs/DESIGN.md). `program` is accepted for `system`; `system` wins when both
// are given. runtime_fidelity, task_effectiveness and verdict are
// required; run_id and depth may be absent (the runner fills them in).
// Unknown fields are ignored. Trailing non-space data, a missing field, a
// wrong type or a value CheckInspection rejects is an error that wraps a
// *FieldError naming the field. ParseInspection never panics.
func ParseInspection(data []byte) (Inspection, error) {
	var w inspectionJSON
	// json.Unmarshal accepts exactly the documents decodeOne accepts (one
	// value, space around it) and decodes them the same, without a
	// Decoder's copy of data (a fifth of what a million saved runs
	// allocated); the errors are decodeOne's, which names the trailing
	// data and the empty document.
	if json.Unmarshal(data, &w) != nil {
		w = inspectionJSON{}
		if err := decodeOne(data, &w); err != nil {
			return Inspection{}, err
		}
	}
	switch {
	case w.RuntimeFidelity == nil:
		return Inspection{}, &FieldError{Field: "runtime_fidelity", Err: errors.New("missing")}
	case w.TaskEffectiveness == nil:
		return Inspection{}, &FieldError{Field: "task_effectiveness", Err: errors.New("missing")}
	case w.Verdict == nil:
		return Inspection{}, &FieldError{Field: "verdict", Err: errors.New("missing")}
	}
	insp := Inspection{
		RuntimeFidelity:   *w.RuntimeFidelity,
		TaskEffectiveness: *w.TaskEffectiveness,
		Services:          w.Services,
		Flags:             w.Flags,
		Verdict:           *w.Verdict,
		Summary:           w.Summary,
		Cost:              w.Cost,
	}
	if w.RunID != nil {
		insp.RunID = *w.RunID
	}
	if w.Depth != nil {
		insp.Depth = Depth(*w.Depth)
	}
	switch {
	case w.System != nil && *w.System != "":
		insp.System = *w.System
	case w.Program != nil:
		insp.System = *w.Program
	}
	if err := CheckInspection(insp); err != nil {
		return Inspection{}, err
	}
	return insp, nil
}

// decodeOne decodes the one JSON value data holds into w, with the
// errors ParseInspection documents.
func decodeOne(data []byte, w *inspectionJSON) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(w); err != nil {
		return decodeError(err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return &FieldError{Err: errors.New("trailing data after the inspection object")}
	}
	return nil
}

// decodeError turns an encoding/json error into a *FieldError, naming the
// field when the decoder knows it.
func decodeError(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return &FieldError{Field: te.Field, Err: fmt.Errorf("%s is not a %s", te.Value, te.Type)}
	}
	if errors.Is(err, io.EOF) {
		return &FieldError{Err: errors.New("empty document, want an inspection object")}
	}
	return &FieldError{Err: fmt.Errorf("not an inspection JSON object: %w", err)}
}

// CheckInspection checks the values of an inspection: both scores finite
// and in [0, 100]; verdict one of pass, partial, fail; depth empty, light
// or deep; every flag severity one of info, warning, critical; cost
// figures finite and non-negative. The error is a *FieldError naming the
// first offending field.
func CheckInspection(insp Inspection) error {
	if err := checkScore("runtime_fidelity", insp.RuntimeFidelity); err != nil {
		return err
	}
	if err := checkScore("task_effectiveness", insp.TaskEffectiveness); err != nil {
		return err
	}
	switch insp.Verdict {
	case VerdictPass, VerdictPartial, VerdictFail:
	default:
		return &FieldError{Field: "verdict", Err: fmt.Errorf("%q is not pass, partial or fail", insp.Verdict)}
	}
	switch insp.Depth {
	case "", Light, Deep:
	default:
		return &FieldError{Field: "depth", Err: fmt.Errorf("%q is not light or deep", insp.Depth)}
	}
	for i, f := range insp.Flags {
		switch f.Severity {
		case SeverityInfo, SeverityWarning, SeverityCritical:
		default:
			return &FieldError{Field: fmt.Sprintf("flags[%d].severity", i),
				Err: fmt.Errorf("%q is not info, warning or critical", f.Severity)}
		}
	}
	for _, c := range []struct {
		name string
		v    float64
	}{{"cost.seconds", insp.Cost.Seconds}, {"cost.usd", insp.Cost.USD}, {"cost.tokens", float64(insp.Cost.Tokens)}} {
		if math.IsNaN(c.v) || math.IsInf(c.v, 0) || c.v < 0 {
			return &FieldError{Field: c.name, Err: fmt.Errorf("%v is not a finite non-negative number", c.v)}
		}
	}
	if u := insp.Cost.Usage; u != nil {
		for _, c := range []struct {
			name string
			v    int64
		}{{"calls", u.Calls}, {"input_tokens", u.Input}, {"output_tokens", u.Output},
			{"cached_input_tokens", u.CachedInput}, {"reasoning_tokens", u.Reasoning}} {
			if c.v < 0 {
				return &FieldError{Field: "cost.usage." + c.name, Err: fmt.Errorf("%d is negative", c.v)}
			}
		}
	}
	return nil
}

func checkScore(name string, v float64) error {
	if math.IsNaN(v) || v < 0 || v > 100 {
		return &FieldError{Field: name, Err: fmt.Errorf("%v is outside 0..100", v)}
	}
	return nil
}
