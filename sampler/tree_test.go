package sampler

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/evalcal/evalcal/inspection"
	"github.com/google/go-cmp/cmp"
)

// refRecord is a non-file record of the ContentHash encoding.
type refRecord struct {
	path, kind, target string // kind: "dir", "link" or a special type
}

// referenceTreeHash re-states the documented ContentHash encoding
// independently of the walker: one record per file (path NUL size NUL
// content), empty directory (path NUL "dir" NUL), symlink (path NUL
// "link" NUL len NUL target) or special file (path NUL type NUL), in
// sorted path order.
func referenceTreeHash(files map[string]string, extra []refRecord) string {
	type rec struct{ path, data string }
	var recs []rec
	for p, c := range files {
		recs = append(recs, rec{p, fmt.Sprintf("%s\x00%d\x00%s", p, len(c), c)})
	}
	for _, e := range extra {
		switch e.kind {
		case "link":
			recs = append(recs, rec{e.path, fmt.Sprintf("%s\x00link\x00%d\x00%s", e.path, len(e.target), e.target)})
		default:
			recs = append(recs, rec{e.path, e.path + "\x00" + e.kind + "\x00"})
		}
	}
	sort.Slice(recs, func(i, j int) bool { return recs[i].path < recs[j].path })
	h := sha256.New()
	for _, r := range recs {
		h.Write([]byte(r.data))
	}
	return hex.EncodeToString(h.Sum(nil))
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("symlinks unavailable: %v", err)
	}
}

// Issue 13.11: the content hash covers everything an inspector can see.
// Before, adding an empty services/ (which changes the builtin
// inspector's era, hence its answer) kept the hash, so a cached
// inspection was served for a run that had changed.
func TestContentHashCoversEmptyDirectoriesAndSymlinks(t *testing.T) {
	files := map[string]string{"state.md": "1→ a ✓\n", "program.prose": "let a = session \"x\"\n", "bindings/a.md": "a"}
	cases := []struct {
		name  string
		setup func(t *testing.T, dir string)
		extra []refRecord
	}{
		{"nothing added", func(*testing.T, string) {}, nil},
		{"empty services/", func(t *testing.T, dir string) {
			if err := os.Mkdir(filepath.Join(dir, "services"), 0o755); err != nil {
				t.Fatal(err)
			}
		}, []refRecord{{path: "services", kind: "dir"}}},
		{"empty nested a/b/", func(t *testing.T, dir string) {
			if err := os.MkdirAll(filepath.Join(dir, "a", "b"), 0o755); err != nil {
				t.Fatal(err)
			}
		}, []refRecord{{path: "a/b", kind: "dir"}}},
		{"link in the run", func(t *testing.T, dir string) {
			symlink(t, "../bindings/a.md", filepath.Join(dir, "bindings2", "a.md"))
		}, []refRecord{{path: "bindings2/a.md", kind: "link", target: "../bindings/a.md"}}},
		{"link to elsewhere", func(t *testing.T, dir string) {
			symlink(t, "/etc/hostname", filepath.Join(dir, "bindings2", "a.md"))
		}, []refRecord{{path: "bindings2/a.md", kind: "link", target: "/etc/hostname"}}},
		{"dangling link", func(t *testing.T, dir string) {
			symlink(t, "nowhere", filepath.Join(dir, "x"))
		}, []refRecord{{path: "x", kind: "link", target: "nowhere"}}},
	}
	seen := map[string]string{}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := writeRun(t, t.TempDir(), "20260101-000000-aaaaaa", files)
			c.setup(t, dir)
			r, err := Describe(dir)
			if err != nil {
				t.Fatal(err)
			}
			if want := referenceTreeHash(files, c.extra); r.ContentHash != want {
				t.Errorf("ContentHash = %s, want %s", r.ContentHash, want)
			}
			if prev, dup := seen[r.ContentHash]; dup {
				t.Errorf("same hash as %q", prev)
			}
			seen[r.ContentHash] = c.name
		})
	}
	if want := referenceHash(files); seen[want] != "nothing added" {
		t.Errorf("a run of files only no longer hashes as before directories and links were covered")
	}
}

// Issue 13.11: a symlink leading out of the run is never read. Before,
// a manifest linked from outside was read and its services declared.
func TestDescribeReadsNothingOutsideTheRun(t *testing.T) {
	root := t.TempDir()
	outside := filepath.Join(root, "outside")
	writeRun(t, root, "outside", map[string]string{
		"manifest.md": "# Manifest: outsider\n\n## Graph\n\n### evil\n\n  (public) x -> bindings/evil/x.md\n",
		"secret.md":   "TODO secret\n",
	})
	dir := writeRun(t, root, "20260101-000000-aaaaaa", map[string]string{
		"program.md": "# p\n", "state.md": "1→ a ✓\n---end T\n", "bindings/a/x.md": "x", "workspace/a/out.md": "out",
	})
	symlink(t, "../outside/manifest.md", filepath.Join(dir, "manifest.md"))
	symlink(t, filepath.Join(outside, "secret.md"), filepath.Join(dir, "bindings", "leak", "abs.md"))
	symlink(t, "../../../outside/secret.md", filepath.Join(dir, "bindings", "leak", "rel.md"))
	symlink(t, filepath.Join(dir, "workspace", "a", "out.md"), filepath.Join(dir, "bindings", "leak", "abs-inside.md"))
	symlink(t, "../../workspace/a/out.md", filepath.Join(dir, "bindings", "a", "linked.md"))
	symlink(t, "../../outside", filepath.Join(dir, "bindings", "dirlink"))

	r, err := Describe(dir)
	if err != nil {
		t.Fatal(err)
	}
	if r.System == "outsider" || len(r.ServicesDeclared) != 1 || r.ServicesDeclared[0] != "a" {
		t.Errorf("system %q, services %q: the outside manifest was read", r.System, r.ServicesDeclared)
	}
	// An in-run relative link counts as the file it points to; absolute
	// targets (even inside) and links leaving the run do not.
	if d := cmp.Diff([]string{"bindings/a/linked.md", "bindings/a/x.md"}, r.BindingsPresent); d != "" {
		t.Errorf("bindings (-want +got):\n%s", d)
	}
	warn := strings.Join(r.Warnings, "\n")
	for _, w := range []string{"manifest.md: symlink to ../outside/manifest.md leads outside the run directory",
		"bindings/leak/abs.md: symlink to", "bindings/leak/rel.md: symlink to", "bindings/leak/abs-inside.md: symlink to",
		"bindings/dirlink: symlink to ../../outside leads outside"} {
		if !strings.Contains(warn, w) {
			t.Errorf("warnings lack %q:\n%s", w, warn)
		}
	}
	if _, err := LoadManifest(dir, inspection.EraStateMDv2); !errors.Is(err, ErrOutsideRun) {
		t.Errorf("LoadManifest err = %v, want ErrOutsideRun", err)
	}
}

func TestRunDirFollowsLinksInsideOnly(t *testing.T) {
	root := t.TempDir()
	writeRun(t, root, "outside", map[string]string{"f": "outside"})
	dir := writeRun(t, root, "run", map[string]string{"sub/f": "inside"})
	symlink(t, "sub/f", filepath.Join(dir, "in"))
	symlink(t, "../outside/f", filepath.Join(dir, "out"))
	symlink(t, filepath.Join(dir, "sub", "f"), filepath.Join(dir, "abs"))
	symlink(t, "../outside", filepath.Join(dir, "outdir"))
	d, err := OpenRunDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	b, whole, err := d.ReadFile(context.Background(), "in", 100)
	if err != nil || !whole || string(b) != "inside" {
		t.Errorf("in: %q %v %v", b, whole, err)
	}
	for _, name := range []string{"out", "abs", "outdir/f", "../outside/f", "sub/../../outside/f"} {
		if _, _, err := d.Open(name); !errors.Is(err, ErrOutsideRun) {
			t.Errorf("Open(%s) err = %v, want ErrOutsideRun", name, err)
		}
	}
	if _, _, err := d.Open("sub"); !errors.Is(err, ErrNotRegular) {
		t.Errorf("Open(sub) err = %v, want ErrNotRegular", err)
	}
	b, whole, err = d.ReadFile(context.Background(), "sub/f", 3)
	if err != nil || whole || string(b) != "ins" {
		t.Errorf("limited read: %q %v %v", b, whole, err)
	}
}

// Issue 13.18: `run LINK` must find the runs `run LINK/` finds.
func TestDiscoverFollowsASymlinkedPath(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{"state.md": "1→ a ✓\n---end T\n", "program.prose": "let a = session \"x\"\n", "bindings/a.md": "a"}
	for _, id := range []string{"20260101-000000-aaaaaa", "20260102-000000-bbbbbb"} {
		writeRun(t, filepath.Join(root, "corpus"), id, files)
	}
	// A link met while searching is not followed: no duplicates.
	symlink(t, "../corpus", filepath.Join(root, "corpus", "loop"))
	link := filepath.Join(root, "link")
	symlink(t, "corpus", link)
	runLink := filepath.Join(root, "runlink")
	symlink(t, filepath.Join("corpus", "20260101-000000-aaaaaa"), runLink)

	for _, paths := range [][]string{{link}, {link + string(filepath.Separator)}} {
		runs, err := Discover(paths)
		if err != nil {
			t.Fatal(err)
		}
		if len(runs) != 2 || !runs[0].Valid || runs[0].ID != "20260101-000000-aaaaaa" {
			t.Errorf("Discover(%q) = %d runs %v, want the 2 valid runs", paths, len(runs), ids(runs))
		}
	}
	runs, err := Discover([]string{runLink})
	if err != nil || len(runs) != 1 || !runs[0].Valid {
		t.Errorf("Discover(run dir link) = %v, %v; want one valid run", runs, err)
	}
}

// Issue 13.17: one rule everywhere: two directories with one run id are
// rejected, naming both; one directory reached twice is listed once.
func TestDiscoverRejectsDuplicateRunIDs(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{"state.md": "1→ a ✓\n", "program.prose": "x", "bindings/a.md": "a"}
	a := writeRun(t, filepath.Join(root, "a"), "20260101-000000-aaaaaa", files)
	b := writeRun(t, filepath.Join(root, "b"), "20260101-000000-aaaaaa", files)
	_, err := Discover([]string{root})
	if !errors.Is(err, ErrDuplicateRunID) || !strings.Contains(err.Error(), a) || !strings.Contains(err.Error(), b) {
		t.Errorf("err = %v, want ErrDuplicateRunID naming %s and %s", err, a, b)
	}
	runs, err := Discover([]string{filepath.Join(root, "a"), a, filepath.Join(root, "a", ".", "20260101-000000-aaaaaa")})
	if err != nil || len(runs) != 1 {
		t.Errorf("one directory by three paths: %d runs, err %v; want 1", len(runs), err)
	}
}

func TestSelectRejectsDuplicateRunIDs(t *testing.T) {
	runs := []inspection.Run{validRun("a", "s1", inspection.StatusCompleted, 1), validRun("b", "s2", inspection.StatusCompleted, 1),
		validRun("c", "s1", inspection.StatusFailed, 1), {ID: "a", Path: "elsewhere/a", Invalid: "no log"}}
	_, err := Select(runs, SelectOptions{})
	if !errors.Is(err, ErrDuplicateRunID) || !strings.Contains(err.Error(), "elsewhere/a") {
		t.Errorf("err = %v, want ErrDuplicateRunID naming elsewhere/a", err)
	}
	if _, err := Select(runs[:3], SelectOptions{}); err != nil {
		t.Errorf("distinct ids: %v", err)
	}
}

func TestWalkBoundsEntriesPerRun(t *testing.T) {
	dir := writeRun(t, t.TempDir(), "20260101-000000-aaaaaa", map[string]string{"state.md": "x"})
	for i := range 30 {
		if err := os.MkdirAll(filepath.Join(dir, "many", fmt.Sprint(i)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	d, err := OpenRunDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	// state.md, many/ and its 30 directories: 32 entries.
	if _, err := walkTreeLimit(context.Background(), d, 31); err == nil || !strings.Contains(err.Error(), "more than 31 entries") {
		t.Errorf("err = %v, want a bound on entries", err)
	}
	if es, err := walkTreeLimit(context.Background(), d, 32); err != nil || len(es) != 32 {
		t.Errorf("at the bound: %d entries, err %v", len(es), err)
	}
}
