package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// TestInterruptKeepsFinishedInspections builds evalcal, interrupts a run
// with SIGINT while a slow exec inspector is working, and checks the exit
// code (130), that the finished inspections are in the cache, and that a
// rerun pays only for the rest.
func TestInterruptKeepsFinishedInspections(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	root := repoRoot(t)
	bin := buildEvalcal(t)
	cache := t.TempDir()
	args := []string{"run", "--cache", cache, "--jobs", "2", "--sample", "12",
		"--inspector", "exec:sh " + filepath.Join(root, "testdata/inspectors/slow.sh") + " {run} {depth}", "testdata/runs"}

	cmd := exec.Command(bin, args...)
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1500 * time.Millisecond) // 2 jobs x 0.3 s a call: about 8 inspections done
	start := time.Now()
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 {
		t.Fatalf("exit %v, want 130; stderr:\n%s", err, stderr.String())
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %s to stop after SIGINT", d)
	}
	kept := countFiles(t, cache)
	if kept < 2 || kept >= 24 {
		t.Fatalf("%d inspections in the cache after the interrupt, want some but not all 24", kept)
	}

	// The rerun inspects only what was not finished.
	cmd = exec.Command(bin, args...)
	cmd.Dir = root
	stderr.Reset()
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("rerun: %v\n%s", err, stderr.String())
	}
	m := regexp.MustCompile(`(\d+) inspector calls, (\d+) from cache`).FindStringSubmatch(stderr.String())
	if m == nil {
		t.Fatalf("no call count in stderr:\n%s", stderr.String())
	}
	calls, _ := strconv.Atoi(m[1])
	hits, _ := strconv.Atoi(m[2])
	if hits != kept || calls != 24-kept {
		t.Errorf("rerun made %d calls with %d cache hits; want %d and %d", calls, hits, 24-kept, kept)
	}
}

func countFiles(t *testing.T, dir string) int {
	t.Helper()
	n := 0
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() && filepath.Ext(p) == ".json" {
			n++
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestProgressBarOnlyOnATerminal runs the built binary under script(1),
// which gives it a pseudo-terminal, and without one: the bar appears only
// on the terminal, and stdout stays the document alone in both cases.
func TestProgressBarOnlyOnATerminal(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	scriptPath, err := exec.LookPath("script")
	if err != nil {
		t.Skip("script(1) is not installed")
	}
	root := repoRoot(t)
	bin := buildEvalcal(t)
	report := filepath.Join(t.TempDir(), "r.yaml")
	cmdline := bin + " run --no-cache --sample 6 -o " + report + " testdata/runs"
	tty := exec.Command(scriptPath, "-qec", cmdline, os.DevNull)
	tty.Dir = root
	out, err := tty.CombinedOutput()
	if err != nil {
		t.Fatalf("under script: %v\n%s", err, out)
	}
	if !bytes.Contains(out, []byte("evalcal: inspecting")) {
		t.Errorf("no progress bar on a terminal:\n%s", out)
	}
	plain := exec.Command(bin, "run", "--no-cache", "--sample", "6", "-o", report, "testdata/runs")
	plain.Dir = root
	var stderr bytes.Buffer
	plain.Stderr = &stderr
	if err := plain.Run(); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(stderr.Bytes(), []byte("inspecting")) {
		t.Errorf("progress bar written to a non-terminal:\n%s", stderr.String())
	}
}

// buildEvalcal builds the command into a temporary directory and returns
// the binary's path.
func buildEvalcal(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "evalcal")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Dir = filepath.Join(repoRoot(t), "cmd", "evalcal")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	return bin
}
