package testutil

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"time"
)

// HeapProbe is what PeakHeap measured: the bytes of heap objects live
// before f ran (Base, after a collection), the largest sample while f ran
// (Peak), and f's wall time.
type HeapProbe struct {
	Base, Peak uint64
	Elapsed    time.Duration
}

// Above is the peak above what was live before: what f held at most.
func (p HeapProbe) Above() uint64 { return p.Peak - p.Base }

// PeakHeap runs f while sampling the bytes of live and unswept heap
// objects (/memory/classes/heap/objects:bytes) every millisecond. The GC
// target is lowered to 20% for the measurement, so that the peak is close
// to what f keeps live rather than garbage the collector has not reached
// yet (at the default 100% a heap holding a document may grow by the
// document's size before a collection).
func PeakHeap(f func() error) (HeapProbe, error) {
	defer debug.SetGCPercent(debug.SetGCPercent(20))
	runtime.GC()
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(sample)
	base := sample[0].Value.Uint64()
	var mu sync.Mutex
	maxSeen := base
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				metrics.Read(s)
				mu.Lock()
				maxSeen = max(maxSeen, s[0].Value.Uint64())
				mu.Unlock()
			}
		}
	}()
	start := time.Now()
	err := f()
	elapsed := time.Since(start)
	close(done)
	wg.Wait()
	metrics.Read(sample)
	mu.Lock()
	defer mu.Unlock()
	maxSeen = max(maxSeen, sample[0].Value.Uint64())
	return HeapProbe{Base: base, Peak: maxSeen, Elapsed: elapsed}, err
}
