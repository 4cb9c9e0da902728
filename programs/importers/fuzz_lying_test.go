package importers

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// FuzzEvalLyingHeaders reads .eval logs whose members' headers lie about
// their sizes (and method and CRC) under the real limits: whatever they
// declare, reading costs memory and time of the order of what they hold
// (issue 27: a member never preallocates its declared size).
func FuzzEvalLyingHeaders(f *testing.F) {
	f.Add(uint64(255<<20), uint8(20), uint8(0), []byte(`{}`), false)
	f.Add(uint64(1<<32), uint8(3), uint8(8), []byte(`{"id": 1, "epoch": 1, "scores": {"s": {"value": "C"}}}`), true)
	f.Add(uint64(0), uint8(200), uint8(93), []byte{0x28, 0xb5, 0x2f, 0xfd}, false)
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, declared uint64, count, method uint8, payload []byte, goodCRC bool) {
		var buf bytes.Buffer
		zw := zip.NewWriter(&buf)
		w, _ := zw.Create("header.json")
		w.Write([]byte(evalHeader))
		crc := uint32(0)
		if goodCRC {
			crc = crc32.ChecksumIEEE(payload)
		}
		for i := 1; i <= int(count); i++ {
			fh := &zip.FileHeader{Name: fmt.Sprintf("samples/%d_epoch_1.json", i), Method: uint16(method),
				CRC32: crc, CompressedSize64: uint64(len(payload)), UncompressedSize64: declared}
			w, err := zw.CreateRaw(fh)
			if err != nil {
				return
			}
			w.Write(payload)
		}
		if zw.Close() != nil {
			return
		}
		path := filepath.Join(dir, "lying.eval")
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		start := time.Now()
		src, runs, err := LoadInspect(context.Background(), path, "s")
		if err == nil {
			checkSource(t, src, runs)
		}
		took := time.Since(start)
		runtime.ReadMemStats(&after)
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<20+uint64(1000*buf.Len()) {
			t.Fatalf("%d members declaring %d bytes, holding %d: allocated %d bytes", count, declared, len(payload), alloc)
		}
		if took > 10*time.Second {
			t.Fatalf("%d members declaring %d bytes: took %v", count, declared, took)
		}
	})
}
