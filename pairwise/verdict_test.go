package pairwise

import (
	"context"
	"strings"
	"testing"
)

// TestReadJSONLBadLines: each bad line is named by file, line and field,
// and the rest is read.
func TestReadJSONLBadLines(t *testing.T) {
	in := strings.Join([]string{
		`{"pair_id":"p1","run_a":"x","run_b":"y","winner":"a","order":"ab"}`,
		`not json`,
		`{"pair_id":"p2","run_a":"x","run_b":"y","winner":"a","order":"up"}`,
		``,
		`{"pair_id":"p3","run_a":"x","run_b":"x","winner":"b","order":"ba"}`,
		`{"run_a":"x","run_b":"y","winner":"b","order":"ba"}`,
		`{"pair_id":"p4","run_a":"x","run_b":"y","winner":7,"order":"ba"}`,
		`{"pair_id":"p5","run_a":"x","run_b":"y","winner":"tie","order":"ba","judge":"j"}`,
		strings.Repeat("x", 100),
	}, "\n")
	vs, bad, err := ReadJSONL(context.Background(), strings.NewReader(in), "v.jsonl", Limits{Line: 90, File: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != 2 || vs[0].PairID != "p1" || vs[1].Judge != "j" || vs[1].Winner != WinnerTie {
		t.Errorf("verdicts %+v", vs)
	}
	want := []struct {
		line  int
		field string
	}{{2, ""}, {3, "order"}, {5, "run_b"}, {6, "pair_id"}, {7, "winner"}, {9, ""}}
	if len(bad) != len(want) {
		t.Fatalf("bad lines %+v, want %d", bad, len(want))
	}
	for i, w := range want {
		if bad[i].File != "v.jsonl" || bad[i].Line != w.line || bad[i].Field != w.field || bad[i].Error == "" {
			t.Errorf("bad line %d = %+v, want line %d field %q", i, bad[i], w.line, w.field)
		}
	}
	if _, _, err := ReadJSONL(context.Background(), strings.NewReader(in), "v.jsonl", Limits{Line: 90, File: 50}); err == nil {
		t.Error("a file over the limit was read")
	}
}

// TestReadAlpacaEval reads both presentation orders of one instruction,
// a tie, a weighted preference and bad elements named by their line.
func TestReadAlpacaEval(t *testing.T) {
	in := `[
  {"instruction": "Say hi", "output_1": "hi", "output_2": "hello", "generator_1": "gpt4", "generator_2": "alpaca", "annotator": "judge", "preference": 2},
  {"instruction": "Say hi", "output_1": "hello", "output_2": "hi", "generator_1": "alpaca", "generator_2": "gpt4", "annotator": "judge", "preference": 1},
  {"instruction": "Add", "generator_1": "gpt4", "generator_2": "alpaca", "annotator": "judge", "preference": 1.5},
  {"instruction": "Sub", "generator_1": "gpt4", "generator_2": "alpaca", "preference": 1.9},
  {"instruction": "Mul", "generator_1": "gpt4", "generator_2": "alpaca", "preference": 3},
  {"instruction": "Div", "generator_1": "gpt4", "preference": 1}
]`
	vs, bad, err := ReadAlpacaEval(context.Background(), strings.NewReader(in), "a.json", DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != 4 {
		t.Fatalf("verdicts %+v", vs)
	}
	// generator alpaca < gpt4: run_a is alpaca's; the first element shows
	// gpt4 first (order ba) and prefers output_2 = alpaca = a.
	first, second := vs[0], vs[1]
	if first.PairID != second.PairID || first.Order != OrderBA || second.Order != OrderAB ||
		first.Winner != WinnerA || second.Winner != WinnerA || !strings.HasPrefix(first.RunA, "alpaca/") {
		t.Errorf("both orders: %+v %+v", first, second)
	}
	if vs[2].Winner != WinnerTie || vs[3].Winner != WinnerA || vs[3].Judge != "" {
		t.Errorf("tie and weighted: %+v %+v", vs[2], vs[3])
	}
	if len(bad) != 2 || bad[0].Line != 6 || bad[0].Field != "preference" || bad[1].Line != 7 || bad[1].Field != "generator_2" {
		t.Errorf("bad %+v, want lines 6 (preference) and 7 (generator_2)", bad)
	}
	if _, _, err := ReadAlpacaEval(context.Background(), strings.NewReader(`{"a":1}`), "x", DefaultLimits); err == nil {
		t.Error("an object was read as annotations")
	}
}

// FuzzReadJSONL: no input makes the readers panic, and every verdict read
// is valid.
func FuzzReadJSONL(f *testing.F) {
	f.Add([]byte(`{"pair_id":"p1","run_a":"x","run_b":"y","winner":"a","order":"ab"}` + "\n{}\n"))
	f.Add([]byte(`[{"instruction":"i","generator_1":"a","generator_2":"b","preference":1}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		lim := Limits{Line: 1 << 10, File: 1 << 16}
		vs, _, _ := ReadJSONL(context.Background(), strings.NewReader(string(data)), "f", lim)
		for _, v := range vs {
			if err := check(v); err != nil {
				t.Errorf("invalid verdict read: %+v: %v", v, err)
			}
		}
		vs, _, _ = ReadAlpacaEval(context.Background(), strings.NewReader(string(data)), "f", lim)
		for _, v := range vs {
			if err := check(v); err != nil {
				t.Errorf("invalid AlpacaEval verdict: %+v: %v", v, err)
			}
		}
		_ = Analyse(vs, Deep{})
	})
}
