package comparator

import (
	"slices"
	"testing"
)

// Disagreements keeps the comparisons with a disagreement type, in order.
func TestDisagreementsKeepsTypedInOrder(t *testing.T) {
	split, fn := VerdictSplit, DisagreementType("false_negative")
	cs := []Comparison{{RunID: "a"}, {RunID: "b", DisagreementType: &split}, {RunID: "c"}, {RunID: "d", DisagreementType: &fn}}
	var ids []string
	for _, c := range Disagreements(cs) {
		ids = append(ids, c.RunID)
	}
	if !slices.Equal(ids, []string{"b", "d"}) {
		t.Errorf("got %v, want [b d]", ids)
	}
	if got := Disagreements(nil); got == nil || len(got) != 0 {
		t.Errorf("no comparisons: %#v, want an empty list (the report's [])", got)
	}
}
