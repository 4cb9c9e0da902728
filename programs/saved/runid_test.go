package saved

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/evalcal/evalcal/inspection"
)

// decodedRunID is what encoding/json reads as a line's run_id, the
// reference lineRunID must agree with.
func decodedRunID(line []byte) (string, bool) {
	var v struct {
		RunID *string `json:"run_id"`
	}
	if json.Unmarshal(line, &v) != nil || v.RunID == nil {
		return "", false
	}
	return *v.RunID, true
}

func TestLineRunID(t *testing.T) {
	for _, c := range []struct {
		line string
		id   string // "" when lineRunID must give up
	}{
		{`{"run_id":"r1","depth":"light","verdict":"pass"}`, "r1"},
		{`{ "run_id" : "r1", "depth": "light"}`, "r1"},
		{`{"depth":"light","run_id":"r2","verdict":"pass"}`, "r2"},
		{`{"depth":"light","metadata":{"run_id":"inner"},"run_id":"outer"}`, "outer"},
		{`{"metadata":{"run_id":"inner"},"depth":"light"}`, ""},             // no top-level run_id
		{`{"run_id":"a","depth":"light","RUN_ID":"b"}`, ""},                 // the decoder keeps the last
		{`{"run_id":"a","depth":"light","run\u005fid":"b"}`, ""},            // an escaped key
		{"{\"run_id\":\"a\",\"Run_Id\":\"b\"}", ""},                         // case folded
		{`{"run_id":"a\"b","depth":"light"}`, ""},                           // an escaped id
		{`{"run_id":"","depth":"light"}`, ""},                               // empty
		{`{"run_id":7,"depth":"light"}`, ""},                                // not a string
		{`{"summary":"says \"run_id\":\"x\"","run_id":"real"}`, "real"},     // a key's text inside a value
		{`{"flags":[{"run_id":"f"}],"run_id":"top","depth":"deep"}`, "top"}, // nested in an array
		{`["run_id","x"]`, ""},
		{`{"run_id":"a","summary":"ünïcode_text"}`, "a"},
	} {
		id, ok := lineRunID([]byte(c.line))
		if got := string(id); ok != (c.id != "") || got != c.id {
			t.Errorf("%s: got %q, %v; want %q", c.line, got, ok, c.id)
		}
		if want, wok := decodedRunID([]byte(c.line)); ok && (!wok || want != string(id)) {
			t.Errorf("%s: read %q but encoding/json reads %q (%v)", c.line, id, want, wok)
		}
	}
}

// FuzzLineRunID: whenever lineRunID reads an id from a valid JSON line,
// it is the run_id encoding/json decodes.
func FuzzLineRunID(f *testing.F) {
	for _, s := range []string{
		`{"run_id":"r1","depth":"light"}`, `{"depth":"light","run_id":"r2"}`,
		`{"run_id":"a","RUN_ID":"b"}`, `{"metadata":{"run_id":"i"},"run_id":"o"}`,
		"{\"run_id\":\"a\",\"r\u017fn_id\":\"b\"}", `{"run_id":"a","x":"\u0072un_id"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		id, ok := lineRunID(line)
		if !ok || !json.Valid(line) {
			return
		}
		if want, wok := decodedRunID(line); !wok || want != string(id) {
			t.Errorf("%q: read %q but encoding/json reads %q (%v)", line, id, want, wok)
		}
	})
}

// LoadMembers over every shard gives, together, what LoadContext gives:
// the same runs, inspections, failures and coverage, each run in exactly
// one shard, and the lines naming no run in every shard.
func TestLoadMembersPartitionsLoadContext(t *testing.T) {
	var b []byte
	for i := range 40 {
		id := fmt.Sprintf("run-%02d", i)
		sys := []string{"alpha", "beta", "gamma"}[i%3]
		light := fmt.Sprintf(`{"run_id":%q,"system":%q,"depth":"light","runtime_fidelity":%d,"task_effectiveness":60,"verdict":"pass"}`, id, sys, i)
		deep := fmt.Sprintf(`{"depth":"deep","run_id":%q,"system":%q,"runtime_fidelity":50,"task_effectiveness":%d,"verdict":"fail","metadata":{"task":"t%d"}}`, id, sys, i, i%4)
		switch i % 10 {
		case 3:
			deep = fmt.Sprintf(`{"run_id":%q,"depth":"deep","verdict":"maybe"}`, id) // rejected, attributed
		case 5:
			light, deep = deep, light // deep line first
		case 7:
			deep = ""
		}
		b = append(b, light+"\n"+deep+"\n"...)
	}
	b = append(b, "{\"depth\":\"light\"}\nnot json\n"...)
	path := filepath.Join(t.TempDir(), "saved.jsonl")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	whole, wholeRuns, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	const n = 4
	var union []inspection.Run
	for s := range n {
		member := func(id string) bool { return int(id[len(id)-1]-'0')%n == s }
		in, runs, err := LoadMembers(context.Background(), path, member)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(in.Unattributed(), whole.Unattributed()) || len(in.Unattributed()) != 2 {
			t.Errorf("shard %d: unattributed %q, want %q", s, in.Unattributed(), whole.Unattributed())
		}
		for _, r := range runs {
			if !member(r.ID) {
				t.Errorf("shard %d holds run %s of another shard", s, r.ID)
			}
			for _, d := range []inspection.Depth{inspection.Light, inspection.Deep} {
				got, gerr := in.Inspect(context.Background(), r, d)
				want, werr := whole.Inspect(context.Background(), r, d)
				if fmt.Sprint(gerr) != fmt.Sprint(werr) || !reflect.DeepEqual(got, want) || in.Covers(r.ID, d) != whole.Covers(r.ID, d) {
					t.Errorf("shard %d: Inspect(%s, %s) = %+v, %v; want %+v, %v", s, r.ID, d, got, gerr, want, werr)
				}
			}
		}
		union = append(union, runs...)
	}
	slices.SortFunc(union, func(a, b inspection.Run) int { return cmpString(a.ID, b.ID) })
	if !reflect.DeepEqual(union, wholeRuns) {
		t.Errorf("the shards' runs together:\n %+v\nwant\n %+v", union, wholeRuns)
	}
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Release lets the inspections go: Inspect then fails as for a run the
// file does not hold; coverage and the fingerprint stay.
func TestReleaseLetsTheInspectionsGo(t *testing.T) {
	path := filepath.Join(t.TempDir(), "saved.jsonl")
	line := `{"run_id":"r1","system":"alpha","depth":"light","runtime_fidelity":80,"task_effectiveness":70,"verdict":"pass"}`
	if err := os.WriteFile(path, []byte(line+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	in, runs, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := in.Inspect(context.Background(), runs[0], inspection.Light); err != nil {
		t.Fatal(err)
	}
	fp := in.Fingerprint()
	in.Release()
	if _, err := in.Inspect(context.Background(), runs[0], inspection.Light); !errors.Is(err, ErrNotSaved) {
		t.Errorf("after Release: %v, want ErrNotSaved", err)
	}
	if !in.Covers("r1", inspection.Light) || in.Fingerprint() != fp {
		t.Error("Release changed the coverage or the fingerprint")
	}
}
