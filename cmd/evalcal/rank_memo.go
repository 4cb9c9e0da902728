package main

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/evalcal/evalcal/inspection"
	"github.com/evalcal/evalcal/runner"
)

// memoInspector stands between evalcal rank's calibrations and an
// inspector they share: deep (one inspection per run whatever the number
// of candidates) and a panel's members (inspected in their own
// calibration, then asked again by the panel). It keeps every inspection
// it had, serves it again, looks in the inspection cache (the runner's
// keys) before calling, and counts the calls it made. It keeps the
// inspector's identity, so the cache keys are those of evalcal run.
type memoInspector struct {
	in    inspection.Inspector
	cache *runner.Cache
	mu    sync.Mutex
	kept  map[memoKey]inspection.Inspection
	calls atomic.Int64
	// sealed: the member's own calibration is over; a run it has no
	// inspection of failed there, and is not called again.
	sealed atomic.Bool
}

type memoKey struct {
	run    string
	depth  inspection.Depth
	repeat int
}

// newMemo wraps in; the result is Billed (and RunBound) when in is, so
// the runner prices and budgets it as in.
func newMemo(in inspection.Inspector, cache *runner.Cache) *memoInspector {
	return &memoInspector{in: in, cache: cache, kept: map[memoKey]inspection.Inspection{}}
}

// sideOf returns m as the runner should see it: with in's Billed methods
// when in is billed.
func (m *memoInspector) sideOf() inspection.Inspector {
	if b, ok := m.in.(inspection.Billed); ok {
		return billedMemo{m, b}
	}
	return m
}

func (m *memoInspector) Identity() string { return m.in.Identity() }

// Inspect serves a kept inspection, else a cached one, else calls.
func (m *memoInspector) Inspect(ctx context.Context, run inspection.Run, depth inspection.Depth) (inspection.Inspection, error) {
	k := memoKey{run.ID, depth, inspection.RepeatOf(ctx)}
	m.mu.Lock()
	insp, ok := m.kept[k]
	m.mu.Unlock()
	if ok {
		return insp, nil
	}
	if m.cache != nil {
		id := m.in.Identity()
		if k.repeat > 0 {
			id += "#repeat=" + strconv.Itoa(k.repeat) // runner.cacheIdentity
		}
		if insp, ok := m.cache.Get(id, depth, run.ContentHash); ok {
			insp.RunID = run.ID
			m.keep(k, insp)
			return insp, nil
		}
	}
	if m.sealed.Load() {
		return inspection.Inspection{}, inspection.Permanent(fmt.Errorf("%s failed on run %s in its own calibration", m.in.Identity(), run.ID))
	}
	m.calls.Add(1)
	insp, err := m.in.Inspect(ctx, run, depth)
	if err == nil {
		m.keep(k, insp)
	}
	return insp, err
}

func (m *memoInspector) keep(k memoKey, insp inspection.Inspection) {
	m.mu.Lock()
	m.kept[k] = insp
	m.mu.Unlock()
}

// takeCalls returns the calls made since the last takeCalls.
func (m *memoInspector) takeCalls() int { return int(m.calls.Swap(0)) }

// Covers and InclusionProbability pass on a saved source's coverage
// (inspection.Coverage); an inspector without one covers every run.
func (m *memoInspector) Covers(runID string, depth inspection.Depth) bool {
	if c, ok := m.in.(interface {
		Covers(string, inspection.Depth) bool
	}); ok {
		return c.Covers(runID, depth)
	}
	return true
}

func (m *memoInspector) InclusionProbability(runID string) (float64, bool) {
	if c, ok := m.in.(interface {
		InclusionProbability(string) (float64, bool)
	}); ok {
		return c.InclusionProbability(runID)
	}
	return 0, false
}

// Unattributed passes on a saved source's rejected lines.
func (m *memoInspector) Unattributed() []string {
	if u, ok := m.in.(interface{ Unattributed() []string }); ok {
		return u.Unattributed()
	}
	return nil
}

// billedMemo is a memo of a Billed inspector.
type billedMemo struct {
	*memoInspector
	b inspection.Billed
}

func (b billedMemo) Model() string                        { return b.b.Model() }
func (b billedMemo) MaxCallTokens() (input, output int64) { return b.b.MaxCallTokens() }

// MaxRunTokens is the inspector's bound on one run when it has one, else
// its bound on any call.
func (b billedMemo) MaxRunTokens(run inspection.Run, depth inspection.Depth) (input, output int64) {
	if rb, ok := b.b.(inspection.RunBound); ok {
		return rb.MaxRunTokens(run, depth)
	}
	return b.b.MaxCallTokens()
}
