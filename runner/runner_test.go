package runner

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/evalcal/evalcal/inspection"
)

// fakeInspector answers with answer, counts calls and records the order
// in which (run, depth) calls started.
type fakeInspector struct {
	id     string
	answer func(ctx context.Context, run inspection.Run, depth inspection.Depth, call int) (inspection.Inspection, error)

	calls atomic.Int64
	mu    sync.Mutex
	order []string
}

func (f *fakeInspector) Identity() string { return f.id }

func (f *fakeInspector) Inspect(ctx context.Context, run inspection.Run, depth inspection.Depth) (inspection.Inspection, error) {
	n := int(f.calls.Add(1))
	f.mu.Lock()
	f.order = append(f.order, run.ID+"/"+string(depth))
	f.mu.Unlock()
	return f.answer(ctx, run, depth, n)
}

// good is a valid inspection of run at depth.
func good(run inspection.Run, depth inspection.Depth) inspection.Inspection {
	return inspection.Inspection{RunID: run.ID, System: run.System, Depth: depth, RuntimeFidelity: 80,
		TaskEffectiveness: 75, Verdict: inspection.VerdictPass, Flags: []inspection.Flag{{ID: "f1", Severity: inspection.SeverityInfo}}}
}

func alwaysGood(_ context.Context, run inspection.Run, depth inspection.Depth, _ int) (inspection.Inspection, error) {
	return good(run, depth), nil
}

func makeRuns(n int) []inspection.Run {
	runs := make([]inspection.Run, n)
	for i := range runs {
		runs[i] = inspection.Run{ID: fmt.Sprintf("run-%03d", i), System: "sys", Valid: true,
			ContentHash: fmt.Sprintf("%064x", i+1)}
	}
	return runs
}

func testOptions() Options {
	return Options{Jobs: 4, Retries: 1, Timeout: 5 * time.Second}
}

func runIDs(pairs []Pair) []string {
	var ids []string
	for _, p := range pairs {
		ids = append(ids, p.Run.ID)
	}
	return ids
}

func TestRunPairsFollowInputOrderNotFinishOrder(t *testing.T) {
	runs := makeRuns(16)
	insp := &fakeInspector{id: "fake", answer: func(_ context.Context, run inspection.Run, depth inspection.Depth, _ int) (inspection.Inspection, error) {
		// Later runs finish first.
		var i int
		fmt.Sscanf(run.ID, "run-%d", &i)
		time.Sleep(time.Duration(16-i) * time.Millisecond)
		return good(run, depth), nil
	}}
	res, err := Run(context.Background(), runs, insp, Options{Jobs: 8, Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, r := range runs {
		want = append(want, r.ID)
	}
	if d := cmp.Diff(want, runIDs(res.Pairs)); d != "" {
		t.Errorf("pair order (-want +got):\n%s", d)
	}
	for _, p := range res.Pairs {
		if p.Light.Depth != inspection.Light || p.Deep.Depth != inspection.Deep || p.Light.RunID != p.Run.ID {
			t.Errorf("pair %s has light %q/%s deep %q", p.Run.ID, p.Light.RunID, p.Light.Depth, p.Deep.Depth)
		}
	}
	if res.Calls != 32 || len(res.Failures) != 0 {
		t.Errorf("calls %d failures %v, want 32 and none", res.Calls, res.Failures)
	}
}

func TestRunInspectsLightThenDeepNeverBothAtOnceAndBoundsJobs(t *testing.T) {
	const jobs = 3
	var mu sync.Mutex
	inFlight := map[string]bool{}
	var running, maxRunning int
	var violations []string
	insp := &fakeInspector{id: "fake", answer: func(_ context.Context, run inspection.Run, depth inspection.Depth, _ int) (inspection.Inspection, error) {
		mu.Lock()
		if inFlight[run.ID] {
			violations = append(violations, run.ID)
		}
		inFlight[run.ID] = true
		running++
		maxRunning = max(maxRunning, running)
		mu.Unlock()
		time.Sleep(2 * time.Millisecond)
		mu.Lock()
		inFlight[run.ID] = false
		running--
		mu.Unlock()
		return good(run, depth), nil
	}}
	if _, err := Run(context.Background(), makeRuns(20), insp, Options{Jobs: jobs, Timeout: time.Second}); err != nil {
		t.Fatal(err)
	}
	if len(violations) > 0 {
		t.Errorf("runs inspected at both depths at once: %v", violations)
	}
	if maxRunning > jobs {
		t.Errorf("%d calls ran at once, want <= %d", maxRunning, jobs)
	}
	seen := map[string]bool{}
	for _, c := range insp.order {
		id, depth, _ := strings.Cut(c, "/")
		if depth == string(inspection.Deep) && !seen[id] {
			t.Errorf("run %s: deep started before light", id)
		}
		seen[id] = true
	}
}

func TestRunRetriesTransientErrorsAndNotPermanentOnes(t *testing.T) {
	transient := errors.New("connection reset")
	tests := []struct {
		name         string
		retries      int
		fail         func(call int) error
		wantAttempts int // 0 = success
		wantCalls    int
	}{
		{"transient then success", 1, func(c int) error {
			if c == 1 {
				return transient
			}
			return nil
		}, 0, 2},
		{"always transient", 2, func(int) error { return transient }, 3, 3},
		{"no retries", 0, func(int) error { return transient }, 1, 1},
		{"permanent", 3, func(int) error { return inspection.Permanent(transient) }, 1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run := makeRuns(1)
			insp := &fakeInspector{id: "fake", answer: func(_ context.Context, r inspection.Run, d inspection.Depth, call int) (inspection.Inspection, error) {
				if d == inspection.Deep {
					return good(r, d), nil
				}
				if err := tt.fail(call); err != nil {
					return inspection.Inspection{}, err
				}
				return good(r, d), nil
			}}
			res, err := Run(context.Background(), run, insp, Options{Jobs: 1, Retries: tt.retries, Timeout: time.Second})
			if err != nil {
				t.Fatal(err)
			}
			if got := res.Calls - 1; got != tt.wantCalls { // minus the deep call
				t.Errorf("light calls = %d, want %d", got, tt.wantCalls)
			}
			if tt.wantAttempts == 0 {
				if len(res.Failures) != 0 || len(res.Pairs) != 1 {
					t.Errorf("want one pair and no failure, got %+v", res)
				}
				return
			}
			want := []inspection.Failure{{RunID: "run-000", Depth: inspection.Light, Attempts: tt.wantAttempts, Reason: "connection reset"}}
			if d := cmp.Diff(want, res.Failures); d != "" {
				t.Errorf("failures (-want +got):\n%s", d)
			}
		})
	}
}

func TestRunTimesOutEachAttemptAndRecordsTheFailure(t *testing.T) {
	insp := &fakeInspector{id: "hang", answer: func(ctx context.Context, _ inspection.Run, _ inspection.Depth, _ int) (inspection.Inspection, error) {
		<-ctx.Done()
		return inspection.Inspection{}, ctx.Err()
	}}
	start := time.Now()
	res, err := Run(context.Background(), makeRuns(1), insp, Options{Jobs: 1, Retries: 1, Timeout: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el > 2*time.Second {
		t.Errorf("took %v, want about 4 x 20ms", el)
	}
	if len(res.Failures) != 2 {
		t.Fatalf("failures = %+v, want light and deep", res.Failures)
	}
	for _, f := range res.Failures {
		if f.Attempts != 2 || !strings.Contains(f.Reason, "timed out after 20ms") {
			t.Errorf("failure %+v, want 2 attempts timed out after 20ms", f)
		}
	}
}

func TestRunRecordsInvalidInspectionAsPermanentFailure(t *testing.T) {
	tests := []struct {
		name      string
		mutate    func(*inspection.Inspection)
		wantField string
	}{
		{"score above 100", func(i *inspection.Inspection) { i.RuntimeFidelity = 100.5 }, "runtime_fidelity"},
		{"negative score", func(i *inspection.Inspection) { i.TaskEffectiveness = -1 }, "task_effectiveness"},
		{"NaN score", func(i *inspection.Inspection) { i.TaskEffectiveness = math.NaN() }, "task_effectiveness"},
		{"infinite score", func(i *inspection.Inspection) { i.RuntimeFidelity = math.Inf(1) }, "runtime_fidelity"},
		{"unknown verdict", func(i *inspection.Inspection) { i.Verdict = "ok" }, "verdict"},
		{"other depth", func(i *inspection.Inspection) { i.Depth = inspection.Deep }, "depth"},
		{"other run", func(i *inspection.Inspection) { i.RunID = "someone-else" }, "run_id"},
		{"bad severity", func(i *inspection.Inspection) { i.Flags[0].Severity = "fatal" }, "flags[0].severity"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			insp := &fakeInspector{id: "bad", answer: func(_ context.Context, r inspection.Run, d inspection.Depth, _ int) (inspection.Inspection, error) {
				i := good(r, d)
				if d == inspection.Light {
					tt.mutate(&i)
				}
				return i, nil
			}}
			res, err := Run(context.Background(), makeRuns(1), insp, Options{Jobs: 1, Retries: 3, Timeout: time.Second})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Failures) != 1 {
				t.Fatalf("failures = %+v, want one", res.Failures)
			}
			f := res.Failures[0]
			if f.Depth != inspection.Light || f.Attempts != 1 || !strings.Contains(f.Reason, "field "+tt.wantField+":") {
				t.Errorf("failure %+v, want light, 1 attempt, reason naming %s", f, tt.wantField)
			}
		})
	}
}

func TestRunFillsMissingRunIDAndDepth(t *testing.T) {
	insp := &fakeInspector{id: "terse", answer: func(_ context.Context, r inspection.Run, d inspection.Depth, _ int) (inspection.Inspection, error) {
		i := good(r, d)
		i.RunID, i.Depth, i.System = "", "", ""
		return i, nil
	}}
	runs := makeRuns(1)
	res, err := Run(context.Background(), runs, insp, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	want := []Pair{{Run: runs[0], Light: good(runs[0], inspection.Light), Deep: good(runs[0], inspection.Deep)}}
	if d := cmp.Diff(want, res.Pairs); d != "" {
		t.Errorf("pairs (-want +got):\n%s", d)
	}
}

func TestRunAttemptsDeepAfterLightFailsAndSortsFailures(t *testing.T) {
	runs := makeRuns(3)
	runs[0].ID, runs[1].ID, runs[2].ID = "c", "a", "b"
	insp := &fakeInspector{id: "fake", answer: func(_ context.Context, r inspection.Run, d inspection.Depth, _ int) (inspection.Inspection, error) {
		switch {
		case r.ID == "c", r.ID == "a" && d == inspection.Deep:
			return inspection.Inspection{}, inspection.Permanent(fmt.Errorf("no %s for %s", d, r.ID))
		}
		return good(r, d), nil
	}}
	res, err := Run(context.Background(), runs, insp, Options{Jobs: 2, Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	wantFailures := []inspection.Failure{
		{RunID: "a", Depth: inspection.Deep, Attempts: 1, Reason: "no deep for a"},
		{RunID: "c", Depth: inspection.Light, Attempts: 1, Reason: "no light for c"},
		{RunID: "c", Depth: inspection.Deep, Attempts: 1, Reason: "no deep for c"},
	}
	if d := cmp.Diff(wantFailures, res.Failures); d != "" {
		t.Errorf("failures (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]inspection.Inspection{good(runs[1], inspection.Light)}, res.Unpaired); d != "" {
		t.Errorf("unpaired (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"b"}, runIDs(res.Pairs)); d != "" {
		t.Errorf("pairs (-want +got):\n%s", d)
	}
	if res.Calls != 6 {
		t.Errorf("calls = %d, want 6 (deep tried after light failed)", res.Calls)
	}
}

func TestRunTurnsInspectorPanicIntoFailure(t *testing.T) {
	insp := &fakeInspector{id: "panicky", answer: func(_ context.Context, r inspection.Run, d inspection.Depth, _ int) (inspection.Inspection, error) {
		if r.ID == "run-001" {
			panic("boom")
		}
		return good(r, d), nil
	}}
	res, err := Run(context.Background(), makeRuns(3), insp, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Pairs) != 2 || len(res.Failures) != 2 || !strings.Contains(res.Failures[0].Reason, "panicked: boom") {
		t.Errorf("want 2 pairs and run-001 failed twice with the panic, got %+v", res)
	}
}

func TestRunCancelStopsNewCallsAndReturnsWhatFinished(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	insp := &fakeInspector{id: "fake", answer: func(ctx context.Context, r inspection.Run, d inspection.Depth, call int) (inspection.Inspection, error) {
		if call == 10 {
			cancel()
			<-ctx.Done()
			return inspection.Inspection{}, ctx.Err()
		}
		return good(r, d), nil
	}}
	runs := makeRuns(100)
	res, err := Run(ctx, runs, insp, Options{Jobs: 2, Retries: 3, Timeout: time.Second})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if res.Calls > 12 {
		t.Errorf("%d calls after cancel at call 10, want no new calls", res.Calls)
	}
	if len(res.Failures) != 0 {
		t.Errorf("cancellation recorded as failures: %+v", res.Failures)
	}
	if len(res.Pairs) < 3 || len(res.Pairs)+len(res.Unpaired)+res.Interrupted < len(runs) {
		t.Errorf("pairs %d unpaired %d interrupted %d: finished runs lost or runs unaccounted",
			len(res.Pairs), len(res.Unpaired), res.Interrupted)
	}
}

func TestRunWithWarmCacheMakesZeroInspectorCalls(t *testing.T) {
	cache, err := OpenCache(filepath.Join(t.TempDir(), "cache"))
	if err != nil {
		t.Fatal(err)
	}
	runs := makeRuns(25)
	opts := testOptions()
	opts.Cache = cache
	first := &fakeInspector{id: "fake/1", answer: alwaysGood}
	cold, err := Run(context.Background(), runs, first, opts)
	if err != nil {
		t.Fatal(err)
	}
	if cold.Calls != 50 || cold.CacheHits != 0 {
		t.Fatalf("cold run: calls %d hits %d, want 50 and 0", cold.Calls, cold.CacheHits)
	}
	if n, err := cache.Len(); err != nil || n != 50 {
		t.Fatalf("cache holds %d entries (%v), want 50", n, err)
	}
	second := &fakeInspector{id: "fake/1", answer: alwaysGood}
	warm, err := Run(context.Background(), runs, second, opts)
	if err != nil {
		t.Fatal(err)
	}
	if second.calls.Load() != 0 || warm.Calls != 0 || warm.CacheHits != 50 {
		t.Errorf("warm run: inspector called %d times, calls %d hits %d; want 0, 0, 50",
			second.calls.Load(), warm.Calls, warm.CacheHits)
	}
	if d := cmp.Diff(cold.Pairs, warm.Pairs, cmpopts.EquateApprox(0, 1e-12)); d != "" {
		t.Errorf("cached pairs differ (-cold +warm):\n%s", d)
	}
	// Another identity or changed content is a miss.
	other := &fakeInspector{id: "fake/2", answer: alwaysGood}
	changed := append([]inspection.Run(nil), runs...)
	changed[0].ContentHash = strings.Repeat("f", 64)
	if res, _ := Run(context.Background(), runs, other, opts); res.Calls != 50 {
		t.Errorf("new identity: %d calls, want 50", res.Calls)
	}
	if res, _ := Run(context.Background(), changed, second, opts); res.Calls != 2 {
		t.Errorf("one changed run: %d calls, want 2", res.Calls)
	}
}

func TestRunCacheHitCarriesTheRunsOwnID(t *testing.T) {
	cache, err := OpenCache(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	runs := makeRuns(2)
	runs[1].ContentHash = runs[0].ContentHash // a copy of run-000
	res, err := Run(context.Background(), runs, &fakeInspector{id: "f", answer: alwaysGood}, Options{Jobs: 1, Cache: cache})
	if err != nil {
		t.Fatal(err)
	}
	if res.CacheHits != 2 || res.Pairs[1].Light.RunID != "run-001" || res.Pairs[1].Deep.RunID != "run-001" {
		t.Errorf("hits %d, second pair ids %q %q; want 2 hits and run-001", res.CacheHits,
			res.Pairs[1].Light.RunID, res.Pairs[1].Deep.RunID)
	}
}

func TestRunDoesNotCacheRunsWithoutContentHash(t *testing.T) {
	cache, err := OpenCache(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	runs := makeRuns(2)
	runs[0].ContentHash, runs[1].ContentHash = "", ""
	for range 2 {
		res, err := Run(context.Background(), runs, &fakeInspector{id: "f", answer: alwaysGood}, Options{Cache: cache})
		if err != nil || res.Calls != 4 || res.CacheHits != 0 {
			t.Errorf("calls %d hits %d err %v, want 4 calls and no hit", res.Calls, res.CacheHits, err)
		}
	}
}

func TestCacheIgnoresAndOverwritesCorruptEntry(t *testing.T) {
	cache, err := OpenCache(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	runs := makeRuns(1)
	hash := runs[0].ContentHash
	if _, err := Run(context.Background(), runs, &fakeInspector{id: "f", answer: alwaysGood}, Options{Cache: cache}); err != nil {
		t.Fatal(err)
	}
	for _, junk := range []string{"{not json", `{"identity":"other","depth":"light","content_hash":"` + hash + `"}`, ""} {
		p := cache.path(CacheKey("f", inspection.Light, hash))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(junk), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, ok := cache.Get("f", inspection.Light, hash); ok {
			t.Fatalf("corrupt entry %q served as a hit", junk)
		}
		res, err := Run(context.Background(), runs, &fakeInspector{id: "f", answer: alwaysGood}, Options{Cache: cache})
		if err != nil || res.Calls != 1 || res.CacheHits != 1 || len(res.Pairs) != 1 {
			t.Fatalf("corrupt %q: calls %d hits %d pairs %d err %v; want the light call redone", junk,
				res.Calls, res.CacheHits, len(res.Pairs), err)
		}
		if got, ok := cache.Get("f", inspection.Light, hash); !ok || got.Verdict != inspection.VerdictPass {
			t.Errorf("corrupt entry %q not overwritten", junk)
		}
	}
}

func TestCacheKeyIsSHA256OfIdentityDepthAndContentHash(t *testing.T) {
	// Expected values from: printf 'id\0light\0abc' | sha256sum
	//                       printf 'exec:x\0deep\0' | sha256sum
	tests := []struct {
		identity string
		depth    inspection.Depth
		hash     string
		want     string
	}{
		{"id", inspection.Light, "abc", "8aba94c30e85a2a0881cad86e16e441d86ecbfb5bccf4a3851d5f4d407e6cb85"},
		{"exec:x", inspection.Deep, "", "10bd91cfef5b07a93068498753fbc1497657f5d092945bf932581b57d1dfcd46"},
	}
	for _, tt := range tests {
		if got := CacheKey(tt.identity, tt.depth, tt.hash); got != tt.want {
			t.Errorf("CacheKey(%q, %q, %q) = %s, want %s", tt.identity, tt.depth, tt.hash, got, tt.want)
		}
	}
}

func TestRunNeverWritesInsideRunDirectory(t *testing.T) {
	runDir := t.TempDir()
	if err := os.WriteFile(filepath.Join(runDir, "state.md"), []byte("# run"), 0o644); err != nil {
		t.Fatal(err)
	}
	cache, err := OpenCache(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	runs := makeRuns(1)
	runs[0].Path = runDir
	if _, err := Run(context.Background(), runs, &fakeInspector{id: "f", answer: alwaysGood}, Options{Cache: cache}); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(runDir)
	if err != nil || len(entries) != 1 {
		t.Errorf("run directory holds %d entries (%v), want only state.md", len(entries), err)
	}
}

func TestRunRejectsBadOptionsBeforeAnyCall(t *testing.T) {
	if _, err := Run(context.Background(), makeRuns(1), nil, testOptions()); err == nil {
		t.Error("nil inspector: want an error")
	}
	f := &fakeInspector{id: "f", answer: alwaysGood}
	if _, err := Run(context.Background(), makeRuns(1), f, Options{Retries: -1}); err == nil || f.calls.Load() != 0 {
		t.Errorf("negative retries: err %v after %d calls, want an error and no call", err, f.calls.Load())
	}
}

func TestDefaultOptionsMatchTheIssue(t *testing.T) {
	o := DefaultOptions()
	if o.Jobs < 1 || o.Retries != 1 || o.Timeout != 10*time.Minute || o.Cache != nil || o.Progress != nil {
		t.Errorf("DefaultOptions() = %+v, want jobs = NumCPU, retries 1, timeout 10m, no cache, quiet", o)
	}
}

func TestRunGoesOnWhenTheCacheCannotBeWritten(t *testing.T) {
	dir := t.TempDir()
	cache, err := OpenCache(dir)
	if err != nil {
		t.Fatal(err)
	}
	runs := makeRuns(1)
	// A file where the shard directory of the light entry should be.
	shard := CacheKey("f", inspection.Light, runs[0].ContentHash)[:2]
	if err := os.WriteFile(filepath.Join(dir, shard), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), runs, &fakeInspector{id: "f", answer: alwaysGood}, Options{Cache: cache})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Pairs) != 1 || len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "runner: 1 cache writes failed, first: runner: cache put") {
		t.Errorf("pairs %d warnings %q, want the pair and one warning", len(res.Pairs), res.Warnings)
	}
}

func TestRunOfNoRunsGivesEmptyNotNilLists(t *testing.T) {
	res, err := Run(context.Background(), nil, &fakeInspector{id: "f", answer: alwaysGood}, testOptions())
	want := Result{Pairs: []Pair{}, LightOnly: []LightRun{}, Unpaired: []inspection.Inspection{}, Failures: []inspection.Failure{}}
	zero := 0.0
	want.Cost.Light = SideCost{Identity: "f", USD: &zero}
	want.Cost.Deep = SideCost{Identity: "f", USD: &zero}
	if d := cmp.Diff(want, res); err != nil || d != "" {
		t.Errorf("err %v, (-want +got):\n%s", err, d)
	}
}
