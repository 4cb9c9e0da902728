package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// writeSavedSide writes one saved-inspections file of runs at depth with
// verdicts from verdict(i).
func writeSavedSide(b *testing.B, path, depth string, runs int, verdict func(i int) string) {
	b.Helper()
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriter(f)
	score := map[string]int{"pass": 85, "partial": 55, "fail": 20}
	for i := 0; i < runs; i++ {
		v := verdict(i)
		fmt.Fprintf(w, `{"run_id":"run-%06d","system":"sys-%d","depth":"%s","runtime_fidelity":%d,"task_effectiveness":%d,"verdict":"%s","flags":[],"services":[],"summary":"","cost":{"seconds":0.5,"tokens":0,"usd":0.001}}`+"\n",
			i, i%7, depth, score[v], score[v], v)
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkRank10x10000Saved ranks 10 saved candidates against saved deep
// labels on 10,000 runs through the whole command (10 calibrations, the
// ranking, the YAML), and reports the peak live heap (sampled every 5 ms)
// beside the allocations.
func BenchmarkRank10x10000Saved(b *testing.B) {
	const runs, cands = 10000, 10
	dir := b.TempDir()
	verdicts := []string{"fail", "partial", "pass"}
	rng := rand.New(rand.NewPCG(7, 8))
	deep := make([]string, runs)
	for i := range deep {
		deep[i] = verdicts[rng.IntN(3)]
	}
	writeSavedSide(b, filepath.Join(dir, "deep.jsonl"), "deep", runs, func(i int) string { return deep[i] })
	args := []string{"rank", "--no-cache", "--quiet", "--deep", "saved:" + filepath.Join(dir, "deep.jsonl")}
	for c := 0; c < cands; c++ {
		p := filepath.Join(dir, fmt.Sprintf("c%d.jsonl", c))
		writeSavedSide(b, p, "light", runs, func(i int) string {
			if rng.Float64() < 0.1+0.03*float64(c) {
				return verdicts[rng.IntN(3)]
			}
			return deep[i]
		})
		args = append(args, "--light", fmt.Sprintf("c%d=saved:%s", c, p))
	}
	var peak atomic.Uint64
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		var ms runtime.MemStats
		for {
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Millisecond):
				runtime.ReadMemStats(&ms)
				if ms.HeapAlloc > peak.Load() {
					peak.Store(ms.HeapAlloc)
				}
			}
		}
	}()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		var out, errb bytes.Buffer
		if err := run(context.Background(), args, &out, &errb); err != nil {
			b.Fatalf("%v: %s", err, errb.String())
		}
	}
	b.StopTimer()
	close(stop)
	<-done
	b.ReportMetric(float64(peak.Load())/(1<<20), "peak-heap-MB")
}
