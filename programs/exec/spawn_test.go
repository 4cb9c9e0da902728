package execinspector

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// callEnv sets the call's variables over evalcal's (the later wins and
// takes the earlier's place, as os/exec's dedupEnv keeps the last) and
// drops any call marker evalcal inherited.
func TestCallEnv(t *testing.T) {
	base := []string{"PATH=/bin", "EVALCAL_RUN=outer", "EVALCAL_CALL=9.1", "HOME=/root", "NOEQUALS"}
	got := callEnv(base, "EVALCAL_RUN=./r", "EVALCAL_DEPTH=light")
	want := []string{"PATH=/bin", "EVALCAL_RUN=./r", "HOME=/root", "NOEQUALS", "EVALCAL_DEPTH=light"}
	if !slices.Equal(got, want) {
		t.Errorf("callEnv = %q, want %q", got, want)
	}
	if base[1] != "EVALCAL_RUN=outer" {
		t.Error("callEnv changed its input")
	}
}

// exitError words a wait status as os.ProcessState does: the reference
// is os/exec's own ProcessState for real processes ending each way.
func TestExitErrorWordsStatusLikeProcessState(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	for _, code := range []string{"exit 3", "exit 127", "kill -KILL $$", "kill -TERM $$", "kill -SEGV $$"} {
		cmd := exec.Command(sh, "-c", "ulimit -c 0; "+code)
		_ = cmd.Run()
		ws := cmd.ProcessState.Sys().(syscall.WaitStatus)
		ee := &exitError{status: ws}
		if got, want := ee.Error(), cmd.ProcessState.String(); got != want {
			t.Errorf("%s: exitError says %q, ProcessState %q", code, got, want)
		}
		if got, want := ee.exitCode(), cmd.ProcessState.ExitCode(); got != want {
			t.Errorf("%s: exit code %d, ProcessState %d", code, got, want)
		}
	}
}

// The fallback without a reaper runs the program in its own process
// group and kills the group when the program exits: a child left in the
// group holding stdout dies, and the answer printed stands.
func TestSpawnDirectKillsTheGroupAndKeepsTheAnswer(t *testing.T) {
	if testing.Short() {
		t.Skip("waits out waitDelay (2 s)")
	}
	prog, err := filepath.Abs(filepath.Join("..", "..", "testdata", "inspectors", "leaves_child.sh"))
	if err != nil {
		t.Fatal(err)
	}
	state := t.TempDir()
	var stdout, stderr bytes.Buffer
	res, err := spawnDirect(context.Background(), spawnSpec{prog: prog, argv: []string{prog},
		env: append(os.Environ(), "EVALCAL_TEST_STATE="+state), stdout: &stdout, stderr: &stderr})
	if err != nil || res.status != 0 || !res.outputOpen || !strings.Contains(stdout.String(), `"verdict":"pass"`) {
		t.Fatalf("res %+v, err %v, stdout %q; want exit 0, output held open, the answer", res, err, stdout.String())
	}
	b, err := os.ReadFile(filepath.Join(state, "child.pid"))
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Second)
	for syscall.Kill(pid, 0) == nil && !zombie(pid) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if syscall.Kill(pid, 0) == nil && !zombie(pid) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
		t.Errorf("child %d left in the group survived", pid)
	}
}

// A program that cannot be started is a startError carrying the cause.
func TestSpawnDirectStartError(t *testing.T) {
	_, err := spawnDirect(context.Background(), spawnSpec{prog: "/nonexistent/prog", argv: []string{"prog"},
		stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}})
	var se *startError
	if !errors.As(err, &se) || !os.IsNotExist(se.err) && !strings.Contains(err.Error(), "no such file") {
		t.Errorf("err = %v, want a startError for a missing file", err)
	}
}

func zombie(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	_, after, _ := strings.Cut(string(b), ") ")
	return strings.HasPrefix(after, "Z")
}
