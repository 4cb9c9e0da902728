package execinspector_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/evalcal/evalcal/inspection"
	execinspector "github.com/evalcal/evalcal/programs/exec"
	"github.com/evalcal/evalcal/runner"
)

// introspection is what introspect.sh reports of how it was run.
type introspection map[string]string

func introspect(t *testing.T, in *execinspector.Inspector, run inspection.Run) introspection {
	t.Helper()
	got, err := in.Inspect(context.Background(), run, inspection.Light)
	if err != nil {
		t.Fatal(err)
	}
	return parseIntrospection(t, got.Summary)
}

func parseIntrospection(t *testing.T, summary string) introspection {
	t.Helper()
	out := introspection{}
	for _, f := range strings.Fields(summary) {
		k, v, ok := strings.Cut(f, "=")
		if !ok {
			t.Fatalf("summary %q: field %q", summary, f)
		}
		out[k] = v
	}
	return out
}

// procArgv0 is the argv[0] of process pid.
func procArgv0(t *testing.T, pid string) string {
	t.Helper()
	b, err := os.ReadFile("/proc/" + pid + "/cmdline")
	if err != nil {
		t.Fatalf("process %s: %v", pid, err)
	}
	argv0, _, _ := strings.Cut(string(b), "\x00")
	return argv0
}

// Issue 12.4: the reaper was re-executed for every call (about 10 ms of
// CPU each). Now one reaper, a child of evalcal, starts every call of an
// Inspector, one after another or 8 at once; evalcal is not the parent.
func TestOneReaperStartsEveryCallOfAnInspector(t *testing.T) {
	in := newInspector(t, script(t, "introspect.sh"))
	runs := testRuns(t, 8)
	first := introspect(t, in, runs[0])
	reaper := first["ppid"]
	if reaper == strconv.Itoa(os.Getpid()) {
		t.Fatalf("the program's parent is evalcal (%s), want the reaper", reaper)
	}
	if got := procArgv0(t, reaper); got != "evalcal-exec-reaper" {
		t.Errorf("the program's parent %s is %q, want evalcal-exec-reaper", reaper, got)
	}
	if got := introspect(t, in, runs[1])["ppid"]; got != reaper {
		t.Errorf("second call's parent %s, want the first call's reaper %s", got, reaper)
	}
	res, err := runner.Run(context.Background(), runs, in, runner.Options{Jobs: 8, Timeout: time.Minute})
	if err != nil || len(res.Pairs) != len(runs) {
		t.Fatalf("pairs %d, failures %v, err %v", len(res.Pairs), res.Failures, err)
	}
	for _, p := range res.Pairs {
		for _, insp := range []inspection.Inspection{p.Light, p.Deep} {
			if got := parseIntrospection(t, insp.Summary)["ppid"]; got != reaper {
				t.Errorf("%s %s: parent %s, want the one reaper %s", p.Run.ID, insp.Depth, got, reaper)
			}
		}
	}
}

// Every process of a call carries the call's marker, once, even when
// evalcal itself runs under an outer evalcal (it inherits the outer
// marker); two calls have two markers.
func TestEveryCallHasItsOwnMarker(t *testing.T) {
	t.Setenv("EVALCAL_CALL", "outer.7")
	in := newInspector(t, script(t, "introspect.sh"))
	run := testRuns(t, 1)[0]
	a, b := introspect(t, in, run), introspect(t, in, run)
	for _, got := range []introspection{a, b} {
		if got["markers"] != "1" || got["call"] == "outer.7" || !strings.HasPrefix(got["call"], got["ppid"]+".") {
			t.Errorf("got %v, want one EVALCAL_CALL=<reaper pid>.<call id> replacing the outer one", got)
		}
	}
	if a["call"] == b["call"] {
		t.Errorf("two calls share the marker %s", a["call"])
	}
}

// The reaper starts once, in the working directory evalcal had then; each
// program runs in evalcal's working directory at the time of its call, so
// relative run paths mean what they meant to evalcal.
func TestProgramRunsInEvalcalsWorkingDirectoryAtCallTime(t *testing.T) {
	in := newInspector(t, script(t, "introspect.sh"))
	first, second := t.TempDir(), t.TempDir()
	t.Chdir(first)
	if got := introspect(t, in, inspection.Run{ID: "r", Path: "."})["pwd"]; got != first {
		t.Errorf("pwd %s, want %s", got, first)
	}
	t.Chdir(second)
	if got := introspect(t, in, inspection.Run{ID: "r", Path: "."})["pwd"]; got != second {
		t.Errorf("after chdir: pwd %s, want %s", got, second)
	}
}

// A start request larger than one socket message (an environment of
// 100 KB) goes to the reaper through a pipe and reaches the program whole.
func TestLargeEnvironmentReachesTheProgram(t *testing.T) {
	big := strings.Repeat("x", 100<<10)
	t.Setenv("EVALCAL_TEST_BIG", big)
	in := newInspector(t, script(t, "introspect.sh"))
	if got := introspect(t, in, testRuns(t, 1)[0])["big"]; got != strconv.Itoa(len(big)) {
		t.Errorf("the program saw EVALCAL_TEST_BIG of %s bytes, want %d", got, len(big))
	}
}

// waitForPID waits for the first file in dir whose name starts with
// prefix to hold a pid.
func waitForPID(t *testing.T, dir, prefix string) int {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		es, _ := os.ReadDir(dir)
		for _, e := range es {
			if strings.HasPrefix(e.Name(), prefix) {
				pid := readPID(t, filepath.Join(dir, e.Name()))
				t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
				return pid
			}
		}
	}
	t.Fatalf("no %s* in %s", prefix, dir)
	return 0
}

// A process that left its call's process group and session but carries
// the call's marker in its environment, or holds the call's stderr open,
// is that call's: it dies before its call's Inspect returns, even while
// another call runs.
func TestProcessCarryingItsCallDiesWithItsCall(t *testing.T) {
	requireProcAndSetsid(t)
	for _, keep := range []string{"env", "pipe"} {
		t.Run(keep, func(t *testing.T) {
			in := newInspector(t, script(t, "stray.sh")+" {depth}")
			state := os.Getenv("EVALCAL_TEST_STATE")
			ctx, cancel := context.WithCancel(context.Background())
			var wg sync.WaitGroup
			defer wg.Wait()
			defer cancel()
			wg.Go(func() { _, _ = in.Inspect(ctx, testRuns(t, 1)[0], inspection.Deep) })
			waitForPID(t, state, "hang.pid.")
			run := testRuns(t, 1)[0]
			if err := os.WriteFile(filepath.Join(run.Path, "keep"), []byte(keep), 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := in.Inspect(context.Background(), run, inspection.Light); err != nil {
				t.Fatal(err)
			}
			if pid := waitForPID(t, state, "stray.pid."); alive(pid) {
				t.Errorf("process %d keeping the call's %s outlived the call", pid, keep)
			}
		})
	}
}

// A process that keeps nothing of its call (environment cleared, the
// call's pipes closed) cannot be told apart from the other calls'. With
// one call at a time it dies before Inspect returns; beside a running call
// that might own it, it is spared until that call ends, and dies before
// that call's Inspect returns.
func TestStrayDiesOnceNoCallThatMayOwnItRuns(t *testing.T) {
	requireProcAndSetsid(t)
	in := newInspector(t, script(t, "stray.sh")+" {depth}")
	state := os.Getenv("EVALCAL_TEST_STATE")
	run := testRuns(t, 1)[0]

	t.Run("alone", func(t *testing.T) {
		if _, err := in.Inspect(context.Background(), run, inspection.Light); err != nil {
			t.Fatal(err)
		}
		if pid := waitForPID(t, state, "stray.pid."); alive(pid) {
			t.Errorf("stray %d outlived the only call", pid)
		}
		clearDir(t, state)
	})

	t.Run("beside a running call", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		var hangErr error
		var wg sync.WaitGroup
		wg.Go(func() { _, hangErr = in.Inspect(ctx, run, inspection.Deep) })
		hang := waitForPID(t, state, "hang.pid.")
		if _, err := in.Inspect(context.Background(), run, inspection.Light); err != nil {
			t.Fatal(err)
		}
		stray := waitForPID(t, state, "stray.pid.")
		if !alive(stray) {
			t.Errorf("stray %d was killed while a call that may own it (%d) runs", stray, hang)
		}
		cancel()
		wg.Wait()
		if !errors.Is(hangErr, context.Canceled) {
			t.Errorf("hanging call: err %v, want cancelled", hangErr)
		}
		for name, pid := range map[string]int{"hanging program": hang, "stray": stray} {
			if alive(pid) {
				t.Errorf("%s %d outlived the last call that may own it", name, pid)
			}
		}
	})
}

func clearDir(t *testing.T, dir string) {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range es {
		if err := os.Remove(filepath.Join(dir, e.Name())); err != nil {
			t.Fatal(err)
		}
	}
}

// parentOf is the parent pid of pid.
func parentOf(t *testing.T, pid int) int {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	ppid, err := strconv.Atoi(f[1])
	if err != nil {
		t.Fatal(err)
	}
	return ppid
}

// hangingRun is a run on which introspect.sh never answers.
func hangingRun(t *testing.T) inspection.Run {
	t.Helper()
	run := testRuns(t, 1)[0]
	if err := os.WriteFile(filepath.Join(run.Path, "hang"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	return run
}

// inspectInBackground starts a call and returns the channel its error
// comes on.
func inspectInBackground(in *execinspector.Inspector, run inspection.Run) <-chan error {
	errc := make(chan error, 1)
	go func() {
		_, err := in.Inspect(context.Background(), run, inspection.Light)
		errc <- err
	}()
	return errc
}

func waitDead(t *testing.T, what string, pid int) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for alive(pid) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if alive(pid) {
		t.Errorf("%s %d still alive", what, pid)
	}
}

// If the reaper is killed with SIGKILL mid-call, the call fails with a
// transient error (the runner retries it), its program and process group
// die, and the next call starts a new reaper.
func TestKilledReaperFailsTheCallTransientlyAndIsReplaced(t *testing.T) {
	in := newInspector(t, script(t, "introspect.sh"))
	state := os.Getenv("EVALCAL_TEST_STATE")
	errc := inspectInBackground(in, hangingRun(t))
	shell := readPID(t, filepath.Join(state, "shell.pid"))
	child := readPID(t, filepath.Join(state, "child.pid"))
	reaper := parentOf(t, shell)
	if err := syscall.Kill(reaper, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-errc:
		if err == nil || inspection.IsPermanent(err) || !strings.Contains(err.Error(), "reaper") {
			t.Errorf("err = %v, want a transient error naming the reaper", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Inspect did not return after its reaper was killed")
	}
	waitDead(t, "program", shell)
	waitDead(t, "program's child", child)
	got := introspect(t, in, testRuns(t, 1)[0])["ppid"]
	if got == strconv.Itoa(reaper) || procArgv0(t, got) != "evalcal-exec-reaper" {
		t.Errorf("the next call ran under %s (%s), want a new reaper", got, procArgv0(t, got))
	}
}

// Close kills the calls still running, ends the reaper, and leaves the
// inspector usable.
func TestCloseEndsRunningCallsAndTheReaper(t *testing.T) {
	in := newInspector(t, script(t, "introspect.sh"))
	state := os.Getenv("EVALCAL_TEST_STATE")
	errc := inspectInBackground(in, hangingRun(t))
	shell := readPID(t, filepath.Join(state, "shell.pid"))
	child := readPID(t, filepath.Join(state, "child.pid"))
	reaper := parentOf(t, shell)
	if err := in.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-errc:
		if err == nil {
			t.Error("the running call succeeded, want it killed")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Inspect did not return after Close")
	}
	// Close waited for the reaper, which killed everything first.
	for name, pid := range map[string]int{"program": shell, "program's child": child, "reaper": reaper} {
		if alive(pid) {
			t.Errorf("%s %d outlived Close", name, pid)
		}
	}
	if got := introspect(t, in, testRuns(t, 1)[0])["ppid"]; got == strconv.Itoa(reaper) {
		t.Errorf("a call after Close ran under the closed reaper %s", got)
	}
}

// A program named by a relative path ("exec:./inspector.sh") is found
// from evalcal's working directory, not the reaper's.
func TestRelativeProgramPathIsFoundFromEvalcalsDirectory(t *testing.T) {
	t.Chdir(filepath.Dir(script(t, "introspect.sh")))
	in := newInspector(t, "./introspect.sh")
	if got := introspect(t, in, testRuns(t, 1)[0])["markers"]; got != "1" {
		t.Errorf("markers=%s, want the program to run and see its marker", got)
	}
}

// When the reaper is killed with SIGKILL, evalcal kills every process
// carrying one of its calls' markers, in whatever session: the setsid and
// nohup children of setsid_children.sh die. (Its envless child carries no
// marker and goes to init: the documented exception.)
func TestKilledReaperLeavesNoMarkedDescendant(t *testing.T) {
	requireProcAndSetsid(t)
	in := newInspector(t, script(t, "setsid_children.sh")+" hang")
	state := os.Getenv("EVALCAL_TEST_STATE")
	errc := inspectInBackground(in, testRuns(t, 1)[0])
	for deadline := time.Now().Add(10 * time.Second); len(leftoversIn(state)) < 3; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the inspector never started its children")
		}
	}
	pids := leftovers(t, state)
	var setsid int
	for name, pid := range pids {
		if strings.HasPrefix(name, "setsid.pid.") {
			setsid = pid
		}
	}
	reaper := parentOf(t, setsid) // setsid_children.sh's shell
	reaper = parentOf(t, reaper)
	if got := procArgv0(t, strconv.Itoa(reaper)); got != "evalcal-exec-reaper" {
		t.Fatalf("grandparent of the setsid child is %q, want the reaper", got)
	}
	if err := syscall.Kill(reaper, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	select {
	case <-errc:
	case <-time.After(10 * time.Second):
		t.Fatal("Inspect did not return after its reaper was killed")
	}
	for name, pid := range pids {
		if !strings.HasPrefix(name, "envless.") {
			waitDead(t, name, pid)
		}
	}
}
