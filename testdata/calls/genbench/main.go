// Command genbench writes the calls benchmark inputs of issue 12 item 3:
// N CSV prices over P pools (one a minute per pool, in time order) and M
// counted calls decided within the span the prices cover, with seeded
// randomness (PCG 1,2 for prices, 3,4 for calls: the same streams as
// forecast/calls_bench_test.go).
//
//	go run ./testdata/calls/genbench -prices 10000000 -calls 1000000 -dir /tmp/callsbench
package main

import (
	"bufio"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

func main() {
	nPrices := flag.Int("prices", 10_000_000, "number of prices")
	nCalls := flag.Int("calls", 1_000_000, "number of calls")
	pools := flag.Int("pools", 1000, "number of pools")
	dir := flag.String("dir", ".", "output directory")
	flag.Parse()
	if err := write(filepath.Join(*dir, "prices.csv"), func(w *bufio.Writer) { prices(w, *nPrices, *pools) }); err != nil {
		fmt.Fprintln(os.Stderr, "genbench:", err)
		os.Exit(1)
	}
	span := time.Duration(*nPrices / *pools) * time.Minute
	if err := write(filepath.Join(*dir, "calls.jsonl"), func(w *bufio.Writer) { calls(w, *nCalls, *pools, span) }); err != nil {
		fmt.Fprintln(os.Stderr, "genbench:", err)
		os.Exit(1)
	}
}

func write(path string, fill func(*bufio.Writer)) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	fill(w)
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

var start = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func prices(w *bufio.Writer, n, pools int) {
	rng := rand.New(rand.NewPCG(1, 2))
	w.WriteString("pool,ts,price\n")
	var b []byte
	for i := range n {
		b = append(b[:0], 'P')
		b = strconv.AppendInt(b, int64(i%pools), 10)
		b = append(b, ',')
		b = start.Add(time.Duration(i/pools)*time.Minute).AppendFormat(b, time.RFC3339)
		b = append(b, ',')
		b = strconv.AppendFloat(b, 90+20*rng.Float64(), 'f', 4, 64)
		b = append(b, '\n')
		w.Write(b)
	}
}

func calls(w *bufio.Writer, n, pools int, span time.Duration) {
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range n {
		at := start.Add(time.Duration(rng.Int64N(int64(span))))
		fmt.Fprintf(w, `{"id":"c%d","agent":"a%d","season":"s1","decider":"llm","action":"buy","confidence":0.%d,"horizon_hours":%d,"reference_price":100,"decided_at":"%s","pool":"P%d"}`+"\n",
			i, i%10, 5+rng.IntN(5), 1+rng.IntN(48), at.Format(time.RFC3339), rng.IntN(pools))
	}
}
