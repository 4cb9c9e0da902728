package runner

import (
	"context"
	"sync"

	"github.com/evalcal/evalcal/inspection"
	"golang.org/x/sync/errgroup"
)

// calls inspects every run at depth light and, when needDeep says so,
// then at depth deep, opts.Jobs calls at a time. The unit of work is one
// call (a depth's repeats), not one run: a run's deep call is queued when
// its light call ends, and no worker idles while a call can start. A
// light call is taken first (it unlocks a deep call: the longer chain
// first) while fewer than Jobs deep calls are queued or waiting on a
// running light call, else a queued deep call: lights run at most Jobs
// runs ahead, so runs complete in pairs all along (what a cancelled or
// budget-stopped run keeps) and the workers stay busy to the end. While
// the --max-cost budget is tight (budget.tight: a call waits for room) a
// queued deep call is taken before a light one: what room is left goes to
// finishing runs. A run's light and deep calls
// in one task would leave workers idle at the end (200 runs of two 50 ms
// calls on 16 workers take ceil(200/16) x 100 ms = 1.3 s, 4% over the
// 1.25 s the calls need); call by call it is 400/16 x 50 ms. Runs whose
// light call did not start before ctx ended are marked interrupted, and
// so are deep calls not started (inspectDepth marks them).
func (p *pipeline) calls(ctx context.Context, runs Runs, outcomes []runOutcome, needDeep func(i int) bool) {
	var (
		mu       sync.Mutex
		ready    = sync.NewCond(&mu)
		deep     []int // runs whose deep call can start, in the order their light calls ended
		next     int   // the next run whose light call has not started
		inflight int   // light calls running whose run still needs its deep call
	)
	// take returns the next call to make, or ok = false when none is
	// left: the next light call within the window, else a queued deep
	// call, else it waits while a light call that will queue a deep one
	// is running.
	take := func() (i int, depth inspection.Depth, ok bool) {
		mu.Lock()
		defer mu.Unlock()
		for {
			for next < runs.Len() && ctx.Err() != nil {
				outcomes[next].interrupted = true
				p.finished(next)
				next++
			}
			if next < runs.Len() && (len(deep) == 0 || len(deep)+inflight < p.opts.Jobs && !p.budget.tight()) {
				i, next = next, next+1
				if needDeep(i) {
					inflight++
				} else {
					outcomes[i].deepSkipped = true
				}
				return i, inspection.Light, true
			}
			if len(deep) > 0 {
				i, deep = deep[0], deep[1:]
				return i, inspection.Deep, true
			}
			if inflight == 0 {
				return 0, "", false
			}
			ready.Wait()
		}
	}
	var wg sync.WaitGroup
	for range min(p.opts.Jobs, 2*runs.Len()) {
		wg.Go(func() {
			for {
				i, depth, ok := take()
				if !ok {
					return
				}
				p.inspectDepth(ctx, runs.At(i), depth, &outcomes[i])
				if depth == inspection.Deep || outcomes[i].deepSkipped {
					p.finished(i)
				} else {
					mu.Lock()
					deep = append(deep, i)
					inflight--
					last := inflight == 0
					mu.Unlock()
					if last {
						// Workers waiting for a deep call that will
						// not come must see that none is left.
						ready.Broadcast()
					} else {
						ready.Signal()
					}
				}
			}
		})
	}
	wg.Wait()
}

// each runs task for every run, opts.Jobs at a time, and marks the runs
// it could not start as interrupted.
func (p *pipeline) each(ctx context.Context, runs Runs, outcomes []runOutcome, task func(ctx context.Context, i int)) {
	// Tasks never return an error (failures are data), so the group's
	// context is only ever cancelled through ctx.
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(p.opts.Jobs)
	for i := range runs.Len() {
		if ctx.Err() != nil {
			outcomes[i].interrupted = true
			continue
		}
		g.Go(func() error {
			task(gctx, i)
			return nil
		})
	}
	_ = g.Wait()
}
