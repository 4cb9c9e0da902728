package execinspector_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/evalcal/evalcal/inspection"
	execinspector "github.com/evalcal/evalcal/programs/exec"
	"github.com/evalcal/evalcal/runner"
)

// script returns the absolute path of a test inspector in testdata.
func script(t *testing.T, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", "..", "testdata", "inspectors", name))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); err != nil {
		t.Fatal(err)
	}
	return p
}

// newInspector builds an exec inspector for command, with the test state
// directory in the environment.
func newInspector(t *testing.T, command string) *execinspector.Inspector {
	t.Helper()
	t.Setenv("EVALCAL_TEST_STATE", t.TempDir())
	in, err := execinspector.New(command)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := in.Close(); err != nil {
			t.Error(err)
		}
	})
	return in
}

func testRuns(t *testing.T, n int) []inspection.Run {
	t.Helper()
	runs := make([]inspection.Run, n)
	for i := range runs {
		dir := filepath.Join(t.TempDir(), "20260101-000000-abc"+strconv.Itoa(i))
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		runs[i] = inspection.Run{ID: filepath.Base(dir), Path: dir, System: "s", Valid: true}
	}
	return runs
}

func TestInspectSubstitutesRunAndDepthAndParsesStdout(t *testing.T) {
	in := newInspector(t, "'"+script(t, "good.sh")+"' {run} {depth}")
	run := testRuns(t, 1)[0]
	got, err := in.Inspect(context.Background(), run, inspection.Deep)
	if err != nil {
		t.Fatal(err)
	}
	want := inspection.Inspection{RunID: run.ID, System: "good-system", Depth: inspection.Deep,
		RuntimeFidelity: 60.5, TaskEffectiveness: 45, Verdict: inspection.VerdictPartial,
		Flags: []inspection.Flag{{ID: "missing-binding", Severity: inspection.SeverityWarning,
			Description: "binding absent", Evidence: "bindings/x.md"}},
		Summary: "checked", Cost: inspection.Cost{Seconds: 0.01}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

func TestNewRejectsEmptyAndUnterminatedCommands(t *testing.T) {
	for _, c := range []string{"", "   ", `"unterminated`, `''`} {
		if _, err := execinspector.New(c); err == nil {
			t.Errorf("New(%q): want an error", c)
		}
	}
}

func TestIdentityIsAHashOfTheCommand(t *testing.T) {
	in, err := execinspector.New("./good.sh {run} {depth}")
	if err != nil {
		t.Fatal(err)
	}
	// printf '%s' "./good.sh {run} {depth}" | sha256sum | cut -c1-16
	if got, want := in.Identity(), "exec:c453fdff8c45367a"; got != want {
		t.Errorf("Identity() = %q, want %q", got, want)
	}
}

func TestInspectFailsPermanentlyForRunWithoutDirectory(t *testing.T) {
	in := newInspector(t, script(t, "good.sh")+" {run} {depth}")
	_, err := in.Inspect(context.Background(), inspection.Run{ID: "saved-1", Era: inspection.EraSaved}, inspection.Light)
	if !inspection.IsPermanent(err) {
		t.Errorf("err = %v, want a permanent error", err)
	}
}

// A missing program is a misconfiguration: the runner stops at once with
// one error naming the side, instead of one failure per run.
func TestRunnerStopsOnAMissingProgram(t *testing.T) {
	path := filepath.Join(filepath.Dir(script(t, "good.sh")), "no_such_inspector.sh")
	in := newInspector(t, path+" {run} {depth}")
	_, err := runner.Run(context.Background(), testRuns(t, 4), in, runner.Options{Jobs: 2, Retries: 1, Timeout: 10 * time.Second})
	var stop *runner.StopError
	if !errors.As(err, &stop) || stop.Side != inspection.Light || !strings.Contains(err.Error(), "no_such_inspector.sh") {
		t.Fatalf("err %v, want a stop of the light side naming the program", err)
	}
}

func TestRunnerSurvivesFailingInspectors(t *testing.T) {
	tests := []struct {
		script       string
		wantAttempts int
		wantReason   []string
		notReason    string
	}{
		{"crash.sh", 2, []string{"exit status 3", "stderr: ...\ncrash.sh: noise line", "boom, inspector crashed"}, "noise line 0 "},
		{"garbage.sh", 1, []string{"stdout: not an inspection JSON object", "about to print garbage"}, ""},
		{"out_of_range.sh", 1, []string{"field runtime_fidelity: 140 is outside 0..100"}, ""},
		{"bad_verdict.sh", 1, []string{`field verdict: "maybe" is not pass, partial or fail`}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.script, func(t *testing.T) {
			path := filepath.Join(filepath.Dir(script(t, "good.sh")), tt.script)
			in := newInspector(t, path+" {run} {depth}")
			runs := testRuns(t, 2)
			res, err := runner.Run(context.Background(), runs, in, runner.Options{Jobs: 2, Retries: 1, Timeout: 10 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Failures) != 4 || len(res.Pairs) != 0 {
				t.Fatalf("got %d failures and %d pairs, want 4 and 0: %+v", len(res.Failures), len(res.Pairs), res.Failures)
			}
			for _, f := range res.Failures {
				if f.Attempts != tt.wantAttempts {
					t.Errorf("%s %s: %d attempts, want %d", f.RunID, f.Depth, f.Attempts, tt.wantAttempts)
				}
				for _, w := range tt.wantReason {
					if !strings.Contains(f.Reason, w) {
						t.Errorf("reason %q lacks %q", f.Reason, w)
					}
				}
				if tt.notReason != "" && strings.Contains(f.Reason, tt.notReason) {
					t.Errorf("reason carries more than the stderr tail: %q", f.Reason)
				}
				if len(f.Reason) > execinspector.StderrTail+300 {
					t.Errorf("reason is %d bytes, want the stderr tail bounded", len(f.Reason))
				}
			}
		})
	}
}

func TestFlakyInspectorSucceedsOnRetry(t *testing.T) {
	in := newInspector(t, script(t, "flaky.sh")+" {run} {depth}")
	runs := testRuns(t, 3)
	res, err := runner.Run(context.Background(), runs, in, runner.Options{Jobs: 2, Retries: 1, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Pairs) != 3 || len(res.Failures) != 0 || res.Calls != 12 {
		t.Errorf("pairs %d failures %v calls %d; want 3 pairs, none failed, 12 calls", len(res.Pairs), res.Failures, res.Calls)
	}
	// Without retries every first call is a failure.
	in = newInspector(t, script(t, "flaky.sh")+" {run} {depth}")
	res, err = runner.Run(context.Background(), runs, in, runner.Options{Jobs: 2, Retries: 0, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Failures) != 6 || !strings.Contains(res.Failures[0].Reason, "exit status 1; stderr: flaky.sh: transient failure") {
		t.Errorf("failures %+v, want 6 carrying the stderr", res.Failures)
	}
}

// alive reports whether pid is a live process (a zombie is dead).
func alive(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	_, after, ok := strings.Cut(string(stat), ") ")
	return ok && !strings.HasPrefix(after, "Z") && !strings.HasPrefix(after, "X")
}

func readPID(t *testing.T, path string) int {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		data, err := os.ReadFile(path)
		if pid, perr := strconv.Atoi(strings.TrimSpace(string(data))); err == nil && perr == nil {
			return pid
		}
	}
	t.Fatalf("%s never written", path)
	return 0
}

func TestTimeoutKillsTheWholeProcessGroupFast(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("needs /proc")
	}
	in := newInspector(t, script(t, "hang.sh"))
	state := os.Getenv("EVALCAL_TEST_STATE")
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := in.Inspect(ctx, testRuns(t, 1)[0], inspection.Light)
	elapsed := time.Since(start)
	if !errors.Is(err, context.DeadlineExceeded) || inspection.IsPermanent(err) {
		t.Errorf("err = %v, want a transient deadline error", err)
	}
	if elapsed > 2*time.Second {
		t.Errorf("Inspect returned %v after the call started, want soon after the 500ms timeout", elapsed)
	}
	for _, name := range []string{"shell.pid", "child.pid"} {
		pid := readPID(t, filepath.Join(state, name))
		deadline := time.Now().Add(time.Second)
		for alive(pid) && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if alive(pid) {
			t.Errorf("%s %d still alive after the timeout", name, pid)
		}
	}
}

func TestRunnerRetriesAHangingInspectorWithinTheTimeout(t *testing.T) {
	in := newInspector(t, script(t, "hang.sh"))
	start := time.Now()
	res, err := runner.Run(context.Background(), testRuns(t, 1), in, runner.Options{Jobs: 1, Retries: 1, Timeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el > 4*time.Second {
		t.Errorf("took %v, want about 4 x 200ms", el)
	}
	if len(res.Failures) != 2 || res.Failures[0].Attempts != 2 || !strings.Contains(res.Failures[0].Reason, "timed out") {
		t.Errorf("failures %+v, want light and deep timed out twice each", res.Failures)
	}
}

func TestCleanExitLeavingAChildKeepsTheAnswerAndKillsTheChild(t *testing.T) {
	in := newInspector(t, script(t, "leaves_child.sh"))
	state := os.Getenv("EVALCAL_TEST_STATE")
	start := time.Now()
	got, err := in.Inspect(context.Background(), testRuns(t, 1)[0], inspection.Light)
	if err != nil || got.Verdict != inspection.VerdictPass {
		t.Fatalf("got %+v, %v; want the pass it printed", got, err)
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Errorf("took %v, want at most about the 2s wait delay (the reaper ends it at once)", el)
	}
	pid := readPID(t, filepath.Join(state, "child.pid"))
	deadline := time.Now().Add(time.Second)
	for alive(pid) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if alive(pid) {
		t.Errorf("child %d left running", pid)
	}
}
