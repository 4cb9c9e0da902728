package runner

import (
	"context"
	"testing"
	"time"

	"github.com/evalcal/evalcal/inspection"
)

// Issue 27 (6): usage no call can have is never a credit to the budget
// nor an overflowing count: such a call is booked at its bound (the worst case, at least its reservation).
func TestImpossibleUsageIsBookedAtTheReservation(t *testing.T) {
	for _, u := range []inspection.Usage{
		{Calls: 1, Input: -20_000_000_000, Output: 100},
		{Calls: 1, Input: 9_000_000_000_000_000_000, Output: 100},
		{Calls: 1, Input: 500, Output: -1},
	} {
		insp := &billedInspector{model: "m", maxIn: 1000, maxOut: 1000, perCall: u,
			fakeInspector: &fakeInspector{id: "openai:m", answer: alwaysGood}}
		price := &Price{Input: 1, Output: 1} // worst case per call 2000e-6 USD
		opts := Options{Jobs: 1, Timeout: time.Second, MaxUSD: 0.005}
		opts.Light.Price, opts.Deep.Price = price, price
		res, err := Run(context.Background(), makeRuns(10), insp, opts)
		if err != nil {
			t.Errorf("usage %+v: %v", u, err)
			continue
		}
		spent := *res.Cost.Light.USD + *res.Cost.Deep.USD
		// Booked at 2000e-6 a call: two calls fit in 0.005, a third not.
		if got := insp.calls.Load(); got != 2 || !res.BudgetStopped || spent != 0.004 {
			t.Errorf("usage %+v: %d calls, spent %v, stopped %v; want 2 calls booked at 0.002 each", u, got, spent, res.BudgetStopped)
		}
		for _, c := range []SideCost{res.Cost.Light, res.Cost.Deep} {
			if c.Usage.Input < 0 || c.Usage.Output < 0 || c.Usage.Input > 1<<41 {
				t.Errorf("usage %+v: side usage %+v", u, c.Usage)
			}
		}
	}
}
