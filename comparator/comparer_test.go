package comparator

import (
	"fmt"
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"

	"github.com/evalcal/evalcal/inspection"
	"github.com/evalcal/evalcal/runner"
)

// A Comparer's comparisons equal ComparePair's, and the text they repeat
// is one string in memory, the run id the run's own.
func TestComparerSharesRepeatedText(t *testing.T) {
	var c Comparer
	var got []Comparison
	for i := range 50 {
		id := fmt.Sprintf("run-%02d", i)
		light := inspection.Inspection{RunID: string([]byte(id)), System: string([]byte("sys")), Depth: inspection.Light, Verdict: string([]byte("pass")),
			RuntimeFidelity: float64(i), TaskEffectiveness: 50, Flags: []inspection.Flag{{ID: string([]byte("F1")), Severity: "warning"}}}
		deep := inspection.Inspection{RunID: id, System: "sys", Depth: inspection.Deep, Verdict: []string{"pass", "fail"}[i%2],
			RuntimeFidelity: 90, TaskEffectiveness: 50, Flags: []inspection.Flag{{ID: "F1", Severity: "critical"}, {ID: "F2"}}}
		p := runner.Pair{Run: inspection.Run{ID: id}, Light: light, Deep: deep}
		want := ComparePair(p)
		cp := c.Compare(p)
		if d := cmp.Diff(want, cp); d != "" {
			t.Fatalf("run %s (-ComparePair +Comparer):\n%s", id, d)
		}
		if unsafe.StringData(cp.RunID) != unsafe.StringData(p.Run.ID) {
			t.Errorf("run %s: the comparison's run id is a copy", id)
		}
		got = append(got, cp)
	}
	same := func(what string, f func(Comparison) string) {
		t.Helper()
		for i, cp := range got[2:] {
			a, b := f(cp), f(got[i%2]) // runs of the same parity have the same verdicts and flags
			if a != b {
				t.Fatalf("%s: %q and %q, want runs of one parity alike", what, a, b)
			}
			if unsafe.StringData(a) != unsafe.StringData(b) {
				t.Errorf("%s %q is not shared", what, a)
				return
			}
		}
	}
	same("system", func(c Comparison) string { return c.System })
	same("light verdict", func(c Comparison) string { return c.LightVerdict })
	same("flag key", func(c Comparison) string { return c.FlagOverlap.Both[0] })
	same("severity note", func(c Comparison) string { return c.FlagOverlap.SeverityMismatches[0] })
	same("first note", func(c Comparison) string { return c.Notes[0] })
}
