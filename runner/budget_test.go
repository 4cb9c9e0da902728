package runner

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/evalcal/evalcal/inspection"
)

// A budget that affords half the job gets about half the runs (issue 28,
// item 5): the calls reserve from what finished calls cost, not their
// worst case, and concurrent worst-case reservations at the start do not
// stop it. Each call's worst case is 20 times what it costs, as for an
// LLM judge. Each call takes 2 ms, as a call takes time: with instant calls
// the test measured how Go schedules goroutines over microseconds (a
// worker that had taken a deep call was not run again before the lights
// of 25 more runs; 1 failure in 40 under load).
func TestBudgetOfHalfTheJobInspectsAboutHalfTheRuns(t *testing.T) {
	for _, jobs := range []int{1, 2, 8} {
		t.Run(fmt.Sprintf("jobs=%d", jobs), func(t *testing.T) {
			insp := &billedInspector{model: "m", maxIn: 10_000, maxOut: 2_000, perCall: inspection.Usage{Calls: 1, Input: 500, Output: 100},
				fakeInspector: &fakeInspector{id: "openai:m", answer: slowGood}}
			price := &Price{Input: 1, Output: 1} // worst case 0.012 a call, actual 0.0006
			const runs = 100
			job := 2 * runs * 600e-6 // 0.12
			opts := Options{Jobs: jobs, Timeout: time.Second, MaxUSD: job / 2}
			opts.Light.Price, opts.Deep.Price = price, price
			res, err := Run(context.Background(), makeRuns(runs), insp, opts)
			if err != nil {
				t.Fatal(err)
			}
			spent := *res.Cost.Light.USD + *res.Cost.Deep.USD
			if spent > opts.MaxUSD || !res.BudgetStopped {
				t.Errorf("spent %v of %v, stopped %v", spent, opts.MaxUSD, res.BudgetStopped)
			}
			if got := float64(len(res.Pairs)) / runs; got < 0.45 || got > 0.5 {
				t.Errorf("%d of %d runs got both inspections (spent %v), want 45 to 50%%", len(res.Pairs), runs, spent)
			}
		})
	}
}

func slowGood(ctx context.Context, run inspection.Run, depth inspection.Depth, n int) (inspection.Inspection, error) {
	time.Sleep(2 * time.Millisecond)
	return alwaysGood(ctx, run, depth, n)
}

// Calls whose cost varies from run to run (the bound scales with the run,
// the share of it used does not exceed ReserveMargin times the first) never
// take spending over the budget, whatever --jobs.
func TestBudgetIsNeverOverspentWithVaryingCosts(t *testing.T) {
	for _, jobs := range []int{1, 3, 16} {
		for _, max := range []float64{0.001, 0.01, 0.05, 0.2} {
			insp := &varyingInspector{fakeInspector: &fakeInspector{id: "openai:m", answer: alwaysGood}}
			price := &Price{Input: 1, Output: 1}
			opts := Options{Jobs: jobs, Timeout: time.Second, MaxUSD: max}
			opts.Light.Price, opts.Deep.Price = price, price
			res, err := Run(context.Background(), makeRuns(60), insp, opts)
			if err != nil {
				t.Fatal(err)
			}
			if spent := *res.Cost.Light.USD + *res.Cost.Deep.USD; spent > max {
				t.Errorf("jobs %d: spent %v of a %v budget", jobs, spent, max)
			}
		}
	}
}

// varyingInspector bills 400 to 600 input tokens a call (1,000 at most),
// by run.
type varyingInspector struct{ *fakeInspector }

func (v *varyingInspector) Model() string                 { return "m" }
func (v *varyingInspector) MaxCallTokens() (int64, int64) { return 1000, 1000 }
func (v *varyingInspector) Inspect(ctx context.Context, run inspection.Run, depth inspection.Depth) (inspection.Inspection, error) {
	insp, err := v.fakeInspector.Inspect(ctx, run, depth)
	u := inspection.Usage{Calls: 1, Input: 400 + int64(len(run.ID)*37%201), Output: 10}
	if err != nil {
		return insp, inspection.WithUsage(err, u)
	}
	insp.Cost.Usage = &u
	return insp, nil
}

// A call waiting for room while the calls in flight hold it gives up when
// ctx ends.
func TestBudgetWaitEndsWithTheContext(t *testing.T) {
	b := &budget{max: 1}
	if ok, err := b.reserve(context.Background(), 0.8, true, false); !ok || err != nil {
		t.Fatalf("first reservation: %v %v", ok, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if ok, err := b.reserve(ctx, 0.5, true, false); ok || err == nil {
		t.Errorf("waited past the context: %v %v", ok, err)
	}
	if b.hasStopped() {
		t.Error("a wait cut short stopped the budget")
	}
	done := make(chan bool)
	go func() {
		ok, _ := b.reserve(context.Background(), 0.5, true, false)
		done <- ok
	}()
	time.Sleep(10 * time.Millisecond)
	b.settle(0.8, 0.3) // 0.3 spent: 0.5 fits
	if !<-done {
		t.Error("a call waiting for room did not start once it was settled")
	}
}

// boundedInspector bounds each run's call by the run's number (RunBound):
// run i's bound is i x 1,000 input tokens, and it bills a tenth of that;
// runs numbered above 8 are at the full bound of 8,000 and bill half.
type boundedInspector struct{ *fakeInspector }

func runNumber(run inspection.Run) int64 {
	var n int64
	fmt.Sscanf(run.ID[len(run.ID)-3:], "%d", &n)
	return n%10 + 1
}

func (b *boundedInspector) Model() string                 { return "m" }
func (b *boundedInspector) MaxCallTokens() (int64, int64) { return 8000, 0 }
func (b *boundedInspector) MaxRunTokens(run inspection.Run, _ inspection.Depth) (int64, int64) {
	return min(8000, 1000*runNumber(run)), 0
}
func (b *boundedInspector) Inspect(ctx context.Context, run inspection.Run, depth inspection.Depth) (inspection.Inspection, error) {
	insp, err := b.fakeInspector.Inspect(ctx, run, depth)
	in, _ := b.MaxRunTokens(run, depth)
	u := inspection.Usage{Calls: 1, Input: in / 10}
	if in == 8000 {
		u.Input = in / 2
	}
	if err != nil {
		return insp, inspection.WithUsage(err, u)
	}
	insp.Cost.Usage = &u
	return insp, nil
}

// A call of a kind no finished call has informed (a run at the side's
// full bound) reserves its bound; when that does not fit, only that call
// is refused and the smaller calls go on; the budget is never overspent,
// although full-bound calls use five times the share of their bound that
// the others do.
func TestBudgetSkipsAnUninformedCallItCannotAffordAndGoesOn(t *testing.T) {
	insp := &boundedInspector{fakeInspector: &fakeInspector{id: "openai:m", answer: alwaysGood}}
	price := &Price{Input: 1}
	opts := Options{Jobs: 1, Timeout: time.Second, MaxUSD: 0.007} // a full-bound call's bound is 0.008
	opts.Light.Price, opts.Deep.Price = price, price
	res, err := Run(context.Background(), makeRuns(30), insp, opts)
	if err != nil {
		t.Fatal(err)
	}
	spent := *res.Cost.Light.USD + *res.Cost.Deep.USD
	if spent > opts.MaxUSD || !res.BudgetStopped {
		t.Errorf("spent %v of %v, stopped %v", spent, opts.MaxUSD, res.BudgetStopped)
	}
	skipped := 0
	for _, f := range res.Failures {
		if strings.Contains(f.Reason, "no call like it has finished") {
			skipped++
		}
	}
	if skipped == 0 || len(res.Pairs) < 8 {
		t.Errorf("%d calls skipped for their bound, %d runs paired (spent %v); want skips and the smaller runs inspected", skipped, len(res.Pairs), spent)
	}
}

// A call completing a pair (a deep call) that waits for room is served
// before a call starting a run (a light call), even one that would fit
// now; and a light call waiting behind it starts once it is served.
func TestBudgetServesTheCallCompletingAPairFirst(t *testing.T) {
	b := &budget{max: 1}
	if ok, err := b.reserve(context.Background(), 0.8, true, false); !ok || err != nil {
		t.Fatalf("first reservation: %v %v", ok, err)
	}
	deep := make(chan bool)
	go func() {
		ok, _ := b.reserve(context.Background(), 0.5, true, true)
		deep <- ok
	}()
	waitFor(t, func() bool { b.mu.Lock(); defer b.mu.Unlock(); return b.pairing == 1 })
	if !b.tight() {
		t.Error("a call waits for room but the budget is not tight")
	}
	light := make(chan bool)
	go func() {
		ok, _ := b.reserve(context.Background(), 0.1, true, false) // 0.9 of 1: fits, but a deep call waits
		light <- ok
	}()
	waitFor(t, func() bool { b.mu.Lock(); defer b.mu.Unlock(); return b.waiting == 2 })
	b.settle(0.8, 0.45) // 0.45 spent: room for the deep call (0.95), not for both
	if !<-deep {
		t.Fatal("the deep call was refused")
	}
	select {
	case ok := <-light:
		t.Fatalf("the light call took the room first (%v)", ok)
	case <-time.After(20 * time.Millisecond):
	}
	b.settle(0.5, 0.5) // 0.95 spent: the light call's 0.1 no longer fits
	if <-light {
		t.Error("the light call started past the budget")
	}
	if !b.hasStopped() {
		t.Error("the budget did not stop")
	}
}

// A light call waiting behind a deep call that gives up (its context
// ended) is woken and starts.
func TestBudgetWakesTheCallsBehindADeepCallThatGivesUp(t *testing.T) {
	b := &budget{max: 1}
	if ok, _ := b.reserve(context.Background(), 0.8, true, false); !ok {
		t.Fatal("first reservation refused")
	}
	ctx, cancel := context.WithCancel(context.Background())
	deep := make(chan error)
	go func() {
		_, err := b.reserve(ctx, 0.5, true, true)
		deep <- err
	}()
	waitFor(t, func() bool { b.mu.Lock(); defer b.mu.Unlock(); return b.pairing == 1 })
	light := make(chan bool)
	go func() {
		ok, _ := b.reserve(context.Background(), 0.1, true, false)
		light <- ok
	}()
	waitFor(t, func() bool { b.mu.Lock(); defer b.mu.Unlock(); return b.waiting == 2 })
	cancel()
	if err := <-deep; err == nil {
		t.Fatal("the deep call's wait did not end with its context")
	}
	select {
	case ok := <-light:
		if !ok {
			t.Error("the light call was refused")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the light call still waits behind a deep call that gave up")
	}
}

// waitFor polls cond every millisecond for up to 5 s.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for range 5000 {
		if cond() {
			return
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatal("condition not reached in 5 s")
}
