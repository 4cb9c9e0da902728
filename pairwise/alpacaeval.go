package pairwise

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math"
)

// alpacaAnnotation is one element of an AlpacaEval annotations file.
type alpacaAnnotation struct {
	Instruction *string          `json:"instruction"`
	Generator1  *string          `json:"generator_1"`
	Generator2  *string          `json:"generator_2"`
	Annotator   *string          `json:"annotator"`
	Preference  *json.RawMessage `json:"preference"`
}

// ReadAlpacaEval reads an AlpacaEval annotations file (annotations.json of
// alpaca_eval's results, or alpaca_farm's human annotations): a JSON array
// of objects with instruction, output_1, output_2, generator_1,
// generator_2, annotator and preference (1: output_1 preferred, 2:
// output_2; 1.5 or 0: a tie, as alpaca_eval writes draws). The weighted
// annotators' continuous preferences in [1, 2] go to the nearer output.
//
// The pair is the instruction with the two generators in name order:
// pair id "G1 vs G2/H" with G1 < G2 and H the first 16 hex digits of the
// instruction's SHA-256; run_a is "G1/H", run_b "G2/H"; the order is ab
// when generator_1 is G1 (output_1 was shown first), else ba. An element
// that cannot be read (named by the line it starts on) is a bad line; the
// judge is the annotator ("" when absent). r is read whole, at most
// lim.File bytes.
func ReadAlpacaEval(ctx context.Context, r io.Reader, name string, lim Limits) ([]Verdict, []BadLine, error) {
	data, err := io.ReadAll(io.LimitReader(r, lim.File+1))
	if err != nil {
		return nil, nil, fmt.Errorf("pairwise: reading %s: %w", name, err)
	}
	if int64(len(data)) > lim.File {
		return nil, nil, fmt.Errorf("pairwise: %s: longer than %d bytes", name, lim.File)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		return nil, nil, fmt.Errorf("pairwise: %s: not an AlpacaEval annotations file (a JSON array)", name)
	}
	var out []Verdict
	var bad []BadLine
	line, counted := 1, 0
	for dec.More() {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		start := int(dec.InputOffset())
		// The element starts after the separator and blanks.
		for start < len(data) && bytes.IndexByte([]byte(", \t\r\n"), data[start]) >= 0 {
			start++
		}
		line += bytes.Count(data[counted:start], []byte("\n"))
		counted = start
		var a alpacaAnnotation
		if err := dec.Decode(&a); err != nil {
			// The array cannot be resynchronised after a syntax error.
			bad = append(bad, BadLine{File: name, Line: line, Error: fmt.Sprintf("not JSON: %v; the rest of the file is not read", err)})
			return out, bad, nil
		}
		v, field, err := a.verdict()
		if err != nil {
			bad = append(bad, BadLine{File: name, Line: line, Field: field, Error: err.Error()})
			continue
		}
		out = append(out, v)
	}
	return out, bad, nil
}

// verdict turns an annotation into a verdict, or names the bad field.
func (a alpacaAnnotation) verdict() (Verdict, string, error) {
	for _, f := range []struct {
		name string
		v    *string
	}{{"instruction", a.Instruction}, {"generator_1", a.Generator1}, {"generator_2", a.Generator2}} {
		if f.v == nil {
			return Verdict{}, f.name, fmt.Errorf("missing")
		}
	}
	if *a.Generator1 == *a.Generator2 {
		return Verdict{}, "generator_2", fmt.Errorf("is generator_1 (%q); a pair needs two generators", *a.Generator1)
	}
	if a.Preference == nil || string(*a.Preference) == "null" {
		return Verdict{}, "preference", fmt.Errorf("missing")
	}
	var pref float64
	if err := json.Unmarshal(*a.Preference, &pref); err != nil || math.IsNaN(pref) {
		return Verdict{}, "preference", fmt.Errorf("%s is not a number", truncate(string(*a.Preference), 40))
	}
	var slot int
	switch {
	case pref == 0 || pref == 1.5:
		slot = 0
	case pref >= 1 && pref < 1.5:
		slot = 1
	case pref > 1.5 && pref <= 2:
		slot = 2
	default:
		return Verdict{}, "preference", fmt.Errorf("%v is not in [1, 2] or 0 (a tie)", pref)
	}
	sum := sha256.Sum256([]byte(*a.Instruction))
	h := hex.EncodeToString(sum[:8])
	g1, g2 := *a.Generator1, *a.Generator2
	v := Verdict{Order: OrderAB}
	if g1 > g2 {
		g1, g2 = g2, g1
		v.Order = OrderBA
	}
	v.PairID, v.RunA, v.RunB = g1+" vs "+g2+"/"+h, g1+"/"+h, g2+"/"+h
	v.Winner = slotWinner(slot, v.Order)
	if a.Annotator != nil {
		v.Judge = *a.Annotator
	}
	return v, "", nil
}
