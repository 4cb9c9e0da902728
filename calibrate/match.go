package calibrate

import (
	"fmt"
	"slices"
	"strings"

	"github.com/evalcal/evalcal/inspection"
)

// MinMatchShare is the share of run ids a saved or imported side must
// share with the runs found before any call is made (README, `saved:FILE`
// under "evalcal run"): the side's ids are matched against the runs found and
// Run stops with a *MismatchError when none match, or when fewer than
// MinMatchShare of the side's ids are among the runs found and fewer than
// MinMatchShare of the runs found are among the side's ids. Either share
// alone may be small on purpose: deep labels of a subset of the runs, or
// a file of labels for a larger corpus pointed at one folder of it.
const MinMatchShare = 0.5

// listedSource is a source (saved inspections, imported results) that
// can list the run ids it holds at a depth, sorted.
type listedSource interface {
	RunIDs(depth inspection.Depth) []string
}

// MismatchError says that a saved or imported side's run ids do not
// match the runs found: most likely the file belongs to another corpus.
// It is returned before any inspector call.
type MismatchError struct {
	Side inspection.Depth
	Spec string
	// Listed is how many run ids the side holds, Found how many runs were
	// found, Matched how many ids are in both.
	Listed, Found, Matched int
	// SideExamples and FoundExamples are the first (sorted) ids of each
	// that the other lacks.
	SideExamples, FoundExamples []string
}

func (e *MismatchError) Error() string {
	what := "none"
	if e.Matched > 0 {
		what = fmt.Sprintf("only %d", e.Matched)
	}
	return fmt.Sprintf("the %s side (%s) holds %d run ids and %s of them match the %d runs found "+
		"(e.g. %s in the file; %s found); is it the file of these runs? (at least %.0f%% of either must match)",
		e.Side, e.Spec, e.Listed, what, e.Found, strings.Join(e.SideExamples, ", "), strings.Join(e.FoundExamples, ", "), 100*MinMatchShare)
}

// mismatchExamples is how many ids of each side a MismatchError names.
const mismatchExamples = 3

// checkMatch returns a *MismatchError for the first side (light, then
// deep) that is a listedSource whose ids do not match runs (see
// MinMatchShare), else nil.
func checkMatch(runs []inspection.Run, sides [2]inspection.Inspector, specs [2]string) error {
	found := make(map[string]bool, len(runs))
	for _, r := range runs {
		found[r.ID] = true
	}
	for i, depth := range []inspection.Depth{inspection.Light, inspection.Deep} {
		src, ok := inspection.As[listedSource](sides[i])
		if !ok {
			continue
		}
		ids := src.RunIDs(depth)
		if len(ids) == 0 {
			continue
		}
		matched := 0
		var sideOnly []string
		for _, id := range ids {
			if found[id] {
				matched++
			} else if len(sideOnly) < mismatchExamples {
				sideOnly = append(sideOnly, id)
			}
		}
		shareOfSide, shareOfFound := float64(matched)/float64(len(ids)), float64(matched)/float64(max(len(found), 1))
		if matched > 0 && (shareOfSide >= MinMatchShare || shareOfFound >= MinMatchShare) {
			continue
		}
		listed := make(map[string]bool, len(ids)) // only on a mismatch: a shard checks every run of the input
		for _, id := range ids {
			listed[id] = true
		}
		var foundOnly []string
		for id := range found {
			if !listed[id] {
				foundOnly = append(foundOnly, id)
			}
		}
		slices.Sort(foundOnly)
		return &MismatchError{Side: depth, Spec: specs[i], Listed: len(ids), Found: len(found), Matched: matched,
			SideExamples: sideOnly, FoundExamples: foundOnly[:min(len(foundOnly), mismatchExamples)]}
	}
	return nil
}
