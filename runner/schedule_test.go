package runner

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/evalcal/evalcal/inspection"
)

// gate is an inspector whose calls wait until the test releases them, so
// the test sees how many calls run at once.
type gate struct {
	mu      sync.Mutex
	waiting []chan struct{}
	arrived chan struct{}
}

func (g *gate) Identity() string { return "gate" }

func (g *gate) Inspect(ctx context.Context, run inspection.Run, depth inspection.Depth) (inspection.Inspection, error) {
	c := make(chan struct{})
	g.mu.Lock()
	g.waiting = append(g.waiting, c)
	g.mu.Unlock()
	g.arrived <- struct{}{}
	select {
	case <-c:
		return good(run, depth), nil
	case <-ctx.Done():
		return inspection.Inspection{}, ctx.Err()
	}
}

// releaseRound waits until want calls are running (or a second passes
// with fewer: the scheduler left a worker idle), releases them all and
// says how many there were.
func (g *gate) releaseRound(t *testing.T, want int) int {
	t.Helper()
	got := 0
	deadline := time.After(time.Second)
	for got < want {
		select {
		case <-g.arrived:
			got++
		case <-deadline:
			want = got
		}
	}
	g.mu.Lock()
	for _, c := range g.waiting {
		close(c)
	}
	g.waiting = nil
	g.mu.Unlock()
	return got
}

// Calls, not runs, are the unit of work: with 3 runs of a light and a
// deep call each on 2 workers, every round runs 2 calls and the 6 calls
// take 3 rounds. (Run by run, the third run's two calls would run alone,
// one after the other: 4 rounds, a worker idle in two of them.) A run's
// deep call still starts only after its light call ended.
func TestCallsKeepEveryWorkerBusy(t *testing.T) {
	g := &gate{arrived: make(chan struct{}, 16)}
	opts := testOptions()
	opts.Jobs = 2
	runs := makeRuns(3)
	done := make(chan Result, 1)
	go func() {
		res, err := RunSides(context.Background(), runs, Sides{Light: g, Deep: g}, opts)
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	var rounds []int
	for calls := 0; calls < 6; {
		n := g.releaseRound(t, 2)
		if n == 0 {
			t.Fatalf("no call started after %v (rounds %v)", calls, rounds)
		}
		rounds = append(rounds, n)
		calls += n
	}
	res := <-done
	if len(rounds) != 3 || rounds[0] != 2 || rounds[1] != 2 || rounds[2] != 2 {
		t.Errorf("calls per round %v, want [2 2 2]", rounds)
	}
	if len(res.Pairs) != 3 {
		t.Errorf("%d pairs, want 3", len(res.Pairs))
	}
}

// With a run's deep call queued after its light call, a run never has
// its deep call before its light one, whatever the number of workers, and
// every run gets both.
func TestDeepCallFollowsItsLightCall(t *testing.T) {
	for _, jobs := range []int{1, 3, 8, 64} {
		insp := &fakeInspector{id: "fake", answer: alwaysGood}
		opts := testOptions()
		opts.Jobs = jobs
		res, err := RunSides(context.Background(), makeRuns(20), Sides{Light: insp, Deep: insp}, opts)
		if err != nil || len(res.Pairs) != 20 {
			t.Fatalf("jobs %d: %d pairs, %v", jobs, len(res.Pairs), err)
		}
		seen := map[string]bool{}
		for _, call := range insp.order {
			seen[call] = true
			if id, ok := strings.CutSuffix(call, "/deep"); ok && !seen[id+"/light"] {
				t.Errorf("jobs %d: %s before its light call", jobs, call)
			}
		}
	}
}
