package saved_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/evalcal/evalcal/inspection"
	"github.com/evalcal/evalcal/programs/saved"
)

// A run's metadata is the union of its lines'; a nested value, a metadata
// that is no object and a field its lines disagree on are warnings on the
// run naming the file, the line and the field, and the run keeps its
// inspections.
func TestLoadReadsRunMetadata(t *testing.T) {
	lightMD := `{"run_id":"r1","system":"alpha","depth":"light","runtime_fidelity":80,"task_effectiveness":70,"verdict":"pass",` +
		`"metadata":{"task":"t7","n":3,"deep":{"x":1}}}`
	deepMD := `{"run_id":"r1","system":"alpha","depth":"deep","runtime_fidelity":50,"task_effectiveness":30,"verdict":"fail",` +
		`"metadata":{"task":"t8","family":"claude","ok":true}}`
	bad := `{"run_id":"r0","system":"beta","depth":"light","runtime_fidelity":80,"task_effectiveness":70,"verdict":"pass","metadata":"x"}`
	path := writeFile(t, lightMD, deepMD, bad, deep0)
	in, runs, err := saved.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(inspection.Metadata{"task": "t7", "n": "3", "family": "claude", "ok": "true"}, runs[1].Metadata); d != "" {
		t.Errorf("r1 metadata (-want +got):\n%s", d)
	}
	want := []string{
		path + ":1: metadata.deep is an object; metadata values are strings, numbers or booleans: skipped",
		path + `:2: metadata.task: "t7" and "t8": an earlier line of the run gave the first value, which is kept`,
	}
	if d := cmp.Diff(want, runs[1].Warnings); d != "" {
		t.Errorf("r1 warnings (-want +got):\n%s", d)
	}
	if runs[0].Metadata != nil || len(runs[0].Warnings) != 1 || !strings.HasPrefix(runs[0].Warnings[0], path+":3: metadata is not an object") {
		t.Errorf("r0: %v %q", runs[0].Metadata, runs[0].Warnings)
	}
	for _, r := range runs {
		for _, d := range []inspection.Depth{inspection.Light, inspection.Deep} {
			if _, err := in.Inspect(t.Context(), r, d); err != nil {
				t.Errorf("%s %s: %v", r.ID, d, err)
			}
		}
	}
}

// A shard decodes a line that carries metadata even for another shard's
// run, so that every shard sees the same runs with the same metadata.
func TestLoadShardReadsMetadataOfOtherShards(t *testing.T) {
	line := `{"run_id":"r1","system":"alpha","depth":"light","runtime_fidelity":80,"task_effectiveness":70,"verdict":"pass","metadata":{"task":"t7"}}`
	_, runs, err := saved.LoadShard(t.Context(), writeFile(t, line, deep1), func(string) bool { return false })
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 1 || runs[0].Metadata["task"] != "t7" {
		t.Errorf("runs %+v", runs)
	}
}
