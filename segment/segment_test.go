package segment

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/evalcal/evalcal/inspection"
)

func run(id, system, light, deep string, f float64, md inspection.Metadata) Run {
	return Run{ID: id, System: system, LightVerdict: light, DeepVerdict: deep, Forecast: f, Metadata: md}
}

// Slices under MinRuns paired runs are listed with counts only; runs
// without the field are missing; a field no run has gives no slice.
func TestSmallSlicesAreListedNotTested(t *testing.T) {
	var runs []Run
	for i := range 12 {
		runs = append(runs, run(string(rune('a'+i)), "big", "pass", "pass", 0.9, inspection.Metadata{"task": "t1"}))
	}
	for i := range 9 {
		runs = append(runs, run(string(rune('A'+i)), "small", "pass", "fail", 0.9, nil))
	}
	got := Compute(runs, []string{"system", "task", "nosuch"})
	sys := got[0]
	if sys.Tested != 1 || len(sys.Slices) != 2 || len(sys.Comparisons) != 0 {
		t.Fatalf("system: %+v", sys)
	}
	small := sys.Slices[1]
	if small.Tested || small.N != 9 || small.Matches != 0 || *small.Percent != 0 || small.Wilson95 != nil ||
		!strings.Contains(small.Reason, "fewer than 10") {
		t.Errorf("small slice: %+v", small)
	}
	// One tested slice: the simultaneous interval is Wilson's.
	if b := sys.Slices[0]; *b.Simultaneous95 != *b.Wilson95 {
		t.Errorf("k = 1: simultaneous %v, wilson %v", b.Simultaneous95, b.Wilson95)
	}
	if task := got[1]; task.Runs != 12 || task.Missing != 9 || len(task.Slices) != 1 {
		t.Errorf("task: %+v", task)
	}
	if none := got[2]; none.Runs != 0 || none.Missing != 21 || len(none.Slices) != 0 {
		t.Errorf("nosuch: %+v", none)
	}
}

// Two slices deep passes always: both classical rates are 100% with SE 0,
// so their difference has no interval or p, and nothing is misjudged.
func TestDifferenceWithoutSpreadHasNoTest(t *testing.T) {
	var runs []Run
	for i := range 20 {
		sys := "a"
		if i%2 == 1 {
			sys = "b"
		}
		runs = append(runs, run(string(rune('a'+i)), sys, "pass", "pass", 0.9, nil))
	}
	f := Compute(runs, []string{"system"})[0]
	c := f.Comparisons[0]
	if c.Deep.Points == nil || *c.Deep.Points != 0 || c.Deep.P != nil || c.Deep.PHolm != nil || c.Deep.Reason == "" || len(f.Misjudged) != 0 {
		t.Errorf("comparison %+v, misjudged %v", c, f.Misjudged)
	}
}

// The result does not depend on the order the runs come in (PPI++'s
// folds follow the run ids, not the input order).
func TestComputeIgnoresInputOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	verdicts := []string{"pass", "partial", "fail"}
	var runs []Run
	for i := range 120 {
		deep := verdicts[rng.IntN(3)]
		if rng.IntN(3) == 0 {
			deep = ""
		}
		runs = append(runs, run(string(rune(0x100+i)), []string{"x", "y", "z"}[i%3], verdicts[rng.IntN(3)], deep, rng.Float64(),
			inspection.Metadata{"k": []string{"1", "2"}[rng.IntN(2)]}))
	}
	want := Compute(runs, []string{"system", "k"})
	rng.Shuffle(len(runs), func(i, j int) { runs[i], runs[j] = runs[j], runs[i] })
	if got := Compute(runs, []string{"system", "k"}); !reflect.DeepEqual(got, want) {
		t.Error("shuffled runs give another result")
	}
}

// A slice whose deep labels all pass gives PPI++ no variance: the
// classical rate of the labels stands in, with its Wilson interval
// (statsmodels proportion_confint(12, 12, method="wilson") = [0.757506,
// 1]).
func TestAllEqualLabelsFallBackToTheClassicalRate(t *testing.T) {
	var runs []Run
	for i := range 20 {
		deep := "pass"
		if i >= 12 {
			deep = ""
		}
		runs = append(runs, run(string(rune('a'+i)), "s", "pass", deep, 0.5+float64(i%5)/10, nil))
	}
	r := Compute(runs, []string{"system"})[0].Slices[0].DeepPassRate
	if r.Method != MethodClassical || *r.Percent != 100 || r.CI95 == nil || math.Abs(r.CI95.Lower-75.75059933447589) > 1e-9 || r.NLabelled != 12 {
		t.Errorf("deep rate %+v (ci %v)", r, r.CI95)
	}
}

// A field with more than MaxCompared tested slices lists them all but
// compares none, and says why.
func TestTooManySlicesAreNotCompared(t *testing.T) {
	var runs []Run
	for s := range MaxCompared + 1 {
		for i := range MinRuns {
			runs = append(runs, run(fmt.Sprintf("%02d-%02d", s, i), fmt.Sprintf("s%02d", s), "pass", "pass", 0.9, nil))
		}
	}
	f := Compute(runs, []string{"system"})[0]
	if f.Tested != MaxCompared+1 || len(f.Slices) != MaxCompared+1 || len(f.Comparisons) != 0 ||
		!strings.Contains(f.ComparisonsLeftOut, "31 slices are tested, more than 30: their 465 pairs") {
		t.Errorf("tested %d, %d slices, %d comparisons, left out %q", f.Tested, len(f.Slices), len(f.Comparisons), f.ComparisonsLeftOut)
	}
}

// PPI++ needs a uniform random subset of the slice: unequal recorded
// inclusion probabilities within a slice give Hájek's weighted mean of
// the labels instead, a subset that is not random at all leaves deep's
// pass rate of a partly labelled slice unestimated (and its comparisons
// undefined); equal ones within each slice (a subset stratified by the
// sliced field) give PPI++.
func TestDeepRateNeedsAUniformRandomSubset(t *testing.T) {
	var runs []Run
	for i := range 40 {
		sys, pi := "a", 0.5
		if i%2 == 1 {
			sys, pi = "b", 0.25
		}
		deep := []string{"pass", "fail"}[i%3%2]
		if i%4 >= 2 {
			deep = ""
		}
		r := run(fmt.Sprintf("r%02d", i), sys, "pass", deep, float64(i%7)/7, inspection.Metadata{"k": "x"})
		r.Pi = pi
		runs = append(runs, r)
	}
	got := Compute(runs, []string{"system", "k"})
	for _, s := range got[0].Slices {
		if s.DeepPassRate == nil || s.DeepPassRate.Percent == nil {
			t.Errorf("system %s: pi equal within the slice, yet %+v", s.Value, s.DeepPassRate)
		}
	}
	// The k=x slice's Hájek mean and SE from hajek_ref.py (numpy and
	// statsmodels WLS HC1): 0.6333333333333333, 0.11742305624983253.
	if d := got[1].Slices[0].DeepPassRate; d.Method != MethodHajek || d.Percent == nil || d.SE == nil ||
		math.Abs(*d.Percent-63.33333333333333) > 1e-9 || math.Abs(*d.SE-11.742305624983253) > 1e-9 || d.NLabelled != 20 || d.NUnlabelled != 20 {
		t.Errorf("k=x: pi unequal within the slice, yet %+v", d)
	}
	nr := ComputeWith(runs, []string{"system"}, Options{NotRandom: "a cascade"})[0]
	if d := nr.Slices[0].DeepPassRate; d.Percent != nil || !strings.Contains(d.Reason, "a cascade") || nr.Comparisons[0].Deep.Points != nil {
		t.Errorf("not random: %+v, comparison %+v", d, nr.Comparisons[0].Deep)
	}
}

// Agreements gives the agreement figures of Compute's slices of the same
// field, light-only runs and all (they do not count towards k), and
// leaves out a slice with no paired run (Compute lists it).
func TestAgreementsAreComputesFigures(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 1))
	verdicts := []string{"fail", "partial", "pass"}
	var runs []Run
	// Four systems: 40, 25, 15 and 6 runs, a third of the first three light
	// only (15 leaves exactly 10 paired: tested); one light
	// only system.
	for si, n := range []int{40, 25, 15, 6, 5} {
		for i := range n {
			r := run(fmt.Sprintf("%d-%d", si, i), fmt.Sprintf("s%d", si), verdicts[rng.IntN(3)], verdicts[rng.IntN(3)], rng.Float64(), nil)
			if si == 4 || (si < 3 && i%3 == 0) {
				r.DeepVerdict = ""
			}
			runs = append(runs, r)
		}
	}
	field := Compute(runs, []string{"system"})[0]
	got := Agreements(runs, "system")
	var want []Slice
	for _, s := range field.Slices {
		if s.N == 0 {
			continue
		}
		want = append(want, Slice{Value: s.Value, N: s.N, NLight: s.NLight, Matches: s.Matches, Percent: s.Percent,
			Tested: s.Tested, Reason: s.Reason, Wilson95: s.Wilson95, Simultaneous95: s.Simultaneous95})
	}
	if field.Tested != 3 || len(want) != 4 || len(field.Slices) != 5 {
		t.Fatalf("test data: %d tested, %d slices with a paired run of %d", field.Tested, len(want), len(field.Slices))
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Agreements = %+v\nCompute's = %+v", got, want)
	}
}
