package forecast

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func readAll(t *testing.T, input string, opts JSONLOptions) ([]Forecast, JSONLResult, error) {
	t.Helper()
	var fs []Forecast
	res, err := ReadJSONL(context.Background(), strings.NewReader(input), "in.jsonl", opts, func(f Forecast) error {
		fs = append(fs, f)
		return nil
	})
	return fs, res, err
}

func TestReadJSONLParsesTheIssueExamples(t *testing.T) {
	input := `{"id": "f1", "agent": "alpha", "confidence": 0.7, "outcome": 1, "at": "2026-11-01T12:00:00Z"}
{"id": "f2", "agent": "alpha", "probs": [0.2, 0.3, 0.5], "outcome": "up"}

{"id":"f3","agent":"beta","confidence":0.25,"outcome":false,"team":"x","score":12,"meta":{"a":[1,"}"]}}
`
	fs, res, err := readAll(t, input, JSONLOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []Forecast{
		{ID: "f1", Agent: "alpha", At: time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC), Kind: Binary, Confidence: 0.7, Outcome: 1,
			Fields: map[string]string{"id": "f1", "agent": "alpha", "confidence": "0.7", "outcome": "1", "at": "2026-11-01T12:00:00Z"}, Source: "in.jsonl", Line: 1},
		{ID: "f2", Agent: "alpha", Kind: Ordinal, Probs: []float64{0.2, 0.3, 0.5}, Outcome: 2,
			Fields: map[string]string{"id": "f2", "agent": "alpha", "outcome": "up"}, Source: "in.jsonl", Line: 2},
		{ID: "f3", Agent: "beta", Kind: Binary, Confidence: 0.25, Outcome: 0,
			Fields: map[string]string{"id": "f3", "agent": "beta", "confidence": "0.25", "outcome": "false", "team": "x", "score": "12"}, Source: "in.jsonl", Line: 4},
	}
	if d := cmp.Diff(want, fs); d != "" {
		t.Errorf("forecasts (-want +got):\n%s", d)
	}
	if res.Lines != 3 || res.Forecasts != 3 || res.BadCount != 0 {
		t.Errorf("result %+v, want 3 lines, 3 forecasts, no bad lines", res)
	}
}

func TestReadJSONLReportsBadLinesWithFileLineAndField(t *testing.T) {
	input := strings.Join([]string{
		`{"agent": "a", "confidence": 0.5, "outcome": 1}`,
		`{"agent": "a", "confidence": 1.5, "outcome": 1}`,
		`{"agent": "a", "confidence": 0.5, "outcome": 2}`,
		`{"agent": "a", "probs": [0.5, 0.5], "outcome": "up"}`,
		`{"agent": "a", "probs": [0.2, 0.2, 0.2], "outcome": 0}`,
		`{"agent": "a", "confidence": 0.5, "outcome": 1, "at": "noon"}`,
		`{"agent": 3.5e1000, "confidence": 0.5, "outcome": 1}`,
		`{"agent": ["a"], "confidence": 0.5, "outcome": 1}`,
		`{"agent": "a"}`,
		`{"agent": "a", "confidence": 0.5, "outcome": 1`,
		`"just a string"`,
		`{"agent": "a", "confidence": 0.5}`,
		`{"agent": "a", "confidence": 0.5, "outcome": null}`,
	}, "\n")
	_, res, err := readAll(t, input, JSONLOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, b := range res.Bad {
		if b.File != "in.jsonl" {
			t.Errorf("bad line %+v names file %q", b, b.File)
		}
		got = append(got, fmt.Sprintf("%d:%s", b.Line, b.Field))
	}
	want := []string{"2:confidence", "3:outcome", "4:outcome", "5:probs", "6:at", "8:agent", "9:confidence", "10:line", "11:line"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("bad lines (-want +got):\n%s\n%+v", d, res.Bad)
	}
	// Line 7: a number too large is still a valid JSON label, kept as text.
	if res.Forecasts != 2 || res.Unresolved != 2 || res.BadCount != len(want) {
		t.Errorf("result %+v: want 2 forecasts, 2 unresolved, %d bad", res, len(want))
	}
}

func TestReadJSONLStrictStopsAtTheFirstBadLine(t *testing.T) {
	input := "{\"agent\": \"a\", \"confidence\": 0.5, \"outcome\": 1}\n{\"agent\": \"a\", \"confidence\": -1, \"outcome\": 1}\n{oops\n"
	_, _, err := readAll(t, input, JSONLOptions{Strict: true})
	var le *LineError
	if !errors.As(err, &le) || !errors.Is(err, ErrBadLine) {
		t.Fatalf("err = %v, want a *LineError", err)
	}
	if le.Line != 2 || le.Field != "confidence" {
		t.Errorf("line error %+v, want line 2 field confidence", le.BadLine)
	}
}

func TestReadJSONLCapsTheListButCountsEveryBadLine(t *testing.T) {
	input := strings.Repeat("nope\n", 10)
	_, res, err := readAll(t, input, JSONLOptions{MaxListed: 3})
	if err != nil {
		t.Fatal(err)
	}
	if res.BadCount != 10 || len(res.Bad) != 3 {
		t.Errorf("count %d listed %d, want 10 and 3", res.BadCount, len(res.Bad))
	}
}

func TestReadJSONLKeepsOnlyTheRequestedFields(t *testing.T) {
	fs, _, err := readAll(t, `{"agent": "a", "team": "t", "confidence": 0.5, "outcome": 1}`, JSONLOptions{Fields: []string{"team"}})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(map[string]string{"team": "t"}, fs[0].Fields); d != "" || fs[0].Agent != "a" {
		t.Errorf("fields (-want +got):\n%s agent %q", d, fs[0].Agent)
	}
}

func TestReadJSONLDecodesEscapesAndTakesTheLastDuplicateKey(t *testing.T) {
	fs, _, err := readAll(t, `{"ag\u0065nt": "a\"b\\", "confidence": 0.1, "confidence": 0.9, "outcome": 1}`, JSONLOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(fs) != 1 || fs[0].Agent != `a"b\` || fs[0].Confidence != 0.9 {
		t.Errorf("got %+v", fs)
	}
}

// FuzzParseForecastLine checks the fast scanner against encoding/json:
// a line encoding/json cannot decode as an object is bad, and for one it
// can, the scanner agrees on the scalar fields and the forecast values.
func FuzzParseForecastLine(f *testing.F) {
	for _, s := range []string{
		`{"id": "f1", "agent": "alpha", "confidence": 0.7, "outcome": 1, "at": "2026-11-01T12:00:00Z"}`,
		`{"id": "f2", "agent": "alpha", "probs": [0.2, 0.3, 0.5], "outcome": "up"}`,
		`{"a\u00e9": "x\ny", "confidence": 1e-1, "outcome": true, "n": {"x": [1, {"y": "]"}]}}`,
		`{"confidence": 0.5, "outcome": 1, "outcome": 0}`,
		`[]`, `{`, `{"confidence": -0, "outcome": 0}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		fc, resolved, err := ParseForecastLine([]byte(line))
		var obj map[string]any
		jerr := json.Unmarshal([]byte(line), &obj)
		if jerr != nil || obj == nil {
			if err == nil {
				t.Fatalf("encoding/json rejects %q (%v) but the scanner accepted it", line, jerr)
			}
			return
		}
		if err != nil {
			return // valid JSON, but not a valid forecast
		}
		for k, v := range obj {
			var want string
			switch v := v.(type) {
			case string:
				want = v
			case bool:
				want = fmt.Sprint(v)
			case float64:
				if got, ok := fc.Fields[k]; !ok {
					t.Fatalf("field %q missing", k)
				} else if x, _ := json.Number(got).Float64(); x != v {
					t.Fatalf("field %q = %q, encoding/json %v", k, got, v)
				}
				continue
			default:
				if _, ok := fc.Fields[k]; ok {
					t.Fatalf("non-scalar field %q kept", k)
				}
				continue
			}
			if fc.Fields[k] != want {
				t.Fatalf("field %q = %q, encoding/json %q", k, fc.Fields[k], want)
			}
		}
		if fc.Kind == Binary {
			if c, ok := obj["confidence"].(float64); !ok || c != fc.Confidence || math.IsNaN(fc.Confidence) {
				t.Fatalf("confidence %v, encoding/json %v", fc.Confidence, obj["confidence"])
			}
		} else if d := cmp.Diff(obj["probs"], anySlice(fc.Probs), cmpopts.EquateEmpty()); d != "" {
			t.Fatalf("probs differ: %s", d)
		}
		if _, has := obj["outcome"]; resolved && !has {
			t.Fatalf("resolved without an outcome")
		}
	})
}

func anySlice(xs []float64) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		out[i] = x
	}
	return out
}
