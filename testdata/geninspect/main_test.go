package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

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
		gencmd.CheckRuns(t, scorer, src, runs, n)
	}
}
