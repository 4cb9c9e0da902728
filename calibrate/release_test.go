package calibrate

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/evalcal/evalcal/inspection"
)

// releasing is an inspector that counts its Release calls and the
// inspections asked of it after one.
type releasing struct {
	inspection.Inspector
	released, late atomic.Int32
}

func (r *releasing) Release() { r.released.Add(1) }

func (r *releasing) Inspect(ctx context.Context, run inspection.Run, d inspection.Depth) (inspection.Inspection, error) {
	if r.released.Load() > 0 {
		r.late.Add(1)
	}
	return r.Inspector.Inspect(ctx, run, d)
}

// With LastUse, Run releases each side once the runner is done, through
// any Wrap, and asks nothing after; without it, never.
func TestRunReleasesTheInspectorsOnLastUse(t *testing.T) {
	for _, last := range []bool{false, true} {
		cfg := builtinConfig()
		r := &releasing{Inspector: cfg.Light}
		cfg.Light, cfg.Deep, cfg.LastUse = inspection.Wrap(r, inspection.Override{}), r, last
		mustRun(t, cfg)
		want := int32(0)
		if last {
			want = 2 // light, then deep: the same inspector
		}
		if got := r.released.Load(); got != want || r.late.Load() != 0 {
			t.Errorf("LastUse %v: released %d times, want %d; %d inspections after", last, got, want, r.late.Load())
		}
	}
}
