package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/shlex"
)

// TestReadmeExamplesRun runs every `bin/evalcal ...` example line of the
// README (indented code, with backslash continuations) in-process, with
// -o redirected to a temporary directory, and expects exit 0: the
// documentation cannot drift from the commands.
func TestReadmeExamplesRun(t *testing.T) {
	root := repoRoot(t)
	data, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(root)
	var examples []string
	lines := strings.Split(string(data), "\n")
	for i := 0; i < len(lines); i++ {
		l := strings.TrimSpace(lines[i])
		if !strings.HasPrefix(lines[i], "    bin/evalcal ") {
			continue
		}
		for strings.HasSuffix(l, `\`) && i+1 < len(lines) {
			i++
			l = strings.TrimSuffix(l, `\`) + " " + strings.TrimSpace(lines[i])
		}
		examples = append(examples, l)
	}
	if len(examples) < 10 {
		t.Fatalf("found %d README examples, want at least 10", len(examples))
	}
	tmp := t.TempDir()
	for _, ex := range examples {
		args, err := shlex.Split(ex)
		if err != nil {
			t.Fatalf("%s: %v", ex, err)
		}
		args = args[1:] // bin/evalcal
		for i := range args {
			if args[i] == "-o" && i+1 < len(args) {
				args[i+1] = filepath.Join(tmp, filepath.Base(args[i+1]))
			}
		}
		if args[0] == "run" {
			args = append([]string{"run", "--cache", filepath.Join(tmp, "cache")}, args[1:]...)
		}
		_, stderr, code := runCLI(t, args...)
		// A gate example may exit 3 by design; every other must succeed.
		if code != 0 && !(code == 3 && strings.Contains(ex, "--require")) {
			t.Errorf("README example exits %d:\n  %s\n%s", code, ex, stderr)
		}
	}
}
