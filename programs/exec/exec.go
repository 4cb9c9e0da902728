// Package execinspector runs an external program as an evalcal inspector
// (`--inspector exec:COMMAND`, issue 3).
//
// The command is split like a POSIX shell would split it (quotes and
// backslashes, github.com/google/shlex) but run without a shell. In every
// argument `{run}` becomes the run directory and `{depth}` the depth; the
// environment also carries EVALCAL_RUN, EVALCAL_RUN_ID and EVALCAL_DEPTH.
// The program prints one inspection JSON object on stdout (schema in
// DESIGN.md; `program` is accepted for `system`).
//
// The program runs in its own process group, so a terminal's Ctrl-C
// reaches evalcal only. When the call's context ends (timeout or Ctrl-C)
// the whole group is killed with SIGKILL and the program reaped; the
// group is killed too when the program exits, so nothing it started
// outlives the call.
package execinspector

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/google/shlex"

	"github.com/evalcal/evalcal/runner"
	"github.com/evalcal/evalcal/sampler"
)

// Limits on what is kept of the program's output.
const (
	// StderrTail is how many trailing bytes of stderr a failure carries.
	StderrTail = 2048
	// MaxStdout bounds stdout; an inspection is a few KB, so more is a
	// misbehaving program.
	MaxStdout = 16 << 20
	// waitDelay bounds the wait for the output pipes to close after the
	// process group was killed (a grandchild that left the group may hold
	// them open).
	waitDelay = 2 * time.Second
)

// Inspector runs one external command per inspection. It is safe for
// concurrent use.
type Inspector struct {
	command string
	args    []string
}

// New parses command. An empty command, one that does not split (an
// unterminated quote) or one whose program name is empty is an error. The
// program is looked up on PATH at call time, not here.
func New(command string) (*Inspector, error) {
	args, err := shlex.Split(command)
	if err != nil {
		return nil, fmt.Errorf("exec inspector: split %q: %w", command, err)
	}
	if len(args) == 0 || args[0] == "" {
		return nil, fmt.Errorf("exec inspector: empty command %q", command)
	}
	return &Inspector{command: command, args: args}, nil
}

// Identity is "exec:" followed by the first 16 hex digits of the SHA-256
// of the command string: another command is another cache key. A change
// inside the program that keeps its command line is not seen; put a
// version in the command (e.g. an argument) when results change.
func (in *Inspector) Identity() string {
	sum := sha256.Sum256([]byte(in.command))
	return "exec:" + hex.EncodeToString(sum[:8])
}

// Inspect runs the command for run at depth and parses its stdout.
//
// A program that cannot be started, or that prints something that is not
// a valid inspection (bad JSON, a score outside 0..100, an unknown
// verdict), fails permanently: running it again would give the same
// answer. A non-zero exit or a signal is transient (the runner retries).
// Every failure carries the last StderrTail bytes of stderr. A run
// without a directory (saved inspections) fails permanently.
func (in *Inspector) Inspect(ctx context.Context, run sampler.Run, depth runner.Depth) (runner.Inspection, error) {
	if run.Path == "" {
		return runner.Inspection{}, runner.Permanent(fmt.Errorf("exec inspector: run %s has no directory", run.ID))
	}
	args := make([]string, len(in.args))
	for i, a := range in.args {
		args[i] = strings.NewReplacer("{run}", run.Path, "{depth}", string(depth)).Replace(a)
	}
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.Env = append(os.Environ(),
		"EVALCAL_RUN="+run.Path, "EVALCAL_RUN_ID="+run.ID, "EVALCAL_DEPTH="+string(depth))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		// Negative pid: the whole process group the program leads.
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	cmd.WaitDelay = waitDelay
	stdout := &limitedBuffer{max: MaxStdout}
	stderr := &tailBuffer{max: StderrTail}
	cmd.Stdout, cmd.Stderr = stdout, stderr

	fail := func(err error) error {
		msg := fmt.Errorf("exec inspector: run %s %s: %w", run.ID, depth, err)
		if tail := strings.TrimSpace(stderr.String()); tail != "" {
			msg = fmt.Errorf("%w; stderr: %s", msg, tail)
		}
		return msg
	}
	if err := cmd.Start(); err != nil {
		return runner.Inspection{}, runner.Permanent(fail(fmt.Errorf("start %s: %w", args[0], err)))
	}
	err := cmd.Wait()
	// Whatever the program left running in its group goes with it; ESRCH
	// (nothing left) is the usual answer.
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	if errors.Is(err, exec.ErrWaitDelay) && cmd.ProcessState.Success() {
		// The program exited cleanly but a child held its output open
		// past waitDelay; the answer it printed stands.
		err = nil
	}
	if ctx.Err() != nil {
		// Killed by us: say why, keep the context error for the runner.
		return runner.Inspection{}, fail(fmt.Errorf("killed process group: %w", ctx.Err()))
	}
	if err != nil {
		return runner.Inspection{}, fail(err)
	}
	if stdout.overflow {
		return runner.Inspection{}, runner.Permanent(fail(fmt.Errorf("stdout longer than %d bytes", MaxStdout)))
	}
	insp, err := runner.ParseInspection(stdout.Bytes())
	if err != nil {
		return runner.Inspection{}, runner.Permanent(fail(fmt.Errorf("stdout: %w", err)))
	}
	return insp, nil
}

// limitedBuffer keeps the first max bytes written and notes an overflow;
// it never fails a write, so the program is not killed by EPIPE.
type limitedBuffer struct {
	bytes.Buffer
	max      int
	overflow bool
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if room := b.max - b.Len(); len(p) > room {
		b.overflow = true
		b.Buffer.Write(p[:max(room, 0)])
		return len(p), nil
	}
	return b.Buffer.Write(p)
}

// tailBuffer keeps the last max bytes written.
type tailBuffer struct {
	buf []byte
	max int
	cut bool
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.buf = append(b.buf, p...)
	if over := len(b.buf) - b.max; over > 0 {
		b.buf = append(b.buf[:0], b.buf[over:]...)
		b.cut = true
	}
	return len(p), nil
}

// String is the tail as valid UTF-8; when earlier output was dropped it
// starts at the first whole line, after "...".
func (b *tailBuffer) String() string {
	tail := b.buf
	if b.cut {
		if i := bytes.IndexByte(tail, '\n'); i >= 0 && i+1 < len(tail) {
			tail = tail[i+1:]
		}
		tail = append([]byte("...\n"), tail...)
	}
	return string(bytes.ToValidUTF8(tail, []byte("?")))
}

var _ runner.Inspector = (*Inspector)(nil)
