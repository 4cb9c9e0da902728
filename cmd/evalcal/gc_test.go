package main

import (
	"math"
	"runtime/debug"
	"testing"
	"testing/fstest"
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
	if got, want := debug.SetMemoryLimit(-1), int64(6<<30); got != want {
		t.Errorf("memory limit %d, want 3/4 of 8 GiB = %d", got, want)
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
