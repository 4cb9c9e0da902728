package importers

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/evalcal/evalcal/inspection"
	"github.com/evalcal/evalcal/programs/spec"
	"github.com/google/go-cmp/cmp"
)

// countingKind is InspectKind with its reads counted.
func countingKind(reads *int) spec.Kind {
	return sourceKind(inspectDialect, "inspect:LOG", func(ctx context.Context, path string, lim limits) (parsedFile, error) {
		*reads++
		return readInspect(ctx, path, lim)
	})
}

// openKind opens arg with k and inspects every run it brings.
func openKind(t *testing.T, k spec.Kind, arg string) ([]inspection.Run, map[string]inspection.Inspection) {
	t.Helper()
	got, err := k.Open(context.Background(), arg, spec.Env{})
	if err != nil {
		t.Fatalf("open %s: %v", arg, err)
	}
	return got.Runs, inspectAll(t, got.Inspector.(*Source), got.Runs)
}

// The light and deep scorers of one log read the file once, and each
// maps as a load of its own would.
func TestKindReadsALogOnceForTwoScorers(t *testing.T) {
	path := writeFile(t, "log.json", logJSON("t", 1,
		sample("1", 1, `{"a": {"value": "C"}, "b": {"value": 0.2}}`),
		sample("2", 1, `{"a": {"value": "I"}, "b": {"value": "P"}}`),
		`    {"id": 3, "epoch": 1, "scores": {"a": {"value": "C"}}, "error": {"message": "boom"}, "metadata": {"k": {"x": 1}, "n": 2}}`,
		`    {"id": 4, "epoch": 1, "scores": {"b": {"value": "C"}}, "limit": {"type": "token", "limit": 10}}`,
		`    {"id": 5, "epoch": "x", "scores": {"a": {"value": "C"}}}`,
		`    {"id": 6, "epoch": 1, "scores": {"a": {"value": "C"}}, "invalidation": {"reason": "r"}}`,
		sample("2", 1, `{"a": {"value": "C"}, "b": {"value": "C"}}`),
		`    {"id": 7, "epoch": 1, "scores": 3}`))
	reads := 0
	k := countingKind(&reads)
	// The runs, built with the first scorer's mapping, are each scorer's.
	for _, scorer := range []string{"a", "b", "a?P=0"} {
		runs, insps := openKind(t, k, path+"#"+scorer)
		path, sel := SplitSpec(path + "#" + scorer)
		sel, opts, err := ParseSelector(inspectDialect, sel)
		if err != nil {
			t.Fatal(err)
		}
		src, wantRuns, err := LoadInspectWith(context.Background(), path, sel, opts)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(wantRuns, runs); d != "" {
			t.Errorf("#%s: runs (-load +kind):\n%s", scorer, d)
		}
		if d := cmp.Diff(inspectAll(t, src, wantRuns), insps); d != "" {
			t.Errorf("#%s: inspections (-load +kind):\n%s", scorer, d)
		}
	}
	if reads != 1 {
		t.Errorf("the log was read %d times for three specs, want once", reads)
	}
}

// A changed file, or another one, is read again; a failed read is not kept.
func TestKindRereadsAChangedLog(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "log.json")
	write := func(content string, mtime time.Time) {
		t.Helper()
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(path, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	t0 := time.Date(2026, 12, 2, 8, 0, 0, 0, time.UTC)
	write(logJSON("t", 1, sample("1", 1, `{"a": {"value": "C"}}`)), t0)
	reads := 0
	k := countingKind(&reads)
	if _, insps := openKind(t, k, path+"#a"); insps["1"].Verdict != inspection.VerdictPass {
		t.Fatalf("first read: %+v", insps)
	}
	// The same size, another modification time.
	write(logJSON("t", 1, sample("1", 1, `{"a": {"value": "I"}}`)), t0.Add(time.Second))
	if _, insps := openKind(t, k, path+"#a"); insps["1"].Verdict != inspection.VerdictFail || reads != 2 {
		t.Errorf("after a change: %d reads, %+v", reads, insps)
	}
	// The same modification time, another size.
	write(logJSON("t", 1, sample("1", 1, `{"a": {"value": 0.55}}`)), t0.Add(time.Second))
	if _, insps := openKind(t, k, path+"#a"); insps["1"].Verdict != inspection.VerdictPartial || reads != 3 {
		t.Errorf("after a change of size: %d reads, %+v", reads, insps)
	}
	other := writeFile(t, "other.json", logJSON("t", 1, sample("2", 1, `{"a": {"value": "C"}}`)))
	if runs, _ := openKind(t, k, other+"#a"); len(runs) != 1 || runs[0].ID != "2" || reads != 4 {
		t.Errorf("another file: %d reads, %+v", reads, runs)
	}
	bad := writeFile(t, "bad.json", `{"samples": [`)
	for range 2 {
		if _, err := k.Open(context.Background(), bad+"#a", spec.Env{}); err == nil {
			t.Fatal("a truncated log opened")
		}
	}
	if reads != 6 {
		t.Errorf("a failed read kept: %d reads, want 6", reads)
	}
}

// PromptfooKind reads a file once for two assertions too.
func TestPromptfooKindReadsOnce(t *testing.T) {
	reads := 0
	k := sourceKind(promptfooDialect, "promptfoo:FILE", func(ctx context.Context, path string, lim limits) (parsedFile, error) {
		reads++
		return readPromptfoo(ctx, path, lim)
	})
	for _, a := range []string{"contains", "style"} {
		_, insps := openKind(t, k, filepath.Join("testdata", "promptfoo", "echo", "out.jsonl")+"#"+a)
		if len(insps) == 0 {
			t.Fatalf("#%s: no inspection", a)
		}
	}
	if reads != 1 {
		t.Errorf("read %d times, want once", reads)
	}
}
