package saved

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/evalcal/evalcal/inspection"
)

// A shard's load (LoadShard) lists the same runs, systems, content
// hashes, fingerprint and coverage as the whole file's, bad lines
// included, decodes its own runs' lines as LoadContext does, and only
// skims the others': another shard's invalid line is not checked here.
func TestLoadShardMatchesLoadContext(t *testing.T) {
	lines := `{"run_id":"a","system":"s1","depth":"light","runtime_fidelity":80,"task_effectiveness":70,"verdict":"pass"}
{"run_id":"a","system":"s1","depth":"deep","runtime_fidelity":50,"task_effectiveness":30,"verdict":"fail"}
{"run_id":"b","program":"s2","depth":"light","runtime_fidelity":60,"task_effectiveness":60,"verdict":"maybe"}
{"run_id":"b","system":"s2","depth":"deep","runtime_fidelity":60,"task_effectiveness":60,"verdict":"pass"}
{"run_id":"c","system":"s3","depth":"light","runtime_fidelity":60,"task_effectiveness":60,"verdict":"maybe"}
{"run_id":"c","system":"s3","depth":"deep","runtime_fidelity":60,"task_effectiveness":60,"verdict":"maybe"}
{"run_id":"d","system":"s1","depth":"light","runtime_fidelity":60,"task_effectiveness":60,"verdict":"pass"}
{"run_id":"d","system":"s4","depth":"deep","runtime_fidelity":60,"task_effectiveness":60,"verdict":"pass"}
{"run_id":"d","system":"s1","depth":"deep","runtime_fidelity":60,"task_effectiveness":60,"verdict":"pass"}
{"run_id": "e", "system": "s2", "depth": "light", "runtime_fidelity": 1, "task_effectiveness": 1, "verdict": "pass"}
{"run_id":"f","system":"s\"q","depth":"light","runtime_fidelity":1,"task_effectiveness":1,"verdict":"pass"}
{"run_id":"g","system":"s1","depth":"deep","runtime_fidelity":1,"task_effectiveness":1,"verdict":"pass","inclusion_probability":0.5}
{"depth":"light"}
`
	path := filepath.Join(t.TempDir(), "saved.jsonl")
	if err := os.WriteFile(path, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	whole, wholeRuns, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	ids := []string{"a", "b", "c", "d", "e", "f", "g"}
	for _, mine := range [][]string{{}, {"a"}, {"b", "c"}, {"d", "e", "f", "g"}, ids} {
		in, runs, err := LoadShard(context.Background(), path, func(id string) bool { return slices.Contains(mine, id) })
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(runs, wholeRuns) {
			t.Errorf("shard %v: runs\n %+v\nwant\n %+v", mine, runs, wholeRuns)
		}
		if in.Fingerprint() != whole.Fingerprint() || !slices.Equal(in.Unattributed(), whole.Unattributed()) {
			t.Errorf("shard %v: fingerprint or unattributed lines differ", mine)
		}
		for _, id := range ids {
			for _, d := range []inspection.Depth{inspection.Light, inspection.Deep} {
				if in.Covers(id, d) != whole.Covers(id, d) {
					t.Errorf("shard %v: Covers(%s, %s) = %v, want %v", mine, id, d, in.Covers(id, d), whole.Covers(id, d))
				}
				p, ok := in.InclusionProbability(id)
				if wp, wok := whole.InclusionProbability(id); p != wp || ok != wok {
					t.Errorf("shard %v: InclusionProbability(%s) = %v %v, want %v %v", mine, id, p, ok, wp, wok)
				}
				run := wholeRuns[slices.IndexFunc(wholeRuns, func(r inspection.Run) bool { return r.ID == id })]
				got, gerr := in.Inspect(context.Background(), run, d)
				want, werr := whole.Inspect(context.Background(), run, d)
				switch {
				case slices.Contains(mine, id):
					if (gerr == nil) != (werr == nil) || gerr != nil && gerr.Error() != werr.Error() || gerr == nil && got.Verdict != want.Verdict {
						t.Errorf("shard %v: Inspect(%s, %s) = %v, %v; want %v, %v", mine, id, d, got.Verdict, gerr, want.Verdict, werr)
					}
				case id == "c" || id == "b" && d == inspection.Light:
					// Another shard's invalid line: skimmed, not checked.
					if !errors.Is(gerr, ErrNotSaved) {
						t.Errorf("shard %v: Inspect(%s, %s) of another shard's bad line: %v, want ErrNotSaved (the line is not decoded)", mine, id, d, gerr)
					}
				}
			}
		}
	}
	if got := wholeRuns[2].System; got != "s3" {
		t.Errorf("run c, both lines invalid: system %q, want s3 (what its first line names)", got)
	}
}

// inclusionProbability skips decoding a line only where encoding/json
// could not find the key: in any case, escaped or folded from non-ASCII,
// it is still read.
func TestInclusionProbabilityFastPathFindsEveryForm(t *testing.T) {
	for _, line := range []string{
		`{"run_id":"a","depth":"deep","inclusion_probability":0.5}`,
		`{"run_id":"a","depth":"deep","INCLUSION_Probability":0.5}`,
		`{"run_id":"a","depth":"deep","inclusion\u005fprobability":0.5}`,
		"{\"run_id\":\"a\",\"depth\":\"deep\",\"inclu\u017fion_probability\":0.5}",
	} {
		p, err := inclusionProbability([]byte(line))
		if err != nil || p == nil || *p != 0.5 {
			t.Errorf("%s: got %v, %v; want 0.5", line, p, err)
		}
	}
	if p, err := inclusionProbability([]byte(`{"run_id":"a","depth":"deep","inclusion":0.5}`)); p != nil || err != nil {
		t.Errorf("a line without the key: got %v, %v", p, err)
	}
}
