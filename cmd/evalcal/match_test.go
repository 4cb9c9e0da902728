package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// savedDeep writes a saved-inspections file of deep lines for ids (the
// fields of testdata/inspections/twelve.jsonl's first deep line).
func savedDeep(t *testing.T, path string, ids []string) {
	t.Helper()
	var b strings.Builder
	for _, id := range ids {
		line, err := json.Marshal(map[string]any{"run_id": id, "system": "s", "depth": "deep", "runtime_fidelity": 80,
			"task_effectiveness": 75, "verdict": "pass", "summary": "label", "flags": []any{}, "services": []any{},
			"cost": map[string]any{"seconds": 0, "tokens": 0, "usd": 0}})
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// runIDs returns the ids (directory names) of testdata/runs, sorted.
func runIDs(t *testing.T) []string {
	t.Helper()
	es, err := os.ReadDir(filepath.Join(repoRoot(t), "testdata/runs"))
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, e := range es {
		if e.IsDir() {
			ids = append(ids, e.Name())
		}
	}
	sort.Strings(ids)
	return ids
}

// A saved deep side whose run ids match none of the runs found, or too
// few of them both ways, stops the run with exit 2 before any light call
// (counted by testdata/inspectors/counting.sh), naming ids of both
// (issue 28, item 6). Labels of a subset of the runs, all of them among
// the runs found, are not refused.
func TestRunRefusesASavedSideOfOtherRunsBeforeAnyCall(t *testing.T) {
	skipShort(t)
	root := repoRoot(t)
	dir := t.TempDir()
	found := runIDs(t)
	other := []string{"20261101-090000-a1b2c3", "20261101-091500-b2c3d4", "20261101-093000-c3d4e5", "20261102-100000-d4e5f6",
		"20261102-101500-e5f6a7", "20261102-103000-f6a7b8", "20261103-110000-a7b8c9", "20261103-111500-b8c9d0"}
	light := "exec:sh " + filepath.Join(root, "testdata/inspectors/counting.sh") + " {depth}"
	for _, tt := range []struct {
		name   string
		ids    []string
		refuse string // in stderr when refused, "" when the run goes on
		// example is a run found, not in the file, the message names.
		example string
	}{
		{"none match", other, "holds 8 run ids and none of them match the 49 runs found", found[0]},
		{"2 of 10 match", append(append([]string{}, other...), found[0], found[1]), "holds 10 run ids and only 2 of them match", found[2]},
		{"a subset of the runs", found[:5], "", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			calls := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "-")+".calls")
			labels := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "-")+".jsonl")
			savedDeep(t, labels, tt.ids)
			r := runBinary(t, binOptions{env: []string{"EVALCAL_TEST_CALLS=" + calls}}, "run", "--no-cache", "--quiet",
				"--allow-homogeneous", "--light", light, "--deep", "saved:"+labels, "-o", filepath.Join(dir, "r.yaml"), "testdata/runs")
			_, statErr := os.Stat(calls)
			if tt.refuse == "" {
				if r.code == 2 || os.IsNotExist(statErr) {
					t.Errorf("a subset of the runs was refused (exit %d) or made no light call:\n%s", r.code, r.stderr)
				}
				return
			}
			if r.code != 2 || !os.IsNotExist(statErr) {
				t.Errorf("exit %d (want 2), light calls made: %v\n%s", r.code, statErr == nil, r.stderr)
			}
			for _, want := range []string{tt.refuse, other[0], tt.example} {
				if !strings.Contains(r.stderr, want) {
					t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
				}
			}
		})
	}
}
