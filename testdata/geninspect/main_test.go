package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/evalcal/evalcal/inspection"
	"github.com/evalcal/evalcal/programs/importers"
	"github.com/evalcal/evalcal/testdata/gencmd"
)

// The log is the same for the same seed, another for another, and reads
// as an inspect_ai log with both scorers on every sample.
func TestWriteIsALogOfBothScorers(t *testing.T) {
	const n = 300
	a := bytes.NewBuffer(gencmd.Deterministic(t, write, n))
	if per := a.Len() / n; per < 900 || per > 1070 {
		t.Errorf("%d bytes a sample: a million would not be 0.9-1.07 GB", per)
	}
	path := filepath.Join(t.TempDir(), "log.json")
	if err := os.WriteFile(path, a.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, scorer := range []string{"scorer_a", "scorer_b"} {
		src, runs, err := importers.LoadInspect(context.Background(), path, scorer)
		if err != nil {
			t.Fatal(err)
		}
		if len(runs) != n || len(src.Unattributed()) != 0 {
			t.Fatalf("%s: %d runs, unattributed %q", scorer, len(runs), src.Unattributed())
		}
		verdicts := map[string]int{}
		for _, r := range runs {
			insp, err := src.Inspect(context.Background(), r, inspection.Deep)
			if err != nil {
				t.Fatalf("%s: run %s: %v", scorer, r.ID, err)
			}
			verdicts[insp.Verdict]++
		}
		if verdicts[inspection.VerdictPass] == 0 || verdicts[inspection.VerdictFail] == 0 {
			t.Errorf("%s: verdicts %v", scorer, verdicts)
		}
	}
}
