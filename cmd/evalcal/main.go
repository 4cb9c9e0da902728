package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/pprof"
	"syscall"

	"github.com/spf13/cobra"
)

// version is evalcal's version, recorded in every report (generated_by).
// `evalcal version` prints the module version and VCS commit of the
// binary when the build recorded them (see versionLine).
const version = "0.2.0"

func main() {
	if p := os.Getenv("EVALCAL_CPUPROFILE"); p != "" {
		// A developer's aid (make bench-run's profile): a CPU profile of
		// the whole command, written to the file the variable names.
		if f, err := os.Create(p); err == nil {
			_ = pprof.StartCPUProfile(f) // stopped before os.Exit below
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	var stdout io.Writer = os.Stdout
	if stdoutClosedAtStart() {
		stdout = closedWriter{}
	}
	err := runIO(ctx, os.Args[1:], ioStreams{In: os.Stdin, Out: stdout, ErrOut: os.Stderr})
	stop()
	code := exitCode(err)
	printError(os.Stderr, err)
	pprof.StopCPUProfile()
	os.Exit(code)
}

// run is evalcal with its arguments (without the program name), reading
// stdin from os.Stdin. Tests call it in-process; runIO takes every stream.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return runIO(ctx, args, ioStreams{In: os.Stdin, Out: stdout, ErrOut: stderr})
}

// ioStreams are a command's input and outputs (the gh IOStreams pattern):
// commands never touch os.Stdin, os.Stdout or os.Stderr, so a test gives
// buffers.
type ioStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer
}

// factory is what every command constructor gets: the streams, and the
// arguments of the command being run as given after its name (single-dash
// long flags rewritten), which documents record as their command line.
type factory struct {
	io   ioStreams
	args []string
}

// runIO builds the command tree, rewrites deprecated single-dash long
// flags of the command being run (with one note on stderr), and executes
// it. Every error it returns carries its exit code (see exitCode).
func runIO(ctx context.Context, args []string, streams ioStreams) error {
	f := &factory{io: streams}
	root := newRootCmd(f)
	cmdArgs := args
	if isCompletionRequest(args) {
		registerFlagCompletions(root)
	} else if target, rest, err := root.Find(args); err == nil && target != nil {
		rewritten, legacy := rewriteLegacyFlags(target, rest)
		if len(legacy) > 0 {
			fmt.Fprintf(streams.ErrOut, "evalcal: single-dash long flags are deprecated: write %s\n", legacyNote(legacy))
		}
		cmdArgs = append(commandWords(target), rewritten...)
		f.args = rewritten
	}
	root.SetArgs(cmdArgs)
	return root.ExecuteContext(ctx)
}

// printError writes err on w as main does: "evalcal: " and the message,
// then the error's hint line (such as where the help is), if any. A nil
// error or one that exits 0 prints nothing.
func printError(w io.Writer, err error) {
	if err == nil || exitCode(err) == exitOK {
		return
	}
	fmt.Fprintf(w, "evalcal: %v\n", err)
	if h := hintOf(err); h != "" {
		fmt.Fprintf(w, "evalcal: %s\n", h)
	}
}

// isCompletionRequest reports whether args ask cobra's hidden __complete
// command for completions; its arguments are partial words, never
// rewritten.
func isCompletionRequest(args []string) bool {
	return len(args) > 0 && (args[0] == cobra.ShellCompRequestCmd || args[0] == cobra.ShellCompNoDescRequestCmd)
}
