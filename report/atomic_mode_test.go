package report

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func mode(t *testing.T, path string) os.FileMode {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode()
}

// Issue 13.20: -o wrote mode 0644 whatever the file's mode was.
func TestWriteFileAtomicKeepsTheExistingMode(t *testing.T) {
	old := syscall.Umask(0o077) // the old mode must survive even this umask
	defer syscall.Umask(old)
	for _, perm := range []os.FileMode{0o600, 0o640, 0o664, 0o755} {
		p := filepath.Join(t.TempDir(), "r.yaml")
		if err := os.WriteFile(p, []byte("old"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, perm); err != nil {
			t.Fatal(err)
		}
		if err := WriteFileAtomic(p, []byte("new")); err != nil {
			t.Fatal(err)
		}
		if got := mode(t, p); got != perm {
			t.Errorf("mode %v after writing over a %v file", got, perm)
		}
	}
}

// Issue 13.20: a new file honours the umask, as a shell's `>` would.
func TestWriteFileAtomicHonoursTheUmaskForANewFile(t *testing.T) {
	for _, tt := range []struct{ umask, want int }{{0o022, 0o644}, {0o027, 0o640}, {0o077, 0o600}, {0o002, 0o664}} {
		old := syscall.Umask(tt.umask)
		p := filepath.Join(t.TempDir(), "new.yaml")
		err := WriteFileAtomic(p, []byte("x"))
		syscall.Umask(old)
		if err != nil {
			t.Fatal(err)
		}
		if got := mode(t, p); got != os.FileMode(tt.want) {
			t.Errorf("umask %03o: mode %v, want %v", tt.umask, got, os.FileMode(tt.want))
		}
	}
}

// Issue 13.20: a dangling symlink was replaced by a file. It is followed,
// like any symlink: the link stays and its target is created.
func TestWriteFileAtomicFollowsADanglingSymlink(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "out"), 0o755); err != nil {
		t.Fatal(err)
	}
	// link -> hop -> out/report.yaml (absent), relative targets.
	link, hop := filepath.Join(dir, "link.yaml"), filepath.Join(dir, "hop.yaml")
	if err := os.Symlink("hop.yaml", link); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("out/report.yaml", hop); err != nil {
		t.Fatal(err)
	}
	if err := WriteFileAtomic(link, []byte("new")); err != nil {
		t.Fatal(err)
	}
	for _, l := range []string{link, hop} {
		if mode(t, l)&os.ModeSymlink == 0 {
			t.Errorf("%s was replaced by a file", l)
		}
	}
	if b, err := os.ReadFile(filepath.Join(dir, "out", "report.yaml")); err != nil || string(b) != "new" {
		t.Errorf("target holds %q (%v), want the new content", b, err)
	}
	if es, _ := os.ReadDir(filepath.Join(dir, "out")); len(es) != 1 {
		t.Errorf("%d entries in the target's directory, want 1 (no temp left)", len(es))
	}
}

func TestWriteFileAtomicRefusesASymlinkLoopAndADanglingLinkWithoutDirectory(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	if err := os.Symlink("b", a); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("a", b); err != nil {
		t.Fatal(err)
	}
	if err := WriteFileAtomic(a, []byte("x")); err == nil || !strings.Contains(err.Error(), "symbolic links") {
		t.Errorf("loop: err = %v", err)
	}
	c := filepath.Join(dir, "c")
	if err := os.Symlink("nowhere/r.yaml", c); err != nil {
		t.Fatal(err)
	}
	if err := WriteFileAtomic(c, []byte("x")); err == nil || !strings.Contains(err.Error(), "nowhere") {
		t.Errorf("dangling into a missing directory: err = %v, want it named", err)
	}
	for _, l := range []string{a, b, c} {
		if mode(t, l)&os.ModeSymlink == 0 {
			t.Errorf("%s was replaced", l)
		}
	}
}

func TestCheckOutputNotInput(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "f.jsonl")
	other := filepath.Join(dir, "g.jsonl")
	for _, p := range []string{in, other} {
		if err := os.WriteFile(p, []byte("{}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	hard, soft := filepath.Join(dir, "hard.jsonl"), filepath.Join(dir, "soft.jsonl")
	if err := os.Link(in, hard); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("f.jsonl", soft); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	for _, out := range []string{in, "f.jsonl", "./f.jsonl", hard, soft} {
		if err := CheckOutputNotInput(out, other, in); !errors.Is(err, ErrOutputIsInput) {
			t.Errorf("-o %s over input %s: err = %v, want ErrOutputIsInput", out, in, err)
		}
	}
	for _, out := range []string{other + ".new", "-", "", "/dev/null"} {
		if err := CheckOutputNotInput(out, in, "-", "/dev/null"); err != nil {
			t.Errorf("-o %q: %v, want no conflict", out, err)
		}
	}
	if err := CheckOutputNotInput(other, in); err != nil {
		t.Errorf("distinct files: %v", err)
	}
}
