package runner

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/evalcal/evalcal/inspection"
)

// OnPair receives the pairs Result.Pairs would hold, in input order and
// one at a time, while the calls finish in another order; the rest of the
// Result is the same: light-only runs of a deep subset, failures (a run's
// light or deep failing), unpaired inspections, repeats, and cancellation.
func TestOnPairGetsThePairsInInputOrder(t *testing.T) {
	runs := makeRuns(300)
	answer := func(_ context.Context, run inspection.Run, depth inspection.Depth, _ int) (inspection.Inspection, error) {
		var i int
		fmt.Sscanf(run.ID, "run-%d", &i)
		r := rand.New(rand.NewPCG(uint64(i), uint64(len(depth))))
		time.Sleep(time.Duration(r.IntN(300)) * time.Microsecond)
		switch {
		case i%17 == 0 && depth == inspection.Deep, i%23 == 0 && depth == inspection.Light:
			return inspection.Inspection{}, inspection.Permanent(errors.New("bad run"))
		}
		insp := good(run, depth)
		insp.RuntimeFidelity = float64(r.IntN(101))
		return insp, nil
	}
	deep := map[string]bool{}
	for i, r := range runs {
		if i%5 != 0 {
			deep[r.ID] = true
		}
	}
	for _, opts := range []Options{
		{Jobs: 8, Timeout: time.Second},
		{Jobs: 3, Timeout: time.Second, DeepRuns: deep},
		{Jobs: 5, Timeout: time.Second, Repeat: 2},
	} {
		want, err := RunSides(context.Background(), runs, Both(&fakeInspector{id: "f", answer: answer}), opts)
		if err != nil {
			t.Fatal(err)
		}
		var got []Pair
		var inside atomic.Int32
		opts.OnPair = func(p Pair) {
			if inside.Add(1) != 1 {
				t.Error("OnPair called concurrently")
			}
			got = append(got, p)
			inside.Add(-1)
		}
		res, err := RunSides(context.Background(), runs, Both(&fakeInspector{id: "f", answer: answer}), opts)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Pairs) != 0 || res.Paired != len(got) || res.Paired != want.Paired || want.Paired != len(want.Pairs) {
			t.Errorf("jobs %d: Pairs %d, Paired %d, OnPair got %d; want none, %d, %d", opts.Jobs, len(res.Pairs), res.Paired, len(got), want.Paired, len(want.Pairs))
		}
		if d := cmp.Diff(want.Pairs, got); d != "" {
			t.Errorf("jobs %d: OnPair's pairs (-Result.Pairs +OnPair):\n%s", opts.Jobs, d)
		}
		res.Pairs, want.Pairs = nil, nil
		if d := cmp.Diff(want, res); d != "" {
			t.Errorf("jobs %d: the rest of the Result (-without OnPair +with):\n%s", opts.Jobs, d)
		}
	}

	// Cancelled half-way: every run is still accounted for, once.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var calls atomic.Int32
	n := 0
	res, err := RunSides(ctx, runs, Both(&fakeInspector{id: "f", answer: func(ctx context.Context, run inspection.Run, d inspection.Depth, c int) (inspection.Inspection, error) {
		if calls.Add(1) == 100 {
			cancel()
		}
		return answer(ctx, run, d, c)
	}}), Options{Jobs: 4, Timeout: time.Second, OnPair: func(Pair) { n++ }})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
	failed := map[string]bool{}
	for _, f := range res.Failures {
		failed[f.RunID] = true
	}
	if n != res.Paired || n+len(res.Unpaired)+res.Interrupted+len(failed) < len(runs) || n < 20 {
		t.Errorf("cancelled: %d pairs (Paired %d), %d unpaired, %d interrupted, %d failed runs of %d", n, res.Paired, len(res.Unpaired), res.Interrupted, len(failed), len(runs))
	}
}
