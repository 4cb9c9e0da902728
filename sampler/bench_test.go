package sampler

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/evalcal/evalcal/internal/corpusgen"
)

// BenchmarkParseLog measures the parser on a 100,000-event log (about
// 3 MB); memory per op shows that only events, not lines, are kept.
func BenchmarkParseLog(b *testing.B) {
	var buf bytes.Buffer
	buf.WriteString("# run:20260101-000000-abcdef bench\n")
	for i := 1; i <= 100_000; i++ {
		fmt.Fprintf(&buf, "%d→ service_%d ✓ (note %d)\n", i, i%50, i)
	}
	buf.WriteString("---end 2026-01-01T00:00:00Z\n")
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for b.Loop() {
		if _, err := ParseLog(bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
	}
}

// benchCorpus is the bundled corpus copied to n runs with new ids
// (corpusgen.Replicate), or the tree EVALCAL_BENCH_RUNS names (made with
// `go run ./testdata/genruns -replicate N`), which saves the copying.
func benchCorpus(b *testing.B, n int) string {
	b.Helper()
	if dir := os.Getenv("EVALCAL_BENCH_RUNS"); dir != "" {
		return dir
	}
	src := filepath.Join("..", "testdata", "runs")
	if _, err := os.Stat(src); err != nil {
		b.Skipf("no bundled corpus: %v", err)
	}
	dst := filepath.Join(b.TempDir(), "runs")
	if err := corpusgen.Replicate(context.Background(), src, dst, n); err != nil {
		b.Fatal(err)
	}
	return dst
}

// BenchmarkDiscover describes the bundled corpus copied to 20,000 runs
// (2,000 under -short): cold (no hash cache: every file hashed, every
// log and manifest parsed) and warm (every run unchanged in the cache:
// listing only). Memory is the live heap after the call, per run.
func BenchmarkDiscover(b *testing.B) {
	n := 20_000
	if testing.Short() {
		n = 2_000
	}
	root := benchCorpus(b, n)
	cache := b.TempDir()
	// A corpus copied just now is "racily clean": store it all the same.
	if _, err := DiscoverContext(context.Background(), []string{root}, DiscoverOptions{HashCache: cache, racy: -1}); err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		cache string
	}{{"cold", ""}, {"warm", cache}} {
		b.Run(c.name, func(b *testing.B) {
			var d Discovery
			for b.Loop() {
				var err error
				if d, err = DiscoverContext(context.Background(), []string{root}, DiscoverOptions{HashCache: c.cache}); err != nil {
					b.Fatal(err)
				}
			}
			if c.cache != "" && d.Cached != len(d.Runs) {
				b.Fatalf("warm: %d of %d runs cached", d.Cached, len(d.Runs))
			}
			b.ReportMetric(float64(len(d.Runs)), "runs")
			b.ReportMetric(float64(liveHeap())/float64(len(d.Runs)), "live-B/run")
			runtime.KeepAlive(d)
		})
	}
}
