package saved_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/evalcal/evalcal/inspection"
	"github.com/evalcal/evalcal/programs/saved"
)

// inspectAll returns every run's inspections at both depths, an error as
// its text.
func inspectAll(t *testing.T, in *saved.Inspector, runs []inspection.Run, path string) []any {
	t.Helper()
	var out []any
	for _, r := range runs {
		for _, d := range []inspection.Depth{inspection.Light, inspection.Deep} {
			insp, err := in.Inspect(context.Background(), r, d)
			if err != nil {
				out = append(out, strings.ReplaceAll(err.Error(), path, "FILE"))
				continue
			}
			out = append(out, insp)
		}
	}
	return out
}

// A regular file's inspections are read again on Inspect (lineref.go;
// from RereadBytes, here at any size); a pipe's are kept decoded. Both
// serve the same inspections, runs and errors, on a file with a
// byte-order mark, CRLF endings, padding, blank lines, a duplicate, a bad
// line and a run with one depth.
func TestRegularFileServesAsAPipe(t *testing.T) {
	text := "\uFEFF" + strings.Join([]string{
		"  " + deep1 + "  ", "", light0 + "\r", light1, deep0,
		`{"run_id":"r2","depth":"light","verdict":"pass","runtime_fidelity":1,"task_effectiveness":2,"summary":"é \u00e9","metadata":{"k":"v"}}`,
		`{"run_id":"r3","depth":"light","verdict":"maybe"}`,
		`{"run_id":"r4","depth":"deep","verdict":"pass","runtime_fidelity":1,"task_effectiveness":2}`,
		`{"run_id":"r4","depth":"deep","verdict":"fail","runtime_fidelity":1,"task_effectiveness":2}`,
		`{"run_id":"r5","depth":"deep","verdict":"pass","runtime_fidelity":3,"task_effectiveness":4}`,
		`{"run_id":"r5","depth":"light","verdict":"pass","runtime_fidelity":3,"task_effectiveness":4}`,
	}, "\n")
	dir := t.TempDir()
	path := filepath.Join(dir, "inspections.jsonl")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	fileIn, fileRuns, err := saved.LoadRereading(path)
	if err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	go func() {
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		_, _ = w.WriteString(text)
		w.Close()
	}()
	pipeIn, pipeRuns, err := saved.Load(fifo)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(pipeRuns, fileRuns); d != "" {
		t.Errorf("runs (-pipe +file):\n%s", d)
	}
	pipeGot, fileGot := inspectAll(t, pipeIn, pipeRuns, fifo), inspectAll(t, fileIn, fileRuns, path)
	if d := cmp.Diff(pipeGot, fileGot); d != "" {
		t.Errorf("inspections (-pipe +file):\n%s", d)
	}
	served := 0
	for _, v := range fileGot {
		if insp, ok := v.(inspection.Inspection); ok {
			served++
			if insp.RunID == "r2" && insp.Summary != "é é" {
				t.Errorf("r2's light summary %q, want %q", insp.Summary, "é é")
			}
		}
	}
	if served != 7 { // r0, r1 and r5 twice, r2 light (r3 bad, r4 a duplicate)
		t.Errorf("%d inspections served, want 7:\n%v", served, fileGot)
	}
}

// A line changed after Load fails that inspection, naming the file and
// the line, and no other; Release closes the file, and Inspect then fails
// as for a run the file does not hold.
func TestLineChangedAfterLoad(t *testing.T) {
	path := writeFile(t, light1, deep1, light0, deep0)
	in, runs, err := saved.LoadRereading(path)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	changed := strings.Replace(string(b), `"runtime_fidelity":50`, `"runtime_fidelity":51`, 1) // r1's deep line, line 2
	if err := os.WriteFile(path, []byte(changed), 0o644); err != nil {
		t.Fatal(err)
	}
	byID := map[string]inspection.Run{}
	for _, r := range runs {
		byID[r.ID] = r
	}
	_, err = in.Inspect(context.Background(), byID["r1"], inspection.Deep)
	if err == nil || !strings.Contains(err.Error(), path+":2: the line changed") || !inspection.IsPermanent(err) {
		t.Fatalf("changed line: err %v, want a permanent error naming %s:2", err, path)
	}
	if got, err := in.Inspect(context.Background(), byID["r1"], inspection.Light); err != nil || got.RuntimeFidelity != 80 {
		t.Fatalf("unchanged line: %+v, %v", got, err)
	}
	in.Release()
	if _, err := in.Inspect(context.Background(), byID["r0"], inspection.Light); !errors.Is(err, saved.ErrNotSaved) {
		t.Fatalf("after Release: err %v, want ErrNotSaved", err)
	}
}

// A file under RereadBytes is kept decoded: a line changed after Load
// changes nothing.
func TestSmallFileIsKeptDecoded(t *testing.T) {
	path := writeFile(t, light1, deep1)
	in, runs, err := saved.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(strings.Replace(light1, `"runtime_fidelity":80`, `"runtime_fidelity":81`, 1)+"\n"+deep1), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := in.Inspect(context.Background(), runs[0], inspection.Light); err != nil || got.RuntimeFidelity != 80 {
		t.Fatalf("light r1: %+v, %v; want the inspection as loaded", got, err)
	}
}
