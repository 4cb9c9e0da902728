package importers

import (
	"archive/zip"
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// benchSample is a sample of about 20 KB: a transcript of 40 messages of
// 500 bytes and one score, like a short agent run.
func benchSample(i int) string {
	msg := strings.Repeat("lorem ipsum dolor sit amet ", 18)
	var b strings.Builder
	fmt.Fprintf(&b, `{"id": %d, "epoch": 1, "input": "q", "target": "t", "messages": [`, i)
	for m := range 40 {
		if m > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "\n      {\"role\": \"assistant\", \"content\": %q}", msg)
	}
	v := []string{`"C"`, `"I"`, `"P"`, `0.25`}[i%4]
	fmt.Fprintf(&b, `], "scores": {"s": {"value": %s, "explanation": "e"}}}`, v)
	return b.String()
}

func benchLogs(b *testing.B, n int) (jsonPath, evalPath string) {
	b.Helper()
	dir := b.TempDir()
	jsonPath = filepath.Join(dir, "big.json")
	f, err := os.Create(jsonPath)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriter(f)
	w.WriteString(`{"version": 2, "eval": {"task": "bench", "config": {"epochs": 1}}, "samples": [`)
	for i := range n {
		if i > 0 {
			w.WriteString(",\n")
		}
		w.WriteString(benchSample(i))
	}
	w.WriteString("]}\n")
	w.Flush()
	f.Close()
	evalPath = filepath.Join(dir, "big.eval")
	f, _ = os.Create(evalPath)
	zw := zip.NewWriter(f)
	hw, _ := zw.Create("header.json")
	hw.Write([]byte(evalHeader))
	for i := range n {
		mw, _ := zw.Create(fmt.Sprintf("samples/%d_epoch_1.json", i))
		mw.Write([]byte(benchSample(i)))
	}
	zw.Close()
	f.Close()
	return jsonPath, evalPath
}

// go test -bench LoadInspect -run '^$' ./programs/importers
func BenchmarkLoadInspect(b *testing.B) {
	const n = 5000
	jsonPath, evalPath := benchLogs(b, n)
	for _, path := range []string{jsonPath, evalPath} {
		b.Run(filepath.Ext(path), func(b *testing.B) {
			fi, _ := os.Stat(jsonPath)
			b.SetBytes(fi.Size()) // bytes of sample JSON, for both formats
			for b.Loop() {
				_, runs, err := LoadInspect(context.Background(), path, "s")
				if err != nil || len(runs) != n {
					b.Fatal(len(runs), err)
				}
			}
		})
	}
}
