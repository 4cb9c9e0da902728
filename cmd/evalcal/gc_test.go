package main

import (
	"math"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
	"testing/fstest"
	"time"
)

// A machine with 8 GiB of physical memory and no cgroup limit.
var meminfo8G = &fstest.MapFile{Data: []byte("MemTotal:        8388608 kB\nMemFree:         1000 kB\n")}

// tuneGC sets evalcal's collector settings unless the environment chose
// its own, and its restore puts back whatever was there before.
func TestTuneGCRestores(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(150))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(1 << 40))
	sys := fstest.MapFS{"proc/meminfo": meminfo8G}
	restore := tuneGC(func(string) string { return "" }, sys)
	if got := debug.SetGCPercent(gcPercent); got != gcPercent {
		t.Errorf("GC percent %d, want %d", got, gcPercent)
	}
	// The ceiling, or the heap tuner's limit for this small heap once it
	// has ticked.
	if got, want := debug.SetMemoryLimit(-1), int64(6<<30); got != want && got != heapFloor {
		t.Errorf("memory limit %d, want 3/4 of 8 GiB = %d (or the tuner's %d)", got, want, heapFloor)
	}
	restore()
	if got := debug.SetGCPercent(150); got != 150 {
		t.Errorf("after restore: GC percent %d, want 150", got)
	}
	if got := debug.SetMemoryLimit(-1); got != 1<<40 {
		t.Errorf("after restore: memory limit %d, want %d", got, 1<<40)
	}
	env := map[string]string{"GOGC": "80", "GOMEMLIMIT": "1GiB"}
	restore = tuneGC(func(k string) string { return env[k] }, sys)
	if got := debug.SetGCPercent(150); got != 150 {
		t.Errorf("with GOGC set: GC percent %d, want it left at 150", got)
	}
	if got := debug.SetMemoryLimit(-1); got != 1<<40 {
		t.Errorf("with GOMEMLIMIT set: memory limit %d, want it left", got)
	}
	restore()
}

// machineMemory takes the smallest of the physical memory and the limits
// of the process's cgroup (v2: its own and its ancestors'; v1: its own and
// the mount root's), and ignores "max", v1's "no limit" and junk.
func TestMachineMemory(t *testing.T) {
	const gib = int64(1) << 30
	file := func(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s)} }
	for _, tc := range []struct {
		name string
		sys  fstest.MapFS
		want int64
	}{
		{"nothing readable", fstest.MapFS{}, 0},
		{"physical only", fstest.MapFS{"proc/meminfo": meminfo8G}, 8 * gib},
		{"meminfo without kB", fstest.MapFS{"proc/meminfo": file("MemTotal: 8388608\n")}, 0},
		{"v2 own limit", fstest.MapFS{
			"proc/meminfo":                       meminfo8G,
			"proc/self/cgroup":                   file("0::/job/step\n"),
			"sys/fs/cgroup/job/step/memory.max":  file("2147483648\n"),
			"sys/fs/cgroup/job/memory.max":       file("max\n"),
			"sys/fs/cgroup/memory.max":           file("max\n"),
			"sys/fs/cgroup/unrelated/memory.max": file("1024\n"),
		}, 2 * gib},
		{"v2 ancestor's limit is smaller", fstest.MapFS{
			"proc/meminfo":                      meminfo8G,
			"proc/self/cgroup":                  file("0::/job/step\n"),
			"sys/fs/cgroup/job/step/memory.max": file("max\n"),
			"sys/fs/cgroup/job/memory.max":      file("1073741824\n"),
		}, 1 * gib},
		{"v2 limit above physical memory", fstest.MapFS{
			"proc/meminfo":             meminfo8G,
			"proc/self/cgroup":         file("0::/\n"),
			"sys/fs/cgroup/memory.max": file("17179869184\n"),
		}, 8 * gib},
		{"v1 no limit", fstest.MapFS{
			"proc/meminfo":     meminfo8G,
			"proc/self/cgroup": file("5:cpu,cpuacct:/\n4:memory:/x\n"),
			"sys/fs/cgroup/memory/x/memory.limit_in_bytes": file("9223372036854771712\n"),
		}, 8 * gib},
		{"v1 limit seen at the mount root (container)", fstest.MapFS{
			"proc/meminfo":     meminfo8G,
			"proc/self/cgroup": file("4:memory:/docker/abc\n"),
			"sys/fs/cgroup/memory/memory.limit_in_bytes": file("536870912\n"),
		}, gib / 2},
		{"no /proc/self/cgroup: the roots", fstest.MapFS{
			"sys/fs/cgroup/memory.max": file("3221225472"),
		}, 3 * gib},
		{"junk limit", fstest.MapFS{
			"proc/meminfo":             meminfo8G,
			"proc/self/cgroup":         file("0::/\n"),
			"sys/fs/cgroup/memory.max": file("lots\n"),
		}, 8 * gib},
	} {
		if got := machineMemory(tc.sys); got != tc.want {
			t.Errorf("%s: machineMemory %d, want %d", tc.name, got, tc.want)
		}
	}
	if got := memoryLimit(fstest.MapFS{}); got != math.MaxInt64 {
		t.Errorf("memory unknown: limit %d, want none (MaxInt64)", got)
	}
}

// The heap tuner keeps the soft limit at heapLimit of the live heap, and
// stop ends it.
func TestHeapTunerFollowsTheLiveHeap(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	waitFor := func(want int64) {
		t.Helper()
		for range 100 {
			if debug.SetMemoryLimit(-1) == want {
				return
			}
			time.Sleep(tunerInterval / 4)
		}
		t.Fatalf("memory limit %d, want %d", debug.SetMemoryLimit(-1), want)
	}
	stop := startHeapTuner(8 << 30)
	waitFor(heapFloor)           // this test's heap is far under 1 GiB - 384 MiB
	big := make([]byte, 600<<20) // live: 600 MiB and the rest
	for i := range big {
		if i%4096 == 0 {
			big[i] = 1
		}
	}
	runtime.GC()
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(sample)
	waitFor(heapLimit(int64(sample[0].Value.Uint64()), 8<<30))
	runtime.KeepAlive(big)
	stop()
	debug.SetMemoryLimit(1 << 40)
	time.Sleep(3 * tunerInterval)
	if got := debug.SetMemoryLimit(-1); got != 1<<40 {
		t.Errorf("after stop the tuner still set the limit: %d", got)
	}
	stop = startHeapTuner(512 << 20) // a machine under the floor
	waitFor(512 << 20)
	stop()
}

// heapLimit by hand: the floor for small heaps, the slack for middling
// ones, the headroom for large ones, the ceiling over all.
func TestHeapLimit(t *testing.T) {
	const mib = 1 << 20
	for _, c := range []struct{ live, ceiling, want int64 }{
		{100 * mib, 8 << 30, 1 << 30},
		{800 * mib, 8 << 30, 1184 * mib},
		{2048 * mib, 8 << 30, 3006477107}, // 1.4 x 2 GiB
		{6 << 30, 8 << 30, 8 << 30},
		{100 * mib, 512 * mib, 512 * mib},
	} {
		if got := heapLimit(c.live, c.ceiling); got != c.want {
			t.Errorf("heapLimit(%d MiB, %d MiB) = %d MiB, want %d MiB", c.live/mib, c.ceiling/mib, got/mib, c.want/mib)
		}
	}
}
