package runner

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/evalcal/evalcal/inspection"
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
	// RetryDelay is the pause before the first retry; each further retry
	// waits twice as long as the one before, up to MaxBackoff (cut short by
	// ctx). <= 0 means no pause.
	RetryDelay time.Duration
	// MaxBackoff caps the doubling pause between retries; <= 0 means
	// DefaultMaxBackoff.
	MaxBackoff time.Duration
	// MaxRetryWait caps a wait the server asks for (RetryAfter): a longer
	// wait fails the call with the reason instead of sleeping for it.
	// <= 0 means DefaultMaxRetryWait.
	MaxRetryWait time.Duration
	// Cache, when not nil, is consulted before and filled after every
	// inspector call.
	Cache *Cache
	// Progress shows progress: a bar on a terminal, a plain line every 10%
	// or 30 s on any other writer (a CI log); nil means quiet.
	Progress io.Writer
	// Light and Deep configure each side's rate limit and price.
	Light, Deep SideOptions
	// Repeat is how many times each run is inspected per side (--repeat);
	// <= 0 means 1. Repeat r > 0 has its own cache entry.
	Repeat int
	// DeepRuns, when not nil, names the runs inspected at depth deep (a
	// subset known before any call); the others get light only.
	DeepRuns map[string]bool
	// SelectDeep, when not nil, is called once every run's light
	// inspections are had, with the light inspections of each run that got
	// one (by run id; its repeats in repeat order, one without --repeat;
	// Consolidate gives the one the statistics use), and returns the runs
	// to inspect at depth deep. The deep phase then starts after the whole
	// light phase. It wins over DeepRuns.
	SelectDeep func(light map[string][]inspection.Inspection) map[string]bool
	// MaxUSD is a spending budget over both sides (--max-cost); 0 means
	// none. Each call reserves what it is expected to cost before it
	// starts: its worst case (the run's bound at the side's price) until a
	// call of its side has finished, then ReserveMargin times the largest
	// share of its bound a finished call has cost (side.reservation). A
	// call waits while the calls in flight hold the room it needs; one
	// whose estimated reservation does not fit what is left unspent is not
	// started, and no call starts after that; one whose reservation is its
	// bound (no call like it finished yet) and does not fit is skipped
	// alone (budget.reserve). The runs left are failures with the reason
	// and Result.BudgetStopped is set.
	MaxUSD float64
	// OnPair, when not nil, receives each run's pair as soon as the run is
	// done, in input order, from one goroutine at a time, instead of
	// Result.Pairs (then empty; Result.Paired counts them), and the
	// runner lets go of the run's inspections: a million runs' pairs held
	// to the end were some 750 MB and their inspections as much again
	// (issue 26). With SelectDeep the pairs come at the end, as the deep
	// phase follows the whole light phase.
	OnPair func(Pair)
}

// Defaults of Options (issue 3: --jobs, --retries, --timeout; issue 8:
// backoff and the cap on a server's Retry-After).
const (
	DefaultRetries      = 1
	DefaultTimeout      = 10 * time.Minute
	DefaultRetryDelay   = time.Second
	DefaultMaxBackoff   = 30 * time.Second
	DefaultMaxRetryWait = 2 * time.Minute
)

// DefaultOptions returns Jobs = runtime.NumCPU(), Retries = 1,
// Timeout = 10m, RetryDelay = 1s, no cache and no progress bar.
func DefaultOptions() Options {
	return Options{Jobs: runtime.NumCPU(), Retries: DefaultRetries, Timeout: DefaultTimeout, RetryDelay: DefaultRetryDelay}
}

// Result is what Run produced.
type Result struct {
	// Pairs holds the runs that got both inspections, in input order
	// (none when Options.OnPair received them).
	Pairs []Pair `yaml:"pairs" json:"pairs"`
	// Paired counts the runs that got both inspections.
	Paired int `yaml:"paired" json:"paired"`
	// LightOnly holds the runs inspected at light depth only because they
	// were not in the deep subset (Options.DeepRuns, SelectDeep), in input
	// order.
	LightOnly []LightRun `yaml:"light_only" json:"light_only"`
	// Unpaired holds the inspections whose partner failed or was cut
	// short by cancellation, sorted by run id then depth (light first), so
	// a report can still show them.
	Unpaired []inspection.Inspection `yaml:"unpaired" json:"unpaired"`
	// Failures holds the inspections that could not be had, sorted by run
	// id then depth (light first) then repeat.
	Failures []inspection.Failure `yaml:"failures" json:"failures"`
	// Calls counts inspector calls made, retries included; cache hits are
	// not calls.
	Calls int `yaml:"calls" json:"calls"`
	// CacheHits counts inspections served by the cache.
	CacheHits int `yaml:"cache_hits" json:"cache_hits"`
	// Interrupted counts runs left without a result because ctx was
	// cancelled before or while they were inspected.
	Interrupted int `yaml:"interrupted" json:"interrupted"`
	// Cost is each side's calls, tokens and spending.
	Cost struct {
		Light SideCost `yaml:"light" json:"light"`
		Deep  SideCost `yaml:"deep" json:"deep"`
	} `yaml:"cost" json:"cost"`
	// BudgetStopped is true when the --max-cost budget stopped calls from
	// starting, or skipped one it could not afford.
	BudgetStopped bool `yaml:"budget_stopped" json:"budget_stopped"`
	// Warnings are problems that did not stop the run (cache writes that
	// failed, cache entries that failed verification).
	Warnings []string `yaml:"warnings,omitempty" json:"warnings,omitempty"`
}

// LightRun is a run inspected at light depth only.
type LightRun struct {
	Run   inspection.Run        `yaml:"-" json:"-"`
	Light inspection.Inspection `yaml:"light" json:"light"`
	// LightRepeats holds every repeat when Options.Repeat > 1; Light is
	// then their Consolidate.
	LightRepeats []inspection.Inspection `yaml:"light_repeats,omitempty" json:"light_repeats,omitempty"`
}

// runOutcome is one run's slot in the results slice.
type runOutcome struct {
	insp        [2][]inspection.Inspection // light, deep: the repeats had
	failures    []inspection.Failure
	interrupted bool
	deepSkipped bool
	done        bool // every call of the run has ended (emitter)
}

// pipeline holds what the tasks of one Run share.
type pipeline struct {
	sides  [2]*side
	opts   Options
	bar    progress
	budget *budget

	// stop cancels every call when one side hits a fatal error or the
	// stop-early rule; stopErr says why.
	stop     context.CancelFunc
	stopOnce sync.Once
	stopErr  error

	// runs and outcomes are the runs and what became of them; res is
	// the Result the outcomes are emitted into, emitted how many so far
	// (emit.go).
	runs     Runs
	outcomes []runOutcome
	emitMu   sync.Mutex
	emitted  int
	res      Result

	mu            sync.Mutex
	cacheErrs     int
	firstCacheErr error
	corrupt       int
	firstCorrupt  error
}

// Run inspects every run with insp at light depth and then at deep depth.
// It is RunSides with the same inspector on both sides.
func Run(ctx context.Context, runs []inspection.Run, insp inspection.Inspector, opts Options) (Result, error) {
	if insp == nil {
		return Result{}, errors.New("runner: nil inspector")
	}
	return RunSides(ctx, runs, Both(insp), opts)
}

// RunSides inspects every run with sides.Light at light depth and then
// with sides.Deep at deep depth, never both at once for one run, and up to
// opts.Jobs runs at a time. With opts.Repeat = K each side is called K
// times per run (the repeats in order), and the paired inspection of a
// side is Consolidate of its repeats.
//
// Each call is first looked up in opts.Cache; on a miss the inspector is
// called, each attempt bounded by opts.Timeout and by the side's rate
// limit, and retried up to opts.Retries times unless the error
// IsPermanent. Between attempts the runner waits RetryDelay, doubling up to
// MaxBackoff, or longer when the error carries a RetryAfter wait; a wait
// over MaxRetryWait fails the call with the reason. A returned inspection
// must pass CheckInspection and match the run id and depth (an empty
// run_id, depth or system is filled in from the run); otherwise it is a
// permanent failure. A valid inspection is written to the cache as soon
// as it is had. A cache hit gets the run's id, since runs of equal
// content share an entry.
//
// Deep is attempted even when light failed: docs/DESIGN.md gives every run
// both inspections, the deep one is cached for the rerun, and the report
// can show it (Result.Unpaired). A failing run never stops the others and
// an inspector panic is a permanent failure, not a crash.
//
// Two things stop the whole run: an error marked Fatal (a bad key, an
// unknown model, a missing program), and the stop-early rule (the first
// EarlyStopCalls inspections of a side all failed the same way and none
// succeeded). RunSides then returns what finished and a *StopError naming
// the side.
//
// When ctx is cancelled no new call starts; Run returns what finished, with
// runs cut short counted in Interrupted (not as failures), and ctx.Err().
// Invalid options or a nil inspector are an error before any call.
func RunSides(ctx context.Context, runs []inspection.Run, sides Sides, opts Options) (Result, error) {
	return RunSource(ctx, Slice(runs), sides, opts)
}

// RunSource is RunSides on runs given as Runs.
func RunSource(ctx context.Context, runs Runs, sides Sides, opts Options) (Result, error) {
	if sides.Light == nil || sides.Deep == nil {
		return Result{}, errors.New("runner: nil inspector")
	}
	if opts.Retries < 0 {
		return Result{}, fmt.Errorf("runner: retries must be >= 0, got %d", opts.Retries)
	}
	if opts.MaxUSD < 0 || math.IsNaN(opts.MaxUSD) || math.IsInf(opts.MaxUSD, 0) {
		return Result{}, fmt.Errorf("runner: budget must be a finite amount >= 0, got %v", opts.MaxUSD)
	}
	if opts.Jobs <= 0 {
		opts.Jobs = runtime.NumCPU()
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.MaxBackoff <= 0 {
		opts.MaxBackoff = DefaultMaxBackoff
	}
	if opts.MaxRetryWait <= 0 {
		opts.MaxRetryWait = DefaultMaxRetryWait
	}
	if opts.Repeat <= 0 {
		opts.Repeat = 1
	}
	sctx, stop := context.WithCancel(ctx)
	defer stop()
	p := &pipeline{opts: opts, stop: stop,
		sides: [2]*side{newSide(inspection.Light, sides.Light, opts.Light), newSide(inspection.Deep, sides.Deep, opts.Deep)}}
	if opts.MaxUSD > 0 {
		p.budget = &budget{max: opts.MaxUSD}
	}
	total := runs.Len() * opts.Repeat
	if opts.DeepRuns == nil || opts.SelectDeep != nil {
		total *= 2
	} else {
		total += len(opts.DeepRuns) * opts.Repeat
	}
	p.bar = newProgress(opts.Progress, total)
	defer p.bar.finish()

	outcomes := make([]runOutcome, runs.Len())
	p.runs, p.outcomes = runs, outcomes
	// Empty, not nil, so that a report shows [] rather than null.
	p.res = Result{Pairs: []Pair{}, LightOnly: []LightRun{}, Unpaired: []inspection.Inspection{}, Failures: []inspection.Failure{}}
	if opts.SelectDeep == nil {
		p.calls(sctx, runs, outcomes, func(i int) bool {
			return opts.DeepRuns == nil || opts.DeepRuns[runs.At(i).ID]
		})
	} else {
		p.each(sctx, runs, outcomes, func(ctx context.Context, i int) {
			p.inspectDepth(ctx, runs.At(i), inspection.Light, &outcomes[i])
		})
		light := map[string][]inspection.Inspection{}
		for i, o := range outcomes {
			if len(o.insp[0]) > 0 {
				light[runs.At(i).ID] = o.insp[0]
			}
		}
		var deep map[string]bool
		if sctx.Err() == nil {
			deep = opts.SelectDeep(light)
		}
		p.each(sctx, runs, outcomes, func(ctx context.Context, i int) {
			if run := runs.At(i); deep[run.ID] {
				p.inspectDepth(ctx, run, inspection.Deep, &outcomes[i])
			} else {
				outcomes[i].deepSkipped = true
			}
		})
	}
	return p.result(), p.err(ctx)
}

// err is the error RunSides returns: the caller's cancellation first,
// then a stop.
func (p *pipeline) err(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return p.stopErr
}

// result completes the Result: the runs' outcomes not yet emitted, in
// input order (all of them without OnPair), the costs, and the failures
// and unpaired inspections sorted.
func (p *pipeline) result() Result {
	p.emitMu.Lock()
	defer p.emitMu.Unlock()
	res := &p.res
	if p.opts.OnPair == nil {
		paired := 0 // sized once: appending a million 800-byte pairs kept up to twice their memory
		for _, o := range p.outcomes {
			if len(o.insp[0]) > 0 && len(o.insp[1]) > 0 {
				paired++
			}
		}
		res.Pairs = make([]Pair, 0, paired)
	}
	for ; p.emitted < len(p.outcomes); p.emitted++ {
		p.emit(p.emitted)
	}
	res.Cost.Light, res.Cost.Deep = p.sides[0].summary(), p.sides[1].summary()
	res.Calls = res.Cost.Light.Calls + res.Cost.Deep.Calls
	res.CacheHits = res.Cost.Light.CacheHits + res.Cost.Deep.CacheHits
	res.BudgetStopped = p.budget.hasStopped()
	slices.SortStableFunc(res.Failures, func(a, b inspection.Failure) int {
		return cmp.Or(cmp.Compare(a.RunID, b.RunID), cmp.Compare(depthRank(a.Depth), depthRank(b.Depth)),
			cmp.Compare(a.Repeat, b.Repeat))
	})
	slices.SortStableFunc(res.Unpaired, func(a, b inspection.Inspection) int {
		return cmp.Or(cmp.Compare(a.RunID, b.RunID), cmp.Compare(depthRank(a.Depth), depthRank(b.Depth)))
	})
	if p.cacheErrs > 0 {
		res.Warnings = append(res.Warnings,
			fmt.Sprintf("runner: %d cache writes failed, first: %v", p.cacheErrs, p.firstCacheErr))
	}
	if p.corrupt > 0 {
		res.Warnings = append(res.Warnings,
			fmt.Sprintf("runner: %d cache entries failed verification and were inspected again, first: %v", p.corrupt, p.firstCorrupt))
	}
	return *res
}

// depthRank orders light before deep.
func depthRank(d inspection.Depth) int {
	if d == inspection.Light {
		return 0
	}
	return 1
}

// inspectDepth gets the opts.Repeat inspections of run at depth into o.
func (p *pipeline) inspectDepth(ctx context.Context, run inspection.Run, depth inspection.Depth, o *runOutcome) {
	k := depthRank(depth)
	for r := range p.opts.Repeat {
		if ctx.Err() != nil {
			o.interrupted = true
			return
		}
		insp, cached, fail := p.inspectOne(ctx, run, depth, r)
		switch {
		case fail != nil && ctx.Err() != nil:
			// Cut short by the caller or a stop: not the inspector's failure.
			o.interrupted = true
			return
		case fail != nil:
			o.failures = append(o.failures, *fail)
		default:
			o.insp[k] = append(o.insp[k], insp)
		}
		p.bar.add(cached, fail != nil)
	}
}

// halt stops the whole run with err (the first call wins).
func (p *pipeline) halt(s *side, err error) {
	p.stopOnce.Do(func() {
		p.stopErr = &StopError{Side: s.depth, Name: s.name, Err: err}
		p.stop()
	})
}

// cacheIdentity is the identity a repeat is cached under: repeat 0 keeps
// the inspector's own (so caches written before --repeat stay valid).
func cacheIdentity(identity string, repeat int) string {
	if repeat == 0 {
		return identity
	}
	return identity + "#repeat=" + strconv.Itoa(repeat)
}

// inspectOne returns repeat r of the inspection of run at depth, from the
// cache or the inspector (cached says which), or the Failure after the
// last attempt.
func (p *pipeline) inspectOne(ctx context.Context, run inspection.Run, depth inspection.Depth, r int) (inspection.Inspection, bool, *inspection.Failure) {
	s := p.sides[depthRank(depth)]
	key := cacheIdentity(s.identity, r)
	insp, ok, err := p.opts.Cache.Lookup(key, depth, run.ContentHash)
	if err != nil {
		p.cacheCorrupt(err)
	}
	if ok {
		insp.RunID = run.ID
		s.recordOutcome(&insp, true, false)
		return insp, true, nil
	}
	fail := func(attempts int, reason string) *inspection.Failure {
		s.recordOutcome(nil, false, true)
		return &inspection.Failure{RunID: run.ID, Depth: depth, Repeat: r, Attempts: attempts, Reason: reason}
	}
	rctx := inspection.WithRepeat(ctx, r)
	attempts := 0
	var lastErr error
	for attempts < 1+p.opts.Retries {
		if attempts > 0 {
			wait := p.backoff(attempts)
			if ra, ok := inspection.RetryAfterOf(lastErr); ok {
				if ra > p.opts.MaxRetryWait {
					return inspection.Inspection{}, false, p.failed(s, run, fail(attempts, fmt.Sprintf("%v (the server asked to retry after %v, more than the %v cap)",
						lastErr, ra, p.opts.MaxRetryWait)))
				}
				wait = max(wait, ra)
			}
			if !sleep(ctx, wait) {
				break
			}
		}
		worst := s.worstFor(run)
		res, known := s.reservation(worst)
		ok, err := p.budget.reserve(ctx, res, known, depth == inspection.Deep)
		if err != nil {
			lastErr = err
			break
		}
		if !ok {
			why := "this call"
			if !known {
				why = fmt.Sprintf("this call's worst case of $%.4g (no call like it has finished to estimate from)", res)
			}
			return inspection.Inspection{}, false, fail(attempts, fmt.Sprintf("not started: the --max-cost budget of %s could be exceeded by %s", formatUSD(p.opts.MaxUSD), why))
		}
		if err := s.wait(ctx); err != nil {
			p.budget.settle(res, 0)
			lastErr = err
			break
		}
		attempts++
		insp, err := p.attempt(rctx, s, run, depth)
		var usage *inspection.Usage
		reported := 0.0
		if err == nil {
			usage, reported = insp.Cost.Usage, insp.Cost.USD
		} else if u, ok := inspection.UsageOf(err); ok {
			usage = &u
		}
		usd := s.recordCall(usage, reported, worst, attempts > 1)
		p.budget.settle(res, usd)
		s.observe(usd, worst)
		if err == nil {
			if s.billed != nil && s.price != nil {
				insp.Cost.USD = usd
			}
			if perr := p.opts.Cache.Put(key, depth, run.ContentHash, insp); perr != nil {
				p.cacheFailed(perr)
			}
			s.recordOutcome(&insp, false, false)
			s.noteEarly("", true)
			return insp, false, nil
		}
		lastErr = err
		if inspection.IsFatal(err) {
			p.halt(s, err)
			return inspection.Inspection{}, false, fail(attempts, err.Error())
		}
		if inspection.IsPermanent(err) || ctx.Err() != nil {
			break
		}
	}
	if lastErr == nil {
		lastErr = ctx.Err()
	}
	return inspection.Inspection{}, false, p.failed(s, run, fail(attempts, lastErr.Error()))
}

// failed applies the stop-early rule to a failure of side s and returns f.
func (p *pipeline) failed(s *side, run inspection.Run, f *inspection.Failure) *inspection.Failure {
	if s.noteEarly(signature(f.Reason, run.ID, run.Path), false) {
		p.halt(s, fmt.Errorf("the first %d inspections all failed the same way, none succeeded; the first: %s",
			EarlyStopCalls, f.Reason))
	}
	return f
}

// backoff is the pause before attempt n+1 (n >= 1): RetryDelay doubled
// n-1 times, at most MaxBackoff.
func (p *pipeline) backoff(n int) time.Duration {
	d := p.opts.RetryDelay
	if d <= 0 {
		return 0
	}
	for range n - 1 {
		d *= 2
		if d >= p.opts.MaxBackoff {
			return p.opts.MaxBackoff
		}
	}
	return d
}

// attempt makes one inspector call bounded by the per-call timeout and
// checks its answer. A panic in the inspector becomes a permanent error.
func (p *pipeline) attempt(ctx context.Context, s *side, run inspection.Run, depth inspection.Depth) (insp inspection.Inspection, err error) {
	actx, cancel := context.WithTimeout(ctx, p.opts.Timeout)
	defer cancel()
	defer func() {
		if r := recover(); r != nil {
			insp, err = inspection.Inspection{}, inspection.Permanent(fmt.Errorf("inspector %s panicked: %v", s.name, r))
		}
	}()
	insp, err = s.insp.Inspect(actx, run, depth)
	if err != nil && ctx.Err() == nil && errors.Is(actx.Err(), context.DeadlineExceeded) {
		// Transient whatever the inspector said: the next attempt gets a
		// fresh timeout. Usage billed before the timeout is kept.
		terr := fmt.Errorf("timed out after %v: %w", p.opts.Timeout, context.DeadlineExceeded)
		if u, ok := inspection.UsageOf(err); ok {
			terr = inspection.WithUsage(terr, u)
		}
		return inspection.Inspection{}, terr
	}
	if err != nil {
		return inspection.Inspection{}, err
	}
	insp, err = conform(insp, run, depth)
	if err != nil {
		err = fmt.Errorf("invalid inspection: %w", err)
		if insp.Cost.Usage != nil {
			err = inspection.WithUsage(err, *insp.Cost.Usage)
		}
		return inspection.Inspection{}, err
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

// cacheCorrupt counts a cache entry that failed verification.
func (p *pipeline) cacheCorrupt(err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.corrupt == 0 {
		p.firstCorrupt = err
	}
	p.corrupt++
}

// formatUSD writes an amount of dollars for a message.
func formatUSD(x float64) string { return "$" + strconv.FormatFloat(x, 'f', -1, 64) }

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
