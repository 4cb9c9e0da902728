package execinspector_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/evalcal/evalcal/inspection"
	execinspector "github.com/evalcal/evalcal/programs/exec"
	"github.com/evalcal/evalcal/runner"
)

// Issue 13.4: `exec:cat /dev/zero` grew to 2.9 GB in 6 s, because
// os/exec's ReadFrom bypassed the stdout limit. It must now be killed at
// the limit: fast, with memory bounded, as a permanent failure.
func TestStdoutFloodIsKilledAtTheLimitWithMemoryBounded(t *testing.T) {
	cat, err := exec.LookPath("cat")
	if err != nil {
		t.Skip("no cat")
	}
	in := newInspector(t, cat+" /dev/zero")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	_, err = in.Inspect(ctx, testRuns(t, 1)[0], inspection.Light)
	elapsed := time.Since(start)
	runtime.ReadMemStats(&after)
	if !inspection.IsPermanent(err) || !strings.Contains(err.Error(), "stdout longer than 16777216 bytes") {
		t.Errorf("err = %v, want a permanent stdout-too-long error", err)
	}
	if ctx.Err() != nil || elapsed > 5*time.Second {
		t.Errorf("took %v, want the flood stopped soon after 16 MiB", elapsed)
	}
	// The buffer doubles up to 16 MiB: about 32 MiB allocated in all.
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 80<<20 {
		t.Errorf("allocated %d MiB reading the flood, want under 80", alloc>>20)
	}
}

// Issue 13.4: a 20 MB answer was accepted.
func TestTwentyMegabyteAnswerIsRejected(t *testing.T) {
	in := newInspector(t, script(t, "big_answer.sh"))
	_, err := in.Inspect(context.Background(), testRuns(t, 1)[0], inspection.Light)
	if !inspection.IsPermanent(err) || !strings.Contains(err.Error(), "stdout longer than 16777216 bytes") {
		t.Errorf("err = %v, want a permanent stdout-too-long error", err)
	}
}

func TestRunPathNeverStartsWithADash(t *testing.T) {
	for in, want := range map[string]string{
		"-rf":             "./-rf",
		"--output=x/run":  "./--output=x/run",
		"runs/r1":         "./runs/r1",
		"./runs/r1":       "./runs/r1",
		"../runs/r1":      "../runs/r1",
		"/abs/-rf":        "/abs/-rf",
		".":               "./.",
		"-":               "./-",
		"20260101-000000": "./20260101-000000",
	} {
		if got := execinspector.RunPath(in); got != want {
			t.Errorf("RunPath(%q) = %q, want %q", in, got, want)
		}
	}
}

// Issue 13.21: a run directory named `-rf` or `--output=x`, given as a
// relative path, reached the program as an option.
func TestRelativeRunPathsReachTheProgramDotSlashPrefixed(t *testing.T) {
	echo := script(t, "echo_run.sh")
	dir := t.TempDir()
	t.Chdir(dir)
	for _, name := range []string{"-rf", "--output=x"} {
		if err := os.Mkdir(filepath.Join(dir, name), 0o755); err != nil {
			t.Fatal(err)
		}
		in := newInspector(t, echo+" {run}")
		got, err := in.Inspect(context.Background(), inspection.Run{ID: "r", Path: name}, inspection.Light)
		if err != nil {
			t.Fatal(err)
		}
		if got.Summary != "./"+name {
			t.Errorf("the program got %q as {run} and EVALCAL_RUN, want %q", got.Summary, "./"+name)
		}
	}
}

// A missing program is a misconfiguration: inspection.Fatal, so the run stops
// at once with one line (issue 8.4), whether evalcal or a shell finds it
// missing.
func TestMissingProgramIsFatal(t *testing.T) {
	dir := t.TempDir()
	notExec := filepath.Join(dir, "inspector.sh")
	if err := os.WriteFile(notExec, []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ command, want string }{
		{"evalcal-no-such-inspector {run}", "executable file not found"},
		{filepath.Join(dir, "nosuch.sh") + " {run}", "no such file"},
		{notExec + " {run}", "permission denied"},
		{script(t, "not_found.sh") + " {run}", "exit status 127 (command not found)"},
	} {
		in := newInspector(t, tt.command)
		_, err := in.Inspect(context.Background(), testRuns(t, 1)[0], inspection.Light)
		if !inspection.IsFatal(err) || !inspection.IsPermanent(err) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want a fatal error saying %q", tt.command, err, tt.want)
		}
	}
	// A program that merely fails is not fatal.
	in := newInspector(t, script(t, "crash.sh"))
	if _, err := in.Inspect(context.Background(), testRuns(t, 1)[0], inspection.Light); err == nil || inspection.IsFatal(err) {
		t.Errorf("crash.sh: err = %v, want a non-fatal failure", err)
	}
}

// leftovers returns the pids setsid_children.sh recorded in state, and
// kills them when the test ends so that a failure leaves nothing behind.
func leftovers(t *testing.T, state string) map[string]int {
	t.Helper()
	pids := map[string]int{}
	entries, err := os.ReadDir(state)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !strings.Contains(e.Name(), ".pid.") {
			continue
		}
		pid := readPID(t, filepath.Join(state, e.Name()))
		pids[e.Name()] = pid
		t.Cleanup(func() {
			if alive(pid) {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		})
	}
	return pids
}

func requireProcAndSetsid(t *testing.T) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("the reaper is Linux only")
	}
	for _, p := range []string{"setsid", "nohup", "env"} {
		if _, err := exec.LookPath(p); err != nil {
			t.Skipf("no %s", p)
		}
	}
}

// Issue 13.22: grandchildren that call setsid (or double-fork, or clear
// their environment) survived an inspector call. None may be left when
// Inspect returns, whether the program answered or timed out.
func TestNoDescendantSurvivesACall(t *testing.T) {
	requireProcAndSetsid(t)
	for _, tt := range []struct {
		name    string
		command string
		timeout time.Duration
	}{
		{"answered", script(t, "setsid_children.sh"), time.Minute},
		{"timed out", script(t, "setsid_children.sh") + " hang", time.Second},
	} {
		t.Run(tt.name, func(t *testing.T) {
			in := newInspector(t, tt.command)
			state := os.Getenv("EVALCAL_TEST_STATE")
			ctx, cancel := context.WithTimeout(context.Background(), tt.timeout)
			defer cancel()
			start := time.Now()
			_, err := in.Inspect(ctx, testRuns(t, 1)[0], inspection.Light)
			if tt.timeout == time.Minute && err != nil {
				t.Fatal(err)
			}
			if tt.timeout != time.Minute && !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("err = %v, want the deadline", err)
			}
			if el := time.Since(start); el > tt.timeout+2*time.Second {
				t.Errorf("Inspect took %v", el)
			}
			pids := leftovers(t, state)
			if len(pids) != 3 {
				t.Fatalf("recorded %v, want 3 pids", pids)
			}
			for name, pid := range pids {
				if alive(pid) {
					t.Errorf("%s: process %d outlived the call", name, pid)
				}
			}
		})
	}
}

// The case: 8 concurrent calls through the runner leave nothing.
func TestNoDescendantSurvivesConcurrentCalls(t *testing.T) {
	requireProcAndSetsid(t)
	in := newInspector(t, script(t, "setsid_children.sh"))
	state := os.Getenv("EVALCAL_TEST_STATE")
	res, err := runner.Run(context.Background(), testRuns(t, 4), in, runner.Options{Jobs: 4, Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Pairs) != 4 {
		t.Fatalf("pairs %d, failures %+v", len(res.Pairs), res.Failures)
	}
	pids := leftovers(t, state)
	if len(pids) != 24 {
		t.Fatalf("recorded %d pids, want 3 for each of 8 calls", len(pids))
	}
	for name, pid := range pids {
		if alive(pid) {
			t.Errorf("%s: process %d outlived its call", name, pid)
		}
	}
}

// The reaper is a separate process, one per Inspector: evalcal itself
// never becomes a child subreaper. Making evalcal the subreaper would
// save that one process, but evalcal (or a Go program embedding it) would
// then inherit the orphans of everything it runs, not only of exec
// calls, would have to reap them without stealing os/exec's wait
// statuses, and nothing would be left to clean up after evalcal is killed
// with SIGKILL (TestKilledEvalcalLeavesNoDescendant).
func TestEvalcalDoesNotBecomeASubreaper(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("Linux only")
	}
	in := newInspector(t, script(t, "good.sh")+" {run} {depth}")
	if _, err := in.Inspect(context.Background(), testRuns(t, 1)[0], inspection.Light); err != nil {
		t.Fatal(err)
	}
	if isSubreaper(t) {
		t.Error("the calling process is a child subreaper")
	}
}

// TestHelperInspectAndHang is not a test: run by
// TestKilledEvalcalLeavesNoDescendant as a stand-in evalcal, it starts an
// inspector that hangs, and waits to be killed.
func TestHelperInspectAndHang(t *testing.T) {
	if os.Getenv("EVALCAL_TEST_HELPER") != "hang" {
		t.Skip("helper process")
	}
	in, err := execinspector.New(os.Getenv("EVALCAL_TEST_COMMAND"))
	if err != nil {
		t.Fatal(err)
	}
	_, _ = in.Inspect(context.Background(), inspection.Run{ID: "r", Path: os.Getenv("EVALCAL_TEST_STATE")}, inspection.Light)
}

// When evalcal is killed with SIGKILL mid-call, the reaper sees its
// socket close and kills what the call started.
func TestKilledEvalcalLeavesNoDescendant(t *testing.T) {
	requireProcAndSetsid(t)
	state := t.TempDir()
	helper := exec.Command(os.Args[0], "-test.run=^TestHelperInspectAndHang$")
	helper.Env = append(os.Environ(), "EVALCAL_TEST_HELPER=hang", "EVALCAL_TEST_STATE="+state,
		"EVALCAL_TEST_COMMAND="+script(t, "setsid_children.sh")+" hang")
	if err := helper.Start(); err != nil {
		t.Fatal(err)
	}
	// Wait until the inspector has started everything, then kill -9.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if es, _ := os.ReadDir(state); len(es) == 3 && len(leftoversIn(state)) == 3 {
			break
		}
		if time.Now().After(deadline) {
			_ = helper.Process.Kill()
			t.Fatal("the helper's inspector never started its children")
		}
	}
	pids := leftovers(t, state)
	if err := helper.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = helper.Wait()
	deadline := time.Now().Add(2 * time.Second)
	for name, pid := range pids {
		for alive(pid) && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if alive(pid) {
			t.Errorf("%s: process %d outlived the killed evalcal by 2 s", name, pid)
		}
	}
}

// leftoversIn lists the complete pid files in state.
func leftoversIn(state string) []string {
	var out []string
	es, _ := os.ReadDir(state)
	for _, e := range es {
		b, err := os.ReadFile(filepath.Join(state, e.Name()))
		if _, perr := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && perr == nil {
			out = append(out, e.Name())
		}
	}
	return out
}

// A program killed by a signal is a transient failure that says so, with
// or without the reaper in between.
func TestProgramKilledByASignalIsTransient(t *testing.T) {
	in := newInspector(t, script(t, "killed.sh"))
	_, err := in.Inspect(context.Background(), testRuns(t, 1)[0], inspection.Light)
	if err == nil || inspection.IsPermanent(err) || !strings.Contains(err.Error(), "signal: killed") ||
		!strings.Contains(err.Error(), "about to die") {
		t.Errorf("err = %v, want a transient 'signal: killed' with the stderr tail", err)
	}
}

// Issue 27 (13): a run directory named `$(touch PWNED)` (a run: it holds a
// log and a source) must not run as shell code when {run} sits inside an
// `sh -c` script; such a call is refused for that run, and a script that
// reads $EVALCAL_RUN works on it.
func TestRunNameIsNeverShellCode(t *testing.T) {
	work := t.TempDir()
	t.Chdir(work)
	dir := filepath.Join(t.TempDir(), "$(touch PWNED)")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	answer := `{"runtime_fidelity": 80, "task_effectiveness": 80, "services": [], "flags": [], "verdict": "pass", "summary": "ok"}`
	for name, content := range map[string]string{"state.md": "# state\n", "program.prose": "x\n", "answer.json": answer} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run := inspection.Run{ID: "pwned", Path: dir, System: "s"}
	for _, cmd := range []string{
		`sh -c 'cat {run}/answer.json'`,
		`bash -ec 'ls {run} >/dev/null 2>&1; true'`,
		`env LC_ALL=C sh -c 'test -d {run}'`,
	} {
		in := newInspector(t, cmd)
		_, err := in.Inspect(context.Background(), run, inspection.Light)
		if !inspection.IsPermanent(err) || inspection.IsFatal(err) || !strings.Contains(err.Error(), "EVALCAL_RUN") {
			t.Errorf("%s: %v, want a permanent refusal naming EVALCAL_RUN", cmd, err)
		}
		if _, serr := os.Stat(filepath.Join(work, "PWNED")); serr == nil {
			t.Fatalf("%s: the run's name ran as shell code", cmd)
		}
	}
	in := newInspector(t, `sh -c 'cat "$EVALCAL_RUN/answer.json"'`)
	if _, err := in.Inspect(context.Background(), run, inspection.Light); err != nil {
		t.Errorf("reading $EVALCAL_RUN: %v", err)
	}
	if _, serr := os.Stat(filepath.Join(work, "PWNED")); serr == nil {
		t.Fatal("the run's name ran as shell code")
	}
}
