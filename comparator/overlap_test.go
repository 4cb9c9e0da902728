package comparator

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/evalcal/evalcal/inspection"
	"github.com/google/go-cmp/cmp"
)

// overlapQuadratic is the flag matching as it was before issue 13.3, kept
// verbatim as the reference the indexed overlap must agree with: each
// light flag scans every deep flag, by id first, then by folded
// description.
func overlapQuadratic(light, deep []inspection.Flag) FlagOverlap {
	usedL := make([]bool, len(light))
	usedD := make([]bool, len(deep))
	var o FlagOverlap
	match := func(i, j int) {
		usedL[i], usedD[j] = true, true
		key := flagKey(light[i])
		o.Both = append(o.Both, key)
		if light[i].Severity != deep[j].Severity {
			o.SeverityMismatches = append(o.SeverityMismatches,
				fmt.Sprintf("%s: light %s, deep %s", key, light[i].Severity, deep[j].Severity))
		}
	}
	for i, lf := range light {
		if lf.ID == "" {
			continue
		}
		for j, df := range deep {
			if !usedD[j] && df.ID == lf.ID {
				match(i, j)
				break
			}
		}
	}
	for i, lf := range light {
		if usedL[i] {
			continue
		}
		for j, df := range deep {
			if usedD[j] || (lf.ID != "" && df.ID != "") {
				continue
			}
			if d := foldDescription(lf.Description); d != "" && d == foldDescription(df.Description) {
				match(i, j)
				break
			}
		}
	}
	for i, lf := range light {
		if !usedL[i] {
			o.LightOnly = append(o.LightOnly, flagKey(lf))
		}
	}
	for j, df := range deep {
		if !usedD[j] {
			o.DeepOnly = append(o.DeepOnly, flagKey(df))
		}
	}
	for _, s := range [][]string{o.Both, o.LightOnly, o.DeepOnly, o.SeverityMismatches} {
		sort.Strings(s)
	}
	o.Both, o.LightOnly, o.DeepOnly = nonNil(o.Both), nonNil(o.LightOnly), nonNil(o.DeepOnly)
	return o
}

// randomFlags draws n flags from small pools of ids, descriptions (with
// case and spacing variants of one another, and blank ones) and
// severities, so that repeated ids, shared descriptions, id-less flags and
// flags with an id and a shared description all occur often.
func randomFlags(r *rand.Rand, n int) []inspection.Flag {
	ids := []string{"", "", "", "a", "b", "c"}
	descs := []string{"", "  ", "Output empty", "output  EMPTY ", " output empty", "binding missing", "Binding Missing", "x"}
	sevs := []string{inspection.SeverityInfo, inspection.SeverityWarning, inspection.SeverityCritical}
	fs := make([]inspection.Flag, n)
	for i := range fs {
		fs[i] = inspection.Flag{ID: ids[r.IntN(len(ids))], Description: descs[r.IntN(len(descs))], Severity: sevs[r.IntN(len(sevs))]}
	}
	return fs
}

// TestOverlapAgreesWithTheQuadraticMatching is a property test: on 20,000
// random flag sets the indexed matching gives exactly the old result.
func TestOverlapAgreesWithTheQuadraticMatching(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 3))
	for k := range 20000 {
		light, deep := randomFlags(r, r.IntN(9)), randomFlags(r, r.IntN(9))
		want, got := overlapQuadratic(light, deep), overlap(light, deep)
		if d := cmp.Diff(want, got); d != "" {
			t.Fatalf("case %d: light %+v deep %+v (-quadratic +indexed):\n%s", k, light, deep, d)
		}
	}
}

// idlessFlags is the attack of issue 13.3: n flags without ids and with
// distinct descriptions, so every light flag had to scan every deep one.
// Every other deep flag shares its description with a light flag.
func idlessFlags(n int) (light, deep []inspection.Flag) {
	for i := range n {
		light = append(light, inspection.Flag{Severity: inspection.SeverityInfo, Description: "light finding " + strconv.Itoa(i)})
		d := "deep finding " + strconv.Itoa(i)
		if i%2 == 0 {
			d = "LIGHT  finding " + strconv.Itoa(i)
		}
		deep = append(deep, inspection.Flag{Severity: inspection.SeverityWarning, Description: d})
	}
	return light, deep
}

// TestOverlapOfManyIDLessFlagsIsFast: 8,000 id-less flags per inspection
// took about 120 s with the quadratic matching; they must take well under
// a second (half a second is allowed here, on a loaded machine under the
// race detector; it takes about 50 ms alone, 80 ms with -race).
func TestOverlapOfManyIDLessFlagsIsFast(t *testing.T) {
	light, deep := idlessFlags(8000)
	start := time.Now()
	got := overlap(light, deep)
	if el := time.Since(start); el > 500*time.Millisecond {
		t.Errorf("overlap of 8000 id-less flags took %v, want well under a second", el)
	}
	if len(got.Both) != 4000 || len(got.LightOnly) != 4000 || len(got.DeepOnly) != 4000 || len(got.SeverityMismatches) != 4000 {
		t.Errorf("both %d, light only %d, deep only %d, severity %d; want 4000 each",
			len(got.Both), len(got.LightOnly), len(got.DeepOnly), len(got.SeverityMismatches))
	}
	if testing.Short() {
		return
	}
	// The same answer as the old matching on a size it can still do.
	light, deep = idlessFlags(500)
	if d := cmp.Diff(overlapQuadratic(light, deep), overlap(light, deep)); d != "" {
		t.Errorf("500 id-less flags (-quadratic +indexed):\n%s", d)
	}
}

func BenchmarkOverlapIDLess8000(b *testing.B) {
	light, deep := idlessFlags(8000)
	for b.Loop() {
		overlap(light, deep)
	}
}
