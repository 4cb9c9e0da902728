package runner

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/evalcal/evalcal/sampler"
)

// Options configures Run. The zero value of Jobs and Timeout means the
// default; Retries is taken as given (0 = one attempt only).
type Options struct {
	// Jobs bounds how many runs are inspected at once; <= 0 means
	// runtime.NumCPU().
	Jobs int
	// Retries is how many more attempts a transiently failing call gets;
	// negative is an error.
	Retries int
	// Timeout bounds each attempt; <= 0 means 10 minutes.
	Timeout time.Duration
	// RetryDelay is the pause before each retry (cut short by ctx);
	// <= 0 means none.
	RetryDelay time.Duration
	// Cache, when not nil, is consulted before and filled after every
	// inspector call.
	Cache *Cache
	// Progress, when it is a terminal, shows a progress bar; nil or any
	// other writer means quiet.
	Progress io.Writer
}

// Defaults of Options (issue 3: --jobs, --retries, --timeout).
const (
	DefaultRetries    = 1
	DefaultTimeout    = 10 * time.Minute
	DefaultRetryDelay = time.Second
)

// DefaultOptions returns Jobs = runtime.NumCPU(), Retries = 1,
// Timeout = 10m, RetryDelay = 1s, no cache and no progress bar.
func DefaultOptions() Options {
	return Options{Jobs: runtime.NumCPU(), Retries: DefaultRetries, Timeout: DefaultTimeout, RetryDelay: DefaultRetryDelay}
}

// Result is what Run produced.
type Result struct {
	// Pairs holds the runs that got both inspections, in input order.
	Pairs []Pair `yaml:"pairs" json:"pairs"`
	// Unpaired holds the inspections whose partner failed or was cut
	// short by cancellation, sorted by run id then depth (light first), so
	// a report can still show them.
	Unpaired []Inspection `yaml:"unpaired" json:"unpaired"`
	// Failures holds the inspections that could not be had, sorted by run
	// id then depth (light first).
	Failures []Failure `yaml:"failures" json:"failures"`
	// Calls counts inspector calls made, retries included; cache hits are
	// not calls.
	Calls int `yaml:"calls" json:"calls"`
	// CacheHits counts inspections served by the cache.
	CacheHits int `yaml:"cache_hits" json:"cache_hits"`
	// Interrupted counts runs left without a result because ctx was
	// cancelled before or while they were inspected.
	Interrupted int `yaml:"interrupted" json:"interrupted"`
	// Warnings are problems that did not stop the run (cache writes that
	// failed).
	Warnings []string `yaml:"warnings,omitempty" json:"warnings,omitempty"`
}

// runOutcome is one run's slot in the results slice.
type runOutcome struct {
	insp        [2]*Inspection // light, deep
	failures    []Failure
	interrupted bool
}

// pipeline holds what the tasks of one Run share.
type pipeline struct {
	insp      Inspector
	identity  string
	opts      Options
	calls     atomic.Int64
	cacheHits atomic.Int64
	bar       progress

	mu            sync.Mutex
	cacheErrs     int
	firstCacheErr error
}

// Run inspects every run with insp at light depth and then at deep depth,
// never both at once for one run, and up to opts.Jobs runs at a time.
//
// Each depth is first looked up in opts.Cache; on a miss the inspector is
// called, each attempt bounded by opts.Timeout, and retried up to
// opts.Retries times unless the error IsPermanent. A returned inspection
// must pass CheckInspection and match the run id and depth (an empty
// run_id, depth or system is filled in from the run); otherwise it is a
// permanent failure. A valid inspection is written to the cache as soon
// as it is had. A cache hit gets the run's id, since runs of equal
// content share an entry.
//
// Deep is attempted even when light failed: DESIGN.md gives every run
// both inspections, the deep one is cached for the rerun, and the report
// can show it (Result.Unpaired). A failing run never stops the others and
// an inspector panic is a permanent failure, not a crash.
//
// When ctx is cancelled no new call starts; Run returns what finished, with
// runs cut short counted in Interrupted (not as failures), and ctx.Err().
// Invalid options or a nil inspector are an error before any call.
func Run(ctx context.Context, runs []sampler.Run, insp Inspector, opts Options) (Result, error) {
	if insp == nil {
		return Result{}, errors.New("runner: nil inspector")
	}
	if opts.Retries < 0 {
		return Result{}, fmt.Errorf("runner: retries must be >= 0, got %d", opts.Retries)
	}
	if opts.Jobs <= 0 {
		opts.Jobs = runtime.NumCPU()
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	p := &pipeline{insp: insp, identity: insp.Identity(), opts: opts}
	p.bar = newProgress(opts.Progress, 2*len(runs))
	defer p.bar.finish()

	outcomes := make([]runOutcome, len(runs))
	// Tasks never return an error (failures are data), so the group's
	// context is only ever cancelled through ctx.
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(opts.Jobs)
	for i := range runs {
		if ctx.Err() != nil {
			outcomes[i].interrupted = true
			continue
		}
		g.Go(func() error {
			outcomes[i] = p.inspectRun(gctx, runs[i])
			return nil
		})
	}
	_ = g.Wait()

	// Empty, not nil, so that a report shows [] rather than null.
	res := Result{Pairs: []Pair{}, Unpaired: []Inspection{}, Failures: []Failure{},
		Calls: int(p.calls.Load()), CacheHits: int(p.cacheHits.Load())}
	for i, o := range outcomes {
		if o.interrupted {
			res.Interrupted++
		}
		res.Failures = append(res.Failures, o.failures...)
		switch {
		case o.insp[0] != nil && o.insp[1] != nil:
			res.Pairs = append(res.Pairs, Pair{Run: runs[i], Light: *o.insp[0], Deep: *o.insp[1]})
		case o.insp[0] != nil:
			res.Unpaired = append(res.Unpaired, *o.insp[0])
		case o.insp[1] != nil:
			res.Unpaired = append(res.Unpaired, *o.insp[1])
		}
	}
	slices.SortStableFunc(res.Failures, func(a, b Failure) int {
		return cmp.Or(cmp.Compare(a.RunID, b.RunID), cmp.Compare(depthRank(a.Depth), depthRank(b.Depth)))
	})
	slices.SortStableFunc(res.Unpaired, func(a, b Inspection) int {
		return cmp.Or(cmp.Compare(a.RunID, b.RunID), cmp.Compare(depthRank(a.Depth), depthRank(b.Depth)))
	})
	if p.cacheErrs > 0 {
		res.Warnings = append(res.Warnings,
			fmt.Sprintf("runner: %d cache writes failed, first: %v", p.cacheErrs, p.firstCacheErr))
	}
	return res, ctx.Err()
}

// depthRank orders light before deep.
func depthRank(d Depth) int {
	if d == Light {
		return 0
	}
	return 1
}

// inspectRun gets the light then the deep inspection of one run.
func (p *pipeline) inspectRun(ctx context.Context, run sampler.Run) runOutcome {
	var o runOutcome
	for k, depth := range []Depth{Light, Deep} {
		if ctx.Err() != nil {
			o.interrupted = true
			return o
		}
		insp, fail := p.inspectDepth(ctx, run, depth)
		switch {
		case fail != nil && ctx.Err() != nil:
			// Cut short by the caller: not the inspector's failure.
			o.interrupted = true
			return o
		case fail != nil:
			o.failures = append(o.failures, *fail)
		default:
			o.insp[k] = &insp
		}
		p.bar.add()
	}
	return o
}

// inspectDepth returns the inspection of run at depth from the cache or
// the inspector, or the Failure after the last attempt.
func (p *pipeline) inspectDepth(ctx context.Context, run sampler.Run, depth Depth) (Inspection, *Failure) {
	if insp, ok := p.opts.Cache.Get(p.identity, depth, run.ContentHash); ok {
		p.cacheHits.Add(1)
		insp.RunID = run.ID
		return insp, nil
	}
	var err error
	attempts := 0
	for attempts < 1+p.opts.Retries {
		if attempts > 0 && !sleep(ctx, p.opts.RetryDelay) {
			break
		}
		attempts++
		var insp Inspection
		insp, err = p.attempt(ctx, run, depth)
		if err == nil {
			if perr := p.opts.Cache.Put(p.identity, depth, run.ContentHash, insp); perr != nil {
				p.cacheFailed(perr)
			}
			return insp, nil
		}
		if IsPermanent(err) || ctx.Err() != nil {
			break
		}
	}
	return Inspection{}, &Failure{RunID: run.ID, Depth: depth, Attempts: attempts, Reason: err.Error()}
}

// attempt makes one inspector call bounded by the per-call timeout and
// checks its answer. A panic in the inspector becomes a permanent error.
func (p *pipeline) attempt(ctx context.Context, run sampler.Run, depth Depth) (insp Inspection, err error) {
	actx, cancel := context.WithTimeout(ctx, p.opts.Timeout)
	defer cancel()
	p.calls.Add(1)
	defer func() {
		if r := recover(); r != nil {
			insp, err = Inspection{}, Permanent(fmt.Errorf("inspector %s panicked: %v", p.identity, r))
		}
	}()
	insp, err = p.insp.Inspect(actx, run, depth)
	if err != nil && ctx.Err() == nil && errors.Is(actx.Err(), context.DeadlineExceeded) {
		// Transient whatever the inspector said: the next attempt gets a
		// fresh timeout.
		return Inspection{}, fmt.Errorf("timed out after %v: %w", p.opts.Timeout, context.DeadlineExceeded)
	}
	if err != nil {
		return Inspection{}, err
	}
	insp, err = conform(insp, run, depth)
	if err != nil {
		return Inspection{}, fmt.Errorf("invalid inspection: %w", err)
	}
	return insp, nil
}

// cacheFailed counts a failed cache write and keeps the first error.
func (p *pipeline) cacheFailed(err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cacheErrs == 0 {
		p.firstCacheErr = err
	}
	p.cacheErrs++
}

// sleep waits d or until ctx is done; it reports whether d elapsed.
func sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
