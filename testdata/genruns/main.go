// Command genruns writes the bundled corpus of synthetic OpenProse runs
// (see internal/corpusgen). From the repository root:
//
//	go run ./testdata/genruns -out testdata/runs -seed 1
//
// It replaces -out only when it is absent, empty or a corpus written
// before (it holds a MANIFEST.json). With -replicate N it instead copies
// the run directories of -from (default testdata/runs) N times, renamed
// with new ids, into -out, which must be absent or empty: the corpus at
// scale for the run-scale benchmarks (see corpusgen.Replicate).
//
//	go run ./testdata/genruns -out /tmp/runs20k -replicate 20000 [-distinct]
//
// -distinct adds a replica.txt to each copy, so that no two copies have
// the same content (corpusgen.ReplicateDistinct).
//
// Exit status: 0 done, 1 generation failed, 2 bad flags.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/evalcal/evalcal/internal/corpusgen"
)

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "genruns:", err)
		if errors.Is(err, errUsage) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

var errUsage = errors.New("usage")

func run(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("genruns", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "", "corpus directory to (re)write, e.g. testdata/runs")
	seed := fs.Uint64("seed", 1, "seed for timestamps, run ids and text")
	replicate := fs.Int("replicate", 0, "copy the runs of -from `N` times with new ids instead of generating")
	from := fs.String("from", "testdata/runs", "corpus to copy with -replicate")
	distinct := fs.Bool("distinct", false, "with -replicate, add a replica.txt to each copy so that no two copies have the same content")
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	if *out == "" || fs.NArg() > 0 {
		return fmt.Errorf("%w: -out DIR is required and no arguments are accepted", errUsage)
	}
	if *replicate < 0 {
		return fmt.Errorf("%w: -replicate must be >= 0", errUsage)
	}
	if *replicate > 0 {
		rep := corpusgen.Replicate
		if *distinct {
			rep = corpusgen.ReplicateDistinct
		}
		if err := rep(context.Background(), *from, *out, *replicate); err != nil {
			return err
		}
		_, err := fmt.Fprintf(stdout, "wrote %d copies of the runs of %s to %s\n", *replicate, *from, *out)
		return err
	}
	entries, err := corpusgen.WriteTree(*out, corpusgen.Options{Seed: *seed})
	if err != nil {
		return err
	}
	var bytes int64
	for _, e := range entries {
		bytes += e.Bytes
	}
	_, err = fmt.Fprintf(stdout, "wrote %d runs (%d bytes) to %s\n", len(entries), bytes, *out)
	return err
}
