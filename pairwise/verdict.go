package pairwise

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/evalcal/evalcal/internal/lines"
)

// Winner values: a run of the pair, or a tie.
const (
	WinnerA   = "a"
	WinnerB   = "b"
	WinnerTie = "tie"
)

// Order values: which run was shown in the first slot.
const (
	OrderAB = "ab" // run_a first
	OrderBA = "ba" // run_b first
)

// Verdict is one pairwise judgement: Judge preferred Winner of the pair
// PairID (runs RunA and RunB) when shown them in Order.
type Verdict struct {
	PairID string `yaml:"pair_id" json:"pair_id"`
	RunA   string `yaml:"run_a" json:"run_a"`
	RunB   string `yaml:"run_b" json:"run_b"`
	Winner string `yaml:"winner" json:"winner"`
	Order  string `yaml:"order" json:"order"`
	// Judge names the judge; "" when the file does not say (the caller
	// then names it).
	Judge string `yaml:"judge,omitempty" json:"judge,omitempty"`
}

// FirstSlotWon reports whether the run shown first won; false for a tie.
func (v Verdict) FirstSlotWon() bool {
	return (v.Order == OrderAB && v.Winner == WinnerA) || (v.Order == OrderBA && v.Winner == WinnerB)
}

// BadLine is one input line that could not be read (internal/lines).
type BadLine = lines.BadLine

// Limits bound what a reader holds in memory: the longest line and the
// largest file, in bytes.
type Limits struct {
	Line int
	File int64
}

// DefaultLimits are 4 MiB a line and 1 GiB a file.
var DefaultLimits = Limits{Line: 4 << 20, File: 1 << 30}

// fieldError is a bad value of one field.
type fieldError struct {
	field string
	err   error
}

func (e *fieldError) Error() string { return e.field + ": " + e.err.Error() }

// ReadJSONL reads pairwise verdicts, one JSON object a line, from r (named
// name in messages). Blank lines are skipped. A line that is not a JSON
// object, lacks pair_id, run_a or run_b, or has a winner other than a, b or
// tie or an order other than ab or ba is recorded as a BadLine and the rest
// is read. The error is for the file as a whole: unreadable, longer than
// lim.File, or ctx cancelled.
func ReadJSONL(ctx context.Context, r io.Reader, name string, lim Limits) ([]Verdict, []BadLine, error) {
	var out []Verdict
	var bad []BadLine
	err := eachLine(ctx, r, name, lim, &bad, func(n int, raw []byte) {
		v, err := parseVerdict(raw)
		if err != nil {
			b := BadLine{File: name, Line: n, Error: err.Error()}
			var fe *fieldError
			if errors.As(err, &fe) {
				b.Field, b.Error = fe.field, fe.err.Error()
			}
			bad = append(bad, b)
			return
		}
		out = append(out, v)
	})
	if err != nil {
		return nil, nil, err
	}
	return out, bad, nil
}

// parseVerdict decodes and checks one JSON Lines verdict.
func parseVerdict(raw []byte) (Verdict, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return Verdict{}, fmt.Errorf("not a JSON object: %w", err)
	}
	var v Verdict
	for _, f := range []struct {
		name     string
		dst      *string
		required bool
	}{
		{"pair_id", &v.PairID, true}, {"run_a", &v.RunA, true}, {"run_b", &v.RunB, true},
		{"winner", &v.Winner, true}, {"order", &v.Order, true}, {"judge", &v.Judge, false},
	} {
		val, ok := fields[f.name]
		if !ok || string(val) == "null" {
			if f.required {
				return Verdict{}, &fieldError{f.name, errors.New("missing")}
			}
			continue
		}
		if err := json.Unmarshal(val, f.dst); err != nil {
			return Verdict{}, &fieldError{f.name, errors.New("not a string")}
		}
		if f.required && strings.TrimSpace(*f.dst) == "" {
			return Verdict{}, &fieldError{f.name, errors.New("empty")}
		}
	}
	if err := check(v); err != nil {
		return Verdict{}, err
	}
	return v, nil
}

// check validates the winner, the order and that the two runs differ.
func check(v Verdict) error {
	switch v.Winner {
	case WinnerA, WinnerB, WinnerTie:
	default:
		return &fieldError{"winner", fmt.Errorf("%q is not a, b or tie", v.Winner)}
	}
	switch v.Order {
	case OrderAB, OrderBA:
	default:
		return &fieldError{"order", fmt.Errorf("%q is not ab or ba", v.Order)}
	}
	if v.RunA == v.RunB {
		return &fieldError{"run_b", fmt.Errorf("is run_a (%q); a pair needs two runs", v.RunA)}
	}
	return nil
}
