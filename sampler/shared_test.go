package sampler

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalcal/evalcal/inspection"
	"github.com/google/go-cmp/cmp"
)

// sharedSamples is ../shared/openprose-samples beside the repository
// root (tests run in sampler/); tests skip when it is absent.
func sharedSamples(t *testing.T) string {
	t.Helper()
	dir := filepath.Join("..", "..", "shared", "openprose-samples")
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		t.Skipf("real samples not present at %s", dir)
	}
	return dir
}

func readShared(t *testing.T, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(sharedSamples(t), filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The expectations below are read off the files by eye and from the
// samples' README, not from our parser.
func TestParseLogReadsTheRealLogs(t *testing.T) {
	cases := []struct {
		file      string
		status    inspection.Status
		completed []string
		errored   []string
		runID     string
	}{
		{"era1-state-md-v1/aspire-extensions/20260124-162809-aa1cd3.state.md", inspection.StatusCompleted,
			[]string{"adr_written", "alternatives", "api_contracts", "api_status", "api_updated", "cli_library_research", "definition_of_done",
				"library_research", "library_status", "overview", "plan", "plan_dirs", "plan_evolution", "plan_folder", "planning_commit",
				"questions", "requirements", "success_criteria", "task_decomposition", "tech_stack", "tunit_version"}, nil, "20260124-162809-aa1cd3"},
		{"era1-state-md-v1/aspire-extensions/20260124-172830-8737e0.state.md", inspection.StatusIncomplete, nil, nil, "20260124-172830-8737e0"},
		{"era1-state-md-v1/aspire-extensions/20260124-182841-69305a.state.md", inspection.StatusCompleted, nil, nil, "20260124-182841-69305a"},
		{"era2-state-md-v2/eksno-nix-config/state.md", inspection.StatusCompleted,
			[]string{"auth-check", "dev-bootstrap", "git-sync", "linus", "plan-debate", "prime", "ship-pr", "test-cycle"}, nil, "20260417-152853-710f25"},
		{"era3-vmlog-forme/layoffs-2026/20260526-001729-40b8f7.vm.log.md", inspection.StatusIncomplete,
			[]string{"query-planner", "tool-picker"}, []string{"searcher"}, ""},
		{"era3-vmlog-forme/layoffs-2026/20260526-002449-c2d7c2.vm.log.md", inspection.StatusFailed,
			[]string{"query-planner", "tool-picker"}, []string{"searcher"}, ""},
		{"era3-vmlog-forme/layoffs-2026/20260526-003907-d8100c.vm.log.md", inspection.StatusIncomplete,
			[]string{"query-planner", "tool-picker"}, nil, ""},
		{"era3-vmlog-forme/layoffs-2026/20260526-005801-a9e3f1.vm.log.md", inspection.StatusIncomplete, nil, nil, ""},
		{"era3-vmlog-forme/layoffs-2026/20260526-124729-7f9757.vm.log.md", inspection.StatusCompleted,
			[]string{"dedup", "extractor", "query-planner", "searcher", "tool-picker"}, nil, "20260526-124729-7f9757"},
	}
	for _, c := range cases {
		t.Run(filepath.Base(c.file), func(t *testing.T) {
			l, err := ParseLog(strings.NewReader(readShared(t, c.file)))
			if err != nil {
				t.Fatal(err)
			}
			if l.Status() != c.status {
				t.Errorf("status = %q, want %q", l.Status(), c.status)
			}
			if l.RunID != c.runID {
				t.Errorf("run id = %q, want %q", l.RunID, c.runID)
			}
			completed, errored := map[string]bool{}, map[string]bool{}
			for _, ev := range ServiceEvents(l) {
				switch ev.Outcome {
				case OutcomeOK:
					completed[ev.Service] = true
				case OutcomeError:
					errored[ev.Service] = true
				}
			}
			if c.completed != nil {
				if d := cmp.Diff(c.completed, sortedKeys(completed)); d != "" {
					t.Errorf("completed (-want +got):\n%s", d)
				}
			}
			if d := cmp.Diff(c.errored, sortedKeys(errored), cmpEmpty); d != "" {
				t.Errorf("errored (-want +got):\n%s", d)
			}
		})
	}
}

func TestParseLogReadsRealAnnotationsAndMarkers(t *testing.T) {
	l, err := ParseLog(strings.NewReader(readShared(t, "era2-state-md-v2/eksno-nix-config/state.md")))
	if err != nil {
		t.Fatal(err)
	}
	if l.Program != "bug" || l.Meta["program"] != "~/.claude/prose-programs/eng-team/bug.md" {
		t.Errorf("program = %q, meta = %v", l.Program, l.Meta)
	}
	want := []Event{
		{Line: 4, Index: "1", Kind: KindInput, Name: "request", Service: "request", Outcome: OutcomeOK},
		{Line: 5, Index: "2", Name: "git-sync", Service: "git-sync", Outcome: OutcomeOK},
		{Line: 6, Index: "3", Name: "∥start", Outcome: OutcomeParallelStart, Branches: []string{"dev-bootstrap", "auth-check"}},
		{Line: 7, Index: "3a", Name: "dev-bootstrap", Service: "dev-bootstrap", Outcome: OutcomeOK, Annotation: "NixOS config repo — no dev server"},
	}
	if d := cmp.Diff(want, l.Events[:4]); d != "" {
		t.Errorf("first events (-want +got):\n%s", d)
	}
	vm := l.Events[6]
	if vm.Kind != KindVMAction || vm.Service != "EnterWorktree" || vm.Annotation != "worktree: fix-mosh-restore" {
		t.Errorf("vm-action event = %+v", vm)
	}
	last := l.Events[len(l.Events)-1]
	if last.Service != "ship-pr" || last.Annotation != "https://github.com/eksno/nix-config/pull/3" {
		t.Errorf("last event = %+v", last)
	}
	l, _ = ParseLog(strings.NewReader(readShared(t, "era1-state-md-v1/aspire-extensions/20260124-162809-aa1cd3.state.md")))
	if l.Terminator == nil || l.Terminator.Timestamp != "2026-01-24T17:12:15-03:00" || l.Program != "plan.prose" {
		t.Errorf("terminator = %+v program = %q", l.Terminator, l.Program)
	}
}

// sharedRun assembles a run directory in a temporary folder from the
// shared files (the samples are single files, not whole runs).
func sharedRun(t *testing.T, id string, files map[string]string) string {
	t.Helper()
	contents := map[string]string{}
	for dst, src := range files {
		if strings.HasPrefix(src, "=") {
			contents[dst] = src[1:]
			continue
		}
		contents[dst] = readShared(t, src)
	}
	return writeRun(t, t.TempDir(), id, contents)
}

func TestDescribeRealRuns(t *testing.T) {
	const era3 = "era3-vmlog-forme/layoffs-2026/"
	cases := []struct {
		id    string
		files map[string]string
		want  inspection.Run
	}{
		{"20260417-152853-710f25", map[string]string{
			"state.md": "era2-state-md-v2/eksno-nix-config/state.md", "manifest.md": "era2-state-md-v2/eksno-nix-config/manifest.md",
			"program.md": "=# bug\n", "bindings/caller/request.md": "=r", "bindings/linus/output.md": "=o",
			"bindings/plan-debate/plan.md": "=p", "bindings/test-cycle/result.md": "=t",
		}, inspection.Run{
			Era: inspection.EraStateMDv2, System: "bug", Status: inspection.StatusCompleted,
			ServicesDeclared:  []string{"auth-check", "dev-bootstrap", "git-sync", "linus", "plan-debate", "prime", "ship-pr", "test-cycle"},
			ServicesCompleted: []string{"auth-check", "dev-bootstrap", "git-sync", "linus", "plan-debate", "prime", "ship-pr", "test-cycle"},
			BindingsPresent:   []string{"bindings/caller/request.md", "bindings/linus/output.md", "bindings/plan-debate/plan.md", "bindings/test-cycle/result.md"},
			BindingsMissing: []string{"bindings/auth-check/auth-instructions.md", "bindings/dev-bootstrap/dev-ready.md", "bindings/git-sync/synced.md",
				"bindings/prime/output.md", "bindings/ship-pr/pr-url.md"},
			Valid: true,
		}},
		{"20260526-001729-40b8f7", map[string]string{
			"vm.log.md": era3 + "20260526-001729-40b8f7.vm.log.md", "forme.manifest.json": era3 + "20260526-001729-40b8f7.forme.manifest.json",
			"workspace/searcher/__error.md": era3 + "20260526-001729-40b8f7.workspace.searcher.__error.md",
			"root.prose.md":                 "=# discover\n", "bindings/tool-picker/chosen_tools.json": "=[]",
		}, inspection.Run{
			Era: inspection.EraVMLogForme, System: "layoffs-discover", Status: inspection.StatusFailed,
			ServicesDeclared:  []string{"dedup", "extractor", "query-planner", "searcher", "tool-picker"},
			ServicesCompleted: []string{"query-planner", "tool-picker"},
			ServicesErrored:   []string{"searcher"},
			ServicesSkipped:   []string{"dedup", "extractor"},
			BindingsPresent:   []string{"bindings/tool-picker/chosen_tools.json"},
			BindingsMissing: []string{"bindings/dedup/candidates.json", "bindings/extractor/candidates_unfiltered.json",
				"bindings/query-planner/queries.json", "bindings/searcher/raw_results.json", "bindings/searcher/spent_usd.md"},
			ErrorFiles: []string{"workspace/searcher/__error.md"},
			Valid:      true,
			Warnings:   []string{`vm.log.md: no terminator; status "failed" taken from the front matter`},
		}},
		{"20260526-002449-c2d7c2", map[string]string{
			"vm.log.md": era3 + "20260526-002449-c2d7c2.vm.log.md", "forme.manifest.json": era3 + "20260526-001729-40b8f7.forme.manifest.json",
		}, inspection.Run{
			Era: inspection.EraVMLogForme, System: "layoffs-discover", Status: inspection.StatusFailed,
			ServicesDeclared:  []string{"dedup", "extractor", "query-planner", "searcher", "tool-picker"},
			ServicesCompleted: []string{"query-planner", "tool-picker"},
			ServicesErrored:   []string{"searcher"},
			// "### extractor — skipped" and "### dedup — skipped" are
			// narrative headings no marker contradicts.
			ServicesSkipped: []string{"dedup", "extractor"},
			BindingsMissing: []string{"bindings/dedup/candidates.json", "bindings/extractor/candidates_unfiltered.json",
				"bindings/query-planner/queries.json", "bindings/searcher/raw_results.json", "bindings/searcher/spent_usd.md",
				"bindings/tool-picker/chosen_tools.json"},
			Invalid: "no binding or published output",
		}},
		{"20260526-005801-a9e3f1", map[string]string{
			"vm.log.md": era3 + "20260526-005801-a9e3f1.vm.log.md", "root.prose.md": "=# discover\n", "bindings/caller/frame.md": "=.",
		}, inspection.Run{
			Era: inspection.EraVMLogForme, System: "layoffs-discover", Status: inspection.StatusIncomplete,
			BindingsPresent: []string{"bindings/caller/frame.md"},
			Valid:           true,
		}},
		{"20260526-124729-7f9757", map[string]string{
			"vm.log.md": era3 + "20260526-124729-7f9757.vm.log.md", "root.prose.md": "=# discover\n", "bindings/dedup/shortfall.md": "=short",
		}, inspection.Run{
			Era: inspection.EraVMLogForme, System: "layoffs-discover", Status: inspection.StatusCompleted,
			ServicesDeclared:  []string{"dedup", "extractor", "query-planner", "searcher", "tool-picker"},
			ServicesCompleted: []string{"dedup", "extractor", "query-planner", "searcher", "tool-picker"},
			BindingsPresent:   []string{"bindings/dedup/shortfall.md"},
			Valid:             true,
		}},
		{"20260124-172830-8737e0", map[string]string{
			"state.md": "era1-state-md-v1/aspire-extensions/20260124-172830-8737e0.state.md", "program.prose": "=# execute\n",
			"bindings/definition_of_done.md": "era1-state-md-v1/aspire-extensions/binding-definition_of_done.HEAD-ONLY.md",
		}, inspection.Run{
			Era: inspection.EraStateMDv1, System: "execute", Status: inspection.StatusIncomplete,
			ServicesDeclared: []string{"TASK-003", "TASK-004", "TASK-005", "TASK-006", "TASK-007", "TASK-008", "TASK-009", "TASK-010",
				"TASK-011", "TASK-012", "TASK-013", "definition_of_done", "execution_plan", "impl_task001", "impl_task002",
				"manifest", "ready_tasks", "ready_tasks_iter2", "tests_task002", "verify_task001", "verify_task002", "work_environment"},
			Valid: true,
		}},
	}
	for _, c := range cases {
		t.Run(c.id, func(t *testing.T) {
			got, err := Describe(sharedRun(t, c.id, c.files))
			if err != nil {
				t.Fatal(err)
			}
			c.want.ID = c.id
			if c.want.ServicesCompleted == nil {
				c.want.ServicesCompleted = c.want.ServicesDeclared
			}
			opts := []cmp.Option{ignoreVolatile, cmpEmpty}
			if c.id == "20260124-172830-8737e0" {
				// The v1 log has dozens of markers outside the spec; only
				// the derived bindings are checked here.
				opts = append(opts, cmpIgnore("Warnings", "BindingsMissing", "BindingsPresent"))
			}
			if d := cmp.Diff(c.want, got, opts...); d != "" {
				t.Errorf("Describe (-want +got):\n%s", d)
			}
		})
	}
}

func TestDescribeRealReactorStateDir(t *testing.T) {
	dir := filepath.Join(sharedSamples(t), "era4-reactor-statedir", "surprise-cost")
	got, err := Describe(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := inspection.Run{
		ID: "surprise-cost", Era: inspection.EraReactor, System: "unknown", Status: inspection.StatusIncomplete,
		ServicesDeclared:  []string{"gateway.signals", "responsibility.digest"},
		ServicesCompleted: []string{"gateway.signals", "responsibility.digest"},
		ServicesSkipped:   []string{"gateway.signals"},
		BindingsPresent: []string{
			"world-models/676174657761792e7369676e616c73/published.json",
			"world-models/726573706f6e736962696c6974792e646967657374/published.json",
		},
		Invalid: "no log (state.md or vm.log.md)",
	}
	if d := cmp.Diff(want, got, ignoreVolatile, cmpEmpty); d != "" {
		t.Errorf("Describe (-want +got):\n%s", d)
	}
	if got.Files != 8 {
		t.Errorf("Files = %d, want the 8 files of the fixture", got.Files)
	}
}

func TestLoadManifestReadsRealManifests(t *testing.T) {
	dir := sharedRun(t, "m", map[string]string{
		"manifest.md":          "era2-state-md-v2/eksno-nix-config/manifest.md",
		"forme.manifest.json":  "era3-vmlog-forme/layoffs-2026/20260526-001729-40b8f7.forme.manifest.json",
		"compiled-intent.json": "era4-reactor-statedir/compiled-intent-golden/multi-facet.manifest.next.json",
	})
	md, err := LoadManifest(dir, inspection.EraStateMDv2)
	if err != nil {
		t.Fatal(err)
	}
	wantOrder := [][]string{{"git-sync"}, {"dev-bootstrap", "auth-check"}, {"linus"}, {"test-cycle"}, {"plan-debate"},
		{"prime", "linus"}, {"test-cycle"}, {"ship-pr"}}
	if d := cmp.Diff(wantOrder, md.Order); d != "" {
		t.Errorf("manifest.md order (-want +got):\n%s", d)
	}
	if md.System != "bug" || len(md.Outputs) != 8 {
		t.Errorf("system %q, %d outputs; want bug and 8", md.System, len(md.Outputs))
	}
	js, err := LoadManifest(dir, inspection.EraVMLogForme)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([][]string{{"tool-picker"}, {"query-planner"}, {"searcher"}, {"extractor"}, {"dedup"}}, js.Order); d != "" {
		t.Errorf("forme order (-want +got):\n%s", d)
	}
	if len(js.Outputs) != 6 {
		t.Errorf("forme outputs = %d, want 6", len(js.Outputs))
	}
	ci, err := LoadManifest(dir, inspection.EraReactor)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([][]string{{"competitor-monitor"}, {"funding-brief"}}, ci.Order); d != "" {
		t.Errorf("compiled-intent order (-want +got):\n%s", d)
	}
}
