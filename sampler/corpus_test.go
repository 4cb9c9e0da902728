package sampler

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// corpusEntry is the part of testdata/runs/MANIFEST.json (written by the
// corpus generator, independently of the sampler) that the sampler must
// reproduce.
type corpusEntry struct {
	ID      string `json:"id"`
	Layout  string `json:"layout"`
	System  string `json:"system"`
	Bytes   int64  `json:"bytes"`
	Files   int    `json:"files"`
	Outcome string `json:"outcome"`
	Valid   bool   `json:"valid"`
}

func loadCorpus(t *testing.T) (string, []corpusEntry) {
	t.Helper()
	root := filepath.Join("..", "testdata", "runs")
	b, err := os.ReadFile(filepath.Join(root, "MANIFEST.json"))
	if err != nil {
		t.Skipf("no bundled corpus: %v", err)
	}
	var m struct {
		Runs []corpusEntry `json:"runs"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return root, m.Runs
}

func TestDiscoverDescribesTheBundledCorpusAsPlanted(t *testing.T) {
	root, entries := loadCorpus(t)
	runs, err := Discover([]string{root})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]corpusEntry{}
	for _, r := range runs {
		e := corpusEntry{ID: r.ID, Layout: string(r.Era), System: r.System, Bytes: r.SizeBytes, Files: r.Files,
			Outcome: string(r.Status), Valid: r.Valid}
		got[r.ID] = e
	}
	want := map[string]corpusEntry{}
	for _, e := range entries {
		if !e.Valid {
			// An invalid run's status or system may be unknowable (no
			// log, no manifest); only its invalidity is checked.
			g := got[e.ID]
			e.Outcome, e.System = g.Outcome, g.System
		}
		want[e.ID] = e
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Discover vs MANIFEST.json (-want +got):\n%s", d)
	}
}

func TestSelectOnTheBundledCorpusSpreadsAndRepeats(t *testing.T) {
	root, _ := loadCorpus(t)
	runs, err := Discover([]string{root})
	if err != nil {
		t.Fatal(err)
	}
	a, err := Select(runs, SelectOptions{N: 12, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Select(runs, SelectOptions{N: 12, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(a, b); d != "" {
		t.Errorf("two selections with one seed differ:\n%s", d)
	}
	c := a.Composition
	if c.Sampled != 12 || len(c.Systems) < 6 || c.Statuses["failed"] == 0 || c.Statuses["incomplete"] == 0 {
		t.Errorf("sample of 12 is not diverse: %+v", c)
	}
	for name, n := range c.SizeTerciles {
		if n != 4 {
			t.Errorf("tercile %s has %d of 12 runs, want 4", name, n)
		}
	}
}
