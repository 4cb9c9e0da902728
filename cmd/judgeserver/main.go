// Command judgeserver runs evalcal's fake LLM provider (internal/judgeserver)
// for tests and `make demo-llm`: an OpenAI-compatible API and a fake
// Anthropic Messages endpoint whose answers are computed from the run in
// the prompt. It needs no network and no key.
//
//	judgeserver [--addr 127.0.0.1:0] [--latency 0] [--slow 1m] [--retry-after 1s]
//	            [--fault KIND[=RATE|*N]]... [--key KEY] [--text-only] [--first-slot S]
//	            [--order-sensitive S]
//
// The first line on stdout is the OpenAI base URL (http://HOST:PORT/v1),
// for OPENAI_BASE_URL; the Anthropic base URL is the same without /v1.
// SIGINT or SIGTERM stops it cleanly. Models: judge-mini, judge-large;
// suffixes select faults per request (judge-mini+429, see the package) and
// a pairwise request's first-slot share (judge-mini+first=0.3).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/evalcal/evalcal/internal/judgeserver"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "judgeserver:", err)
		if errors.Is(err, errUsage) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

var errUsage = errors.New("usage")

// faultList is a repeatable --fault flag.
type faultList []judgeserver.Fault

func (f *faultList) String() string { return fmt.Sprint(*f) }

func (f *faultList) Set(s string) error {
	fault, err := judgeserver.ParseFault(s)
	if err != nil {
		return err
	}
	*f = append(*f, fault)
	return nil
}

// run serves until ctx ends; it prints the base URL on stdout first.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("judgeserver", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:0", "listen address (port 0: any free port)")
	var opts judgeserver.Options
	fs.DurationVar(&opts.Latency, "latency", 0, "added to every answer")
	fs.DurationVar(&opts.SlowDelay, "slow", time.Minute, "delay of the slow fault")
	fs.DurationVar(&opts.RetryAfter, "retry-after", time.Second, "wait a 429 or 529 asks for")
	fs.StringVar(&opts.APIKey, "key", "", "the only API key accepted (default: any)")
	fs.Float64Var(&opts.FirstSlot, "first-slot", 0, "share (0..1) of pairwise requests answered with the run shown first (a planted position bias)")
	fs.Float64Var(&opts.OrderSensitive, "order-sensitive", 0, "share (0..1) of runs whose verdict turns over when their files are listed out of path order")
	fs.BoolVar(&opts.TextOnly, "text-only", false, "reject structured output with a 400, like servers without it")
	var faults faultList
	fs.Var(&faults, "fault", "fault for every request: KIND, KIND=RATE or KIND*N (repeatable); kinds: "+
		strings.Join(judgeserver.FaultKinds, ", "))
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected argument %q", errUsage, fs.Arg(0))
	}
	opts.Faults = faults
	srv, err := judgeserver.New(opts)
	if err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	if _, err := fmt.Fprintf(stdout, "http://%s/v1\n", ln.Addr()); err != nil {
		ln.Close()
		return fmt.Errorf("print base URL: %w", err)
	}
	if f, ok := stdout.(*os.File); ok {
		_ = f.Sync() // a script reads the line at once; Sync fails harmlessly on a pipe
	}
	// Request contexts derive from ctx, so a signal also ends slow answers.
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second,
		BaseContext: func(net.Listener) context.Context { return ctx }}
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	select {
	case err := <-done:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(shutdown); err != nil {
		_ = hs.Close()
	}
	if err := <-done; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve: %w", err)
	}
	return nil
}
