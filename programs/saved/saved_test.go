package saved_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/evalcal/evalcal/inspection"
	"github.com/evalcal/evalcal/programs/saved"
	"github.com/evalcal/evalcal/runner"
)

const (
	light1 = `{"run_id":"r1","system":"alpha","depth":"light","runtime_fidelity":80,"task_effectiveness":70,"verdict":"pass"}`
	deep1  = `{"run_id":"r1","program":"alpha","depth":"deep","runtime_fidelity":50,"task_effectiveness":30,"verdict":"fail","flags":[{"id":"x","severity":"critical"}]}`
	light0 = `{"run_id":"r0","program":"beta","depth":"light","runtime_fidelity":85,"task_effectiveness":80,"verdict":"pass"}`
	deep0  = `{"run_id":"r0","program":"beta","depth":"deep","runtime_fidelity":90,"task_effectiveness":88,"verdict":"pass"}`
)

func writeFile(t *testing.T, lines ...string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "inspections.jsonl")
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoadDescribesEachRunOnce(t *testing.T) {
	// Deep before light, padding spaces, a blank line and CRLF are fine.
	path := writeFile(t, "  "+deep1+"  ", "", light0+"\r", light1, deep0)
	in, runs, err := saved.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	// Content hashes from (likewise for r0):
	//   printf 'light\0%s\0deep\0%s' "$light1" "$deep1" | sha256sum
	want := []inspection.Run{
		{ID: "r0", Era: inspection.EraSaved, Status: inspection.StatusUnknown, System: "beta", Valid: true, SizeBytes: int64(len(light0) + len(deep0)),
			ContentHash: "9130c5a6fba9b8e463b0fc17b03b68acc4916e21eaa528bcfd2ab1b6eea4e593"},
		{ID: "r1", Era: inspection.EraSaved, Status: inspection.StatusUnknown, System: "alpha", Valid: true, SizeBytes: 111 + 154,
			ContentHash: "b1f7993dfe9ad680230ad2766e4e1597e0e9b95878558f695ad4e67b95b9cea4"},
	}
	if d := cmp.Diff(want, runs); d != "" {
		t.Errorf("runs (-want +got):\n%s", d)
	}
	got, err := in.Inspect(context.Background(), runs[1], inspection.Deep)
	if err != nil {
		t.Fatal(err)
	}
	wantDeep := inspection.Inspection{RunID: "r1", System: "alpha", Depth: inspection.Deep, RuntimeFidelity: 50,
		TaskEffectiveness: 30, Verdict: inspection.VerdictFail, Flags: []inspection.Flag{{ID: "x", Severity: inspection.SeverityCritical}}}
	if d := cmp.Diff(wantDeep, got); d != "" {
		t.Errorf("deep r1 (-want +got):\n%s", d)
	}
	if in.Identity() != saved.Identity {
		t.Errorf("Identity() = %q", in.Identity())
	}
}

func TestLoadHashesARunWithOneDepth(t *testing.T) {
	_, runs, err := saved.Load(writeFile(t, light1))
	if err != nil {
		t.Fatal(err)
	}
	// printf 'light\0%s\0deep\0' "$light1" | sha256sum
	if want := "07ab31adbd1f96b604fde8d3d72fe07106ce5ad5ba0da8ce84e2bc4ef6762821"; len(runs) != 1 || runs[0].ContentHash != want {
		t.Errorf("runs %+v, want one with content hash %s", runs, want)
	}
}

func TestLoadErrorsNameFileLineAndField(t *testing.T) {
	tests := []struct {
		name  string
		lines []string
		want  string
	}{
		{"not json", []string{light1, "{oops"}, ":2: not an inspection JSON object"},
		{"missing run_id", []string{`{"depth":"light","runtime_fidelity":1,"task_effectiveness":1,"verdict":"pass"}`}, ":1: field run_id: missing"},
		{"missing depth", []string{`{"run_id":"a","runtime_fidelity":1,"task_effectiveness":1,"verdict":"pass"}`}, ":1: field depth: missing"},
		{"bad depth", []string{`{"run_id":"a","depth":"mid","runtime_fidelity":1,"task_effectiveness":1,"verdict":"pass"}`}, ":1: field depth:"},
		{"score range", []string{"", `{"run_id":"a","depth":"deep","runtime_fidelity":1,"task_effectiveness":-3,"verdict":"pass"}`}, ":2: field task_effectiveness: -3 is outside 0..100"},
		{"score type", []string{`{"run_id":"a","depth":"deep","runtime_fidelity":"high","task_effectiveness":3,"verdict":"pass"}`}, ":1: field runtime_fidelity:"},
		{"verdict", []string{`{"run_id":"a","depth":"deep","runtime_fidelity":1,"task_effectiveness":3,"verdict":"good"}`}, ":1: field verdict:"},
		{"duplicate", []string{light1, deep1, light1}, ":3: run r1: light inspection already given at line 1"},
		{"system conflict", []string{light1, strings.Replace(deep1, "alpha", "gamma", 1)}, `:2: run r1: field system: "gamma", but line 1 says "alpha"`},
		{"empty", []string{"", "  "}, ": no inspections"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeFile(t, tt.lines...)
			in, runs, err := saved.Load(path)
			// A rejected line's message surfaces as its inspection's
			// error, or among the unattributed lines, or (when nothing
			// is left) as Load's error.
			var msgs []string
			if err != nil {
				msgs = append(msgs, err.Error())
			} else {
				msgs = append(msgs, in.Unattributed()...)
				for _, r := range runs {
					for _, d := range []inspection.Depth{inspection.Light, inspection.Deep} {
						if _, ierr := in.Inspect(context.Background(), r, d); ierr != nil {
							msgs = append(msgs, ierr.Error())
						}
					}
				}
			}
			found := false
			for _, m := range msgs {
				found = found || strings.Contains(m, path+tt.want) || strings.Contains(m, filepath.Base(path)+tt.want)
			}
			if !found {
				t.Errorf("messages %q, want one containing %q", msgs, path+tt.want)
			}
		})
	}
	if _, _, err := saved.Load(filepath.Join(t.TempDir(), "absent.jsonl")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("absent file: err = %v, want os.ErrNotExist", err)
	}
}

func TestABadLineFailsOnlyItsOwnInspection(t *testing.T) {
	badDeep := `{"run_id":"r1","depth":"deep","runtime_fidelity":1,"task_effectiveness":300,"verdict":"pass"}`
	path := writeFile(t, light0, deep0, light1, badDeep, "{garbage")
	in, runs, err := saved.Load(path)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if len(runs) != 2 {
		t.Fatalf("%d runs, want r0 and r1", len(runs))
	}
	if _, err := in.Inspect(context.Background(), runs[0], inspection.Deep); err != nil {
		t.Errorf("r0 deep: %v, want the good inspection", err)
	}
	_, err = in.Inspect(context.Background(), runs[1], inspection.Deep)
	if err == nil || !inspection.IsPermanent(err) || !strings.Contains(err.Error(), ":4: field task_effectiveness") {
		t.Errorf("r1 deep: %v, want a permanent error naming line 4 and the field", err)
	}
	if u := in.Unattributed(); len(u) != 1 || !strings.Contains(u[0], ":5: ") {
		t.Errorf("unattributed = %q, want line 5", u)
	}
}

func TestRunnerRecordsAMissingSavedDepthAsAFailure(t *testing.T) {
	in, runs, err := saved.Load(writeFile(t, light0, deep0, light1))
	if err != nil {
		t.Fatal(err)
	}
	res, err := runner.Run(context.Background(), runs, in, runner.Options{Jobs: 2, Retries: 2, Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	want := []inspection.Failure{{RunID: "r1", Depth: inspection.Deep, Attempts: 1, Reason: "saved: run r1: no saved deep inspection"}}
	if d := cmp.Diff(want, res.Failures); d != "" {
		t.Errorf("failures (-want +got):\n%s", d)
	}
	if len(res.Pairs) != 1 || res.Pairs[0].Run.ID != "r0" || len(res.Unpaired) != 1 {
		t.Errorf("pairs %+v unpaired %+v, want r0 paired and r1's light unpaired", res.Pairs, res.Unpaired)
	}
}

func TestSavedInspectionsAreCachedLikeAnyOther(t *testing.T) {
	in, runs, err := saved.Load(writeFile(t, light0, deep0, light1, deep1))
	if err != nil {
		t.Fatal(err)
	}
	cache, err := runner.OpenCache(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	opts := runner.Options{Jobs: 2, Timeout: time.Second, Cache: cache}
	cold, err := runner.Run(context.Background(), runs, in, opts)
	if err != nil {
		t.Fatal(err)
	}
	warm, err := runner.Run(context.Background(), runs, in, opts)
	if err != nil {
		t.Fatal(err)
	}
	if cold.Calls != 4 || warm.Calls != 0 || warm.CacheHits != 4 {
		t.Errorf("cold calls %d, warm calls %d hits %d; want 4, 0, 4", cold.Calls, warm.Calls, warm.CacheHits)
	}
	if d := cmp.Diff(cold.Pairs, warm.Pairs); d != "" {
		t.Errorf("(-cold +warm):\n%s", d)
	}
}

func FuzzLoad(f *testing.F) {
	for _, seed := range []string{
		light1 + "\n" + deep1,
		light0 + "\n\n" + deep0 + "\n" + light1,
		`{"run_id":"a","depth":"deep","runtime_fidelity":1e400,"task_effectiveness":3,"verdict":"pass"}`,
		`{"run_id":"","depth":"light"}`,
		"\x00\xff{",
		"",
		"\ufeff" + light1 + "\r\n\ufeff" + deep1,
		"\xff\xfe{\x00",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "f.jsonl")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		in, runs, err := saved.Load(path)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "saved: ") {
				t.Errorf("error without context: %v", err)
			}
			return
		}
		if len(runs) == 0 {
			t.Fatal("no error and no runs")
		}
		for i, run := range runs {
			if i > 0 && runs[i-1].ID >= run.ID {
				t.Errorf("runs not sorted and unique: %q then %q", runs[i-1].ID, run.ID)
			}
			if len(run.ContentHash) != 64 || run.Era != inspection.EraSaved || !run.Valid {
				t.Errorf("run %+v malformed", run)
			}
			for _, d := range []inspection.Depth{inspection.Light, inspection.Deep} {
				insp, err := in.Inspect(context.Background(), run, d)
				if err != nil {
					if !inspection.IsPermanent(err) || !strings.HasPrefix(err.Error(), "saved: ") {
						t.Errorf("missing or rejected depth: %v, want a permanent error with context", err)
					}
					continue
				}
				if insp.RunID != run.ID || insp.Depth != d || inspection.CheckInspection(insp) != nil {
					t.Errorf("served %+v for %s/%s", insp, run.ID, d)
				}
			}
			// A run whose every line was rejected serves no inspection:
			// it exists so that the runner records its failures.
		}
	})
}
