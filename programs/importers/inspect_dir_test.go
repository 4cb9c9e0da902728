package importers

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// writeDir writes name -> content files into a new directory.
func writeDir(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// A log directory (logs/, as inspect_ai keeps them) is read as one source:
// every log's samples are runs named FILE/ID, of the log's task; the
// manifest, hidden files and other extensions are skipped; a file that is
// no log is listed and the others are read (issue 28).
func TestInspectReadsALogDirectory(t *testing.T) {
	dir := writeDir(t, map[string]string{
		"a.json": logJSON("alpha", 1, sample("1", 1, `{"s": {"value": "C"}}`), sample("2", 1, `{"s": {"value": "I"}}`)),
		// Same sample ids in another log, two epochs: its own runs.
		"b.json":       logJSON("beta", 2, sample("1", 1, `{"s": {"value": "I"}}`), sample("1", 2, `{"s": {"value": "C"}}`)),
		"broken.json":  `{"eval": {`,
		"logs.json":    `{"a.json": {"eval": {}}}`,
		".hidden.json": logJSON("h", 1, sample("9", 1, `{"s": {"value": "C"}}`)),
		"notes.txt":    "not a log",
	})
	src, runs, err := LoadInspect(context.Background(), dir, "s")
	if err != nil {
		t.Fatal(err)
	}
	var ids, systems []string
	for _, r := range runs {
		ids = append(ids, r.ID)
		systems = append(systems, r.System)
	}
	if want := []string{"a.json/1", "a.json/2", "b.json/1#1", "b.json/1#2"}; !slices.Equal(ids, want) {
		t.Errorf("run ids %v, want %v", ids, want)
	}
	if want := []string{"alpha", "alpha", "beta", "beta"}; !slices.Equal(systems, want) {
		t.Errorf("systems %v, want %v", systems, want)
	}
	got := inspectAll(t, src, runs)
	for id, verdict := range map[string]string{"a.json/1": "pass", "a.json/2": "fail", "b.json/1#1": "fail", "b.json/1#2": "pass"} {
		if got[id].Verdict != verdict {
			t.Errorf("%s: verdict %q, want %q", id, got[id].Verdict, verdict)
		}
	}
	un := src.Unattributed()
	if len(un) != 1 || !strings.Contains(un[0], "broken.json") || !strings.HasSuffix(un[0], "left out") {
		t.Errorf("unattributed %q, want the broken log alone", un)
	}
	if !strings.HasPrefix(src.Identity(), "inspect:") || !strings.HasSuffix(src.Identity(), "#s") {
		t.Errorf("identity %q", src.Identity())
	}
}

// The directory's identity changes when a log in it changes.
func TestInspectLogDirectoryIdentityFollowsItsLogs(t *testing.T) {
	one := writeDir(t, map[string]string{"a.json": logJSON("t", 1, sample("1", 1, `{"s": {"value": "C"}}`))})
	two := writeDir(t, map[string]string{"a.json": logJSON("t", 1, sample("1", 1, `{"s": {"value": "I"}}`))})
	s1, _, err1 := LoadInspect(context.Background(), one, "s")
	s2, _, err2 := LoadInspect(context.Background(), two, "s")
	if err := errors.Join(err1, err2); err != nil {
		t.Fatal(err)
	}
	if s1.Identity() == s2.Identity() {
		t.Errorf("two directories with different logs share identity %q", s1.Identity())
	}
}

// The real inspect_ai logs in ../shared, as a directory: each .json and
// .eval log's samples are there.
func TestInspectReadsTheRealLogsAsADirectory(t *testing.T) {
	dir := filepath.Join("..", "..", "..", "shared", "inspect-samples")
	if _, err := os.Stat(dir); err != nil {
		t.Skip("no ../shared/inspect-samples")
	}
	_, runs, err := LoadInspect(context.Background(), dir, "match")
	if err != nil {
		t.Fatal(err)
	}
	var popularity int
	for _, r := range runs {
		if strings.HasPrefix(r.ID, "2025-05-12T20-28-13-04-00_popularity.json/") {
			popularity++
		}
	}
	if popularity != 3 {
		t.Errorf("%d runs of the popularity log, want its 3 samples (runs %v)", popularity, runs)
	}
}
