//go:build unix

package sampler

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/evalcal/evalcal/inspection"
)

// finishesWithin runs f and fails the test if it has not returned after
// d. A blocked f is left behind (the test binary exits anyway).
func finishesWithin(t *testing.T, d time.Duration, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("%s did not return within %v (blocked on a pipe?)", what, d)
	}
}

func mkfifo(t *testing.T, p string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
}

// Issue 13.1: a named pipe, or a symlink to one, where the sampler reads
// a manifest, a source, a log, receipts or a binding must never block
// (before the fix, a pipe named manifest.md blocked Describe forever).
func TestDescribeNeverOpensANamedPipe(t *testing.T) {
	cases := []struct {
		name  string // the pipe's path in the run
		files map[string]string
	}{
		{"manifest.md", map[string]string{"program.md": "# p\n", "state.md": "1→ a ✓\n---end T\n", "bindings/a/x.md": "x"}},
		{"program.prose", map[string]string{"state.md": "1→ a ✓\n---end T\n", "bindings/a.md": "x"}},
		{"forme.manifest.json", map[string]string{"vm.log.md": "1→ a ✓\n---end T\n", "root.prose.md": "# r\n", "bindings/a/x.md": "x"}},
		{"compiled-intent.json", map[string]string{"vm.log.md": "1→ a ✓\n---end T\n", "receipts/a.jsonl": "{\"node\":\"a\",\"status\":\"ok\"}\n", "world-model/a/published.json": "{}"}},
		{"compile/topology.json", map[string]string{"vm.log.md": "1→ a ✓\n", "receipts/a.jsonl": "{}\n", "world-model/a/published.json": "{}"}},
		{"receipts/b.jsonl", map[string]string{"compiled-intent.json": "{}", "vm.log.md": "1→ a ✓\n", "world-model/a/published.json": "{}"}},
		{"state.md", map[string]string{"program.prose": "let a = session \"x\"\n", "bindings/a.md": "x"}},
		{"root.prose.md", map[string]string{"vm.log.md": "1→ a ✓\n", "bindings/a/x.md": "x"}},
		{"bindings/a.md", map[string]string{"program.prose": "let a = session \"x\"\n", "state.md": "1→ a ✓\n---end T\n"}},
	}
	for _, c := range cases {
		for _, viaLink := range []bool{false, true} {
			name := c.name
			if viaLink {
				name += " via symlink"
			}
			t.Run(name, func(t *testing.T) {
				dir := writeRun(t, t.TempDir(), "20260101-000000-ffffff", c.files)
				pipe := filepath.Join(dir, filepath.FromSlash(c.name))
				if viaLink {
					mkfifo(t, filepath.Join(dir, "pipes", "p"))
					if err := os.MkdirAll(filepath.Dir(pipe), 0o755); err != nil {
						t.Fatal(err)
					}
					rel, _ := filepath.Rel(filepath.Dir(pipe), filepath.Join(dir, "pipes", "p"))
					if err := os.Symlink(rel, pipe); err != nil {
						t.Fatal(err)
					}
				} else {
					mkfifo(t, pipe)
				}
				var run inspection.Run
				var err error
				finishesWithin(t, 5*time.Second, "Describe", func() { run, err = Describe(dir) })
				if err != nil {
					t.Fatalf("Describe: %v", err)
				}
				if !strings.Contains(strings.Join(run.Warnings, "\n"), "not a regular file") {
					t.Errorf("warnings %q do not say a file is not regular", run.Warnings)
				}
				finishesWithin(t, 5*time.Second, "LoadManifest", func() {
					for _, era := range []inspection.Era{inspection.EraStateMDv1, inspection.EraStateMDv2, inspection.EraVMLogForme, inspection.EraReactor} {
						LoadManifest(dir, era)
					}
				})
				finishesWithin(t, 5*time.Second, "DiscoverContext", func() {
					_, err = DiscoverContext(context.Background(), []string{filepath.Dir(dir)}, DiscoverOptions{})
				})
				if err != nil {
					t.Errorf("DiscoverContext: %v", err)
				}
			})
		}
	}
}

func TestParseLogFileRefusesANamedPipe(t *testing.T) {
	p := filepath.Join(t.TempDir(), "state.md")
	mkfifo(t, p)
	var err error
	finishesWithin(t, 5*time.Second, "ParseLogFile", func() { _, err = ParseLogFile(p) })
	if !errors.Is(err, ErrNotRegular) {
		t.Errorf("err = %v, want ErrNotRegular", err)
	}
	d, derr := OpenRunDir(filepath.Dir(p))
	if derr != nil {
		t.Fatal(derr)
	}
	defer d.Close()
	finishesWithin(t, 5*time.Second, "RunDir.Open", func() { _, _, err = d.Open("state.md") })
	if !errors.Is(err, ErrNotRegular) {
		t.Errorf("RunDir.Open err = %v, want ErrNotRegular", err)
	}
	finishesWithin(t, 5*time.Second, "OpenRunDir", func() { _, err = OpenRunDir(p) })
	if err == nil {
		t.Error("OpenRunDir on a pipe succeeded")
	}
}

// A pipe is part of what an inspector sees: it changes the content hash
// (and is never opened to compute it).
func TestContentHashCoversANamedPipe(t *testing.T) {
	files := map[string]string{"state.md": "1→ a ✓\n", "program.prose": "x", "bindings/a.md": "a"}
	dir := writeRun(t, t.TempDir(), "r", files)
	before, err := Describe(dir)
	if err != nil {
		t.Fatal(err)
	}
	mkfifo(t, filepath.Join(dir, "services", "p"))
	after, err := Describe(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := referenceTreeHash(files, []refRecord{{path: "services/p", kind: "pipe"}})
	if after.ContentHash != want || after.ContentHash == before.ContentHash {
		t.Errorf("hash with a pipe = %s, want %s (and not %s)", after.ContentHash, want, before.ContentHash)
	}
}

// Issue 13.1, the cache half: a pipe where a describe cache entry should
// be is refused, reported, and replaced.
func TestDescribeCacheRefusesANamedPipeEntry(t *testing.T) {
	root := t.TempDir()
	dir := writeRun(t, root, "20260101-000000-aaaaaa", map[string]string{"state.md": "1→ a ✓\n", "program.prose": "x", "bindings/a.md": "a"})
	cacheDir := t.TempDir()
	c := openDescribeCache(cacheDir)
	mkfifo(t, c.file(dir))
	var d Discovery
	var err error
	finishesWithin(t, 5*time.Second, "DiscoverContext", func() {
		d, err = DiscoverContext(context.Background(), []string{root}, DiscoverOptions{HashCache: cacheDir, racy: -1})
	})
	if err != nil {
		t.Fatal(err)
	}
	if d.Described != 1 || !strings.Contains(strings.Join(d.Warnings, "\n"), "not a regular file") {
		t.Errorf("described %d, warnings %q: want 1 and a not-regular warning", d.Described, d.Warnings)
	}
	d, err = DiscoverContext(context.Background(), []string{root}, DiscoverOptions{HashCache: cacheDir, racy: -1})
	if err != nil || d.Cached != 1 {
		t.Errorf("second call: cached %d, err %v; want the pipe replaced by an entry", d.Cached, err)
	}
}

// Issue 13.2: cancellation stops discovery within 2 s even in the middle
// of hashing gigabytes (sparse files: no disk is used).
func TestDiscoverStopsWithinTwoSecondsOfCancel(t *testing.T) {
	root := t.TempDir()
	for _, id := range []string{"20260101-000000-aaaaaa", "20260101-000000-bbbbbb", "20260101-000000-cccccc", "20260101-000000-dddddd"} {
		dir := writeRun(t, root, id, map[string]string{"program.prose": "x", "bindings/a.md": "a"})
		f, err := os.Create(filepath.Join(dir, "state.md"))
		if err != nil {
			t.Fatal(err)
		}
		if err := f.Truncate(4 << 30); err != nil {
			f.Close()
			t.Skipf("no sparse files here: %v", err)
		}
		f.Close()
	}
	ctx, cancel := context.WithCancel(context.Background())
	var err error
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, err = DiscoverContext(ctx, []string{root}, DiscoverOptions{Jobs: 2})
	}()
	time.Sleep(300 * time.Millisecond)
	cancel()
	cancelled := time.Now()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("DiscoverContext still running 10 s after cancel")
	}
	if el := time.Since(cancelled); el > 2*time.Second {
		t.Errorf("DiscoverContext returned %v after cancel, want under 2 s", el)
	}
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}
