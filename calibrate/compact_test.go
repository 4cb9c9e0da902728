package calibrate

import (
	"context"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/evalcal/evalcal/inspection"
)

// compactRuns.At gives back every compactable run as it was: each field
// of inspection.Run, set alone on a saved run (so a field added to Run
// later is checked too), either makes the run not compactable or comes
// back.
func TestCompactRunsGiveTheRunsBack(t *testing.T) {
	base := inspection.Run{ID: "r1", Era: inspection.EraSaved, System: "alpha", Status: inspection.StatusUnknown, Valid: true,
		SizeBytes: 10, ContentHash: "abc", Metadata: inspection.Metadata{"k": "v"}, Warnings: []string{"w"}}
	rt := reflect.TypeOf(base)
	cases := []inspection.Run{base}
	for i := range rt.NumField() {
		r := base
		f := reflect.ValueOf(&r).Elem().Field(i)
		switch f.Kind() {
		case reflect.String:
			f.SetString(f.String() + `x\y`)
		case reflect.Int, reflect.Int64:
			f.SetInt(f.Int() + 7)
		case reflect.Bool:
			f.SetBool(!f.Bool())
		case reflect.Slice:
			f.Set(reflect.Append(reflect.MakeSlice(f.Type(), 0, 1), reflect.ValueOf("s")))
		case reflect.Map:
			f.Set(reflect.ValueOf(inspection.Metadata{"other": "1"}))
		default:
			t.Fatalf("field %s of kind %s: teach this test to set it", rt.Field(i).Name, f.Kind())
		}
		cases = append(cases, r)
	}
	compacted := 0
	for _, r := range cases {
		var cfg Config
		src := cfg.compact([]inspection.Run{r}, sampleListing([]inspection.Run{r}))
		if d := cmp.Diff(r, src.At(0)); d != "" {
			t.Errorf("run %+v comes back changed (-want +got):\n%s", r, d)
		}
		if _, ok := src.(compactRuns); ok {
			compacted++
		}
	}
	if compacted < 8 {
		t.Errorf("%d of %d runs kept compact, want the saved run and those differing in id, system, era, status, size, hash, metadata, warnings", compacted, len(cases))
	}
	// A side test asks for the runs again: they stay as they are.
	cfg := Config{Perturb: []Perturbation{{}}}
	if _, ok := cfg.compact([]inspection.Run{base}, sampleListing([]inspection.Run{base})).(compactRuns); ok {
		t.Error("runs kept compact for a perturbation test")
	}
}

// lightCoverage covers the runs it lists, at light depth.
type lightCoverage map[string]bool

func (c lightCoverage) Identity() string { return "cov" }
func (c lightCoverage) Inspect(context.Context, inspection.Run, inspection.Depth) (inspection.Inspection, error) {
	return inspection.Inspection{}, nil
}
func (c lightCoverage) Covers(id string, d inspection.Depth) bool {
	return d == inspection.Light && c[id]
}
func (c lightCoverage) InclusionProbability(string) (float64, bool) { return 0, false }

// coveredByLight keeps the covered runs in order and counts the others,
// and hands back the runs themselves, not a copy, when all are covered.
func TestCoveredByLight(t *testing.T) {
	runs := []inspection.Run{{ID: "a"}, {ID: "b"}, {ID: "c"}, {ID: "d"}}
	for _, c := range []struct {
		cov  lightCoverage
		want []string
	}{
		{lightCoverage{"a": true, "c": true, "d": true}, []string{"a", "c", "d"}},
		{lightCoverage{"b": true, "c": true, "d": true}, []string{"b", "c", "d"}},
		{lightCoverage{"a": true, "b": true, "c": true}, []string{"a", "b", "c"}},
		{lightCoverage{}, []string{}},
		{lightCoverage{"a": true, "b": true, "c": true, "d": true}, []string{"a", "b", "c", "d"}},
	} {
		kept, uncovered := coveredByLight(runs, c.cov)
		got := []string{}
		for _, r := range kept {
			got = append(got, r.ID)
		}
		if d := cmp.Diff(c.want, got); d != "" || uncovered != len(runs)-len(c.want) {
			t.Errorf("covered %v: kept (-want +got):\n%s, %d uncovered", c.cov, d, uncovered)
		}
		if uncovered == 0 && &kept[0] != &runs[0] {
			t.Errorf("all covered: the runs were copied")
		}
	}
	if kept, n := coveredByLight(runs, lightCoverage{}); len(kept) != 0 || n != 4 {
		t.Errorf("none covered: %d kept, %d uncovered", len(kept), n)
	}
}
