package builtin

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalcal/evalcal/internal/testutil"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/evalcal/evalcal/inspection"
	"github.com/evalcal/evalcal/sampler"
)

const manifest = `{"systemName": "demo", "graph": [
 {"id": "picker", "outputs": [{"name": "tools", "bindingPath": "bindings/picker/tools.json", "public": true}]},
 {"id": "writer", "outputs": [{"name": "report", "bindingPath": "bindings/writer/report.md", "public": true}]}],
 "executionOrder": [{"nodeId": "picker"}, {"nodeId": "writer"}]}`

const reportBody = "# writer/report\n\nkind: output\nservice: writer\n\n---\n\n# Report\n\nThe picker chose two tools and both returned results.\n"

// baseRun is a clean, completed vmlog-forme run of two services.
func baseRun() map[string]string {
	return map[string]string{
		"root.prose.md":              "# demo\n",
		"forme.manifest.json":        manifest,
		"vm.log.md":                  "# run:20260101-000000-abcdef demo\n1→ picker ✓\n2→ writer ✓\n---end 2026-01-01T00:00:00Z\n",
		"bindings/caller/frame.md":   "# frame\n\nkind: input\nsource: caller\n\n---\n\n.\n",
		"bindings/picker/tools.json": "[{\"name\": \"exa\"}]\n",
		"bindings/writer/report.md":  reportBody,
	}
}

// describeFiles writes files (slash path -> content) into a new run
// directory named id and describes it.
func describeFiles(t *testing.T, id string, files map[string]string) inspection.Run {
	t.Helper()
	r, err := sampler.Describe(testutil.WriteFiles(t, filepath.Join(t.TempDir(), id), files))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func writeRun(t *testing.T, files map[string]string) inspection.Run {
	t.Helper()
	return describeFiles(t, "20260101-000000-abcdef", files)
}

// result is the part of an inspection the table checks.
type result struct {
	Flags    []string // id@evidence
	RF, TE   float64
	Verdict  string
	Services map[string]string
}

func inspect(t *testing.T, r inspection.Run, d inspection.Depth) result {
	t.Helper()
	insp, err := New().Inspect(context.Background(), r, d)
	if err != nil {
		t.Fatal(err)
	}
	if insp.RunID != r.ID || insp.Depth != d || insp.System != "demo" {
		t.Errorf("header = %q %q %q", insp.RunID, insp.Depth, insp.System)
	}
	if err := inspection.CheckInspection(insp); err != nil {
		t.Errorf("inspection does not validate: %v", err)
	}
	res := result{Flags: []string{}, RF: insp.RuntimeFidelity, TE: insp.TaskEffectiveness, Verdict: insp.Verdict, Services: map[string]string{}}
	for _, f := range insp.Flags {
		if f.Severity != deductions[f.ID].severity || f.Description == "" {
			t.Errorf("flag %+v: severity or description wrong", f)
		}
		res.Flags = append(res.Flags, f.ID+"@"+f.Evidence)
	}
	for _, s := range insp.Services {
		res.Services[s.Name] = s.Status
	}
	return res
}

// The expected scores are worked by hand from the deduction table in
// builtin.go (100 minus the points of each flag, light capped at 85/80).
func TestInspectChecks(t *testing.T) {
	ok := map[string]string{"picker": "completed", "writer": "completed"}
	cases := []struct {
		name        string
		edit        func(f map[string]string)
		light, deep result
	}{
		{"clean run passes both depths", func(map[string]string) {},
			result{[]string{}, 85, 80, "pass", ok}, result{[]string{}, 100, 100, "pass", ok}},
		{"missing binding is seen by both", func(f map[string]string) { delete(f, "bindings/writer/report.md") },
			result{[]string{"missing-binding@bindings/writer/report.md"}, 80, 65, "partial", ok},
			result{[]string{"missing-binding@bindings/writer/report.md"}, 80, 65, "partial", ok}},
		{"failed run with an error file fails", func(f map[string]string) {
			f["vm.log.md"] = "# run:x demo\n1→ picker ✓\n2→ writer ✗ Boom\n---error 2026-01-01T00:00:00Z writer.Boom\n"
			f["workspace/writer/__error.md"] = "---\nerror: Boom\n---\n"
			delete(f, "bindings/writer/report.md")
		},
			result{[]string{"error-file@workspace/writer/__error.md:1", "run-failed@vm.log.md"}, 15, 45, "fail",
				map[string]string{"picker": "completed", "writer": "errored"}},
			result{[]string{"error-file@workspace/writer/__error.md:1", "run-failed@vm.log.md:4"}, 15, 45, "fail",
				map[string]string{"picker": "completed", "writer": "errored"}}},
		{"recovered error is an error file to light only", func(f map[string]string) {
			f["workspace/picker/__error.md"] = "---\nerror: RateLimited\n---\n"
		},
			result{[]string{"error-file@workspace/picker/__error.md:1"}, 65, 80, "partial", map[string]string{"picker": "errored", "writer": "completed"}},
			result{[]string{}, 100, 100, "pass", map[string]string{"picker": "recovered", "writer": "completed"}}},
		{"zero-byte output is empty to both", func(f map[string]string) { f["bindings/writer/report.md"] = "" },
			result{[]string{"empty-output@bindings/writer/report.md"}, 85, 65, "partial", ok},
			result{[]string{"empty-output@bindings/writer/report.md"}, 90, 65, "partial", ok}},
		{"envelope without body is empty to deep only", func(f map[string]string) {
			f["bindings/writer/report.md"] = "# writer/report\n\nkind: output\n\n---\n\n  \n"
		},
			result{[]string{}, 85, 80, "pass", ok},
			result{[]string{"empty-output@bindings/writer/report.md"}, 90, 65, "partial", ok}},
		{"log order against the manifest is deep only", func(f map[string]string) {
			f["vm.log.md"] = "# run:x demo\n1→ writer ✓\n2→ picker ✓\n---end 2026-01-01T00:00:00Z\n"
		},
			result{[]string{}, 85, 80, "pass", ok},
			result{[]string{"order-mismatch@vm.log.md:3"}, 65, 100, "partial", ok}},
		{"placeholder text is deep only", func(f map[string]string) {
			f["bindings/writer/report.md"] = strings.Replace(reportBody, "The picker", "TODO: the picker", 1)
		},
			result{[]string{}, 85, 80, "pass", ok},
			result{[]string{"placeholder-output@bindings/writer/report.md:10"}, 100, 65, "partial", ok}},
		{"placeholder JSON values are deep only", func(f map[string]string) {
			f["bindings/picker/tools.json"] = "[\n  {\"name\": \"TBD\"}\n]\n"
		},
			result{[]string{}, 85, 80, "pass", ok},
			result{[]string{"placeholder-output@bindings/picker/tools.json:2"}, 100, 65, "partial", ok}},
		{"a TODO mentioned in prose is not a placeholder", func(f map[string]string) {
			f["bindings/writer/report.md"] = strings.Replace(reportBody, "both returned", "both fixed the TODO list and returned", 1)
		},
			result{[]string{}, 85, 80, "pass", ok}, result{[]string{}, 100, 100, "pass", ok}},
		{"output cut mid-sentence is deep only", func(f map[string]string) {
			f["bindings/writer/report.md"] = strings.TrimSuffix(reportBody, " results.\n")
		},
			result{[]string{}, 85, 80, "pass", ok},
			result{[]string{"truncated-output@bindings/writer/report.md:10"}, 100, 65, "partial", ok}},
		{"unclosed code fence is truncation", func(f map[string]string) {
			f["bindings/writer/report.md"] = reportBody + "\n```go\nfunc main() {\n"
		},
			result{[]string{}, 85, 80, "pass", ok},
			result{[]string{"truncated-output@bindings/writer/report.md:12"}, 100, 65, "partial", ok}},
		{"JSON cut short is truncation, broken JSON is unparseable", func(f map[string]string) {
			f["bindings/picker/tools.json"] = "[{\"name\": \"ex"
			f["bindings/caller/extra.json"] = "{nope}\n"
		},
			result{[]string{}, 85, 80, "pass", ok},
			result{[]string{"binding-unparseable@bindings/caller/extra.json", "truncated-output@bindings/picker/tools.json:1"}, 85, 45, "partial", ok}},
		{"an error swallowed by a completed run is unhandled", func(f map[string]string) {
			f["vm.log.md"] = "# run:x demo\n1→ picker ✗ Timeout\n2→ writer ✓\n---end 2026-01-01T00:00:00Z\n"
		},
			result{[]string{}, 85, 80, "pass", map[string]string{"picker": "errored", "writer": "completed"}},
			result{[]string{"unhandled-error@vm.log.md:2"}, 70, 90, "partial", map[string]string{"picker": "errored", "writer": "completed"}}},
		{"binding without envelope is an integrity warning", func(f map[string]string) {
			f["bindings/writer/report.md"] = "The picker chose two tools.\n"
		},
			result{[]string{}, 85, 80, "pass", ok},
			result{[]string{"binding-envelope@bindings/writer/report.md:1"}, 90, 100, "pass", ok}},
		{"incomplete run fails", func(f map[string]string) {
			f["vm.log.md"] = "# run:x demo\n1→ picker ✓\n"
			delete(f, "bindings/writer/report.md")
		},
			result{[]string{"run-incomplete@vm.log.md"}, 50, 60, "fail", map[string]string{"picker": "completed", "writer": "not-run"}},
			result{[]string{"run-incomplete@vm.log.md:2"}, 50, 60, "fail", map[string]string{"picker": "completed", "writer": "not-run"}}},
		{"a service skipped by design owes no binding to deep", func(f map[string]string) {
			f["vm.log.md"] = "# run:x demo\n1→ picker ✓\n2→ writer ∅ skipped\n---end 2026-01-01T00:00:00Z\n"
			delete(f, "bindings/writer/report.md")
		},
			result{[]string{"missing-binding@bindings/writer/report.md"}, 80, 65, "partial", map[string]string{"picker": "completed", "writer": "skipped"}},
			result{[]string{}, 100, 100, "pass", map[string]string{"picker": "completed", "writer": "skipped"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			files := baseRun()
			c.edit(files)
			r := writeRun(t, files)
			if d := cmp.Diff(c.light, inspect(t, r, inspection.Light)); d != "" {
				t.Errorf("light (-want +got):\n%s", d)
			}
			if d := cmp.Diff(c.deep, inspect(t, r, inspection.Deep)); d != "" {
				t.Errorf("deep (-want +got):\n%s", d)
			}
		})
	}
}

func TestVerdictFollowsTheDesignRule(t *testing.T) {
	crit := []inspection.Flag{{ID: "x", Severity: inspection.SeverityCritical}}
	warn := []inspection.Flag{{ID: "x", Severity: inspection.SeverityWarning}}
	cases := []struct {
		completed bool
		rf, te    float64
		flags     []inspection.Flag
		want      string
	}{
		{true, 70, 70, nil, "pass"},
		{true, 70, 70, warn, "pass"},
		{true, 100, 100, crit, "partial"},
		{true, 69.9, 100, nil, "partial"},
		{true, 40, 40, nil, "partial"},
		{true, 39.9, 100, nil, "fail"},
		{true, 100, 39, warn, "fail"},
		{false, 100, 100, nil, "fail"},
	}
	for _, c := range cases {
		if got := inspection.Verdict(c.completed, c.rf, c.te, c.flags); got != c.want {
			t.Errorf("inspection.Verdict(%v, %v, %v, %v) = %s, want %s", c.completed, c.rf, c.te, c.flags, got, c.want)
		}
	}
}

func TestInspectIsDeterministic(t *testing.T) {
	files := baseRun()
	files["bindings/writer/report.md"] = "TBD\n"
	r := writeRun(t, files)
	for _, d := range []inspection.Depth{inspection.Light, inspection.Deep} {
		a, err := New().Inspect(context.Background(), r, d)
		if err != nil {
			t.Fatal(err)
		}
		b, err := New().Inspect(context.Background(), r, d)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(a, b); diff != "" {
			t.Errorf("%s: two inspections differ:\n%s", d, diff)
		}
		if a.Cost.Seconds != 0 || a.Cost.USD != 0 || a.Cost.Tokens <= 0 {
			t.Errorf("%s: cost %+v, want only a positive token count", d, a.Cost)
		}
	}
}

func TestInspectRejectsBadInput(t *testing.T) {
	r := writeRun(t, baseRun())
	in := New()
	if in.Identity() != "builtin/1" {
		t.Errorf("Identity = %q", in.Identity())
	}
	if _, err := in.Inspect(context.Background(), r, "medium"); err == nil || !strings.Contains(err.Error(), `unknown depth "medium"`) {
		t.Errorf("bad depth: err = %v", err)
	}
	if _, err := in.Inspect(context.Background(), inspection.Run{ID: "s", Era: inspection.EraSaved}, inspection.Light); err == nil {
		t.Error("a run without a directory was inspected")
	}
	gone := r
	gone.Path = filepath.Join(t.TempDir(), "absent")
	if _, err := in.Inspect(context.Background(), gone, inspection.Deep); err == nil || !strings.Contains(err.Error(), "absent") {
		t.Errorf("absent directory: err = %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := in.Inspect(ctx, r, inspection.Deep); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err = %v, want context.Canceled", err)
	}
}

func TestInspectReadsTheRealSamples(t *testing.T) {
	shared := filepath.Join("..", "..", "..", "shared", "openprose-samples")
	if _, err := os.Stat(shared); err != nil {
		t.Skipf("real samples not present: %v", err)
	}
	read := func(rel string) string {
		b, err := os.ReadFile(filepath.Join(shared, filepath.FromSlash(rel)))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	const era3 = "era3-vmlog-forme/layoffs-2026/"
	// c2d7c2 as it was: searcher failed, its error file, the upstream
	// bindings and the shortfall report.
	files := map[string]string{
		"vm.log.md":                              read(era3 + "20260526-002449-c2d7c2.vm.log.md"),
		"forme.manifest.json":                    read(era3 + "20260526-001729-40b8f7.forme.manifest.json"),
		"workspace/searcher/__error.md":          read(era3 + "20260526-001729-40b8f7.workspace.searcher.__error.md"),
		"root.prose.md":                          "# discover\n",
		"bindings/tool-picker/chosen_tools.json": "[]\n",
		"bindings/query-planner/queries.json":    "[]\n",
		"bindings/discover/shortfall.md":         "# shortfall\n\nkind: output\n\n---\n\nNo candidates: every paid call failed.\n",
	}
	r := describeFiles(t, "20260526-002449-c2d7c2", files)
	for _, d := range []inspection.Depth{inspection.Light, inspection.Deep} {
		insp, err := New().Inspect(context.Background(), r, d)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, f := range insp.Flags {
			ids = append(ids, f.ID+"@"+f.Evidence)
		}
		wantRunFailed := "run-failed@vm.log.md"
		if d == inspection.Deep {
			wantRunFailed += ":87" // the ---error line, found with grep -n
		}
		want := []string{"error-file@workspace/searcher/__error.md:1", wantRunFailed}
		if diff := cmp.Diff(want, ids); diff != "" || insp.Verdict != inspection.VerdictFail {
			t.Errorf("%s: verdict %s, flags (-want +got):\n%s", d, insp.Verdict, diff)
		}
		svc := map[string]string{}
		for _, s := range insp.Services {
			svc[s.Name] = s.Status
		}
		wantSvc := map[string]string{"dedup": "skipped", "extractor": "skipped", "query-planner": "completed", "searcher": "errored", "tool-picker": "completed"}
		if diff := cmp.Diff(wantSvc, svc, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%s: services (-want +got):\n%s", d, diff)
		}
	}
}
