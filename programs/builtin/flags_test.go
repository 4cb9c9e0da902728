package builtin

import (
	"slices"
	"testing"

	"github.com/evalcal/evalcal/inspection"
)

// The LLM judges' prompts ask for the defect ids of package inspection so
// that their flags compare with builtin's by id: each must be a flag
// builtin raises (one with a deduction), and builtin raises no id the
// domain package does not define.
func TestDefectFlagIDsAreBuiltinFlags(t *testing.T) {
	ids := inspection.DefectFlagIDs()
	if len(ids) == 0 {
		t.Fatal("no defect flag ids")
	}
	for _, id := range ids {
		if _, ok := deductions[id]; !ok {
			t.Errorf("defect flag id %q has no builtin deduction", id)
		}
	}
	unreadable := []string{inspection.FlagLogUnreadable, inspection.FlagManifestBroken, inspection.FlagOutputUnreadable}
	for id := range deductions {
		if !slices.Contains(ids, id) && !slices.Contains(unreadable, id) {
			t.Errorf("builtin flag %q is neither a defect id nor an unreadable-file id of package inspection", id)
		}
	}
	if len(deductions) != len(ids)+len(unreadable) {
		t.Errorf("%d builtin flags, want %d defect + %d unreadable", len(deductions), len(ids), len(unreadable))
	}
}

// Light scores never exceed the light caps, whatever the flags.
func TestLightScoresAreCapped(t *testing.T) {
	rt, te := score(nil, inspection.Light)
	if rt != inspection.LightRuntimeCap || te != inspection.LightTaskCap {
		t.Errorf("light scores of a clean run %v, %v; want the caps %d, %d", rt, te, inspection.LightRuntimeCap, inspection.LightTaskCap)
	}
	if rt, te := score(nil, inspection.Deep); rt != 100 || te != 100 {
		t.Errorf("deep scores of a clean run %v, %v; want 100, 100", rt, te)
	}
}
