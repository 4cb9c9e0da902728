package sampler

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/evalcal/evalcal/inspection"
	"github.com/evalcal/evalcal/internal/testutil"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// writeRun creates root/name with files (slash-separated relative path ->
// content) and returns its path.
func writeRun(t *testing.T, root, name string, files map[string]string) string {
	t.Helper()
	return testutil.WriteFiles(t, filepath.Join(root, name), files)
}

// referenceHash re-states the ContentHash encoding independently:
// sha256 over path NUL size NUL content, paths sorted.
func referenceHash(files map[string]string) string {
	var paths []string
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	h := sha256.New()
	for _, p := range paths {
		fmt.Fprintf(h, "%s\x00%d\x00%s", p, len(files[p]), files[p])
	}
	return hex.EncodeToString(h.Sum(nil))
}

func totalSize(files map[string]string) int64 {
	var n int64
	for _, c := range files {
		n += int64(len(c))
	}
	return n
}

// ignoreVolatile leaves out fields checked separately.
var ignoreVolatile = cmpopts.IgnoreFields(inspection.Run{}, "Path", "ContentHash", "SizeBytes", "Files")

func checkSizes(t *testing.T, got inspection.Run, files map[string]string) {
	t.Helper()
	if got.Files != len(files) || got.SizeBytes != totalSize(files) {
		t.Errorf("Files=%d SizeBytes=%d, want %d and %d", got.Files, got.SizeBytes, len(files), totalSize(files))
	}
	if want := referenceHash(files); got.ContentHash != want {
		t.Errorf("ContentHash = %s, want %s", got.ContentHash, want)
	}
}

func TestDescribeStateMDv1Run(t *testing.T) {
	files := map[string]string{
		"program.prose":      "let plan = session \"write a plan\"\nparallel:\n  a = session \"x\"\n  b = session \"y\"\noutput report = session \"sum up\"\n",
		"state.md":           "# run:20260101-000000-aaaaaa plan.prose\n1→ plan ✓\n2→ ∥start a,b\n2a→ a ✓\n2b→ b ✗ Boom\n2→ ∥done\n3→ report ✓\n---end 2026-01-01T00:00:00Z\n",
		"bindings/plan.md":   "# plan\n\nkind: let\n\n---\n\nThe plan.\n",
		"bindings/a.md":      "# a\n\nkind: let\n\n---\n\nA.\n",
		"bindings/report.md": "# report\n\nkind: output\n\n---\n\nDone.\n",
	}
	dir := writeRun(t, t.TempDir(), "20260101-000000-aaaaaa", files)
	got, err := Describe(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := inspection.Run{
		ID: "20260101-000000-aaaaaa", Era: inspection.EraStateMDv1, System: "plan", Status: inspection.StatusCompleted,
		ServicesDeclared:  []string{"a", "b", "plan", "report"},
		ServicesCompleted: []string{"a", "plan", "report"},
		ServicesErrored:   []string{"b"},
		ServicesSkipped:   []string{},
		BindingsPresent:   []string{"bindings/a.md", "bindings/plan.md", "bindings/report.md"},
		BindingsMissing:   []string{"bindings/b.md"},
		ErrorFiles:        []string{},
		Valid:             true,
	}
	if d := cmp.Diff(want, got, ignoreVolatile); d != "" {
		t.Errorf("Describe (-want +got):\n%s", d)
	}
	checkSizes(t, got, files)
}

func TestDescribeStateMDv2RunReadsManifestMarkdown(t *testing.T) {
	files := map[string]string{
		"program.md": "# bug\n",
		"manifest.md": "# Manifest: bug\n\n## Graph\n\n### fetch\n\noutputs:\n  out -> workspace/fetch/out.md\n  (public) out -> bindings/fetch/out.md\n\n" +
			"### fix (patch loop)\n\noutputs:\n  (public) patch -> bindings/fix/patch.md\n\n## Execution Order\n\n1. fetch (depends on: caller)\n2. [VM action] EnterWorktree\n3. loop(max:3): fix -> fetch again\n",
		"state.md":              "# run:20260102-000000-bbbbbb bug\nprogram: ~/p/bug.md\n\n1-> [input] request ✓\n2-> fetch ✓ (ok)\n3-> fix (patch) ✓\n",
		"services/fetch.md":     "x",
		"bindings/caller/r.md":  "req",
		"bindings/fetch/out.md": "out",
	}
	dir := writeRun(t, t.TempDir(), "20260102-000000-bbbbbb", files)
	got, err := Describe(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := inspection.Run{
		ID: "20260102-000000-bbbbbb", Era: inspection.EraStateMDv2, System: "bug", Status: inspection.StatusIncomplete,
		ServicesDeclared:  []string{"fetch", "fix"},
		ServicesCompleted: []string{"fetch", "fix"},
		ServicesErrored:   []string{},
		ServicesSkipped:   []string{},
		BindingsPresent:   []string{"bindings/caller/r.md", "bindings/fetch/out.md"},
		BindingsMissing:   []string{"bindings/fix/patch.md"},
		ErrorFiles:        []string{},
		Valid:             true,
	}
	if d := cmp.Diff(want, got, ignoreVolatile); d != "" {
		t.Errorf("Describe (-want +got):\n%s", d)
	}
	checkSizes(t, got, files)
	m, err := LoadManifest(dir, inspection.EraStateMDv2)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([][]string{{"fetch"}, {"fix", "fetch"}}, m.Order); d != "" {
		t.Errorf("order (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]int{18, 20}, m.OrderLines); d != "" {
		t.Errorf("order lines (-want +got):\n%s", d)
	}
}

const formeManifestJSON = `{"id": "x", "systemName": "discover",
 "graph": [
  {"id": "picker", "outputs": [{"name": "tools", "bindingPath": "bindings/picker/tools.json", "public": true}]},
  {"id": "searcher", "outputs": [{"name": "raw", "bindingPath": "bindings/searcher/raw.json", "public": true},
                                 {"name": "scratch", "bindingPath": "bindings/searcher/scratch.md", "public": false}]}],
 "executionOrder": [{"nodeId": "picker", "dependsOn": []}, {"nodeId": "searcher", "dependsOn": ["picker"]}],
 "tools": [{"kind": "mcp"}]}`

func TestDescribeVMLogFormeRunCountsErrorFiles(t *testing.T) {
	files := map[string]string{
		"root.prose.md":                 "---\nname: discover\n---\n",
		"forme.manifest.json":           formeManifestJSON,
		"vm.log.md":                     "# run:20260103-000000-cccccc discover\n1→ picker ✓\n2→ searcher ✗ AllCallsFailed\n---error 2026-01-03T00:00:00Z searcher.AllCallsFailed\n",
		"sources/picker.prose.md":       "p",
		"workspace/searcher/__error.md": "---\nerror: AllCallsFailed\n---\n",
		"bindings/picker/tools.json":    "[]",
	}
	dir := writeRun(t, t.TempDir(), "20260103-000000-cccccc", files)
	got, err := Describe(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := inspection.Run{
		ID: "20260103-000000-cccccc", Era: inspection.EraVMLogForme, System: "discover", Status: inspection.StatusFailed,
		ServicesDeclared:  []string{"picker", "searcher"},
		ServicesCompleted: []string{"picker"},
		ServicesErrored:   []string{"searcher"},
		ServicesSkipped:   []string{},
		BindingsPresent:   []string{"bindings/picker/tools.json"},
		BindingsMissing:   []string{"bindings/searcher/raw.json"},
		ErrorFiles:        []string{"workspace/searcher/__error.md"},
		Valid:             true,
	}
	if d := cmp.Diff(want, got, ignoreVolatile); d != "" {
		t.Errorf("Describe (-want +got):\n%s", d)
	}
	checkSizes(t, got, files)
}

func TestDescribeReactorRunReadsReceiptsAndWorldModel(t *testing.T) {
	files := map[string]string{
		"compiled-intent.json": `{"kind": "openprose.compile-phase-ir", "topology": {"nodes": [{"node": "monitor"}, {"node": "brief"}],
		  "edges": [{"subscriber": "brief", "producer": "monitor"}]}}`,
		"root.prose.md":                      "# root\n",
		"vm.log.md":                          "# run:20260104-000000-dddddd watch\n1→ monitor ✓\n2→ brief ∅ skipped\n---end 2026-01-04T00:00:00Z\n",
		"world-model/monitor/published.json": `{"version": "sha256:00"}`,
		"receipts/monitor.jsonl":             `{"node": "monitor", "status": "rendered"}` + "\nnot json\n",
		"receipts/brief.jsonl":               `{"status": "failed"}` + "\n",
	}
	dir := writeRun(t, t.TempDir(), "20260104-000000-dddddd", files)
	got, err := Describe(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := inspection.Run{
		ID: "20260104-000000-dddddd", Era: inspection.EraReactor, System: "watch", Status: inspection.StatusCompleted,
		ServicesDeclared:  []string{"brief", "monitor"},
		ServicesCompleted: []string{"monitor"},
		ServicesErrored:   []string{"brief"},
		ServicesSkipped:   []string{"brief"},
		BindingsPresent:   []string{"world-model/monitor/published.json"},
		BindingsMissing:   []string{"world-model/brief/published.json"},
		ErrorFiles:        []string{},
		Valid:             true,
		Warnings:          []string{"receipts/monitor.jsonl:2: bad receipt: invalid character 'o' in literal null (expecting 'u')"},
	}
	if d := cmp.Diff(want, got, ignoreVolatile); d != "" {
		t.Errorf("Describe (-want +got):\n%s", d)
	}
	checkSizes(t, got, files)
	m, err := LoadManifest(dir, inspection.EraReactor)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([][]string{{"monitor"}, {"brief"}}, m.Order); d != "" {
		t.Errorf("topology order (-want +got):\n%s", d)
	}
}

func TestDescribeSaysWhyARunIsInvalid(t *testing.T) {
	cases := []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"no log", map[string]string{"program.prose": "let a = session \"x\"\n", "bindings/a.md": "a"}, "no log (state.md or vm.log.md)"},
		{"no source", map[string]string{"state.md": "1→ a ✓\n", "bindings/a.md": "a"}, "no source or manifest"},
		{"no binding", map[string]string{"state.md": "1→ a ✓\n", "program.prose": "x"}, "no binding or published output"},
		{"empty", map[string]string{}, "no log (state.md or vm.log.md); no source or manifest"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := writeRun(t, t.TempDir(), "20260105-000000-eeeeee", c.files)
			got, err := Describe(dir)
			if err != nil {
				t.Fatal(err)
			}
			if got.Valid || !strings.HasPrefix(got.Invalid, c.want) {
				t.Errorf("Valid=%v Invalid=%q, want invalid starting %q", got.Valid, got.Invalid, c.want)
			}
		})
	}
}

func TestDescribeRejectsAFileOrMissingDirectory(t *testing.T) {
	root := t.TempDir()
	f := filepath.Join(root, "file")
	if err := os.WriteFile(f, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{f, filepath.Join(root, "absent")} {
		if _, err := Describe(p); err == nil || !strings.Contains(err.Error(), p) {
			t.Errorf("Describe(%s) err = %v, want an error naming the path", p, err)
		}
	}
}

func TestContentHashChangesWithContentAndName(t *testing.T) {
	base := map[string]string{"state.md": "1→ a ✓\n", "program.prose": "x", "bindings/a.md": "a"}
	h := func(files map[string]string) string {
		r, err := Describe(writeRun(t, t.TempDir(), "r", files))
		if err != nil {
			t.Fatal(err)
		}
		return r.ContentHash
	}
	h0 := h(base)
	if h1 := h(base); h1 != h0 {
		t.Errorf("same content, different hash: %s %s", h0, h1)
	}
	renamed := map[string]string{"state.md": "1→ a ✓\n", "program.prose": "x", "bindings/b.md": "a"}
	edited := map[string]string{"state.md": "1→ a ✓\n", "program.prose": "y", "bindings/a.md": "a"}
	for name, files := range map[string]map[string]string{"renamed": renamed, "edited": edited} {
		if h(files) == h0 {
			t.Errorf("%s run kept the hash %s", name, h0)
		}
	}
}

var cmpEmpty = cmpopts.EquateEmpty()

func cmpIgnore(fields ...string) cmp.Option { return cmpopts.IgnoreFields(inspection.Run{}, fields...) }

func TestLoadManifestNamesFileAndLineOfBadJSON(t *testing.T) {
	dir := writeRun(t, t.TempDir(), "r", map[string]string{"forme.manifest.json": "{\n  \"graph\": [\n    {\"id\": }\n  ]\n}\n"})
	_, err := LoadManifest(dir, inspection.EraVMLogForme)
	if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "forme.manifest.json")+":3:") {
		t.Errorf("err = %v, want the file and line 3", err)
	}
	r, err := Describe(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0], "forme.manifest.json:3") {
		t.Errorf("Describe warnings = %q, want the manifest error", r.Warnings)
	}
}
