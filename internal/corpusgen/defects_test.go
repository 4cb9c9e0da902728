package corpusgen

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// These tests read the written files, not the generator's internals: a
// label in MANIFEST.json must be visible on disk the way a checker would
// see it, and a clean run must show none of the defects.

var (
	markerOKRE = regexp.MustCompile(`(?m)^\d+[a-z]?(?:→|->) ([A-Za-z0-9_-]+) ✓`)
	mdOrderRE  = regexp.MustCompile(`(?m)^\d+\. (?:parallel: )?([^(]+?)(?: \(depends on: [^)]*\))?$`)
)

func logOf(tree map[string][]byte) (string, bool) {
	for _, name := range []string{"state.md", "vm.log.md"} {
		if b, ok := tree[name]; ok {
			return string(b), true
		}
	}
	return "", false
}

// completedServices are the services a log marks ✓, in log order,
// without [input] and [vm-action] markers and loop passes.
func completedServices(log string) []string {
	var out []string
	for _, m := range markerOKRE.FindAllStringSubmatch(log, -1) {
		out = append(out, m[1])
	}
	return out
}

// manifestSteps reads the declared execution order of eras 2-4 as a step
// number per service; parallel services share a step.
func manifestSteps(t *testing.T, tree map[string][]byte) map[string]int {
	t.Helper()
	steps := map[string]int{}
	switch {
	case tree["manifest.md"] != nil:
		text := string(tree["manifest.md"])
		text = text[strings.Index(text, "## Execution Order"):]
		for i, m := range mdOrderRE.FindAllStringSubmatch(text, -1) {
			for _, name := range strings.Split(m[1], ", ") {
				steps[strings.TrimSpace(name)] = i
			}
		}
	case tree["forme.manifest.json"] != nil:
		var fm struct {
			ExecutionOrder []struct {
				NodeID string `json:"nodeId"`
			} `json:"executionOrder"`
		}
		if err := json.Unmarshal(tree["forme.manifest.json"], &fm); err != nil {
			t.Fatal(err)
		}
		for i, e := range fm.ExecutionOrder {
			steps[e.NodeID] = i
		}
	case tree["compiled-intent.json"] != nil:
		var ci struct {
			ExecutionOrder []string `json:"executionOrder"`
		}
		if err := json.Unmarshal(tree["compiled-intent.json"], &ci); err != nil {
			t.Fatal(err)
		}
		for i, n := range ci.ExecutionOrder {
			steps[n] = i
		}
	}
	return steps
}

// outOfOrder reports whether the log completes a service before one the
// manifest orders strictly earlier.
func outOfOrder(log []string, steps map[string]int) bool {
	maxSeen := -1
	for _, s := range log {
		i, ok := steps[s]
		if !ok {
			continue
		}
		if i < maxSeen {
			return true
		}
		maxSeen = max(maxSeen, i)
	}
	return false
}

// hasPublished reports whether service s has a binding or world-model entry
// in any era's layout.
func hasPublished(tree map[string][]byte, s string) bool {
	for p := range tree {
		if p == "bindings/"+s+".md" || strings.HasPrefix(p, "bindings/"+s+"/") || strings.HasPrefix(p, "world-model/"+s+"/") {
			return true
		}
	}
	return false
}

func isOutput(p string) bool {
	return strings.HasPrefix(p, "bindings/") && !strings.HasPrefix(p, "bindings/caller/") ||
		strings.HasPrefix(p, "world-model/") && !strings.HasSuffix(p, "/published.json")
}

var placeholderRE = regexp.MustCompile(`TODO|TBD|(?i:lorem ipsum)|<placeholder>`)

func TestPlantedDefectsAreVisibleInTheFiles(t *testing.T) {
	dir, m := committedManifest(t)
	for _, e := range m.Runs {
		t.Run(e.ID, func(t *testing.T) {
			tree := readTree(t, filepath.Join(dir, e.ID))
			has := func(x string) bool {
				for _, d := range append(append([]string{}, e.Defects...), e.Features...) {
					if d == x {
						return true
					}
				}
				return false
			}
			log, hasLog := logOf(tree)
			ends := regexp.MustCompile(`(?m)^---end `).FindAllString(log, -1)
			errs := regexp.MustCompile(`(?m)^---error `).FindAllString(log, -1)

			if e.Invalid == invalidNoLog {
				if hasLog {
					t.Errorf("invalid %q but a log exists", e.Invalid)
				}
				return
			}
			if !hasLog {
				t.Fatalf("no log")
			}
			switch e.Outcome {
			case outcomeCompleted:
				if len(ends) == 0 || len(errs) > 0 {
					t.Errorf("completed run: %d ---end, %d ---error", len(ends), len(errs))
				}
				if has(featRepeatedEnd) != (len(ends) == 2) {
					t.Errorf("repeated-end = %v but %d ---end lines", has(featRepeatedEnd), len(ends))
				}
			case outcomeFailed:
				if len(errs) != 1 || len(ends) > 0 || !strings.Contains(log, "✗") {
					t.Errorf("failed run: %d ---error, %d ---end, ✗ present %v", len(errs), len(ends), strings.Contains(log, "✗"))
				}
			case outcomeIncomplete:
				if len(ends)+len(errs) > 0 {
					t.Errorf("incomplete run has a terminator")
				}
			}

			var errorFiles, empty, placeholder, truncated int
			for p, b := range tree {
				if strings.HasSuffix(p, "/__error.md") {
					errorFiles++
				}
				if !isOutput(p) {
					continue
				}
				if len(b) == 0 {
					empty++
					continue
				}
				if placeholderRE.Match(b) {
					placeholder++
				}
				if last := b[len(b)-1]; last != '\n' && last != '.' && last != ']' && last != '}' {
					truncated++
				}
			}
			wantErrorFile := has(DefectErrorFile) || has(DefectRecoveredError)
			checks := []struct {
				name  string
				want  bool
				count int
			}{
				{"__error.md files", wantErrorFile, errorFiles},
				{"empty outputs", has(DefectEmptyOutput), empty},
				{"placeholder outputs", has(DefectPlaceholder), placeholder},
				{"outputs cut mid-sentence", has(DefectTruncated), truncated},
			}
			for _, c := range checks {
				if c.want != (c.count > 0) {
					t.Errorf("%s: want present=%v, found %d", c.name, c.want, c.count)
				}
			}

			var unbound []string
			for _, s := range completedServices(log) {
				if !hasPublished(tree, s) {
					unbound = append(unbound, s)
				}
			}
			wantUnbound := has(DefectMissingBinding) || e.Invalid == invalidNoBindings
			if wantUnbound != (len(unbound) > 0) {
				t.Errorf("services ✓ without binding: want present=%v, got %v", wantUnbound, unbound)
			}
			if has(DefectSkippedUnbound) && !strings.Contains(log, "∅ skipped") {
				t.Errorf("skipped-unbound run has no ∅ skipped marker")
			}

			if steps := manifestSteps(t, tree); len(steps) > 0 {
				if got := outOfOrder(completedServices(log), steps); got != has(DefectOrderMismatch) {
					t.Errorf("log out of manifest order = %v, want %v", got, has(DefectOrderMismatch))
				}
			} else if e.Era > 1 && e.Invalid == "" {
				t.Errorf("era %d run without a readable execution order", e.Era)
			}

			if has(featASCIIArrows) != strings.Contains(log, "-> ") {
				t.Errorf("ascii-arrows = %v but log has '-> ': %v", has(featASCIIArrows), strings.Contains(log, "-> "))
			}
			if has(featFrontMatter) != strings.HasPrefix(log, "---\n") {
				t.Errorf("yaml-front-matter = %v but log starts %q", has(featFrontMatter), log[:min(len(log), 10)])
			}
			if has(featParallel) != strings.Contains(log, "∥start") {
				t.Errorf("parallel-block = %v but ∥start present = %v", has(featParallel), strings.Contains(log, "∥start"))
			}
			if e.Invalid == invalidNoSource {
				for _, p := range []string{"root.prose.md", "forme.manifest.json"} {
					if tree[p] != nil {
						t.Errorf("invalid %q but %s exists", e.Invalid, p)
					}
				}
			}
		})
	}
}

func TestWriteTreeReplacesACorpusButRefusesOtherDirectories(t *testing.T) {
	parent := t.TempDir()
	foreign := filepath.Join(parent, "notes")
	if err := os.MkdirAll(foreign, 0o755); err != nil {
		t.Fatal(err)
	}
	keep := filepath.Join(foreign, "keep.txt")
	if err := os.WriteFile(keep, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := WriteTree(foreign, Options{Seed: 1}); err == nil {
		t.Errorf("WriteTree replaced a directory without MANIFEST.json")
	}
	if b, err := os.ReadFile(keep); err != nil || string(b) != "mine" {
		t.Errorf("foreign file changed: %q, %v", b, err)
	}

	corpus := filepath.Join(parent, "runs")
	if _, err := WriteTree(corpus, Options{Seed: 3}); err != nil {
		t.Fatalf("first WriteTree: %v", err)
	}
	stale := filepath.Join(corpus, "stale.txt")
	if err := os.WriteFile(stale, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := WriteTree(corpus, Options{Seed: 3}); err != nil {
		t.Fatalf("second WriteTree: %v", err)
	}
	if _, err := os.Stat(stale); err == nil {
		t.Errorf("regeneration kept a stale file")
	}
	if ents, _ := os.ReadDir(parent); len(ents) != 2 {
		t.Errorf("parent holds %d entries after regeneration, want 2 (no temp dirs left)", len(ents))
	}
}

func TestGenerateRefusesANonEmptyDirectory(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "x"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Generate(dir, Options{Seed: 1}); err == nil {
		t.Errorf("Generate wrote into a non-empty directory")
	}
}

func TestTruncateMidSentenceStopsAfterAWordInsideASentence(t *testing.T) {
	// Hand-worked: len 42, two thirds is index 28 (the last letter of "sat");
	// the next space between letters is at 29, after "sat".
	body := "# T\n\nThe dog ran. The cat sat on the mat.\n"
	got := truncateMidSentence(body)
	if want := "# T\n\nThe dog ran. The cat sat"; got != want {
		t.Errorf("truncateMidSentence = %q, want %q", got, want)
	}
	if !bytes.HasPrefix([]byte(body), []byte(got)) {
		t.Errorf("result is not a prefix of the body")
	}
}
