package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// builtBinary is the evalcal binary the tests run, built once per test
// process into a temporary directory that TestMain removes.
var builtBinary struct {
	once sync.Once
	dir  string
	path string
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if builtBinary.dir != "" {
		os.RemoveAll(builtBinary.dir)
	}
	os.Exit(code)
}

// buildEvalcal builds the command (once per test process) and returns the
// binary's path.
func buildEvalcal(t *testing.T) string {
	t.Helper()
	builtBinary.once.Do(func() {
		dir, err := os.MkdirTemp("", "evalcal-test-bin-*")
		if err != nil {
			builtBinary.err = err
			return
		}
		builtBinary.dir = dir
		bin := filepath.Join(dir, "evalcal")
		build := exec.Command("go", "build", "-o", bin, ".")
		build.Dir = packageDir
		if out, err := build.CombinedOutput(); err != nil {
			builtBinary.err = errors.New("build: " + err.Error() + "\n" + string(out))
			return
		}
		builtBinary.path = bin
	})
	if builtBinary.err != nil {
		t.Fatal(builtBinary.err)
	}
	return builtBinary.path
}

// binResult is what a run of the built binary gave.
type binResult struct {
	stdout, stderr string
	code           int
}

// binOptions are how to run the built binary: in dir (default the
// repository root), with stdin, and env added to the environment.
type binOptions struct {
	dir   string
	stdin io.Reader
	env   []string
}

// runBinary runs the built evalcal with args and returns its stdout,
// stderr and exit code; it fails the test when the binary cannot be run
// or takes more than a minute.
func runBinary(t *testing.T, o binOptions, args ...string) binResult {
	t.Helper()
	return runCommand(t, o, buildEvalcal(t), args...)
}

// runCommand runs name with args as runBinary does.
func runCommand(t *testing.T, o binOptions, name string, args ...string) binResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = o.dir
	if cmd.Dir == "" {
		cmd.Dir = repoRoot(t)
	}
	cmd.Stdin = o.stdin
	cmd.Env = append(os.Environ(), o.env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatalf("%s %s: %v", name, strings.Join(args, " "), err)
	}
	return binResult{stdout: out.String(), stderr: errb.String(), code: code}
}

// skipShort skips a test that runs the built binary under -short.
func skipShort(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("runs the built binary")
	}
}
