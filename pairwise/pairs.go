package pairwise

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Pair is one pair of runs to judge (evalcal run --pairs FILE).
type Pair struct {
	ID   string `yaml:"pair_id" json:"pair_id"`
	RunA string `yaml:"run_a" json:"run_a"`
	RunB string `yaml:"run_b" json:"run_b"`
	// Line is the pairs file's line the pair is on.
	Line int `yaml:"-" json:"-"`
}

// ReadPairs reads the pairs file of evalcal run --pairs: one JSON object
// a line, {"pair_id", "run_a", "run_b"}; pair_id is optional and defaults
// to "RUN_A|RUN_B". Blank lines are skipped. A line that is not a JSON
// object, lacks run_a or run_b, names one run twice, or repeats a pair_id
// is recorded as a BadLine (file, line, field) and the rest is read. The
// error is for the file as a whole: unreadable, longer than lim.File, or
// ctx cancelled.
func ReadPairs(ctx context.Context, r io.Reader, name string, lim Limits) ([]Pair, []BadLine, error) {
	var out []Pair
	var bad []BadLine
	seen := map[string]int{}
	err := eachLine(ctx, r, name, lim, &bad, func(n int, raw []byte) {
		p, field, err := parsePair(raw)
		if err == nil {
			if first, dup := seen[p.ID]; dup {
				field, err = "pair_id", fmt.Errorf("%q repeats the pair of line %d", p.ID, first)
			}
		}
		if err != nil {
			bad = append(bad, BadLine{File: name, Line: n, Field: field, Error: err.Error()})
			return
		}
		seen[p.ID] = n
		p.Line = n
		out = append(out, p)
	})
	if err != nil {
		return nil, nil, err
	}
	return out, bad, nil
}

// parsePair decodes and checks one line of a pairs file; field names the
// field at fault.
func parsePair(raw []byte) (Pair, string, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return Pair{}, "", fmt.Errorf("not a JSON object: %w", err)
	}
	var p Pair
	for _, f := range []struct {
		name     string
		dst      *string
		required bool
	}{{"pair_id", &p.ID, false}, {"run_a", &p.RunA, true}, {"run_b", &p.RunB, true}} {
		val, ok := fields[f.name]
		if !ok || string(val) == "null" {
			if f.required {
				return Pair{}, f.name, errors.New("missing")
			}
			continue
		}
		if err := json.Unmarshal(val, f.dst); err != nil {
			return Pair{}, f.name, errors.New("not a string")
		}
		if strings.TrimSpace(*f.dst) == "" {
			return Pair{}, f.name, errors.New("empty")
		}
	}
	if p.RunA == p.RunB {
		return Pair{}, "run_b", fmt.Errorf("is run_a (%q); a pair needs two runs", p.RunA)
	}
	if p.ID == "" {
		p.ID = p.RunA + "|" + p.RunB
	}
	return p, "", nil
}
