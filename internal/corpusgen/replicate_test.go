package corpusgen

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"sort"
	"testing"
)

func TestReplicateCopiesRunsRoundRobinWithNewIDs(t *testing.T) {
	src := t.TempDir()
	for name, content := range map[string]string{
		"20260101-000000-aaaaaa/state.md":         "1→ a ✓\n",
		"20260101-000000-aaaaaa/bindings/a.md":    "A",
		"20260102-000000-bbbbbb/vm.log.md":        "1→ b ✓\n",
		"MANIFEST.json":                           "{}",
		"not-a-run/state.md":                      "x",
		"20260103-000000-cccccc/workspace/x/y.md": "Y",
	} {
		p := filepath.Join(src, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	dst := filepath.Join(t.TempDir(), "out")
	if err := Replicate(context.Background(), src, dst, 5); err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(dst)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range ents {
		got = append(got, e.Name())
	}
	want := []string{ReplicaID(0), ReplicaID(1), ReplicaID(2), ReplicaID(3), ReplicaID(4)}
	sort.Strings(want)
	if len(got) != 5 || !equalStrings(got, want) {
		t.Fatalf("copies = %v, want %v", got, want)
	}
	if ReplicaID(1) != "20300101-000001-000001" || ReplicaID(0) == ReplicaID(1<<24) {
		t.Errorf("ReplicaID(1) = %s", ReplicaID(1))
	}
	// Copy 3 is run 3 mod 3 = 0 (aaaaaa), copy 2 is cccccc.
	for copyIdx, file := range map[int]string{3: "bindings/a.md", 2: "workspace/x/y.md", 4: "vm.log.md"} {
		srcRun := []string{"20260101-000000-aaaaaa", "20260102-000000-bbbbbb", "20260103-000000-cccccc"}[copyIdx%3]
		a, err1 := os.ReadFile(filepath.Join(src, srcRun, filepath.FromSlash(file)))
		b, err2 := os.ReadFile(filepath.Join(dst, ReplicaID(copyIdx), filepath.FromSlash(file)))
		if err1 != nil || err2 != nil || !bytes.Equal(a, b) {
			t.Errorf("copy %d %s: %v %v %q %q", copyIdx, file, err1, err2, a, b)
		}
	}
	if err := Replicate(context.Background(), src, dst, 1); err == nil {
		t.Error("Replicate into a non-empty directory succeeded")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := Replicate(ctx, src, filepath.Join(t.TempDir(), "c"), 3); err == nil {
		t.Error("Replicate with a cancelled context succeeded")
	}
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// ReplicateDistinct copies as Replicate does and adds a note naming the
// copy, so that two copies of one run differ in content.
func TestReplicateDistinctMakesEveryCopyDifferent(t *testing.T) {
	src := t.TempDir()
	for _, run := range []string{"20260101-000000-aaaaaa", "20260102-000000-bbbbbb"} {
		if err := os.MkdirAll(filepath.Join(src, run), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(src, run, "vm.log.md"), []byte("log of "+run), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	dst := filepath.Join(t.TempDir(), "out")
	if err := ReplicateDistinct(context.Background(), src, dst, 4); err != nil {
		t.Fatal(err)
	}
	// Copies 0 and 2 are both of aaaaaa: the same log, different notes.
	a, _ := os.ReadFile(filepath.Join(dst, ReplicaID(0), "vm.log.md"))
	b, _ := os.ReadFile(filepath.Join(dst, ReplicaID(2), "vm.log.md"))
	na, err1 := os.ReadFile(filepath.Join(dst, ReplicaID(0), ReplicaNote))
	nb, err2 := os.ReadFile(filepath.Join(dst, ReplicaID(2), ReplicaNote))
	if !bytes.Equal(a, b) || string(a) != "log of 20260101-000000-aaaaaa" || err1 != nil || err2 != nil || bytes.Equal(na, nb) {
		t.Errorf("logs %q %q, notes %q %q (%v %v)", a, b, na, nb, err1, err2)
	}
	if want := "replica " + ReplicaID(2) + " of 20260101-000000-aaaaaa\n"; string(nb) != want {
		t.Errorf("note %q, want %q", nb, want)
	}
}
