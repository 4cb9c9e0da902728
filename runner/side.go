package runner

import (
	"context"
	"fmt"
	"math"
	"strings"
	"sync"

	"github.com/evalcal/evalcal/inspection"
	"golang.org/x/time/rate"
)

// Sides are the two inspectors evalcal calibrates against each other:
// Light is called at depth light, Deep at depth deep. They may be the same
// inspector (--inspector) or two different ones (--light, --deep).
type Sides struct {
	Light inspection.Inspector
	Deep  inspection.Inspector
}

// Both is the one inspector at both depths.
func Both(insp inspection.Inspector) Sides { return Sides{Light: insp, Deep: insp} }

// of returns the inspector of depth.
func (s Sides) of(d inspection.Depth) inspection.Inspector {
	if d == inspection.Light {
		return s.Light
	}
	return s.Deep
}

// SideOptions configures one side.
type SideOptions struct {
	// RPM limits requests per minute to the side's inspector, retries
	// included; 0 means no limit.
	RPM float64
	// Price prices the side's token usage; nil means unpriced. Only
	// Billed inspectors report usage.
	Price *Price
	// Name is the side as the user named it (the spec given to --light or
	// --deep, "exec:./judge.sh"): a StopError names it. Empty names the
	// inspector's Identity, which for some kinds is a hash (an exec
	// command's "exec:73c55257fbf93e83") that the user never typed.
	Name string
}

// Price is what a model costs, in USD per million tokens. CachedInput
// prices prompt tokens served from the provider's cache; nil means they
// cost Input.
type Price struct {
	Input       float64  `yaml:"input" json:"input"`
	Output      float64  `yaml:"output" json:"output"`
	CachedInput *float64 `yaml:"cached_input,omitempty" json:"cached_input,omitempty"`
}

// USD is the price of u:
//
//	((Input - CachedInput) * p.Input + CachedInput * p.CachedInput + Output * p.Output) / 1e6
//
// Reasoning tokens are billed as output tokens, which is how providers
// report them (they are a part of Output).
func (p Price) USD(u inspection.Usage) float64 {
	cachedPrice := p.Input
	if p.CachedInput != nil {
		cachedPrice = *p.CachedInput
	}
	fresh := max(u.Input-u.CachedInput, 0)
	return (float64(fresh)*p.Input + float64(u.CachedInput)*cachedPrice + float64(u.Output)*p.Output) / 1e6
}

// SideCost is what one side's inspections cost in this run. Cache hits
// cost nothing; failed calls are counted with whatever usage they billed.
type SideCost struct {
	// Identity is the side's inspector identity; Model its billed model
	// (empty for inspectors that are not Billed).
	Identity string `yaml:"identity" json:"identity"`
	Model    string `yaml:"model,omitempty" json:"model,omitempty"`
	// Inspections counts inspections had, from calls or the cache.
	Inspections int `yaml:"inspections" json:"inspections"`
	// Calls counts inspector calls made, retries included; CacheHits the
	// inspections served by the cache; Retries the calls beyond the
	// first attempt; Failed the inspections that could not be had.
	Calls     int `yaml:"calls" json:"calls"`
	CacheHits int `yaml:"cache_hits" json:"cache_hits"`
	Retries   int `yaml:"retries" json:"retries"`
	Failed    int `yaml:"failed" json:"failed"`
	// Usage sums the token usage reported by a Billed inspector.
	Usage inspection.Usage `yaml:"usage" json:"usage"`
	// Tokens sums Cost.Tokens of every inspection had by a call.
	Tokens int64 `yaml:"tokens" json:"tokens"`
	// USD is the side's spending: usage priced with SideOptions.Price for
	// a Billed inspector, else the sum of the cost.usd the inspector
	// reported. Nil when a Billed inspector has no price.
	USD *float64 `yaml:"usd" json:"usd"`
	// Seconds sums the cost.seconds the inspector reported for the
	// inspections had by calls (an LLM judge reports each call's wall
	// time; builtin reports none). The runner's own clock is not used, so
	// the same inspections give the same report whatever --jobs is.
	Seconds float64 `yaml:"seconds" json:"seconds"`
}

// side is one side's shared state during a Run.
type side struct {
	depth    inspection.Depth
	insp     inspection.Inspector
	identity string
	// name is SideOptions.Name, or identity when that is empty.
	name    string
	billed  inspection.Billed
	price   *Price
	limiter *rate.Limiter
	// worst is the price of the most a call can bill (Billed with a
	// price), 0 otherwise.
	worst float64
	// full and sized are the calls observed so far for the --max-cost
	// reservation (see reservation): calls on runs whose bound is the
	// side's full bound (their prompt is cut at the token budget) and on
	// runs bounded by their size.
	full, sized observedShare

	mu   sync.Mutex
	cost SideCost
	// usd (nano-dollars) and seconds (microseconds) are the sums behind
	// cost.USD and cost.Seconds, exact whatever the order (exactsum.go).
	usd, seconds int64
	// early tracks the first calls' outcomes for the stop-early rule.
	early      []string
	succeeded  bool
	earlyFired bool
}

func newSide(depth inspection.Depth, insp inspection.Inspector, o SideOptions) *side {
	s := &side{depth: depth, insp: insp, identity: insp.Identity(), name: o.Name, price: o.Price}
	if s.name == "" {
		s.name = s.identity
	}
	s.cost.Identity = s.identity
	if b, ok := inspection.As[inspection.Billed](insp); ok {
		s.billed = b
		s.cost.Model = b.Model()
		if o.Price != nil {
			in, out := b.MaxCallTokens()
			s.worst = o.Price.USD(inspection.Usage{Input: in, Output: out})
		}
	}
	if o.RPM > 0 {
		// Burst 1: requests are spaced evenly, never bunched at the start
		// of a minute.
		s.limiter = rate.NewLimiter(rate.Limit(o.RPM/60), 1)
	}
	return s
}

// worstFor is the most one call on run can cost: the run's own bound when
// the inspector gives one (RunBound), else the side's.
func (s *side) worstFor(run inspection.Run) float64 {
	if s.price == nil || s.billed == nil {
		return 0
	}
	if rb, ok := inspection.As[inspection.RunBound](s.insp); ok {
		in, out := rb.MaxRunTokens(run, s.depth)
		return s.price.USD(inspection.Usage{Input: in, Output: out})
	}
	return s.worst
}

// ReserveMargin multiplies the observed share in side.reservation: a call
// reserves 1.5 times the largest share of its bound that a finished call
// like it has cost.
const ReserveMargin = 1.5

// observedShare is the largest share of its bound (usd / bound) any of n
// finished calls cost.
type observedShare struct {
	share float64
	n     int
}

// reservation is what the --max-cost budget reserves for a call whose
// bound (worstFor) is worst, and whether that is the bound because no call
// like it has finished (known false). Calls are of two kinds: on runs
// whose bound is the side's full bound (an LLM judge cuts their prompt at
// its token budget, so they use much more of the bound) and on runs
// bounded by their size. Once a call of the same kind has finished on the
// side the reservation is
//
//	min(worst, ReserveMargin x share x worst)
//
// with share the largest usd / bound of those finished calls: the bound
// scales with the run, and the share of it calls use is what is observed.
// Before, it is the bound. An LLM judge's bound (a prompt at its full
// token budget, a repair, twice the longest answer, plus 25%) is 4 to 20
// times what a call costs, so reserving it for every call left most of a
// budget unspent (issue 28, item 5). A call costs more than its
// reservation only when its share of the bound exceeds 1.5 times every
// share seen on calls of its kind; README "Cost and budget" says so.
func (s *side) reservation(worst float64) (res float64, known bool) {
	if worst <= 0 {
		return worst, true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	same := s.sized
	if worst >= s.worst {
		same = s.full
	}
	if same.n == 0 {
		return worst, false
	}
	return min(worst, ReserveMargin*same.share*worst), true
}

// observe records that a call whose bound was worst cost usd.
func (s *side) observe(usd, worst float64) {
	if worst <= 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	o := &s.sized
	if worst >= s.worst {
		o = &s.full
	}
	o.n++
	o.share = max(o.share, usd/worst)
}

// wait blocks until the side's rate limit lets one more request through.
func (s *side) wait(ctx context.Context) error {
	if s.limiter == nil {
		return nil
	}
	return s.limiter.Wait(ctx)
}

// callUSD prices one call: the inspector's usage at the side's price for
// a Billed inspector, else the cost.usd it reported.
func (s *side) callUSD(u *inspection.Usage, reported float64) float64 {
	if s.billed != nil {
		if s.price == nil || u == nil {
			return 0
		}
		return s.price.USD(*u)
	}
	return reported
}

// recordCall adds one call (attempt) to the side's cost and returns the
// USD it cost.
//
// Usage no call can have (a negative count, or one over MaxCallUsage) and
// a cost that is negative or not finite are not believed: the call is
// booked at worst, its bound (at least what the budget reserved for it;
// the side's later reservations then grow to the bound), and its usage is left
// out of the side's, so a lying inspector or server can neither credit
// the --max-cost budget nor overflow a count (issue 27).
func (s *side) recordCall(u *inspection.Usage, reported, worst float64, retry bool) float64 {
	usd := s.callUSD(u, reported)
	if (u != nil && !plausibleUsage(*u)) || !(usd >= 0) || math.IsInf(usd, 0) {
		u, usd = nil, max(worst, 0)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cost.Calls++
	if retry {
		s.cost.Retries++
	}
	if u != nil {
		s.cost.Usage = s.cost.Usage.Add(*u)
	}
	s.usd += toUnits(usd, usdScale)
	return usd
}

// recordOutcome counts one inspection had or failed.
func (s *side) recordOutcome(insp *inspection.Inspection, cached, failed bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case failed:
		s.cost.Failed++
	case cached:
		s.cost.CacheHits++
		s.cost.Inspections++
	default:
		s.cost.Inspections++
		s.cost.Tokens += insp.Cost.Tokens
		s.seconds += toUnits(insp.Cost.Seconds, secondsScale)
	}
}

// summary returns the side's cost with USD filled in.
func (s *side) summary() SideCost {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.cost
	c.Seconds = float64(s.seconds) / secondsScale
	if s.billed == nil || s.price != nil {
		usd := float64(s.usd) / usdScale
		c.USD = &usd
	}
	if c.Usage.Model == "" && s.billed != nil {
		c.Usage.Model = s.billed.Model()
	}
	return c
}

// EarlyStopCalls is how many first inspections of a side must all fail the
// same way, with none succeeding, for the run to stop: a misconfigured
// inspector then costs a handful of calls and one clear line, not one
// failure per run.
const EarlyStopCalls = 5

// noteEarly records the outcome of one of the side's inspections and
// reports whether the stop-early rule fires: the first EarlyStopCalls
// inspections all failed with the same signature and none succeeded.
func (s *side) noteEarly(signature string, ok bool) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.succeeded || s.earlyFired {
		return false
	}
	if ok {
		s.succeeded = true
		return false
	}
	s.early = append(s.early, signature)
	if len(s.early) < EarlyStopCalls {
		return false
	}
	for _, sig := range s.early[1:] {
		if sig != s.early[0] {
			return false
		}
	}
	s.earlyFired = true
	return true
}

// signature is a failure reason with the run's id and path taken out, so
// that the same misconfiguration gives the same text on every run.
func signature(reason, runID, runPath string) string {
	if runPath != "" {
		reason = strings.ReplaceAll(reason, runPath, "{run}")
	}
	if runID != "" {
		reason = strings.ReplaceAll(reason, runID, "{id}")
	}
	return reason
}

// StopError says why a Run stopped before its end: a fatal error of one
// side (bad key, unknown model, missing program) or the stop-early rule.
// The command reports it in one line and exits 2.
type StopError struct {
	Side inspection.Depth
	// Name is the side's SideOptions.Name, or its identity when unnamed.
	Name string
	Err  error
}

func (e *StopError) Error() string {
	return fmt.Sprintf("%s inspector %s: %v", e.Side, e.Name, e.Err)
}

func (e *StopError) Unwrap() error { return e.Err }

// budget keeps a --max-cost budget across both sides. A call reserves
// what it is expected to cost before it starts (side.reservation) and
// settles at what it cost.
type budget struct {
	max      float64
	mu       sync.Mutex
	spent    float64
	reserved float64
	stopped  bool
	// skipped is set when a call whose bound no finished call informed
	// was refused (see reserve).
	skipped bool
	// settled is closed and replaced whenever a reservation is settled,
	// waking the calls waiting for room.
	settled chan struct{}
	// pairing counts the calls completing a pair (deep calls) waiting
	// for room; while one waits, a call starting a run waits behind it.
	pairing int
	// waiting counts the calls waiting for room.
	waiting int
}

// reserve reports whether a call whose reservation is res may start, and
// reserves res when it may:
//
//   - spent + res > max: no call of that size can fit whatever the calls
//     in flight cost, so the call is refused. When res is an estimate from
//     finished calls (known), the budget stops: none starts again, so the
//     runs inspected do not depend on which call finished first more than
//     the budget itself forces. When res is a bound no finished call has
//     informed (known false), only this call is refused (skipped is set):
//     a smaller, known call may still fit;
//   - spent + reserved + res > max: the calls in flight hold the room;
//     the call waits until one of them settles and asks again (it does not
//     stop the budget: with --jobs 8 the first eight worst-case
//     reservations would otherwise stop a budget that affords far more);
//   - a call that does not complete a pair (pairs false: a light call,
//     which starts a run) also waits while a call that completes one (a
//     deep call) waits for room: the room calls free goes to finishing
//     runs before starting new ones, so fewer runs are left with a light
//     inspection only when the budget stops. On 100 runs of 2 ms calls and
//     half the job's budget (49 runs' worth), 100 times each, 47 or 48
//     runs were paired at --jobs 8 and mostly 46 to 48 at --jobs 32,
//     against 45 or 46 and 34 to 41 before (the runner's take also starts
//     no light call while the budget is tight);
//   - otherwise the call starts.
//
// It returns false with ctx's error when ctx ends while waiting.
func (b *budget) reserve(ctx context.Context, res float64, known, pairs bool) (ok bool, err error) {
	if b == nil {
		return true, nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	queued := false // a call completing a pair counts in pairing from its first wait to its return
	defer func() {
		if queued {
			b.pairing--
			if !ok {
				b.wake() // the calls starting runs waited behind this one
			}
		}
	}()
	for {
		switch {
		case b.stopped:
			return false, nil
		case b.spent+res > b.max:
			if known {
				b.stopped = true
				b.wake()
			} else {
				b.skipped = true
			}
			return false, nil
		case b.reserved > 0 && b.spent+b.reserved+res > b.max, !pairs && b.pairing > 0:
			if pairs && !queued {
				queued = true
				b.pairing++
			}
			if b.settled == nil {
				b.settled = make(chan struct{})
			}
			wake := b.settled
			b.waiting++
			b.mu.Unlock()
			select {
			case <-wake:
			case <-ctx.Done():
				err = ctx.Err()
			}
			b.mu.Lock()
			b.waiting--
			if err != nil {
				return false, err
			}
			continue
		}
		b.reserved += res
		return true, nil
	}
}

// wake wakes the calls waiting for room; b.mu is held.
func (b *budget) wake() {
	if b.settled != nil {
		close(b.settled)
		b.settled = nil
	}
}

// settle replaces a reservation of res with the actual cost usd and wakes
// the calls waiting for room.
func (b *budget) settle(res, usd float64) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.reserved -= res
	if b.reserved < 1e-15 {
		b.reserved = 0 // float residue of adding and removing reservations
	}
	b.spent += usd
	b.wake()
}

// tight reports whether the budget is short of room: a call is waiting
// for it, or the budget has stopped.
func (b *budget) tight() bool {
	if b == nil {
		return false
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.waiting > 0 || b.stopped
}

func (b *budget) hasStopped() bool {
	if b == nil {
		return false
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.stopped || b.skipped
}

// MaxCallUsage bounds each token count one inspector call may report:
// far above any model's context, far below an int64 overflow when summed
// over millions of calls.
const MaxCallUsage = 1 << 40

// plausibleUsage reports whether every count of u is in 0..MaxCallUsage.
func plausibleUsage(u inspection.Usage) bool {
	for _, n := range []int64{u.Calls, u.Input, u.Output, u.CachedInput, u.Reasoning} {
		if n < 0 || n > MaxCallUsage {
			return false
		}
	}
	return true
}
