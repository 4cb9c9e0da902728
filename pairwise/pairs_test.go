package pairwise

import (
	"context"
	"strings"
	"testing"
)

// TestReadPairsRecordsBadLinesAndGoesOn: each malformed line is recorded
// with its line and field; the good ones are read, pair_id defaulting to
// "RUN_A|RUN_B".
func TestReadPairsRecordsBadLinesAndGoesOn(t *testing.T) {
	in := strings.Join([]string{
		`{"pair_id": "p1", "run_a": "r1", "run_b": "r2"}`,
		`{"run_a": "r1", "run_b": "r3"}`,
		``,
		`{"pair_id": "p1", "run_a": "r2", "run_b": "r3"}`,
		`{"run_a": "r1"}`,
		`{"run_a": "r1", "run_b": "r1"}`,
		`{"run_a": 7, "run_b": "r2"}`,
		`not json`,
		`{"pair_id": "p4", "run_a": "r3", "run_b": "r4"}`,
	}, "\n")
	pairs, bad, err := ReadPairs(context.Background(), strings.NewReader(in), "pairs.jsonl", DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	want := []Pair{{"p1", "r1", "r2", 1}, {"r1|r3", "r1", "r3", 2}, {"p4", "r3", "r4", 9}}
	if len(pairs) != len(want) {
		t.Fatalf("pairs %+v", pairs)
	}
	for i := range want {
		if pairs[i] != want[i] {
			t.Errorf("pair %d: %+v, want %+v", i, pairs[i], want[i])
		}
	}
	wantBad := []struct {
		line  int
		field string
	}{{4, "pair_id"}, {5, "run_b"}, {6, "run_b"}, {7, "run_a"}, {8, ""}}
	if len(bad) != len(wantBad) {
		t.Fatalf("bad lines %+v", bad)
	}
	for i, w := range wantBad {
		if bad[i].Line != w.line || bad[i].Field != w.field || bad[i].File != "pairs.jsonl" || bad[i].Error == "" {
			t.Errorf("bad line %d: %+v, want line %d field %q", i, bad[i], w.line, w.field)
		}
	}
}

// FuzzReadPairs: no input panics, and every pair read names two runs.
func FuzzReadPairs(f *testing.F) {
	f.Add(`{"pair_id": "p", "run_a": "a", "run_b": "b"}` + "\n" + `{"run_a": "a"}`)
	f.Add("\xff\n{}")
	f.Fuzz(func(t *testing.T, in string) {
		pairs, _, err := ReadPairs(context.Background(), strings.NewReader(in), "f", Limits{Line: 1 << 10, File: 1 << 16})
		if err != nil {
			return
		}
		for _, p := range pairs {
			if p.RunA == "" || p.RunB == "" || p.RunA == p.RunB || p.ID == "" {
				t.Fatalf("pair %+v", p)
			}
		}
	})
}
