package main

import (
	"bytes"
	"context"
	"github.com/evalcal/evalcal/internal/testutil"
	"os"
	"path/filepath"
	"testing"
)

// checkGolden compares got with the golden file at path (relative to the
// repository root, e.g. "testdata/run/twelve.golden"): testutil.CheckGolden,
// whose -update flag rewrites it; a mismatch writes path+".got".
func checkGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	testutil.CheckGolden(t, filepath.Join(repoRoot(t), path), path, got)
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
