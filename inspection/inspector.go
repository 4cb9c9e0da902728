package inspection

import (
	"context"
	"io"
)

// Inspector inspects one run at one depth. Implementations live in
// programs/ and must be safe for concurrent use.
//
// An inspector may implement any of the optional capabilities below
// (Billed, RunBound, Coverage, Unattributed, and io.Closer for one that
// holds a resource, such as an exec inspector's reaper, to release once
// the run is over). Callers look them
// up with As, never with a type assertion, so that an inspector wrapped
// by Wrap (or by any type with an Unwrap() Inspector method) keeps them.
type Inspector interface {
	// Identity names the inspector and its version or configuration
	// (e.g. "builtin/1", "exec:<sha256 of the command line>"); it is part
	// of the cache key, so it must change whenever results could.
	Identity() string
	// Inspect returns the inspection of run at depth. It must honour ctx.
	Inspect(ctx context.Context, run Run, depth Depth) (Inspection, error)
}

// Billed is implemented by inspectors whose calls are billed per token
// (the LLM judges). The runner uses it to price calls and to keep a
// --max-cost budget: it never starts a call whose worst case could take
// spending past the budget. A Billed side also gets more retries by
// default (rate limits and overloads are routine there).
type Billed interface {
	// Model is the model name prices are looked up by.
	Model() string
	// MaxCallTokens bounds one Inspect call's tokens, its repair attempt
	// included: input and output.
	MaxCallTokens() (input, output int64)
}

// RunBound is implemented by Billed inspectors that can bound a call on
// one run more tightly than MaxCallTokens (an LLM judge: a small run makes
// a small prompt). The --max-cost budget then reserves that bound.
type RunBound interface {
	MaxRunTokens(run Run, depth Depth) (input, output int64)
}

// Coverage is implemented by a source that holds inspections of some runs
// only (saved human labels, imported results): on the deep side the runs
// it covers are the deep subset; on the light side the runs it does not
// cover are left out.
type Coverage interface {
	// Covers reports whether the source holds an inspection of run id at
	// depth.
	Covers(runID string, depth Depth) bool
	// InclusionProbability returns the probability with which the run was
	// chosen for deep labelling, when the source records it.
	InclusionProbability(runID string) (float64, bool)
}

// Unattributed is implemented by a source read from a file (saved
// inspections, imported results) that could not attribute some of its
// items to a run; the report lists them as rejected.
type Unattributed interface {
	// Unattributed returns the items that name no readable run, one line
	// each (file, line or item number, and why).
	Unattributed() []string
}

// Capability names an optional interface for Override.Hide.
type Capability uint

// The optional capabilities of an inspector.
const (
	CapBilled Capability = 1 << iota
	CapRunBound
	CapCoverage
	CapUnattributed
	CapCloser
)

// capabilityOf is the Capability of the interface type T, 0 for a type
// that is not one of them.
func capabilityOf[T any]() Capability {
	switch any((*T)(nil)).(type) {
	case *Billed:
		return CapBilled
	case *RunBound:
		return CapRunBound
	case *Coverage:
		return CapCoverage
	case *Unattributed:
		return CapUnattributed
	case *io.Closer:
		return CapCloser
	}
	return 0
}

// Override is what Wrap changes about an inspector; the zero value changes
// nothing.
type Override struct {
	// Identity, when not "", replaces the inspector's identity (and so its
	// cache key).
	Identity string
	// Hide lists the capabilities the wrapped inspector no longer has.
	Hide Capability
}

// Wrap returns in with o applied. Every capability of in that o does not
// hide stays reachable through As; Inspect is in's.
func Wrap(in Inspector, o Override) Inspector {
	return &wrapped{in: in, o: o}
}

type wrapped struct {
	in Inspector
	o  Override
}

func (w *wrapped) Identity() string {
	if w.o.Identity != "" {
		return w.o.Identity
	}
	return w.in.Identity()
}

func (w *wrapped) Inspect(ctx context.Context, run Run, depth Depth) (Inspection, error) {
	return w.in.Inspect(ctx, run, depth)
}

// Unwrap returns the wrapped inspector.
func (w *wrapped) Unwrap() Inspector { return w.in }

// As finds the first inspector in in's chain (in, then what its
// Unwrap() Inspector method returns, and so on) that implements T, and
// returns it as T. A capability hidden by a Wrap on the way is not found.
// T is one of the capability interfaces (Billed, RunBound, Coverage,
// Unattributed, io.Closer) or any other interface.
func As[T any](in Inspector) (T, bool) {
	c := capabilityOf[T]()
	for in != nil {
		if w, ok := in.(*wrapped); ok && w.o.Hide&c != 0 {
			break
		}
		if t, ok := in.(T); ok {
			return t, true
		}
		u, ok := in.(interface{ Unwrap() Inspector })
		if !ok {
			break
		}
		in = u.Unwrap()
	}
	var zero T
	return zero, false
}
