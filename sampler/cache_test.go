package sampler

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/evalcal/evalcal/inspection"
)

func discoverWithCache(t *testing.T, root, cacheDir string) Discovery {
	t.Helper()
	d, err := DiscoverContext(context.Background(), []string{root}, DiscoverOptions{HashCache: cacheDir, racy: -1})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// A rerun with a warm cache serves every unchanged run from it, with a
// description identical to a fresh one, and re-describes exactly the
// runs whose tree changed.
func TestDescribeCacheServesUnchangedRunsOnly(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{"state.md": "1→ a ✓\n---end T\n", "program.prose": "let a = session \"x\"\n", "bindings/a.md": "first"}
	var dirs []string
	for _, id := range []string{"20260101-000000-aaaaaa", "20260102-000000-bbbbbb", "20260103-000000-cccccc", "20260104-000000-dddddd"} {
		dirs = append(dirs, writeRun(t, root, id, files))
	}
	// Links and empty directories are recorded too, and match on rerun.
	symlink(t, "a.md", filepath.Join(dirs[3], "bindings", "b.md"))
	symlink(t, "/elsewhere", filepath.Join(dirs[3], "out"))
	if err := os.Mkdir(filepath.Join(dirs[3], "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	cacheDir := t.TempDir()
	cold := discoverWithCache(t, root, cacheDir)
	if cold.Described != 4 || cold.Cached != 0 {
		t.Fatalf("cold: described %d cached %d", cold.Described, cold.Cached)
	}
	warm := discoverWithCache(t, root, cacheDir)
	if warm.Described != 0 || warm.Cached != 4 || len(warm.Warnings) > 0 {
		t.Fatalf("warm: described %d cached %d warnings %q", warm.Described, warm.Cached, warm.Warnings)
	}
	if d := cmp.Diff(cold.Runs, warm.Runs); d != "" {
		t.Errorf("cached descriptions differ from fresh ones (-fresh +cached):\n%s", d)
	}

	// Each edit touches one run; that run alone is described again and
	// its description is the fresh one.
	edits := []struct {
		name string
		edit func(t *testing.T, dir string)
	}{
		{"content and size", func(t *testing.T, dir string) {
			writeFile(t, filepath.Join(dir, "bindings", "a.md"), "second!")
		}},
		{"same size, other mtime", func(t *testing.T, dir string) {
			p := filepath.Join(dir, "bindings", "a.md")
			fi, err := os.Stat(p)
			if err != nil {
				t.Fatal(err)
			}
			writeFile(t, p, "FIRST")
			if err := os.Chtimes(p, fi.ModTime(), fi.ModTime().Add(-time.Hour)); err != nil {
				t.Fatal(err)
			}
		}},
		{"empty directory added", func(t *testing.T, dir string) {
			if err := os.Mkdir(filepath.Join(dir, "services"), 0o755); err != nil {
				t.Fatal(err)
			}
		}},
		{"file removed", func(t *testing.T, dir string) {
			if err := os.Remove(filepath.Join(dir, "bindings", "a.md")); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for i, e := range edits {
		dir := dirs[i]
		e.edit(t, dir)
		got := discoverWithCache(t, root, cacheDir)
		if got.Described != 1 || got.Cached != 3 {
			t.Errorf("%s: described %d cached %d, want 1 and 3", e.name, got.Described, got.Cached)
		}
		fresh, err := Describe(dir)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(fresh, got.Runs[i]); d != "" {
			t.Errorf("%s: (-fresh +discovered):\n%s", e.name, d)
		}
		if got.Runs[i].ContentHash == cold.Runs[i].ContentHash {
			t.Errorf("%s: content hash unchanged", e.name)
		}
	}
}

func writeFile(t *testing.T, p, content string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Issue 13.12's rule for this cache: an edited entry is not trusted.
func TestDescribeCacheRecomputesACorruptEntry(t *testing.T) {
	root := t.TempDir()
	dir := writeRun(t, root, "20260101-000000-aaaaaa", map[string]string{"state.md": "1→ a ✓\n", "program.prose": "x", "bindings/a.md": "a"})
	cacheDir := t.TempDir()
	fresh := discoverWithCache(t, root, cacheDir)
	entry := openDescribeCache(cacheDir).file(dir)
	b, err := os.ReadFile(entry)
	if err != nil {
		t.Fatal(err)
	}
	// Lie in the payload: mark the run invalid without fixing the checksum.
	// The description ends with its valid field, "1;" for a valid run.
	if !strings.HasSuffix(string(b), "1;") {
		t.Fatalf("entry has no valid field: %s", b)
	}
	forged := strings.TrimSuffix(string(b), "1;") + "0;"
	writeFile(t, entry, forged)
	got := discoverWithCache(t, root, cacheDir)
	if got.Described != 1 || !strings.Contains(strings.Join(got.Warnings, "\n"), "checksum mismatch") {
		t.Errorf("described %d, warnings %q: want the entry recomputed with a warning", got.Described, got.Warnings)
	}
	if d := cmp.Diff(fresh.Runs, got.Runs); d != "" {
		t.Errorf("forged entry served (-fresh +got):\n%s", d)
	}
	// The entry was rewritten and verifies again.
	if again := discoverWithCache(t, root, cacheDir); again.Cached != 1 {
		t.Errorf("after recompute: cached %d, want 1", again.Cached)
	}
}

// An entry of an earlier version (sampler-describe/1: a JSON header,
// checksummed as now) is stale, not corrupt: the run is described again
// without a warning, and the entry replaced.
func TestDescribeCacheTakesAnOldVersionsEntryAsStale(t *testing.T) {
	root := t.TempDir()
	dir := writeRun(t, root, "20260101-000000-aaaaaa", map[string]string{"state.md": "1→ a ✓\n", "program.prose": "x", "bindings/a.md": "a"})
	cacheDir := t.TempDir()
	discoverWithCache(t, root, cacheDir)
	entry := openDescribeCache(cacheDir).file(dir)
	payload := `{"version":"sampler-describe/1","build":"x","dir":"` + dir + `","abs":"` + dir + `"}` + "\n{}\n"
	sum := sha256.Sum256([]byte(payload))
	writeFile(t, entry, cacheMagic+hex.EncodeToString(sum[:])+"\n"+payload)
	got := discoverWithCache(t, root, cacheDir)
	if got.Described != 1 || len(got.Warnings) != 0 {
		t.Errorf("described %d, warnings %q: want the run described again, silently", got.Described, got.Warnings)
	}
	if again := discoverWithCache(t, root, cacheDir); again.Cached != 1 {
		t.Errorf("after the upgrade: cached %d, want 1", again.Cached)
	}
}

// An entry is for one directory as given: the same run named another
// way is described again (its warnings and Path name it that way).
func TestDescribeCacheKeysOnTheDirectoryAsGiven(t *testing.T) {
	root := t.TempDir()
	writeRun(t, root, "20260101-000000-aaaaaa", map[string]string{"state.md": "1→ a ✓\n", "program.prose": "x", "bindings/a.md": "a"})
	cacheDir := t.TempDir()
	discoverWithCache(t, root, cacheDir)
	t.Chdir(filepath.Dir(root))
	rel := filepath.Base(root)
	got := discoverWithCache(t, rel, cacheDir)
	if got.Cached != 0 || got.Runs[0].Path != filepath.Join(rel, "20260101-000000-aaaaaa") {
		t.Errorf("cached %d, path %s; want described again under the relative path", got.Cached, got.Runs[0].Path)
	}
	if again := discoverWithCache(t, rel, cacheDir); again.Cached != 1 {
		t.Errorf("relative path again: cached %d, want 1", again.Cached)
	}
}

// A run whose files changed within racyWindow of its listing is not
// stored: an edit in the same mtime tick would go unseen.
func TestDescribeCacheDoesNotStoreRacilyCleanRuns(t *testing.T) {
	root := t.TempDir()
	writeRun(t, root, "20260101-000000-aaaaaa", map[string]string{"state.md": "1→ a ✓\n", "program.prose": "x", "bindings/a.md": "a"})
	cacheDir := t.TempDir()
	for range 2 {
		d, err := DiscoverContext(context.Background(), []string{root}, DiscoverOptions{HashCache: cacheDir})
		if err != nil {
			t.Fatal(err)
		}
		if d.Cached != 0 {
			t.Fatalf("a run written just now was served from the cache")
		}
	}
}

func TestDescribeCacheThatCannotBeWrittenOnlyWarns(t *testing.T) {
	root := t.TempDir()
	writeRun(t, root, "20260101-000000-aaaaaa", map[string]string{"state.md": "1→ a ✓\n", "program.prose": "x", "bindings/a.md": "a"})
	notADir := filepath.Join(t.TempDir(), "file")
	writeFile(t, notADir, "x")
	d, err := DiscoverContext(context.Background(), []string{root}, DiscoverOptions{HashCache: notADir, racy: -1})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Runs) != 1 || !d.Runs[0].Valid || len(d.Warnings) != 1 || !strings.Contains(d.Warnings[0], "unusable") {
		t.Errorf("runs %d, warnings %q", len(d.Runs), d.Warnings)
	}
}

// The bundled corpus described through a warm cache equals the corpus
// described fresh, run for run.
func TestDescribeCacheOnTheBundledCorpus(t *testing.T) {
	root, _ := loadCorpus(t)
	cacheDir := t.TempDir()
	cold := discoverWithCache(t, root, cacheDir)
	warm := discoverWithCache(t, root, cacheDir)
	if warm.Cached != len(cold.Runs) || warm.Described != 0 {
		t.Errorf("warm: cached %d described %d of %d", warm.Cached, warm.Described, len(cold.Runs))
	}
	plain, err := Discover([]string{root})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(plain, warm.Runs); d != "" {
		t.Errorf("(-uncached +cached):\n%s", d)
	}
}

// The entry parser never panics and serves an entry only when its header
// names this directory and code (and, checked inside get, its records
// match the tree), whatever the payload; the checksum is made valid so
// the fuzzer reaches the parser.
func FuzzDescribeCacheEntry(f *testing.F) {
	root := f.TempDir()
	dir := filepath.Join(root, "20260101-000000-aaaaaa")
	if err := os.MkdirAll(filepath.Join(dir, "bindings"), 0o755); err != nil {
		f.Fatal(err)
	}
	for name, content := range map[string]string{"state.md": "1→ a ✓\n", "program.prose": "x", "bindings/a.md": "a"} {
		if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(name)), []byte(content), 0o644); err != nil {
			f.Fatal(err)
		}
	}
	cacheDir := f.TempDir()
	if _, err := DiscoverContext(context.Background(), []string{root}, DiscoverOptions{HashCache: cacheDir, racy: -1}); err != nil {
		f.Fatal(err)
	}
	c := openDescribeCache(cacheDir)
	entry := c.file(dir)
	good, err := os.ReadFile(entry)
	if err != nil {
		f.Fatal(err)
	}
	_, payload, _ := strings.Cut(string(good), "\n")
	f.Add([]byte(payload))
	f.Add([]byte("1:x\n0 0 0 0 0 0 \".\"\n\n0:"))
	f.Add([]byte("18:sampler-describe/2\n\n"))
	f.Fuzz(func(t *testing.T, payload []byte) {
		sum := sha256.Sum256(payload)
		data := append([]byte(cacheMagic+hex.EncodeToString(sum[:])+"\n"), payload...)
		name := filepath.Join(t.TempDir(), "entry")
		if err := os.WriteFile(name, data, 0o644); err != nil {
			t.Fatal(err)
		}
		fc := &describeCache{dir: filepath.Dir(name), build: c.build, cwd: c.cwd}
		// Serve the fuzzed entry for dir by pointing the cache at it.
		if err := os.MkdirAll(filepath.Dir(fc.file(dir)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(name, fc.file(dir)); err != nil {
			t.Fatal(err)
		}
		_, ok := fc.get(dir)
		head, _, _ := strings.Cut(string(payload), "\n")
		if ok && (!strings.Contains(head, strconv.Itoa(len(dir))+":"+dir) || !strings.Contains(head, describeVersion)) {
			t.Errorf("served an entry whose header is not for %s by this code: %q", dir, head)
		}
	})
}

// A description survives the cache's encoding exactly, whatever its
// strings hold (separators, newlines, UTF-8, empty and nil lists).
func TestDescribeCacheEncodingRoundTrips(t *testing.T) {
	odd := []string{"", "a:b;c", "1:2;", "line\nbreak", "ünïcödé", strings.Repeat("x", 300)}
	for i := range 200 {
		pick := func(k int) string { return odd[(i+k)%len(odd)] }
		list := func(k int) []string {
			out := []string{}
			for j := range (i + k) % 4 {
				out = append(out, pick(j+k))
			}
			return out
		}
		r := inspection.Run{ID: pick(0), Path: pick(1), Era: inspection.Era(pick(2)), System: pick(3), Status: inspection.Status(pick(4)),
			ServicesDeclared: list(1), ServicesCompleted: list(2), ServicesErrored: list(3), ServicesSkipped: list(4),
			BindingsPresent: list(5), BindingsMissing: list(6), ErrorFiles: list(7),
			SizeBytes: int64(i) * 1_000_003, Files: i, ContentHash: pick(5), Valid: i%2 == 0, Invalid: pick(6)}
		if i%3 == 0 {
			r.Warnings = list(8)
		}
		if i%5 != 0 {
			r.Metadata = inspection.Metadata{}
			for j := range i % 4 {
				r.Metadata[pick(j)+strconv.Itoa(j)] = pick(j + 2)
			}
		}
		if len(r.Metadata) == 0 {
			r.Metadata = nil
		}
		normalizeRun(&r)
		got, err := decodeRun(string(encodeRun(r)))
		if err != nil {
			t.Fatalf("%d: %v", i, err)
		}
		normalizeRun(&got)
		if d := cmp.Diff(r, got); d != "" {
			t.Fatalf("%d: (-want +got):\n%s", i, d)
		}
	}
	if _, err := decodeRun("3:ab"); err == nil {
		t.Error("a truncated description decoded")
	}
}
