package runner

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/evalcal/evalcal/inspection"
)

// benchInspection is an inspection the size of the builtin inspector's on
// the bundled corpus (about 900 bytes of JSON): seven services, two
// flags, a one-line summary.
func benchInspection(i int, depth inspection.Depth) inspection.Inspection {
	insp := inspection.Inspection{RunID: fmt.Sprintf("20300101-000000-%06x", i), System: "flaky-test-hunt", Depth: depth,
		RuntimeFidelity: 85, TaskEffectiveness: 62.5, Verdict: inspection.VerdictPartial,
		Summary: "deep structural inspection (state-md-v1, completed): 2 flags (0 critical); runtime_fidelity 85, task_effectiveness 62.5; partial",
		Cost:    inspection.Cost{Tokens: 2382}}
	for _, s := range []string{"bisect", "cluster", "cluster_pass1", "cluster_pass2", "collect_runs", "owners", "quarantine"} {
		insp.Services = append(insp.Services, inspection.Service{Name: s, Status: "completed"})
	}
	insp.Flags = []inspection.Flag{
		{ID: "placeholder-output", Severity: inspection.SeverityWarning, Description: "a binding holds placeholder text", Evidence: "bindings/owners.md: \"TODO\""},
		{ID: "log-order", Severity: inspection.SeverityInfo, Description: "services completed out of the manifest's order", Evidence: "cluster before collect_runs"},
	}
	return insp
}

// BenchmarkCacheLookup reads back one of 2,000 stored inspections per
// op, each under its own content hash (as distinct runs are): open, read,
// verify and decode.
func BenchmarkCacheLookup(b *testing.B) {
	const n = 2000
	c, err := OpenCache(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	hashes := make([]string, n)
	for i := range hashes {
		hashes[i] = fmt.Sprintf("%064x", i+1)
		if err := c.Put("builtin/1", inspection.Deep, hashes[i], benchInspection(i, inspection.Deep)); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, ok, err := c.Lookup("builtin/1", inspection.Deep, hashes[i%n]); !ok || err != nil {
			b.Fatalf("lookup %d: %v %v", i, ok, err)
		}
		i++
	}
}

// BenchmarkCachePut stores one inspection per op under a new content
// hash.
func BenchmarkCachePut(b *testing.B) {
	c, err := OpenCache(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	insp := benchInspection(0, inspection.Deep)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if err := c.Put("builtin/1", inspection.Deep, fmt.Sprintf("%064x", i+1), insp); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkCacheDecode decodes and verifies one entry in memory, without
// the file system: format 3 (binary) against format 2 (JSON, as written
// before; decoded as Lookup decodes it).
func BenchmarkCacheDecode(b *testing.B) {
	insp := benchInspection(1, inspection.Deep)
	hash := fmt.Sprintf("%064x", 1)
	key := CacheKey("builtin/1", inspection.Deep, hash)
	b.Run("format=3", func(b *testing.B) {
		data, err := encodeEntry(key, "builtin/1", inspection.Deep, hash, insp)
		if err != nil {
			b.Fatal(err)
		}
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			e, err := decodeEntry(data)
			if err != nil || e.checksum != entryChecksum(key, e.body) || checkCached(e.insp, inspection.Deep) != nil {
				b.Fatal("bad entry", err)
			}
		}
	})
	b.Run("format=2", func(b *testing.B) {
		raw, err := json.Marshal(insp)
		if err != nil {
			b.Fatal(err)
		}
		data, err := json.Marshal(cacheEntry{Format: jsonCacheFormat, Identity: "builtin/1", Depth: inspection.Deep, ContentHash: hash,
			Inspection: raw, Checksum: checksum(key, raw)})
		if err != nil {
			b.Fatal(err)
		}
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			var e cacheEntry
			var got inspection.Inspection
			if json.Unmarshal(data, &e) != nil || e.Checksum != checksum(key, e.Inspection) ||
				json.Unmarshal(e.Inspection, &got) != nil || checkCached(got, inspection.Deep) != nil {
				b.Fatal("bad entry")
			}
		}
	})
}
