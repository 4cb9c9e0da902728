// Command gensaved writes N runs of saved inspections (`--inspections
// FILE`, programs/saved), a light and a deep line per run, for the scale
// benchmarks (testdata/bench/scale/run.sh). The verdicts, scores and costs
// come from math/rand/v2 seeded with -seed; the same flags give the same
// bytes. Costs have a few decimals (usd 1e-6 steps, seconds 1e-3 steps),
// as an LLM judge reports them, so that summing them in another order
// changes a float64 sum.
//
//	go run ./testdata/gensaved -n 100000 -seed 1 > /tmp/saved.jsonl
//
// Exit status: 0 done, 1 write failed, 2 bad flags.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
)

func main() {
	fs := flag.NewFlagSet("gensaved", flag.ContinueOnError)
	n := fs.Int("n", 10000, "runs to write (a light and a deep line each)")
	seed := fs.Uint64("seed", 1, "seed of the generated values")
	if err := fs.Parse(os.Args[1:]); err != nil || *n < 1 {
		os.Exit(2)
	}
	w := bufio.NewWriterSize(os.Stdout, 1<<20)
	if err := write(w, *n, *seed); err != nil {
		fmt.Fprintln(os.Stderr, "gensaved:", err)
		os.Exit(1)
	}
	if err := w.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, "gensaved:", err)
		os.Exit(1)
	}
}

var (
	systems  = []string{"alpha", "beta", "gamma", "delta", "epsilon"}
	verdicts = []string{"pass", "partial", "fail"}
)

// write prints n runs' light and deep lines to w. The light verdict agrees
// with the deep one about 80% of the time.
func write(w io.Writer, n int, seed uint64) error {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	for i := range n {
		id := fmt.Sprintf("run-%07d", i)
		system := systems[r.IntN(len(systems))]
		deep := r.IntN(len(verdicts))
		light := deep
		if r.Float64() < 0.2 {
			light = r.IntN(len(verdicts))
		}
		for _, side := range []struct {
			depth   string
			verdict int
		}{{"light", light}, {"deep", deep}} {
			fid, eff := r.IntN(101), r.IntN(101)
			usd := float64(r.IntN(20000)) / 1e6
			secs := float64(r.IntN(30000)) / 1e3
			tokens := 500 + r.IntN(5000)
			_, err := fmt.Fprintf(w, `{"run_id":%q,"system":%q,"depth":%q,"runtime_fidelity":%d,"task_effectiveness":%d,"verdict":%q,"summary":"generated run %d","flags":[{"id":"F%d","severity":"warning","description":"a generated finding","evidence":"line %d"}],"cost":{"seconds":%v,"tokens":%d,"usd":%v}}`+"\n",
				id, system, side.depth, fid, eff, verdicts[side.verdict], i, r.IntN(8), r.IntN(500), secs, tokens, usd)
			if err != nil {
				return fmt.Errorf("gensaved: writing run %d: %w", i, err)
			}
		}
	}
	return nil
}
