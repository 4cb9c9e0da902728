// Package corpusgen writes the bundled corpus of synthetic OpenProse run
// directories (testdata/runs): every era of docs/DESIGN.md, several systems,
// sizes from tiny to about 100 KB outputs, clean, failed and incomplete
// runs, planted defects and a few invalid runs, with a MANIFEST that says
// what a structural light check and a deep check should see in each run.
//
// The corpus is a pure function of the seed: runs come from a fixed plan,
// each run draws its timestamps, id and text from its own PCG stream
// (math/rand/v2) seeded by the seed and the run's plan index, files are
// written in sorted order, and nothing reads the clock.
package corpusgen

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// Options configure a corpus.
type Options struct {
	// Seed selects timestamps, run ids and text; the plan is fixed.
	Seed uint64
}

// Entry describes one generated run: what was planted and what a light
// and a deep inspection are expected to report. It is one row of
// MANIFEST.json.
type Entry struct {
	ID string `json:"id"`
	// Era is 1..4 as in docs/DESIGN.md; Layout is the sampler's name for it.
	Era    int    `json:"era"`
	Layout string `json:"layout"`
	System string `json:"system"`
	// Size is the size class (tiny, small, medium, large); Bytes and
	// Files are measured on the written directory.
	Size  string `json:"size"`
	Bytes int64  `json:"bytes"`
	Files int    `json:"files"`
	// Outcome is completed, failed or incomplete, as the log says.
	Outcome string `json:"outcome"`
	Valid   bool   `json:"valid"`
	// Invalid is why the sampler should reject the run; empty when Valid.
	Invalid  string   `json:"invalid,omitempty"`
	Defects  []string `json:"defects"`
	Features []string `json:"features"`
	// LightSees and DeepSees are finding ids a structural light check and
	// a deep check should report; the verdicts follow docs/DESIGN.md's rule.
	LightSees    []string `json:"light_sees"`
	DeepSees     []string `json:"deep_sees"`
	LightVerdict string   `json:"light_verdict,omitempty"`
	DeepVerdict  string   `json:"deep_verdict,omitempty"`
	// Notes say where each defect was planted.
	Notes []string `json:"notes"`
}

// Manifest is the content of MANIFEST.json.
type Manifest struct {
	Generator string  `json:"generator"`
	Command   string  `json:"command"`
	Seed      uint64  `json:"seed"`
	Runs      []Entry `json:"runs"`
}

// layoutName maps an era number to the sampler's era name.
func layoutName(era int) string {
	return map[int]string{1: "state-md-v1", 2: "state-md-v2", 3: "vmlog-forme", 4: "reactor"}[era]
}

// Generate writes the corpus into dir, which must not exist or be empty,
// and returns its entries sorted by run id. Besides the run directories
// it writes MANIFEST.json, MANIFEST.md and README.md.
func Generate(dir string, opts Options) ([]Entry, error) {
	if ents, err := os.ReadDir(dir); err == nil && len(ents) > 0 {
		return nil, fmt.Errorf("corpusgen: generate into %s: directory is not empty", dir)
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("corpusgen: generate into %s: %w", dir, err)
	}
	var entries []Entry
	seen := map[string]bool{}
	for i, sp := range corpusPlan() {
		ru, err := newRun(opts.Seed, i, sp)
		if err != nil {
			return nil, err
		}
		if seen[ru.id] {
			return nil, fmt.Errorf("corpusgen: plan entry %d: duplicate run id %s", i, ru.id)
		}
		seen[ru.id] = true
		f, err := ru.layout()
		if err != nil {
			return nil, err
		}
		size, err := writeFiles(filepath.Join(dir, ru.id), f)
		if err != nil {
			return nil, err
		}
		entries = append(entries, ru.entry(size, len(f)))
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].ID < entries[j].ID })
	m := Manifest{Generator: "internal/corpusgen", Command: regenerateCommand(opts), Seed: opts.Seed, Runs: entries}
	js, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("corpusgen: manifest: %w", err)
	}
	top := files{
		"MANIFEST.json": string(js) + "\n",
		"MANIFEST.md":   manifestMarkdown(m),
		"README.md":     readme(m),
	}
	if _, err := writeFiles(dir, top); err != nil {
		return nil, err
	}
	return entries, nil
}

func regenerateCommand(opts Options) string {
	return fmt.Sprintf("go run ./testdata/genruns -out testdata/runs -seed %d", opts.Seed)
}

func (ru *run) entry(size int64, nfiles int) Entry {
	e := Entry{
		ID: ru.id, Era: ru.sp.era, Layout: layoutName(ru.sp.era), System: ru.sys.name,
		Size: ru.sp.size, Bytes: size, Files: nfiles, Outcome: ru.sp.outcome,
		Valid: ru.sp.invalid == "", Invalid: ru.sp.invalid,
		Defects: append([]string{}, ru.sp.defects...), Notes: append([]string{}, ru.notes...),
	}
	feats := map[string]bool{}
	for _, f := range ru.sp.features {
		feats[f] = true
	}
	for _, st := range ru.logStages {
		if len(st) > 1 && ru.state[st[0]] != stateNotReached && !ru.allSkipped(st) && !ru.sp.has(featHeaderOnly) {
			feats[featParallel] = true
		}
		for _, id := range st {
			if ru.state[id] == stateSkipped {
				feats[featSkippedOptional] = true
			}
		}
	}
	e.Features = append([]string{}, slices.Sorted(maps.Keys(feats))...)
	if e.Valid {
		e.LightSees, e.DeepSees, e.LightVerdict, e.DeepVerdict = expectations(ru.sp)
	} else {
		e.LightSees, e.DeepSees = []string{}, []string{}
	}
	return e
}

// writeFiles writes f under dir in sorted path order and returns the
// total bytes written.
func writeFiles(dir string, f files) (int64, error) {
	paths := make([]string, 0, len(f))
	for p := range f {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var total int64
	for _, p := range paths {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return 0, fmt.Errorf("corpusgen: mkdir %s: %w", filepath.Dir(full), err)
		}
		if err := os.WriteFile(full, []byte(f[p]), 0o644); err != nil {
			return 0, fmt.Errorf("corpusgen: write %s: %w", full, err)
		}
		total += int64(len(f[p]))
	}
	return total, nil
}

// WriteTree regenerates the corpus at dir: it generates into a sibling
// temporary directory, then replaces dir. It refuses to replace a
// non-empty dir that has no MANIFEST.json, so a wrong -out cannot delete
// unrelated files.
func WriteTree(dir string, opts Options) ([]Entry, error) {
	dir = filepath.Clean(dir)
	ents, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, fmt.Errorf("corpusgen: read %s: %w", dir, err)
	case len(ents) > 0:
		if _, err := os.Stat(filepath.Join(dir, "MANIFEST.json")); err != nil {
			return nil, fmt.Errorf("corpusgen: refusing to replace %s: it is not a generated corpus (no MANIFEST.json): %w", dir, err)
		}
	}
	parent := filepath.Dir(dir)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, fmt.Errorf("corpusgen: mkdir %s: %w", parent, err)
	}
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(dir)+"-gen-")
	if err != nil {
		return nil, fmt.Errorf("corpusgen: temp dir: %w", err)
	}
	entries, err := Generate(tmp, opts)
	if err != nil {
		return nil, errors.Join(err, os.RemoveAll(tmp))
	}
	if err := os.RemoveAll(dir); err != nil {
		return nil, errors.Join(fmt.Errorf("corpusgen: remove old %s: %w", dir, err), os.RemoveAll(tmp))
	}
	if err := os.Rename(tmp, dir); err != nil {
		return nil, fmt.Errorf("corpusgen: rename %s to %s: %w", tmp, dir, err)
	}
	// MkdirTemp creates 0700; the corpus is ordinary repository content.
	if err := os.Chmod(dir, 0o755); err != nil {
		return nil, fmt.Errorf("corpusgen: chmod %s: %w", dir, err)
	}
	return entries, nil
}

// countBy counts entries by a key of each entry.
func countBy(entries []Entry, key func(Entry) string) map[string]int {
	out := map[string]int{}
	for _, e := range entries {
		out[key(e)]++
	}
	return out
}

// joinOrDash joins xs with ", " or gives "-" for none.
func joinOrDash(xs []string) string {
	if len(xs) == 0 {
		return "-"
	}
	return strings.Join(xs, ", ")
}
