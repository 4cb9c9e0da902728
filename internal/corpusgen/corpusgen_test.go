package corpusgen

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// committed is the corpus in the repository, relative to this package.
const committed = "../../testdata/runs"

// readTree maps every file under dir (slash paths) to its content.
func readTree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		out[filepath.ToSlash(rel)] = b
		return nil
	})
	if err != nil {
		t.Fatalf("read tree %s: %v", dir, err)
	}
	return out
}

// diffTrees lists paths missing from either tree or differing in content.
func diffTrees(a, b map[string][]byte) []string {
	var diffs []string
	for p, x := range a {
		y, ok := b[p]
		switch {
		case !ok:
			diffs = append(diffs, "only in first: "+p)
		case !bytes.Equal(x, y):
			diffs = append(diffs, "differs: "+p)
		}
	}
	for p := range b {
		if _, ok := a[p]; !ok {
			diffs = append(diffs, "only in second: "+p)
		}
	}
	sort.Strings(diffs)
	return diffs
}

func generate(t *testing.T, seed uint64) (string, Manifest) {
	t.Helper()
	dir := t.TempDir()
	if _, err := Generate(dir, Options{Seed: seed}); err != nil {
		t.Fatalf("Generate(seed %d): %v", seed, err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "MANIFEST.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("MANIFEST.json: %v", err)
	}
	return dir, m
}

func TestCommittedCorpusIsByteIdenticalToItsGenerator(t *testing.T) {
	if _, err := os.Stat(committed); err != nil {
		t.Fatalf("committed corpus: %v", err)
	}
	dir, m := generate(t, 1)
	if diffs := diffTrees(readTree(t, committed), readTree(t, dir)); len(diffs) > 0 {
		if len(diffs) > 10 {
			diffs = append(diffs[:10], "...")
		}
		t.Errorf("testdata/runs (first) drifted from the generator (second); run `%s`:\n%s", m.Command, strings.Join(diffs, "\n"))
	}
}

// Determinism for one seed is TestCommittedCorpusIsByteIdenticalToItsGenerator
// (an earlier process wrote the committed tree); here the seed must matter.
func TestAnotherSeedGivesAnotherTree(t *testing.T) {
	other, _ := generate(t, 8)
	if diffs := diffTrees(readTree(t, committed), readTree(t, other)); len(diffs) == 0 {
		t.Errorf("seeds 1 and 8 gave the same tree")
	}
}

// committedManifest reads the committed corpus's MANIFEST.json; the
// tests below check the committed tree, which the drift test ties to the
// generator.
func committedManifest(t *testing.T) (string, Manifest) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(committed, "MANIFEST.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("MANIFEST.json: %v", err)
	}
	return committed, m
}

var runDirRE = regexp.MustCompile(`^\d{8}-\d{6}-[0-9a-f]{6}$`)

func TestCorpusHasTheMixTheBriefAsksFor(t *testing.T) {
	dir, m := committedManifest(t)
	eras, systems, defects := map[int]int{}, map[string]int{}, map[string]int{}
	var valid, invalid, clean, matches, large int
	var total int64
	for _, e := range m.Runs {
		if !runDirRE.MatchString(e.ID) {
			t.Errorf("run dir name %q is not {YYYYMMDD}-{HHMMSS}-{rand6}", e.ID)
		}
		eras[e.Era]++
		systems[e.System]++
		for _, d := range e.Defects {
			defects[d]++
		}
		total += e.Bytes
		if !e.Valid {
			invalid++
			continue
		}
		valid++
		if e.Outcome == outcomeCompleted && len(e.Defects) == 0 {
			clean++
		}
		if e.LightVerdict == e.DeepVerdict {
			matches++
		}
	}
	dirs, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		tree := readTree(t, filepath.Join(dir, d.Name()))
		for _, b := range tree {
			if len(b) >= 90_000 {
				large++
				break
			}
		}
	}
	if len(m.Runs) < 36 {
		t.Errorf("runs = %d, want >= 36", len(m.Runs))
	}
	if len(eras) != 4 {
		t.Errorf("eras = %v, want all four", eras)
	}
	if len(systems) < 5 {
		t.Errorf("systems = %v, want >= 5", systems)
	}
	if invalid < 2 || invalid > 3 {
		t.Errorf("invalid runs = %d, want 2 or 3", invalid)
	}
	if f := float64(clean) / float64(valid); f < 0.50 || f > 0.60 {
		t.Errorf("clean runs = %d of %d valid (%.2f), want about 55%%", clean, valid, f)
	}
	if f := float64(matches) / float64(valid); f < 0.75 || f > 0.85 {
		t.Errorf("expected verdict agreement = %d of %d (%.2f), want 75-85%%", matches, valid, f)
	}
	if large < 2 {
		t.Errorf("runs with a ~100 KB output = %d, want >= 2", large)
	}
	if total > 2<<20 {
		t.Errorf("corpus is %d bytes, want under 2 MiB", total)
	}
	for _, d := range []string{DefectMissingBinding, DefectErrorFile, DefectEmptyOutput, DefectOrderMismatch,
		DefectPlaceholder, DefectTruncated, DefectSkippedUnbound, DefectRecoveredError} {
		if defects[d] == 0 {
			t.Errorf("no run plants %s", d)
		}
	}
}
