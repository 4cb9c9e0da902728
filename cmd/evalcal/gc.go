package main

import (
	"bufio"
	"bytes"
	"io/fs"
	"math"
	"os"
	"path"
	"runtime/debug"
	"runtime/metrics"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Garbage collector settings of `evalcal run`. Most of what a run
// allocates is short-lived (HTTP bodies, parsed lines, encoded chunks), and
// collecting four times less often saves a third of the CPU of an LLM
// calibration (BenchmarkLLMOverhead: 1.5 -> 1.0 ms a call). The soft memory
// limit is a fraction of the memory this process may use (memoryFraction
// of machineMemory), not a fixed size: a fixed 400 MiB limit made the
// collector run back to back once the live heap of 100k saved runs reached
// it (half the CPU in the collector, CPU growing with exponent 2.1; issue
// 26, testdata/bench/scale/run.sh). README.md ("Performance", Memory)
// documents it.
// Other commands keep Go's defaults: `score` holds its forecasts live, and
// collecting more often keeps 5M of them under 150 MB.
const gcPercent = 400

// memoryFraction is the part of machineMemory given to the heap as the
// soft limit: the rest is left to stacks, the runtime's own memory, the
// page cache of the files read and other processes sharing the limit.
const memoryFraction = 0.75

// tuneGC applies the settings above unless the user chose their own
// (GOGC, GOMEMLIMIT), and returns what puts the previous ones back: run
// is also called in-process (tests, benchmarks), where the settings must
// not outlive it. sys is the root of the file system the memory of the
// machine is read from (os.DirFS("/"); a fake one in tests).
func tuneGC(getenv func(string) string, sys fs.FS) (restore func()) {
	prevPercent, prevLimit := debug.SetGCPercent(-1), debug.SetMemoryLimit(-1)
	debug.SetGCPercent(prevPercent) // SetGCPercent(-1) turned the collector off; SetMemoryLimit(-1) only read
	if getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
	stop := func() {}
	if getenv("GOMEMLIMIT") == "" {
		ceiling := memoryLimit(sys)
		debug.SetMemoryLimit(ceiling)
		if getenv("GOGC") == "" {
			stop = startHeapTuner(ceiling)
		}
	}
	return func() {
		stop()
		debug.SetGCPercent(prevPercent)
		debug.SetMemoryLimit(prevLimit)
	}
}

// Settings of the heap tuner (startHeapTuner).
const (
	heapHeadroom  = 1.4       // the heap may grow to this many times the live heap,
	heapSlack     = 384 << 20 // and at least this much over it (a collection frees 384 MiB or more)
	heapFloor     = 1 << 30   // never a limit below 1 GiB: small heaps keep GOGC=400
	tunerInterval = 100 * time.Millisecond
)

// startHeapTuner keeps the soft memory limit at heapLimit of the live
// heap (as the last collection found it) until stop is called. GOGC=400
// lets the heap grow to five times the live heap: cheap while it is small
// (an LLM calibration), but at a million saved runs the peak was 10 to
// 15 GB, wherever the last collection fell. With the tuner a large heap
// is collected at 1.4 times its live size (the Go default, GOGC=100, is
// two), at least 384 MiB over it so that the collector never runs back
// to back: a million saved runs peak under 1.5 GB for about the CPU of
// the 3x headroom this replaced (README "Performance", Memory).
func startHeapTuner(ceiling int64) (stop func()) {
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		t := time.NewTicker(tunerInterval)
		defer t.Stop()
		last := int64(-1)
		for {
			select {
			case <-done:
				return
			case <-t.C:
			}
			metrics.Read(sample)
			if sample[0].Value.Kind() != metrics.KindUint64 {
				return // a runtime without the metric: the ceiling stays
			}
			limit := heapLimit(int64(sample[0].Value.Uint64()), ceiling)
			if limit != last {
				debug.SetMemoryLimit(limit)
				last = limit
			}
		}
	}()
	return func() {
		close(done)
		<-finished
	}
}

// heapLimit is the soft memory limit for a live heap of live bytes:
// heapHeadroom times it and at least heapSlack over it, at least
// heapFloor and at most ceiling.
func heapLimit(live, ceiling int64) int64 {
	return min(max(int64(heapHeadroom*float64(live)), live+heapSlack, heapFloor), ceiling)
}

// memoryLimit is memoryFraction of machineMemory, or no limit
// (math.MaxInt64, Go's default) when the memory cannot be read.
func memoryLimit(sys fs.FS) int64 {
	m := machineMemory(sys)
	if m <= 0 {
		return math.MaxInt64
	}
	return int64(float64(m) * memoryFraction)
}

// machineMemory is the memory this process may use, in bytes: the
// smallest of its cgroup's limit (v2 memory.max of its cgroup and every
// ancestor; v1 memory.limit_in_bytes) and the physical memory (MemTotal
// of /proc/meminfo); 0 when none of them can be read. "max" and v1's
// page-rounded MaxInt64 mean no cgroup limit.
func machineMemory(sys fs.FS) int64 {
	best := int64(0)
	consider := func(v int64) {
		if v > 0 && (best == 0 || v < best) {
			best = v
		}
	}
	consider(memTotal(sys))
	for _, p := range cgroupLimitFiles(sys) {
		if v, ok := readLimit(sys, p); ok {
			consider(v)
		}
	}
	return best
}

// cgroupLimitFiles lists the limit files that apply to this process, from
// /proc/self/cgroup: for cgroup v2 ("0::/PATH") memory.max of PATH and of
// each ancestor under /sys/fs/cgroup; for v1 ("N:...memory...:/PATH")
// memory.limit_in_bytes of PATH under /sys/fs/cgroup/memory, and of that
// mount's root (a container sees its own cgroup there). Without
// /proc/self/cgroup, the roots of both.
func cgroupLimitFiles(sys fs.FS) []string {
	data, err := fs.ReadFile(sys, "proc/self/cgroup")
	if err != nil {
		return []string{"sys/fs/cgroup/memory.max", "sys/fs/cgroup/memory/memory.limit_in_bytes"}
	}
	var files []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		parts := strings.SplitN(sc.Text(), ":", 3)
		if len(parts) != 3 {
			continue
		}
		cg := path.Clean("/" + parts[2])
		switch {
		case parts[0] == "0" && parts[1] == "":
			for dir := cg; ; dir = path.Dir(dir) {
				files = append(files, path.Join("sys/fs/cgroup", dir, "memory.max"))
				if dir == "/" {
					break
				}
			}
		case slices.Contains(strings.Split(parts[1], ","), "memory"):
			files = append(files,
				path.Join("sys/fs/cgroup/memory", cg, "memory.limit_in_bytes"),
				"sys/fs/cgroup/memory/memory.limit_in_bytes")
		}
	}
	return files
}

// readLimit reads a cgroup limit file: a byte count, or "max" (no limit,
// ok false). v1 writes "no limit" as MaxInt64 rounded down to a page, so
// anything from 1<<62 up is no limit too.
func readLimit(sys fs.FS, name string) (int64, bool) {
	data, err := fs.ReadFile(sys, name)
	if err != nil {
		return 0, false
	}
	s := strings.TrimSpace(string(data))
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil || v <= 0 || v >= 1<<62 {
		return 0, false
	}
	return v, true
}

// memTotal is MemTotal of /proc/meminfo in bytes, 0 if unreadable.
func memTotal(sys fs.FS) int64 {
	data, err := fs.ReadFile(sys, "proc/meminfo")
	if err != nil {
		return 0
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		rest, ok := strings.CutPrefix(line, "MemTotal:")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) != 2 || f[1] != "kB" {
			return 0
		}
		kb, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil || kb <= 0 || kb > math.MaxInt64/1024 {
			return 0
		}
		return kb * 1024
	}
	return 0
}

// rootFS is the file system machineMemory reads in a real run.
func rootFS() fs.FS { return os.DirFS("/") }
