package execinspector_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/evalcal/evalcal/inspection"
	"github.com/evalcal/evalcal/internal/testutil"

	execinspector "github.com/evalcal/evalcal/programs/exec"
	"github.com/evalcal/evalcal/runner"
)

// BenchmarkSchedule50ms is issue 12.4's case: 200 runs through the runner
// with a real exec inspector (testdata/inspectors/sleep.sh: a shell that
// runs `sleep 0.05`, then answers; 53 ms a call on its own, two programs
// started), at --jobs 1, 4, 16 and 64, without a cache, and at 16 with a
// fresh cache (every call a miss and a write, as the first `evalcal run`
// with its default cache). It reports
//
//	x-ideal   wall time / (runs x 2 x 50ms / jobs), the target (<= 1.10 at 16)
//	x-floor   wall time / that of jobs bare goroutines running the same
//	          inspector through os/exec for the same 400 calls: what
//	          starting the program costs on this machine at this moment,
//	          without the runner or the reaper
//	floor-x-ideal  that floor's wall time / ideal: the best any runner
//	          could measure here, since the program's own start and the
//	          machine's contention are in it
//	cpu-ms/call  CPU (user + system) of this process per call
//	child-cpu-ms/call  CPU of the processes it waited for, per call: the
//	          reaper and the program with everything it ran
//	floor-child-cpu-ms/call  the same for the bare goroutines: the
//	          program alone
//
// It is not a test: the ratios depend on the machine's load. Each
// iteration closes its inspector, so the reaper's own start and CPU are
// counted. Under -short (make bench) jobs=1 is skipped: with its floor
// it takes 40 s an iteration.
func BenchmarkSchedule50ms(b *testing.B) {
	sleepSh, err := filepath.Abs(filepath.Join("..", "..", "testdata", "inspectors", "sleep.sh"))
	if err != nil {
		b.Fatal(err)
	}
	benchSchedule(b, sleepSh)
}

// BenchmarkSchedule50msOneProcess is BenchmarkSchedule50ms with a
// one-process inspector whose call is its 50 ms of work and little else
// (testdata/inspectors/sleep50.c, built static by the C compiler:
// 51.3 ms a call on its own), so that what the runner and the reaper add
// is not lost in what the inspector's own start costs. Skipped without
// a C compiler.
func BenchmarkSchedule50msOneProcess(b *testing.B) {
	cc, err := exec.LookPath("cc")
	if err != nil {
		b.Skip("no C compiler (cc) to build testdata/inspectors/sleep50.c")
	}
	src, err := filepath.Abs(filepath.Join("..", "..", "testdata", "inspectors", "sleep50.c"))
	if err != nil {
		b.Fatal(err)
	}
	prog := filepath.Join(b.TempDir(), "sleep50")
	out, err := exec.Command(cc, "-O2", "-static", "-o", prog, src).CombinedOutput()
	if err != nil {
		// No static C library: a dynamic program starts slower, but runs.
		if out, err = exec.Command(cc, "-O2", "-o", prog, src).CombinedOutput(); err != nil {
			b.Fatalf("cc sleep50.c: %v\n%s", err, out)
		}
	}
	benchSchedule(b, prog)
}

// benchSchedule runs the schedule benchmark with the inspector prog.
func benchSchedule(b *testing.B, prog string) {
	const (
		n       = 200
		latency = 50 * time.Millisecond
	)
	b.Setenv("EVALCAL_TEST_DELAY", "0.05")
	dir := b.TempDir()
	runs := make([]inspection.Run, n)
	for i := range runs {
		runs[i] = inspection.Run{ID: fmt.Sprintf("run-%03d", i), Path: dir, System: "s", Valid: true,
			ContentHash: fmt.Sprintf("%064x", i+1)}
	}
	for _, tt := range []struct {
		jobs  int
		cache bool
	}{{1, false}, {4, false}, {16, false}, {64, false}, {16, true}} {
		jobs := tt.jobs
		name := fmt.Sprintf("jobs=%d", jobs)
		if tt.cache {
			name += "/cache"
		}
		b.Run(name, func(b *testing.B) {
			if jobs == 1 && testing.Short() {
				b.Skip("40 s an iteration; run without -short")
			}
			ideal := time.Duration(n) * 2 * latency / time.Duration(jobs)
			var wall, floor time.Duration
			var self, children, floorChildren time.Duration
			iters := 0
			for b.Loop() {
				b.StopTimer()
				_, fc0 := testutil.CPUTimes()
				floor += execFloor(b, prog, jobs, 2*n)
				_, fc1 := testutil.CPUTimes()
				floorChildren += fc1 - fc0
				b.StartTimer()
				in, err := execinspector.New(prog)
				if err != nil {
					b.Fatal(err)
				}
				opts := runner.Options{Jobs: jobs, Timeout: time.Minute}
				if tt.cache {
					// A fresh cache: 400 misses and 400 writes, as a
					// first `evalcal run` makes.
					if opts.Cache, err = runner.OpenCache(b.TempDir()); err != nil {
						b.Fatal(err)
					}
				}
				s0, c0 := testutil.CPUTimes()
				start := time.Now()
				res, err := runner.Run(context.Background(), runs, in, opts)
				wall += time.Since(start)
				if c, ok := any(in).(io.Closer); ok {
					if err := c.Close(); err != nil {
						b.Fatal(err)
					}
				}
				s1, c1 := testutil.CPUTimes()
				self, children = self+s1-s0, children+c1-c0
				iters++
				if err != nil || len(res.Pairs) != n {
					b.Fatalf("pairs %d, failures %v, err %v", len(res.Pairs), res.Failures, err)
				}
			}
			calls := float64(2 * n * iters)
			b.ReportMetric(float64(wall)/float64(iters)/float64(ideal), "x-ideal")
			b.ReportMetric(float64(wall)/float64(floor), "x-floor")
			b.ReportMetric(float64(floor)/float64(iters)/float64(ideal), "floor-x-ideal")
			b.ReportMetric(float64(self)/1e6/calls, "cpu-ms/call")
			b.ReportMetric(float64(children)/1e6/calls, "child-cpu-ms/call")
			b.ReportMetric(float64(floorChildren)/1e6/calls, "floor-child-cpu-ms/call")
		})
	}
}

// execFloor is the wall time of jobs goroutines running prog through
// os/exec, calls times in all.
func execFloor(b *testing.B, prog string, jobs, calls int) time.Duration {
	var wg sync.WaitGroup
	next := make(chan struct{}, calls)
	for range calls {
		next <- struct{}{}
	}
	close(next)
	start := time.Now()
	for range jobs {
		wg.Go(func() {
			for range next {
				if out, err := exec.Command(prog).Output(); err != nil || len(out) == 0 {
					b.Errorf("%s: %v", prog, err)
					return
				}
			}
		})
	}
	wg.Wait()
	return time.Since(start)
}

// BenchmarkInspect is one call after another of a trivial shell
// inspector (testdata/inspectors/good.sh) through one reaper. Besides
// ns/op it reports, per call, the CPU of this process (cpu-us/call) and
// of the processes it waited for (child-cpu-us/call: the reaper, counted
// once it exits at Close, and the program). BenchmarkStartProgram is the
// same program started by os/exec alone: the differences are what the
// exec inspector costs beyond starting the program.
func BenchmarkInspect(b *testing.B) {
	p, err := filepath.Abs(filepath.Join("..", "..", "testdata", "inspectors", "good.sh"))
	if err != nil {
		b.Fatal(err)
	}
	run := inspection.Run{ID: "r", Path: b.TempDir()}
	s0, c0 := testutil.CPUTimes()
	in, err := execinspector.New(p + " {run} {depth}")
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := in.Inspect(context.Background(), run, inspection.Light); err != nil {
			b.Fatal(err)
		}
	}
	if c, ok := any(in).(io.Closer); ok {
		if err := c.Close(); err != nil {
			b.Fatal(err)
		}
	}
	s1, c1 := testutil.CPUTimes()
	b.ReportMetric(float64(s1-s0)/1e3/float64(b.N), "cpu-us/call")
	b.ReportMetric(float64(c1-c0)/1e3/float64(b.N), "child-cpu-us/call")
}

// BenchmarkStartProgram runs good.sh as BenchmarkInspect does, with
// os/exec and nothing else.
func BenchmarkStartProgram(b *testing.B) {
	p, err := filepath.Abs(filepath.Join("..", "..", "testdata", "inspectors", "good.sh"))
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	s0, c0 := testutil.CPUTimes()
	for b.Loop() {
		cmd := exec.Command(p, dir, "light")
		cmd.Env = append(os.Environ(), "EVALCAL_RUN="+dir, "EVALCAL_DEPTH=light", "EVALCAL_RUN_ID=r")
		if out, err := cmd.Output(); err != nil || len(out) == 0 {
			b.Fatal(err)
		}
	}
	s1, c1 := testutil.CPUTimes()
	b.ReportMetric(float64(s1-s0)/1e3/float64(b.N), "cpu-us/call")
	b.ReportMetric(float64(c1-c0)/1e3/float64(b.N), "child-cpu-us/call")
}
