package calibrate

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// sortedByID gives what a stable sort of the concatenated parts gives,
// whether the parts are sorted (merged) or not (sorted through indices),
// with ids repeated within and across parts.
func TestSortedByIDIsAStableSort(t *testing.T) {
	type item struct {
		id  string
		pos int
	}
	r := rand.New(rand.NewPCG(21, 26))
	for trial := range 300 {
		var s []item
		var ends []int
		sortedParts := trial%2 == 0
		for range r.IntN(8) {
			part := make([]item, r.IntN(20))
			for i := range part {
				part[i].id = fmt.Sprintf("r%02d", r.IntN(30))
			}
			if sortedParts {
				slices.SortFunc(part, func(a, b item) int { return cmp.Compare(a.id, b.id) })
			}
			s = append(s, part...)
			ends = append(ends, len(s))
		}
		for i := range s {
			s[i].pos = i
		}
		want := slices.Clone(s)
		slices.SortStableFunc(want, func(a, b item) int { return cmp.Compare(a.id, b.id) })
		got := sortedByID(slices.Clone(s), ends, func(it *item) string { return it.id })
		if !slices.Equal(got, want) {
			t.Fatalf("trial %d (parts sorted: %v): got %v, want %v", trial, sortedParts, got, want)
		}
	}
}
