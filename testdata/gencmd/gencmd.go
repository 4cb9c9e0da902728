// Package gencmd is the command line the data generators of the import
// scale benchmark share (testdata/geninspect, testdata/genpromptfoo,
// run by testdata/bench/scale/importers.sh): -n and -seed, the data
// written to standard output through a buffer, exit status 0 done, 1
// write failed, 2 bad flags.
package gencmd

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"testing"

	"github.com/evalcal/evalcal/inspection"
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

// Deterministic writes n items with seed 1 twice and with seed 2 once,
// fails t unless the first two are the same bytes and the third differ,
// and returns the first (the generators' tests).
func Deterministic(t testing.TB, write func(w io.Writer, n int, seed uint64) error, n int) []byte {
	t.Helper()
	var a, b, c bytes.Buffer
	for _, w := range []struct {
		buf  *bytes.Buffer
		seed uint64
	}{{&a, 1}, {&b, 1}, {&c, 2}} {
		if err := write(w.buf, n, w.seed); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) || bytes.Equal(a.Bytes(), c.Bytes()) {
		t.Fatal("not deterministic in the seed")
	}
	return a.Bytes()
}

// Source is what an importer's load gives: the inspections of its runs
// and its unattributed items.
type Source interface {
	Inspect(ctx context.Context, run inspection.Run, depth inspection.Depth) (inspection.Inspection, error)
	Unattributed() []string
}

// CheckRuns fails t unless a file of n items read with selector label
// gave n runs, no unattributed item, and deep inspections both passing and
// failing (the generators' tests).
func CheckRuns(t testing.TB, label string, src Source, runs []inspection.Run, n int) {
	t.Helper()
	if len(runs) != n || len(src.Unattributed()) != 0 {
		t.Fatalf("%s: %d runs, unattributed %q", label, len(runs), src.Unattributed())
	}
	verdicts := map[string]int{}
	for _, r := range runs {
		insp, err := src.Inspect(context.Background(), r, inspection.Deep)
		if err != nil {
			t.Fatalf("%s: run %s: %v", label, r.ID, err)
		}
		verdicts[insp.Verdict]++
	}
	if verdicts[inspection.VerdictPass] == 0 || verdicts[inspection.VerdictFail] == 0 {
		t.Errorf("%s: verdicts %v", label, verdicts)
	}
}
