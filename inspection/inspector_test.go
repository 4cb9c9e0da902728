package inspection

import (
	"context"
	"errors"
	"io"
	"testing"
)

// full implements every optional capability.
type full struct{ closed int }

func (*full) Identity() string { return "full/1" }
func (*full) Inspect(context.Context, Run, Depth) (Inspection, error) {
	return Inspection{Verdict: VerdictPass}, nil
}
func (*full) Model() string                               { return "m" }
func (*full) MaxCallTokens() (int64, int64)               { return 1, 2 }
func (*full) MaxRunTokens(Run, Depth) (int64, int64)      { return 3, 4 }
func (*full) Covers(string, Depth) bool                   { return true }
func (*full) InclusionProbability(string) (float64, bool) { return 0.5, true }
func (*full) Unattributed() []string                      { return []string{"line 3"} }
func (f *full) Close() error                              { f.closed++; return nil }

// plain implements none.
type plain struct{}

func (plain) Identity() string { return "plain/1" }
func (plain) Inspect(context.Context, Run, Depth) (Inspection, error) {
	return Inspection{}, errors.New("no")
}

// has reports which capabilities As finds on in.
func has(in Inspector) Capability {
	var c Capability
	if _, ok := As[Billed](in); ok {
		c |= CapBilled
	}
	if _, ok := As[RunBound](in); ok {
		c |= CapRunBound
	}
	if _, ok := As[Coverage](in); ok {
		c |= CapCoverage
	}
	if _, ok := As[Unattributed](in); ok {
		c |= CapUnattributed
	}
	if _, ok := As[io.Closer](in); ok {
		c |= CapCloser
	}
	return c
}

const all = CapBilled | CapRunBound | CapCoverage | CapUnattributed | CapCloser

func TestWrapForwardsEveryCapabilityItDoesNotHide(t *testing.T) {
	f := &full{}
	if got := has(f); got != all {
		t.Fatalf("unwrapped: capabilities %b, want %b", got, all)
	}
	if got := has(plain{}); got != 0 {
		t.Fatalf("plain: capabilities %b, want none", got)
	}
	for _, hide := range []Capability{0, CapBilled, CapCoverage, CapCoverage | CapCloser, all} {
		w := Wrap(f, Override{Hide: hide})
		if got := has(w); got != all&^hide {
			t.Errorf("Wrap hiding %b: capabilities %b, want %b", hide, got, all&^hide)
		}
		// A second wrapper sees through the first, hidden ones stay hidden.
		if got := has(Wrap(w, Override{Identity: "outer"})); got != all&^hide {
			t.Errorf("Wrap(Wrap hiding %b): capabilities %b, want %b", hide, got, all&^hide)
		}
	}
	if got := has(Wrap(plain{}, Override{})); got != 0 {
		t.Errorf("wrapped plain: capabilities %b, want none", got)
	}
}

func TestWrapIdentityAndInspect(t *testing.T) {
	f := &full{}
	if id := Wrap(f, Override{}).Identity(); id != "full/1" {
		t.Errorf("identity %q, want the inner one", id)
	}
	w := Wrap(f, Override{Identity: "saved:abcd"})
	if id := w.Identity(); id != "saved:abcd" {
		t.Errorf("identity %q, want the override", id)
	}
	insp, err := w.Inspect(context.Background(), Run{ID: "r"}, Light)
	if err != nil || insp.Verdict != VerdictPass {
		t.Errorf("Inspect = %+v, %v; want the inner inspector's", insp, err)
	}
	c, ok := As[io.Closer](w)
	if !ok {
		t.Fatal("no Close through the wrapper")
	}
	_ = c.Close()
	if f.closed != 1 {
		t.Errorf("Close reached the inner inspector %d times, want 1", f.closed)
	}
	if u, ok := As[Unattributed](w); !ok || len(u.Unattributed()) != 1 {
		t.Errorf("Unattributed through the wrapper: %v", ok)
	}
}

func TestAsOfNil(t *testing.T) {
	if _, ok := As[Billed](nil); ok {
		t.Error("As on a nil inspector found a capability")
	}
}
