package testutil

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

// update rewrites golden files: go test ./PKG -run NAME -update. It is the
// one -update flag of every package whose tests use CheckGolden.
var update = flag.Bool("update", false, "rewrite golden files")

// Updating reports whether the tests run with -update.
func Updating() bool { return *update }

// CheckGolden compares got with the golden file at full (a path the test
// can open, e.g. filepath.Join(root, "testdata/run/twelve.golden")); name
// is the path the messages show. On a mismatch it writes got to full+".got"
// (git-ignored) and fails; with -update it rewrites the golden file,
// creating its directory, instead.
func CheckGolden(t testing.TB, full, name string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(full)
	if err != nil {
		t.Fatalf("read golden %s: %v (run with -update to create it)", name, err)
	}
	if !bytes.Equal(got, want) {
		_ = os.WriteFile(full+".got", got, 0o644)
		t.Errorf("%s differs from its golden file; got written to %s.got (diff them; -update accepts)", name, name)
	}
}
