package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// version is evalcal's version, recorded in every report.
const version = "0.1.0"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	code := exitCode(err)
	if err != nil && code != 0 {
		fmt.Fprintf(os.Stderr, "evalcal: %v\n", err)
	}
	os.Exit(code)
}

// command is one subcommand: it parses its own flags from args.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, args []string, stdout, stderr io.Writer) error
}

func commands() []command {
	return []command{
		{"run", "calibrate a light eval against a deep eval on completed runs", cmdRun},
		{"merge", "combine the reports of the shards of one run (run --shard i/n) exactly", cmdMerge},
		{"score", "score probability forecasts (Brier, calibration, Murphy, CORP, RPS)", cmdScore},
		{"calls", "resolve trading calls against prices and score their confidence", cmdCalls},
		{"gate", "decide candidate lessons on held-out evidence", cmdGate},
		{"render", "render a saved report as markdown, html or json", cmdRender},
		{"version", "print evalcal's version", cmdVersion},
	}
}

// run is evalcal with its arguments (without the program name). Tests call
// it in-process.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stderr)
		if len(args) == 0 {
			return usageErrorf("no command given")
		}
		return nil
	}
	for _, c := range commands() {
		if c.name == args[0] {
			return c.run(ctx, args[1:], stdout, stderr)
		}
	}
	usage(stderr)
	return usageErrorf("unknown command %q", args[0])
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: evalcal COMMAND [flags] [args]")
	fmt.Fprintln(w, "\ncommands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-8s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nRun 'evalcal COMMAND -h' for a command's flags.")
}

func cmdVersion(_ context.Context, args []string, stdout, _ io.Writer) error {
	if len(args) > 0 {
		return usageErrorf("version takes no arguments")
	}
	_, err := fmt.Fprintf(stdout, "evalcal %s\n", version)
	return err
}
