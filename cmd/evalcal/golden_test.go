package main

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

// update rewrites golden files: go test ./cmd/evalcal -run NAME -update.
// It is the one -update flag of this package's tests; every golden test
// uses checkGolden.
var update = flag.Bool("update", false, "rewrite golden files")

// checkGolden compares got with the golden file at path (relative to the
// repository root, e.g. "testdata/run/twelve.golden"). On a mismatch it
// writes got to path+".got" (git-ignored) and fails; with -update it
// rewrites the golden file instead.
func checkGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	full := filepath.Join(repoRoot(t), path)
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
		t.Fatalf("read golden %s: %v (run with -update to create it)", path, err)
	}
	if !bytes.Equal(got, want) {
		_ = os.WriteFile(full+".got", got, 0o644)
		t.Errorf("%s differs from its golden file; got written to %s.got (diff them; -update accepts)", path, path)
	}
}

// packageDir is this package's directory, read once before any test
// changes the working directory (t.Chdir).
var packageDir = func() string {
	wd, err := os.Getwd()
	if err != nil {
		panic("evalcal tests: no working directory: " + err.Error())
	}
	return wd
}()

// repoRoot is the repository root: two levels above this package,
// whatever the current working directory is.
func repoRoot(t *testing.T) string {
	t.Helper()
	return filepath.Join(packageDir, "..", "..")
}

// runCLI runs evalcal in-process and returns stdout, stderr and the exit
// code main would use.
func runCLI(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	err := run(context.Background(), args, &out, &errb)
	return out.String(), errb.String(), exitCode(err)
}
