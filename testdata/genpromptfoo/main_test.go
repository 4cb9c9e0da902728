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

// The file is the same for the same seed, another for another, and reads
// as promptfoo's JSON Lines with both assertions on every result that
// did not fail with an error.
func TestWriteIsJSONLinesOfBothAssertions(t *testing.T) {
	const n = 400
	a := bytes.NewBuffer(gencmd.Deterministic(t, write, n))
	if lines := bytes.Count(a.Bytes(), []byte("\n")); lines != n {
		t.Fatalf("%d lines, want %d", lines, n)
	}
	if per := a.Len() / n; per < 900 || per > 1050 {
		t.Errorf("%d bytes a line: a million would not be 0.9-1.05 GB", per)
	}
	path := filepath.Join(t.TempDir(), "out.jsonl")
	if err := os.WriteFile(path, a.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, assertion := range []string{"contains", "llm-rubric", "quality"} {
		src, runs, err := importers.LoadPromptfoo(context.Background(), path, assertion)
		if err != nil {
			t.Fatal(err)
		}
		gencmd.CheckRuns(t, assertion, src, runs, n)
	}
}
