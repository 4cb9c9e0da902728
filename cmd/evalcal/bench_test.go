package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/evalcal/evalcal/internal/corpusgen"
)

// benchRuns is the bundled corpus copied to n runs with new ids
// (corpusgen.Replicate), or the tree EVALCAL_BENCH_RUNS names (made with
// `go run ./testdata/genruns -replicate N`), which saves the copying.
func benchRuns(b *testing.B, n int) string {
	b.Helper()
	if dir := os.Getenv("EVALCAL_BENCH_RUNS"); dir != "" {
		return dir
	}
	src := filepath.Join(repoRootB(), "testdata", "runs")
	if _, err := os.Stat(src); err != nil {
		b.Skipf("no bundled corpus: %v", err)
	}
	dst := filepath.Join(b.TempDir(), "runs")
	if err := corpusgen.Replicate(context.Background(), src, dst, n); err != nil {
		b.Fatal(err)
	}
	return dst
}

func repoRootB() string { return filepath.Join(packageDir, "..", "..") }

// BenchmarkRunCorpus is evalcal run with the builtin inspector on the
// bundled corpus copied to 20,000 runs (2,000 under -short): cold (empty
// cache: every run described, hashed and inspected or served by a copy's
// entry) and warm (every description and inspection cached), each format
// written to a file. warm/cold is the warm rerun's wall time over the
// cold run's (issue 12: under 0.10).
func BenchmarkRunCorpus(b *testing.B) {
	n := 20_000
	if testing.Short() {
		n = 2_000
	}
	runs := benchRuns(b, n)
	out := b.TempDir()
	runOnce := func(b *testing.B, cache, format string) time.Duration {
		start := time.Now()
		err := run(context.Background(), []string{"run", "--quiet", "--cache", cache, "--format", format,
			"-o", filepath.Join(out, "report."+extOf(format)), runs}, io.Discard, io.Discard)
		if exitCode(err) != exitOK {
			b.Fatalf("run: %v", err)
		}
		return time.Since(start)
	}
	var cold time.Duration
	b.Run("cold", func(b *testing.B) {
		var total time.Duration
		iters := 0
		for b.Loop() {
			total += runOnce(b, b.TempDir(), "yaml")
			iters++
		}
		cold = total / time.Duration(iters)
	})
	// EVALCAL_BENCH_CACHE keeps the warm cache between invocations, so
	// that a CPU profile of the warm runs holds nothing else.
	warmCache := os.Getenv("EVALCAL_BENCH_CACHE")
	if warmCache == "" {
		warmCache = b.TempDir()
	}
	var prime sync.Once // only when a warm run is benchmarked
	for _, format := range []string{"yaml", "json", "markdown", "html"} {
		b.Run("warm-"+format, func(b *testing.B) {
			prime.Do(func() { runOnce(b, warmCache, "yaml") })
			var total time.Duration
			iters := 0
			for b.Loop() {
				total += runOnce(b, warmCache, format)
				iters++
			}
			if cold > 0 {
				b.ReportMetric(float64(total)/float64(iters)/float64(cold), "warm/cold")
			}
		})
	}
}

// extOf is the -o extension of format.
func extOf(format string) string {
	if format == "markdown" {
		return "md"
	}
	return format
}
