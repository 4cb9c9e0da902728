// Package execinspector runs an external program as an evalcal inspector
// (`--inspector exec:COMMAND`, issue 3).
//
// The command is split like a POSIX shell would split it (quotes and
// backslashes, github.com/google/shlex) but run without a shell. In every
// argument `{run}` becomes the run directory and `{depth}` the depth; the
// environment also carries EVALCAL_RUN, EVALCAL_RUN_ID, EVALCAL_DEPTH and
// EVALCAL_REPEAT (the 0-based repeat index with --repeat K; `{repeat}` in an
// argument).
// The program prints one inspection JSON object on stdout (schema in
// docs/DESIGN.md; `program` is accepted for `system`).
//
// # Run paths
//
// The run directory reaches the program absolute or starting with "./"
// (a relative "runs/x" becomes "./runs/x"), in `{run}` and in EVALCAL_RUN
// alike, so a directory named `-rf` or `--output=x` is never read as an
// option. Substitution is textual, so `{run}` inside code that a shell or
// an interpreter runs (`sh -c '...'`, `bash -lc`, `python3 -c`, `perl -e`,
// `ruby -e`, `node -e`) would be pasted into that code, where a directory
// named `$(touch PWNED)` would run: such a call is refused (permanent, for
// that run alone) unless the path holds only the characters
// [A-Za-z0-9_./@%+=:,-], which no shell or interpreter quotes (see
// codeArgument). The safe way is to let the code read the environment:
//
//	exec:sh -c 'my-inspector --run "$EVALCAL_RUN" --depth "$EVALCAL_DEPTH"'
//
// # Processes
//
// The program runs in its own process group (a terminal's Ctrl-C reaches
// evalcal only) with stdin on /dev/null, in evalcal's working directory
// at the time of the call.
//
// On Linux the programs of an Inspector are started by its reaper: the
// evalcal binary re-executed once, at the Inspector's first call, which
// makes itself a child subreaper (prctl PR_SET_CHILD_SUBREAPER; evalcal
// itself never becomes one, so it never inherits the orphans of anything
// else it runs). Every process a call leaves behind (one that called
// setsid, double-forked, or lost its parent) is re-parented to the
// reaper. Each program gets EVALCAL_CALL=<reaper pid>.<call id> in its
// environment, which its descendants inherit (an EVALCAL_CALL evalcal
// itself inherited is replaced). When the program exits, or its call ends
// early (timeout, Ctrl-C, an over-long answer), the reaper kills its
// process group, then every process it adopted that belongs to the call,
// again and again as their own children are re-parented to it: a process
// belongs to the call whose marker it carries, or else to the call whose
// stdout or stderr pipe it holds open. Inspect returns after that.
//
// Guaranteed: when Inspect returns, no process started by the call is
// left running. The exceptions:
//
//   - A process that cleared its environment and let go of the call's
//     stdout and stderr carries nothing of its call. The reaper kills it
//     once none of the calls that were running when it first saw it
//     still runs: one of them started it, and the reaper never kills a
//     process that may belong to a running call. With one call at a time
//     (--jobs 1) that is before Inspect returns; with more, such a
//     process may outlive its call by as long as the calls running
//     beside it last (at most the per-call timeout).
//   - A process evalcal may not signal (it switched user: a setuid
//     program) or that does not die (stuck in the kernel) is given up on
//     2 s after the program exited; a failed call's stderr tail counts
//     them.
//   - A process that made itself a subreaper keeps its own orphans.
//   - If the reaper itself is killed with SIGKILL, each running program
//     dies with it (PR_SET_PDEATHSIG), and evalcal, seeing the socket
//     close, kills every process carrying one of that reaper's markers
//     (a scan of /proc) with its process group. A descendant that
//     carries no marker and is outside its program's group goes to
//     init. Those calls fail (transiently: the runner retries them) and
//     the next call starts a new reaper.
//
// When evalcal exits, even killed with SIGKILL, or closes the Inspector,
// the reaper sees its socket close at once, kills everything left of
// every call (2 s at most), and exits.
//
// Cost: one re-execution of evalcal per Inspector (once, about 10 ms and
// 10 MB), then per call about 0.2 ms of the reaper's CPU and 0.1 ms of
// evalcal's beyond what starting the program costs anyway (the former
// per-call reaper cost about 6 ms of CPU per call).
//
// Elsewhere (not Linux), or when the reaper cannot start (no
// /proc/self/exe), the program runs as a child of evalcal, and its
// process group is killed when it exits or its call ends; a descendant
// that left the group survives.
package execinspector

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/evalcal/evalcal/inspection"
	"github.com/google/shlex"
)

// Limits on what is kept of the program's output.
const (
	// StderrTail is how many trailing bytes of stderr a failure carries.
	StderrTail = 2048
	// MaxStdout bounds stdout; an inspection is a few KB, so more is a
	// misbehaving program: it is killed as soon as it writes byte
	// MaxStdout+1, and the call fails permanently.
	MaxStdout = 16 << 20
	// waitDelay bounds the wait for the output pipes to close after the
	// program (or its reaper) exited or was killed: a descendant evalcal
	// cannot kill may hold them open.
	waitDelay = 2 * time.Second
)

// callMarker names the environment variable that marks every process of
// a call for the reaper: "<reaper pid>.<call id>".
const callMarker = "EVALCAL_CALL"

// exitCommandNotFound is the exit status shells (and the reaper) use for
// a command that could not be found or started.
const exitCommandNotFound = 127

// errStdoutTooLong ends a call whose program wrote more than MaxStdout
// bytes.
var errStdoutTooLong = fmt.Errorf("stdout longer than %d bytes", MaxStdout)

// Inspector runs one external command per inspection. It is safe for
// concurrent use.
type Inspector struct {
	command string
	args    []string
	procs   *launcher
	// env are variables set for every call besides the call's own
	// (WithEnv); they are part of the identity.
	env []string
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
	in := &Inspector{command: command, args: args, procs: newLauncher()}
	// An Inspector dropped without Close lets its reaper go.
	runtime.AddCleanup(in, (*launcher).release, in.procs)
	return in, nil
}

// Identity is "exec:" followed by the first 16 hex digits of the SHA-256
// of the command string: another command is another cache key. A change
// inside the program that keeps its command line is not seen; put a
// version in the command (e.g. an argument) when results change.
func (in *Inspector) Identity() string {
	sum := sha256.Sum256([]byte(in.command))
	id := "exec:" + hex.EncodeToString(sum[:8])
	if len(in.env) > 0 {
		id += envIdentity(in.env)
	}
	return id
}

// Inspect runs the command for run at depth and parses its stdout.
//
// A program that cannot be found or is not executable, or that exits
// with status 127 (a shell's "command not found"), is a misconfiguration
// every call would hit: the error is inspection.Fatal and the run stops. A
// program that prints something that is not a valid inspection (bad
// JSON, a score outside 0..100, an unknown verdict) or more than
// MaxStdout bytes fails permanently: running it again would give the
// same answer. Any other non-zero exit or a signal is transient (the
// runner retries). Every failure carries the last StderrTail bytes of
// stderr. A run without a directory (saved inspections) fails
// permanently.
func (in *Inspector) Inspect(ctx context.Context, run inspection.Run, depth inspection.Depth) (inspection.Inspection, error) {
	if run.Path == "" {
		return inspection.Inspection{}, inspection.Permanent(fmt.Errorf("exec inspector: run %s has no directory", run.ID))
	}
	dir := RunPath(run.Path)
	repeat := strconv.Itoa(inspection.RepeatOf(ctx))
	if i := codeArgument(in.args); i >= 0 && strings.Contains(in.args[i], "{run}") && !shellSafe(dir) {
		return inspection.Inspection{}, inspection.Permanent(fmt.Errorf("exec inspector: run %s: its directory %q holds characters "+
			"code would interpret, and {run} is pasted into the code %s runs (%q): refused; read the path from the environment "+
			`instead, e.g. sh -c '... "$EVALCAL_RUN" ...'`, run.ID, dir, filepath.Base(in.args[0]), in.args[i]))
	}
	argv := make([]string, len(in.args))
	for i, a := range in.args {
		argv[i] = strings.NewReplacer("{run}", dir, "{depth}", string(depth), "{repeat}", repeat).Replace(a)
	}
	stderr := &tailBuffer{max: StderrTail}
	fail := func(err error) error {
		msg := fmt.Errorf("exec inspector: run %s %s: %w", run.ID, depth, err)
		if tail := strings.TrimSpace(stderr.String()); tail != "" {
			msg = fmt.Errorf("%w; stderr: %s", msg, tail)
		}
		return msg
	}
	prog, err := exec.LookPath(argv[0])
	if err != nil {
		err = fail(fmt.Errorf("start %s: %w", argv[0], err))
		if missingProgram(err) {
			return inspection.Inspection{}, fatal(err)
		}
		return inspection.Inspection{}, inspection.Permanent(err)
	}

	// The reaper is released when the Inspector is collected: not while
	// a call of it runs.
	defer runtime.KeepAlive(in)
	callCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stdout := &limitedBuffer{max: MaxStdout, onOverflow: func() { cancel(errStdoutTooLong) }}
	env := callEnv(os.Environ(),
		"EVALCAL_RUN="+dir, "EVALCAL_RUN_ID="+run.ID, "EVALCAL_DEPTH="+string(depth), "EVALCAL_REPEAT="+repeat)
	env = callEnv(env, in.env...)
	res, err := in.procs.spawn(callCtx, spawnSpec{prog: prog, argv: argv, env: env, stdout: stdout, stderr: stderr})
	var se *startError
	switch {
	case errors.As(err, &se):
		err = fail(fmt.Errorf("start %s: %w", argv[0], err))
		switch {
		case missingProgram(err):
			return inspection.Inspection{}, fatal(err)
		case errors.Is(err, syscall.EAGAIN), errors.Is(err, syscall.ENOMEM), errors.Is(err, syscall.EMFILE), errors.Is(err, syscall.ENFILE):
			return inspection.Inspection{}, err // out of processes or files for now: worth a retry
		}
		return inspection.Inspection{}, inspection.Permanent(err)
	case err != nil:
		// The reaper was lost: the call may well work again.
		return inspection.Inspection{}, fail(err)
	}
	if res.left > 0 {
		stderr.note(fmt.Sprintf("evalcal: %d processes of this call could not be killed", res.left))
	}
	switch {
	case stdout.overflow:
		return inspection.Inspection{}, inspection.Permanent(fail(fmt.Errorf("killed: %w", errStdoutTooLong)))
	case ctx.Err() != nil:
		// Killed by us: say why, keep the context error for the runner.
		return inspection.Inspection{}, fail(fmt.Errorf("killed process group: %w", ctx.Err()))
	case res.status != 0:
		ee := &exitError{status: res.status}
		if ee.exitCode() == exitCommandNotFound {
			return inspection.Inspection{}, fatal(fail(fmt.Errorf("%w (command not found)", ee)))
		}
		return inspection.Inspection{}, fail(ee)
	}
	// A clean exit stands even when a descendant held the output open
	// past waitDelay: the answer it printed is complete.
	insp, err := inspection.ParseInspection(stdout.Bytes())
	if err != nil {
		return inspection.Inspection{}, inspection.Permanent(fail(fmt.Errorf("stdout: %w", err)))
	}
	return insp, nil
}

// Close ends the inspector's reaper, which first kills whatever is left
// of any call, and waits for it to exit (at most about 3 s). Calls still
// running are killed and fail. The inspector stays usable: a later call
// starts a new reaper. Without Close the reaper ends when evalcal exits,
// or soon after the Inspector is garbage collected.
func (in *Inspector) Close() error { return in.procs.close() }

// callEnv is base with the call's variables set (later wins, as os/exec
// does) and without any call marker inherited from an outer evalcal: the
// reaper adds this call's.
func callEnv(base []string, set ...string) []string {
	index := map[string]int{}
	out := make([]string, 0, len(base)+len(set))
	for _, kv := range append(base, set...) {
		name, _, _ := strings.Cut(kv, "=")
		if name == callMarker {
			continue
		}
		if i, ok := index[name]; ok {
			out[i] = kv
			continue
		}
		index[name] = len(out)
		out = append(out, kv)
	}
	return out
}

// RunPath is how a run directory is passed to the program: an absolute
// path as is, a relative one with a leading "./" unless it already starts
// with "./" or "../", so that no run path can begin with "-".
func RunPath(p string) string {
	if filepath.IsAbs(p) || strings.HasPrefix(p, "./") || strings.HasPrefix(p, "../") {
		return p
	}
	return "./" + p
}

// fatal marks err both fatal and permanent, so that a runner which does
// not stop on fatal errors at least does not retry it.
func fatal(err error) error { return inspection.Fatal(inspection.Permanent(err)) }

// missingProgram reports whether a start error means the program is not
// there to run: not found on PATH, no such file, not executable.
func missingProgram(err error) bool {
	return errors.Is(err, exec.ErrNotFound) || errors.Is(err, exec.ErrDot) ||
		errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) ||
		errors.Is(err, syscall.ENOEXEC) || errors.Is(err, syscall.EISDIR)
}

// limitedBuffer keeps the first max bytes written. On the first write
// past max it notes the overflow and calls onOverflow (which ends the
// call); it never fails a write, so the program is not killed by EPIPE
// before evalcal knows why. It has no ReadFrom, on purpose: os/exec
// copies into a writer with ReadFrom without calling Write, which would
// bypass the limit (issue 13.4).
type limitedBuffer struct {
	buf        bytes.Buffer
	max        int
	overflow   bool
	onOverflow func()
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if room := b.max - b.buf.Len(); len(p) > room {
		if !b.overflow {
			b.overflow = true
			b.buf.Write(p[:max(room, 0)])
			if b.onOverflow != nil {
				b.onOverflow()
			}
		}
		return len(p), nil
	}
	return b.buf.Write(p)
}

// Bytes returns what was kept.
func (b *limitedBuffer) Bytes() []byte { return b.buf.Bytes() }

// note adds a line of evalcal's own to the tail.
func (b *tailBuffer) note(line string) { _, _ = b.Write([]byte("\n" + line + "\n")) }

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

var _ inspection.Inspector = (*Inspector)(nil)
