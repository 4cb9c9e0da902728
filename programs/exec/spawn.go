package execinspector

import (
	"context"
	"errors"
	"io"
	"os/exec"
	"strconv"
	"syscall"
)

// spawnSpec is one program to run: prog (a path, as exec.LookPath gave
// it) with argv (argv[0] as the user wrote it) and the complete
// environment env, in directory dir ("" = evalcal's), stdin /dev/null,
// stdout and stderr written to the two writers (from one goroutine each).
type spawnSpec struct {
	prog           string
	argv, env      []string
	dir            string
	stdout, stderr io.Writer
}

// spawnResult is how a program ended.
type spawnResult struct {
	status syscall.WaitStatus
	// outputOpen is true when the output pipes were still open waitDelay
	// after the program exited (a descendant that could not be killed
	// held them): the output read until then is all there is.
	outputOpen bool
	// left counts processes of the call still alive sweepLimit after the
	// program exited (they could not be killed).
	left int
}

// startError is a program that could not be started.
type startError struct{ err error }

func (e *startError) Error() string { return e.err.Error() }
func (e *startError) Unwrap() error { return e.err }

// exitError is a program's non-zero exit or death by a signal, worded as
// os.ProcessState words it ("exit status 3", "signal: killed").
type exitError struct{ status syscall.WaitStatus }

func (e *exitError) Error() string {
	ws := e.status
	switch {
	case ws.Exited():
		return "exit status " + strconv.Itoa(ws.ExitStatus())
	case ws.Signaled():
		msg := "signal: " + ws.Signal().String()
		if ws.CoreDump() {
			msg += " (core dumped)"
		}
		return msg
	}
	return "wait status " + strconv.Itoa(int(ws))
}

// exitCode is the exit status, or -1 when the program did not exit
// normally.
func (e *exitError) exitCode() int {
	if e.status.Exited() {
		return e.status.ExitStatus()
	}
	return -1
}

// spawnDirect runs the program as a child of evalcal in its own process
// group; the end of ctx kills the group, and so does the program's exit.
// A descendant that left the group survives: this is the fallback where
// no reaper can run.
func spawnDirect(ctx context.Context, s spawnSpec) (spawnResult, error) {
	cmd := groupCommand(ctx, s.prog, s.argv)
	cmd.Env, cmd.Dir = s.env, s.dir
	cmd.WaitDelay = waitDelay
	cmd.Stdout, cmd.Stderr = s.stdout, s.stderr
	if err := cmd.Start(); err != nil {
		return spawnResult{}, &startError{err: err}
	}
	err := cmd.Wait()
	// Whatever is left in the process group goes with it; ESRCH (nothing
	// left) is the usual answer.
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
	res := spawnResult{status: ws, outputOpen: errors.Is(err, exec.ErrWaitDelay)}
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) && !res.outputOpen {
		return res, err
	}
	return res, nil
}

// groupCommand starts the program directly in its own process group; the
// end of ctx kills the group.
func groupCommand(ctx context.Context, prog string, argv []string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, prog, argv[1:]...)
	cmd.Args[0] = argv[0]
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		// Negative pid: the whole process group the program leads.
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	return cmd
}
