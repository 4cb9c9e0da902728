// Package gencmd is the command line the data generators of the import
// scale benchmark share (testdata/geninspect, testdata/genpromptfoo,
// run by testdata/bench/scale/importers.sh): -n and -seed, the data
// written to standard output through a buffer, exit status 0 done, 1
// write failed, 2 bad flags.
package gencmd

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
)

// Main parses the command line of generator name (-n, described by
// what, 10,000 by default, and -seed, 1 by default), calls write with
// them and exits.
func Main(name, what string, write func(w io.Writer, n int, seed uint64) error) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	n := fs.Int("n", 10000, what)
	seed := fs.Uint64("seed", 1, "seed of the generated values")
	if err := fs.Parse(os.Args[1:]); err != nil || *n < 1 {
		os.Exit(2)
	}
	w := bufio.NewWriterSize(os.Stdout, 1<<20)
	err := write(w, *n, *seed)
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, name+":", err)
		os.Exit(1)
	}
	os.Exit(0)
}
