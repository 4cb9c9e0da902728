package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
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
	// Interrupt once a few inspections are in the cache (2 jobs x 0.3 s a
	// call: all 24 take about 4 s), however loaded the machine is.
	for deadline := time.Now().Add(30 * time.Second); countFiles(t, cache) < 4 && time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond)
	}
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
	if !regexp.MustCompile(`evalcal: interrupted; \d+ finished inspections are kept in the cache\n`).MatchString(stderr.String()) {
		t.Errorf("no interrupt message about the cache:\n%s", stderr.String())
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
		if os.IsNotExist(err) {
			return nil // a temporary file renamed while the walk ran
		}
		if err == nil && !fi.IsDir() && filepath.Ext(p) == ".insp" { // inspection cache entries
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

// interruptBinary starts the built evalcal with args (stdin an open pipe
// that is never written), sends SIGINT after wait, and returns the exit
// code, stderr and how long it took to stop.
func interruptBinary(t *testing.T, wait time.Duration, args ...string) (int, string, time.Duration) {
	t.Helper()
	cmd := exec.Command(buildEvalcal(t), args...)
	cmd.Dir = repoRoot(t)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(wait)
	start := time.Now()
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-time.After(10 * time.Second):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("%v: still running 10 s after SIGINT", args)
	}
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, stderr.String(), time.Since(start)
}

// Without a cache, the interrupt message does not claim one.
func TestInterruptWithoutCacheSaysNothingIsKept(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	code, stderr, _ := interruptBinary(t, time.Second, "run", "--no-cache", "--jobs", "2", "--sample", "12",
		"--inspector", "exec:sh "+filepath.Join(repoRoot(t), "testdata/inspectors/slow.sh")+" {run} {depth}", "testdata/runs")
	if code != 130 {
		t.Fatalf("exit %d, want 130:\n%s", code, stderr)
	}
	if strings.Contains(stderr, "kept in the cache") || !regexp.MustCompile(`interrupted; no cache in use, so the \d+ finished inspections are not kept`).MatchString(stderr) {
		t.Errorf("interrupt message:\n%s", stderr)
	}
}

// Ctrl-C while a command waits on stdin (a pipe that never closes)
// stops it within 2 s with exit 130 (issue 13 item 2).
func TestInterruptWhileReadingStdin(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	for _, args := range [][]string{
		{"render", "-"},
		{"merge", "-"},
		{"score", "-"},
	} {
		code, stderr, took := interruptBinary(t, time.Second, args...)
		if code != 130 || took > 2*time.Second {
			t.Errorf("%v: exit %d after %s, want 130 within 2 s; stderr %s", args, code, took, stderr)
		}
	}
}

// A named pipe given as an input is refused at once, never opened (it
// would block until a writer comes).
func TestNamedPipeInputsAreRefused(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	link := filepath.Join(dir, "link.jsonl")
	if err := os.Symlink(fifo, link); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"score", fifo},
		{"score", link},
		{"render", fifo},
		{"merge", fifo},
		{"gate", "--events", fifo},
		{"gate", "--events", "testdata/gate/events.jsonl", "--history", link},
		{"calls", "--calls", fifo, "--prices", "testdata/calls/prices.csv"},
		{"calls", "--calls", "testdata/calls/calls.jsonl", "--prices", fifo},
		{"run", "--no-cache", "--inspections", fifo},
		{"run", "--no-cache", "--baseline", fifo, "--inspections", "testdata/inspections/twelve.jsonl"},
		{"score", "--baseline", fifo, "testdata/score/worked.jsonl"},
	} {
		start := time.Now()
		r := runBinary(t, binOptions{}, args...)
		if r.code != 2 || !strings.Contains(r.stderr, "not a regular file (a named pipe)") || time.Since(start) > 5*time.Second {
			t.Errorf("%v: exit %d after %s, stderr %q; want 2 and 'not a regular file'", args, r.code, time.Since(start), r.stderr)
		}
	}
}

// Every command returns the context's error, exit 130, when it is
// cancelled, and writes nothing on stdout.
func TestEveryCommandHonoursACancelledContext(t *testing.T) {
	t.Chdir(repoRoot(t))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, args := range [][]string{
		{"run", "--no-cache", "--inspections", "testdata/inspections/twelve.jsonl"},
		{"run", "--no-cache", "testdata/runs"},
		{"score", "testdata/score/worked.jsonl"},
		{"score", "--sqlite", "testdata/sqlite/prediction.db"},
		{"calls", "--calls", "testdata/calls/calls.jsonl", "--prices", "testdata/calls/prices.csv", "--as-of", "2026-03-10T00:00:00Z"},
		{"gate", "--events", "testdata/gate/events.jsonl"},
		{"render", "testdata/run/twelve.golden"},
		{"merge", "testdata/run/twelve.golden"},
	} {
		var out, errb bytes.Buffer
		err := run(ctx, args, &out, &errb)
		if code := exitCode(err); code != exitInterrupted || out.Len() != 0 {
			t.Errorf("%v: exit %d (%v) with %d bytes on stdout; want 130 and none", args, code, err, out.Len())
		}
	}
}

// copyRun copies the bundled run id into dir (files only; the corpus has
// no links).
func copyRun(t *testing.T, id, dir string) string {
	t.Helper()
	src := filepath.Join(repoRoot(t), "testdata/runs", id)
	dst := filepath.Join(dir, id)
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// Ctrl-C stops every phase within 2 s with exit 130 (issue 13.2): here the
// phases that can take long on one input: hashing a huge file during
// discovery, reading a huge log, and the statistics of a large forecast
// file.
func TestInterruptStopsLongPhasesWithinTwoSeconds(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and large inputs")
	}
	dir := t.TempDir()
	// Discovery: a 16 GiB sparse output in a run (hashing reads it all).
	hashRuns := filepath.Join(dir, "hash")
	run := copyRun(t, "20260112-135900-3d1e60", hashRuns)
	if err := os.Truncate(writeTempFile(t, filepath.Join(run, "bindings"), "huge.md", ""), 16<<30); err != nil {
		t.Skip(err)
	}
	// Log reading: a 400 MiB log of blank lines.
	logRuns := filepath.Join(dir, "log")
	run = copyRun(t, "20260306-235920-752f6b", logRuns)
	logs, _ := filepath.Glob(filepath.Join(run, "*.md"))
	var log string
	for _, l := range logs {
		if b := filepath.Base(l); b == "state.md" || b == "vm.log.md" {
			log = l
		}
	}
	if log == "" {
		t.Fatalf("no log in %s", run)
	}
	f, err := os.OpenFile(log, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	blank := bytes.Repeat([]byte("\n"), 1<<20)
	for range 400 {
		if _, err := f.Write(blank); err != nil {
			t.Fatal(err)
		}
	}
	f.Close()
	// Statistics: 1M continuous forecasts of 1,112 agents: groups of 900
	// distinct values (under forecast.MinIdealBootstrapForecasts) take
	// the seeded index bootstrap, seconds of work after a fraction of a
	// second of parsing.
	var b bytes.Buffer
	for i := range 1_000_000 {
		p := float64((i*7919)%1_000_003) / 1_000_003
		fmt.Fprintf(&b, `{"agent":"a%d","id":"f%d","confidence":%.9f,"outcome":%v}`+"\n", i/900, i, p, i%3 == 0)
	}
	forecasts := writeTempFile(t, dir, "forecasts.jsonl", b.String())

	for _, c := range []struct {
		name string
		wait time.Duration
		args []string
	}{
		{"discovery hashing", 700 * time.Millisecond, []string{"run", "--no-cache", "--allow-homogeneous", hashRuns}},
		{"log reading", 700 * time.Millisecond, []string{"run", "--no-cache", "--allow-homogeneous", logRuns}},
		{"score statistics", 1200 * time.Millisecond, []string{"score", "--by", "agent", forecasts}},
	} {
		code, stderr, took := interruptBinary(t, c.wait, c.args...)
		if code != exitInterrupted || took > 2*time.Second {
			t.Errorf("%s: exit %d after %v, want 130 within 2 s:\n%s", c.name, code, took, stderr)
		}
	}
}
