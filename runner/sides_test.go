package runner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/evalcal/evalcal/inspection"
)

// billedInspector is a fakeInspector that reports token usage and bounds
// its calls, as an LLM judge does.
type billedInspector struct {
	*fakeInspector
	model   string
	maxIn   int64
	maxOut  int64
	perCall inspection.Usage
}

func (b *billedInspector) Model() string                 { return b.model }
func (b *billedInspector) MaxCallTokens() (int64, int64) { return b.maxIn, b.maxOut }
func (b *billedInspector) Inspect(ctx context.Context, run inspection.Run, depth inspection.Depth) (inspection.Inspection, error) {
	insp, err := b.fakeInspector.Inspect(ctx, run, depth)
	u := b.perCall
	if err != nil {
		return insp, inspection.WithUsage(err, u)
	}
	insp.Cost.Usage = &u
	return insp, nil
}

func TestRunSidesCallsEachSideAtItsDepthAndRecordsBothIdentities(t *testing.T) {
	light := &fakeInspector{id: "small", answer: alwaysGood}
	deep := &fakeInspector{id: "large", answer: alwaysGood}
	res, err := RunSides(context.Background(), makeRuns(5), Sides{Light: light, Deep: deep}, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range light.order {
		if !strings.HasSuffix(o, "/light") {
			t.Errorf("light inspector called for %s", o)
		}
	}
	for _, o := range deep.order {
		if !strings.HasSuffix(o, "/deep") {
			t.Errorf("deep inspector called for %s", o)
		}
	}
	if len(res.Pairs) != 5 || light.calls.Load() != 5 || deep.calls.Load() != 5 {
		t.Errorf("pairs %d, light calls %d, deep calls %d; want 5 each", len(res.Pairs), light.calls.Load(), deep.calls.Load())
	}
	if res.Cost.Light.Identity != "small" || res.Cost.Deep.Identity != "large" {
		t.Errorf("cost identities %q/%q", res.Cost.Light.Identity, res.Cost.Deep.Identity)
	}
}

func TestRunSidesCachesEachSideUnderItsOwnIdentity(t *testing.T) {
	cache, err := OpenCache(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	opts := testOptions()
	opts.Cache = cache
	runs := makeRuns(3)
	light := &fakeInspector{id: "small", answer: alwaysGood}
	deep := &fakeInspector{id: "large", answer: alwaysGood}
	if _, err := RunSides(context.Background(), runs, Sides{Light: light, Deep: deep}, opts); err != nil {
		t.Fatal(err)
	}
	// A new deep judge: light comes from the cache, deep is called.
	other := &fakeInspector{id: "human", answer: alwaysGood}
	res, err := RunSides(context.Background(), runs, Sides{Light: light, Deep: other}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if res.Cost.Light.CacheHits != 3 || res.Cost.Light.Calls != 0 || res.Cost.Deep.CacheHits != 0 || other.calls.Load() != 3 {
		t.Errorf("light hits %d calls %d, deep hits %d, new judge calls %d; want 3 0 0 3",
			res.Cost.Light.CacheHits, res.Cost.Light.Calls, res.Cost.Deep.CacheHits, other.calls.Load())
	}
}

func TestRunRepeatCallsKTimesAndConsolidatesByMajority(t *testing.T) {
	// Light passes on repeats 0 and 2, fails on repeat 1: majority pass,
	// scores averaged.
	insp := &fakeInspector{id: "flaky", answer: func(ctx context.Context, run inspection.Run, depth inspection.Depth, _ int) (inspection.Inspection, error) {
		in := good(run, depth)
		if depth == inspection.Light && inspection.RepeatOf(ctx) == 1 {
			in.Verdict, in.RuntimeFidelity = inspection.VerdictFail, 20
		}
		return in, nil
	}}
	opts := testOptions()
	opts.Repeat = 3
	res, err := Run(context.Background(), makeRuns(2), insp, opts)
	if err != nil {
		t.Fatal(err)
	}
	if insp.calls.Load() != 12 || len(res.Pairs) != 2 {
		t.Fatalf("calls %d pairs %d, want 12 and 2", insp.calls.Load(), len(res.Pairs))
	}
	p := res.Pairs[0]
	if len(p.LightRepeats) != 3 || len(p.DeepRepeats) != 3 {
		t.Fatalf("repeats %d/%d, want 3/3", len(p.LightRepeats), len(p.DeepRepeats))
	}
	if p.Light.Verdict != inspection.VerdictPass || p.Light.RuntimeFidelity != 60 {
		t.Errorf("consolidated light %s %v, want pass 60 (mean of 80, 20, 80)", p.Light.Verdict, p.Light.RuntimeFidelity)
	}
	if p.LightRepeats[1].Verdict != inspection.VerdictFail {
		t.Errorf("repeat order lost: %+v", p.LightRepeats)
	}
}

func TestConsolidateBreaksTiesTowardTheStricterVerdict(t *testing.T) {
	rs := []inspection.Inspection{{Verdict: inspection.VerdictPass, RuntimeFidelity: 90}, {Verdict: inspection.VerdictPartial, RuntimeFidelity: 50}}
	if got := inspection.Consolidate(rs); got.Verdict != inspection.VerdictPartial || got.RuntimeFidelity != 70 {
		t.Errorf("got %s %v, want partial 70", got.Verdict, got.RuntimeFidelity)
	}
	rs = append(rs, inspection.Inspection{Verdict: inspection.VerdictPass, RuntimeFidelity: 100})
	if got := inspection.Consolidate(rs); got.Verdict != inspection.VerdictPass {
		t.Errorf("got %s, want pass (2 of 3)", got.Verdict)
	}
}

func TestRunRepeatsHaveTheirOwnCacheEntries(t *testing.T) {
	cache, err := OpenCache(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	insp := &fakeInspector{id: "f", answer: alwaysGood}
	opts := testOptions()
	opts.Cache, opts.Repeat = cache, 3
	if _, err := Run(context.Background(), makeRuns(2), insp, opts); err != nil {
		t.Fatal(err)
	}
	if n, _ := cache.Len(); n != 12 {
		t.Errorf("cache holds %d entries, want 2 runs x 2 depths x 3 repeats = 12", n)
	}
	res, err := Run(context.Background(), makeRuns(2), insp, opts)
	if err != nil || res.Calls != 0 || res.CacheHits != 12 {
		t.Errorf("rerun: calls %d hits %d err %v, want 0 and 12", res.Calls, res.CacheHits, err)
	}
}

func TestRunDeepRunsInspectsDeepOnTheSubsetOnly(t *testing.T) {
	insp := &fakeInspector{id: "f", answer: alwaysGood}
	opts := testOptions()
	opts.DeepRuns = map[string]bool{"run-001": true, "run-003": true}
	res, err := Run(context.Background(), makeRuns(5), insp, opts)
	if err != nil {
		t.Fatal(err)
	}
	if got := runIDs(res.Pairs); strings.Join(got, ",") != "run-001,run-003" {
		t.Errorf("pairs %v, want run-001 and run-003", got)
	}
	if len(res.LightOnly) != 3 || res.LightOnly[0].Run.ID != "run-000" || len(res.Failures) != 0 {
		t.Errorf("light only %d (first %q), failures %v", len(res.LightOnly), res.LightOnly[0].Run.ID, res.Failures)
	}
	if insp.calls.Load() != 7 {
		t.Errorf("calls %d, want 5 light + 2 deep", insp.calls.Load())
	}
}

func TestRunSelectDeepSeesEveryLightBeforeAnyDeepCall(t *testing.T) {
	var mu sync.Mutex
	deepStarted := false
	insp := &fakeInspector{id: "f", answer: func(_ context.Context, run inspection.Run, depth inspection.Depth, _ int) (inspection.Inspection, error) {
		mu.Lock()
		defer mu.Unlock()
		if depth == inspection.Light && deepStarted {
			t.Errorf("light call for %s after a deep call", run.ID)
		}
		if depth == inspection.Deep {
			deepStarted = true
		}
		in := good(run, depth)
		if run.ID == "run-002" {
			in.Verdict = inspection.VerdictPartial
		}
		return in, nil
	}}
	opts := testOptions()
	var seen int
	opts.SelectDeep = func(light map[string][]inspection.Inspection) map[string]bool {
		seen = len(light)
		out := map[string]bool{}
		for id, in := range light {
			if len(in) != 1 {
				t.Errorf("%s: %d light inspections, want 1 (no --repeat)", id, len(in))
			}
			if in[0].Verdict == inspection.VerdictPartial {
				out[id] = true
			}
		}
		return out
	}
	res, err := Run(context.Background(), makeRuns(6), insp, opts)
	if err != nil {
		t.Fatal(err)
	}
	if seen != 6 || len(res.Pairs) != 1 || res.Pairs[0].Run.ID != "run-002" || len(res.LightOnly) != 5 {
		t.Errorf("select saw %d lights; pairs %v, light only %d", seen, runIDs(res.Pairs), len(res.LightOnly))
	}
}

func TestRunHonoursRetryAfterAndCapsIt(t *testing.T) {
	busy := errors.New("429 too many requests")
	insp := &fakeInspector{id: "f", answer: func(_ context.Context, run inspection.Run, depth inspection.Depth, call int) (inspection.Inspection, error) {
		if call == 1 {
			return inspection.Inspection{}, inspection.RetryAfter(busy, 150*time.Millisecond)
		}
		return good(run, depth), nil
	}}
	opts := Options{Jobs: 1, Retries: 2, Timeout: time.Second}
	start := time.Now()
	res, err := Run(context.Background(), makeRuns(1), insp, opts)
	if err != nil || len(res.Pairs) != 1 {
		t.Fatalf("pairs %d err %v", len(res.Pairs), err)
	}
	if el := time.Since(start); el < 150*time.Millisecond {
		t.Errorf("retried after %v, before the 150ms the server asked for", el)
	}
	if res.Cost.Light.Retries != 1 || res.Cost.Light.Calls != 2 {
		t.Errorf("light retries %d calls %d, want 1 and 2", res.Cost.Light.Retries, res.Cost.Light.Calls)
	}

	// A wait over the cap fails the call at once, with the reason.
	insp = &fakeInspector{id: "f", answer: func(_ context.Context, run inspection.Run, depth inspection.Depth, _ int) (inspection.Inspection, error) {
		return inspection.Inspection{}, inspection.RetryAfter(busy, time.Hour)
	}}
	opts.MaxRetryWait = time.Second
	start = time.Now()
	res, err = Run(context.Background(), makeRuns(1), insp, opts)
	if err != nil {
		t.Fatal(err)
	}
	if time.Since(start) > 2*time.Second || len(res.Failures) != 2 || !strings.Contains(res.Failures[0].Reason, "retry after 1h0m0s, more than the 1s cap") {
		t.Errorf("failures %+v after %v", res.Failures, time.Since(start))
	}
}

func TestRunBackoffDoublesUpToTheCap(t *testing.T) {
	p := &pipeline{opts: Options{RetryDelay: time.Second, MaxBackoff: 5 * time.Second}}
	var got []time.Duration
	for n := 1; n <= 5; n++ {
		got = append(got, p.backoff(n))
	}
	want := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 5 * time.Second, 5 * time.Second}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("backoff %v, want %v", got, want)
	}
}

func TestRunStopsAtOnceOnAFatalError(t *testing.T) {
	light := &fakeInspector{id: "openai:judge", answer: func(_ context.Context, run inspection.Run, depth inspection.Depth, _ int) (inspection.Inspection, error) {
		time.Sleep(time.Millisecond)
		return inspection.Inspection{}, inspection.Fatal(errors.New("authentication failed (401)"))
	}}
	deep := &fakeInspector{id: "deep", answer: alwaysGood}
	res, err := RunSides(context.Background(), makeRuns(50), Sides{Light: light, Deep: deep}, Options{Jobs: 2, Retries: 3, Timeout: time.Second})
	var se *StopError
	if !errors.As(err, &se) || se.Side != inspection.Light || se.Name != "openai:judge" || !strings.Contains(err.Error(), "authentication failed (401)") {
		t.Fatalf("err %v, want a StopError of the light side", err)
	}
	if n := light.calls.Load(); n > 4 {
		t.Errorf("light called %d times after a fatal error, want at most the calls in flight (2) + 2", n)
	}
	if res.Cost.Light.Retries != 0 {
		t.Errorf("a fatal error was retried %d times", res.Cost.Light.Retries)
	}
}

func TestRunStopsEarlyWhenTheFirstCallsAllFailTheSameWay(t *testing.T) {
	insp := &fakeInspector{id: "exec:broken", answer: func(_ context.Context, run inspection.Run, depth inspection.Depth, _ int) (inspection.Inspection, error) {
		return inspection.Inspection{}, inspection.Permanent(fmt.Errorf("exit status 2: cannot read %s", run.ID))
	}}
	_, err := Run(context.Background(), makeRuns(40), insp, Options{Jobs: 1, Timeout: time.Second})
	var se *StopError
	if !errors.As(err, &se) || !strings.Contains(err.Error(), "the first 5 inspections all failed the same way") ||
		!strings.Contains(err.Error(), "cannot read run-00") {
		t.Fatalf("err %v, want a stop naming the first reason", err)
	}
	if n := insp.calls.Load(); n > 2*EarlyStopCalls+1 {
		t.Errorf("%d calls before stopping, want about %d", n, EarlyStopCalls)
	}

	// Different reasons, or one success first: no stop.
	insp = &fakeInspector{id: "exec:mixed", answer: func(_ context.Context, run inspection.Run, depth inspection.Depth, call int) (inspection.Inspection, error) {
		if depth == inspection.Light || run.ID == "run-000" {
			return good(run, depth), nil
		}
		return inspection.Inspection{}, inspection.Permanent(errors.New("bad"))
	}}
	if _, err := Run(context.Background(), makeRuns(10), insp, Options{Jobs: 1, Timeout: time.Second}); err != nil {
		t.Errorf("a side that succeeded once was stopped: %v", err)
	}
}

func TestRunCountsUsageOfFailedCallsAndPricesIt(t *testing.T) {
	bad := errors.New("malformed answer")
	insp := &billedInspector{model: "m", maxIn: 1000, maxOut: 100, perCall: inspection.Usage{Calls: 1, Input: 1000, Output: 100, CachedInput: 400, Reasoning: 10},
		fakeInspector: &fakeInspector{id: "openai:m", answer: func(_ context.Context, run inspection.Run, depth inspection.Depth, _ int) (inspection.Inspection, error) {
			if run.ID == "run-000" && depth == inspection.Deep {
				return inspection.Inspection{}, inspection.Permanent(bad)
			}
			return good(run, depth), nil
		}}}
	cached := 0.5
	price := &Price{Input: 2, Output: 10, CachedInput: &cached}
	opts := testOptions()
	opts.Light.Price, opts.Deep.Price = price, price
	res, err := Run(context.Background(), makeRuns(2), insp, opts)
	if err != nil {
		t.Fatal(err)
	}
	// Per call: (600*2 + 400*0.5 + 100*10) / 1e6 = 2400e-6 USD.
	const perCall = 2400e-6
	if res.Cost.Deep.Calls != 2 || res.Cost.Deep.Failed != 1 || res.Cost.Deep.Usage.Input != 2000 || res.Cost.Deep.Usage.Reasoning != 20 {
		t.Errorf("deep cost %+v, want 2 calls, 1 failed, 2000 input tokens", res.Cost.Deep)
	}
	if res.Cost.Deep.USD == nil || abs(*res.Cost.Deep.USD-2*perCall) > 1e-15 {
		t.Errorf("deep USD %v, want %v (the failed call billed too)", res.Cost.Deep.USD, 2*perCall)
	}
	if res.Pairs[0].Light.Cost.USD != perCall {
		t.Errorf("inspection USD %v, want %v", res.Pairs[0].Light.Cost.USD, perCall)
	}
	// Unpriced: USD is unknown (nil), not zero.
	opts.Light.Price, opts.Deep.Price = nil, nil
	res, _ = Run(context.Background(), makeRuns(1), insp, opts)
	if res.Cost.Light.USD != nil {
		t.Errorf("unpriced light USD %v, want nil", *res.Cost.Light.USD)
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

func TestRunBudgetNeverStartsACallThatCouldExceedIt(t *testing.T) {
	insp := &billedInspector{model: "m", maxIn: 1000, maxOut: 1000, perCall: inspection.Usage{Calls: 1, Input: 500, Output: 100},
		fakeInspector: &fakeInspector{id: "openai:m", answer: alwaysGood}}
	price := &Price{Input: 1, Output: 1} // worst case per call 2000e-6, actual 600e-6
	opts := Options{Jobs: 1, Timeout: time.Second, MaxUSD: 0.005}
	opts.Light.Price, opts.Deep.Price = price, price
	res, err := Run(context.Background(), makeRuns(10), insp, opts)
	if err != nil {
		t.Fatal(err)
	}
	spent := *res.Cost.Light.USD + *res.Cost.Deep.USD
	if !res.BudgetStopped || spent > 0.005 {
		t.Errorf("stopped %v spent %v, want a stop within the 0.005 budget", res.BudgetStopped, spent)
	}
	// The first call reserves its worst case (2000e-6) and costs 600e-6,
	// 0.3 of it; every later call reserves ReserveMargin x 0.3 x 2000e-6 =
	// 900e-6. Call k starts while 600e-6 (k-1) + 900e-6 <= 0.005: the 7th
	// (3600e-6 spent) does, the 8th (4200e-6 + 900e-6) does not.
	if got := insp.calls.Load(); got != 7 {
		t.Errorf("%d calls, want 7", got)
	}
	if len(res.Failures) == 0 || !strings.Contains(res.Failures[len(res.Failures)-1].Reason, "--max-cost budget of $0.005") {
		t.Errorf("failures %+v, want the runs left recorded with the budget as reason", res.Failures)
	}
}

func TestRunRateLimitSpacesRequests(t *testing.T) {
	insp := &fakeInspector{id: "f", answer: alwaysGood}
	opts := Options{Jobs: 8, Timeout: time.Second}
	opts.Light.RPM, opts.Deep.RPM = 600, 600 // one request per 100ms per side
	start := time.Now()
	if _, err := Run(context.Background(), makeRuns(4), insp, opts); err != nil {
		t.Fatal(err)
	}
	// 4 requests a side: the first at once, then 3 x 100ms.
	if el := time.Since(start); el < 280*time.Millisecond {
		t.Errorf("8 calls at 600 rpm per side took %v, want at least 300ms", el)
	}
}

func TestCacheDoesNotServeAnEditedEntry(t *testing.T) {
	dir := t.TempDir()
	cache, err := OpenCache(dir)
	if err != nil {
		t.Fatal(err)
	}
	insp := &fakeInspector{id: "f", answer: alwaysGood}
	opts := testOptions()
	opts.Cache = cache
	runs := makeRuns(1)
	if _, err := Run(context.Background(), runs, insp, opts); err != nil {
		t.Fatal(err)
	}
	// Edit the light entry: the verdict becomes fail (the entry's first
	// "pass" is its verdict; see encodeEntry).
	p := cache.path(CacheKey("f", inspection.Light, runs[0].ContentHash))
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	edited := bytes.Replace(data, []byte("pass"), []byte("fail"), 1)
	if bytes.Equal(edited, data) {
		t.Fatal("no verdict to edit in the entry")
	}
	if err := os.WriteFile(p, edited, 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), runs, insp, opts)
	if err != nil {
		t.Fatal(err)
	}
	if res.Pairs[0].Light.Verdict != inspection.VerdictPass || res.Cost.Light.CacheHits != 0 || res.Cost.Light.Calls != 1 {
		t.Errorf("light %s hits %d calls %d: the edited entry was served", res.Pairs[0].Light.Verdict, res.Cost.Light.CacheHits, res.Cost.Light.Calls)
	}
	if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "checksum does not match") {
		t.Errorf("warnings %q, want one about the checksum", res.Warnings)
	}
}

func TestCacheLookupNeverBlocksOnAFIFO(t *testing.T) {
	cache, err := OpenCache(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	p := cache.path(CacheKey("f", inspection.Light, "abc"))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	done := make(chan error, 1)
	go func() {
		_, ok, err := cache.Lookup("f", inspection.Light, "abc")
		if ok {
			err = errors.New("a FIFO was served as an entry")
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("err %v, want not a regular file", err)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("Lookup blocked on a FIFO")
	}
}

// A StopError names the side as the user gave it (SideOptions.Name), not
// an identity the user never typed (an exec command's hash; issue 28).
func TestStopErrorNamesTheSideAsGiven(t *testing.T) {
	light := &fakeInspector{id: "exec:73c55257fbf93e83", answer: func(_ context.Context, run inspection.Run, depth inspection.Depth, _ int) (inspection.Inspection, error) {
		return inspection.Inspection{}, inspection.Fatal(errors.New("start ./judge.sh: no such file or directory"))
	}}
	deep := &fakeInspector{id: "deep", answer: alwaysGood}
	opts := Options{Jobs: 1, Retries: 0, Timeout: time.Second, Light: SideOptions{Name: "exec:./judge.sh"}}
	_, err := RunSides(context.Background(), makeRuns(3), Sides{Light: light, Deep: deep}, opts)
	var se *StopError
	if !errors.As(err, &se) {
		t.Fatalf("err %v, want a StopError", err)
	}
	if got := err.Error(); !strings.Contains(got, "light inspector exec:./judge.sh:") || strings.Contains(got, "73c55257") {
		t.Errorf("error %q, want it to name exec:./judge.sh and not the identity's hash", got)
	}
}
