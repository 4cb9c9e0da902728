package calibrate

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/evalcal/evalcal/inspection"
)

// listed is an inspector that holds the run ids ids and answers none.
type listed struct{ ids []string }

func (l listed) Identity() string                 { return "listed" }
func (l listed) RunIDs(inspection.Depth) []string { return l.ids }
func (l listed) Inspect(context.Context, inspection.Run, inspection.Depth) (inspection.Inspection, error) {
	return inspection.Inspection{}, errors.New("not called")
}

func ids(prefix string, from, to int) []string {
	var out []string
	for i := from; i < to; i++ {
		out = append(out, fmt.Sprintf("%s-%03d", prefix, i))
	}
	return out
}

func foundRuns(ids []string) []inspection.Run {
	runs := make([]inspection.Run, len(ids))
	for i, id := range ids {
		runs[i] = inspection.Run{ID: id}
	}
	return runs
}

// Hand-worked cases of the MinMatchShare rule over 40 runs found.
func TestCheckMatchRefusesOnlyAFileOfOtherRuns(t *testing.T) {
	found := foundRuns(ids("run", 0, 40))
	for _, tt := range []struct {
		name    string
		deep    []string
		refused bool
	}{
		{"none of 8 match", ids("other", 0, 8), true},
		// 2 of 10 ids (20%) among the runs, 2 of 40 runs (5%) in the file.
		{"2 of 10 match", append(ids("other", 0, 8), "run-000", "run-001"), true},
		// 5 of 10 ids (50%) among the runs: the file is half of these.
		{"5 of 10 match", append(ids("other", 0, 5), ids("run", 0, 5)...), false},
		// Labels of a subset: 4 ids, all among the runs (10% of them).
		{"a labelled subset", ids("run", 10, 14), false},
		// A larger corpus's labels: 20 of 200 ids (10%) among the runs,
		// 20 of the 40 runs (50%) in the file.
		{"a larger corpus's labels", append(ids("other", 0, 180), ids("run", 0, 20)...), false},
	} {
		err := checkMatch(found, [2]inspection.Inspector{listed{}, listed{tt.deep}}, [2]string{"builtin", "saved:x.jsonl"})
		var me *MismatchError
		if got := errors.As(err, &me); got != tt.refused {
			t.Errorf("%s: refused %v (%v), want %v", tt.name, got, err, tt.refused)
			continue
		}
		if me != nil && (me.Side != inspection.Deep || len(me.SideExamples) == 0 || len(me.FoundExamples) == 0) {
			t.Errorf("%s: %+v, want the deep side named with examples of both", tt.name, me)
		}
	}
}
