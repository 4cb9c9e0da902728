package sampler

import (
	"bytes"
	"fmt"
	"testing"
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
