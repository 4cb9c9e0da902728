package sampler

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalcal/evalcal/inspection"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func validRun(id, system string, status inspection.Status, size int64) inspection.Run {
	return inspection.Run{ID: id, System: system, Status: status, SizeBytes: size, Era: inspection.EraStateMDv1, Valid: true,
		ServicesDeclared: []string{"a", "b"}}
}

func ids(rs []inspection.Run) []string {
	out := []string{}
	for _, r := range rs {
		out = append(out, r.ID)
	}
	return out
}

func TestSelectErrorsOnTooFewValidRuns(t *testing.T) {
	runs := []inspection.Run{validRun("a", "s1", inspection.StatusCompleted, 1), validRun("b", "s2", inspection.StatusCompleted, 1), {ID: "c", Invalid: "no log"}}
	_, err := Select(runs, SelectOptions{})
	if !errors.Is(err, ErrInsufficientRuns) || !strings.Contains(err.Error(), "2 valid runs of 3 found (1 invalid)") {
		t.Errorf("err = %v, want insufficient-runs with counts", err)
	}
	runs = append(runs, validRun("d", "s1", inspection.StatusFailed, 1))
	if _, err := Select(runs, SelectOptions{N: 2}); !errors.Is(err, ErrInsufficientRuns) {
		t.Errorf("N=2: err = %v, want insufficient-runs", err)
	}
	if _, err := Select(runs, SelectOptions{N: -1}); err == nil || errors.Is(err, ErrInsufficientRuns) || errors.Is(err, ErrHomogeneousSample) {
		t.Errorf("N=-1: err = %v, want a plain error", err)
	}
}

func TestSelectErrorsOnOneSystemUnlessAllowed(t *testing.T) {
	runs := []inspection.Run{validRun("a", "s", inspection.StatusCompleted, 1), validRun("b", "s", inspection.StatusFailed, 2), validRun("c", "s", inspection.StatusCompleted, 3),
		{ID: "d", System: "other", Invalid: "no log"}}
	_, err := Select(runs, SelectOptions{})
	if !errors.Is(err, ErrHomogeneousSample) || !strings.Contains(err.Error(), `system "s"`) {
		t.Errorf("err = %v, want homogeneous-sample naming the system", err)
	}
	s, err := Select(runs, SelectOptions{AllowHomogeneous: true})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"a", "b", "c"}, ids(s.Runs)); d != "" {
		t.Errorf("runs (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"d"}, ids(s.Invalid)); d != "" {
		t.Errorf("invalid (-want +got):\n%s", d)
	}
}

func TestSelectCompositionCountsTheSample(t *testing.T) {
	runs := []inspection.Run{
		validRun("r1", "alpha", inspection.StatusCompleted, 100), validRun("r2", "alpha", inspection.StatusFailed, 300),
		validRun("r3", "beta", inspection.StatusIncomplete, 200), validRun("r4", "beta", inspection.StatusCompleted, 400),
		{ID: "bad", Invalid: "no log"},
	}
	runs[3].ServicesDeclared = []string{"x", "y", "z", "w"}
	s, err := Select(runs, SelectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// By hand: sizes 100,200,300,400 -> median 250; ranks 0..3 of 4 give
	// terciles floor(3*rank/4) = 0,0,1,2; services 2,2,2,4 -> median 2.
	want := Composition{
		Discovered: 5, Valid: 4, Invalid: 1, Sampled: 4,
		Systems:          map[string]int{"alpha": 2, "beta": 2},
		Eras:             map[string]int{"state-md-v1": 4},
		Statuses:         map[string]int{"completed": 2, "failed": 1, "incomplete": 1},
		SuccessFailure:   SuccessFailure{Success: 2, Failure: 2, SuccessPercent: 50},
		SizeTerciles:     map[string]int{"small": 2, "medium": 1, "large": 1},
		SizeBytes:        Spread{Min: 100, Median: 250, Max: 400},
		ServicesDeclared: Spread{Min: 2, Median: 2, Max: 4},
	}
	if d := cmp.Diff(want, s.Composition, cmpopts.EquateApprox(0, 1e-12)); d != "" {
		t.Errorf("composition (-want +got):\n%s", d)
	}
}

// corpus is 3 systems x 3 statuses x 4 sizes = 36 runs, listed in a
// scrambled order so the input order cannot leak into the result.
func corpus() []inspection.Run {
	var rs []inspection.Run
	systems := []string{"gamma", "alpha", "beta"}
	statuses := []inspection.Status{inspection.StatusFailed, inspection.StatusCompleted, inspection.StatusIncomplete}
	for k := 0; k < 4; k++ {
		for i, sys := range systems {
			for j, st := range statuses {
				rs = append(rs, validRun(fmt.Sprintf("%s-%s-%d", sys, st, k), sys, st, int64(1000*(k+1)+10*i+j)))
			}
		}
	}
	return rs
}

func TestSelectIsDeterministicForASeed(t *testing.T) {
	a, err := Select(corpus(), SelectOptions{N: 9, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	rev := corpus()
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	b, err := Select(rev, SelectOptions{N: 9, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(ids(a.Runs), ids(b.Runs)); d != "" {
		t.Errorf("same seed, input order changed the sample (-first +second):\n%s", d)
	}
	differs := false
	for seed := int64(1); seed <= 5 && !differs; seed++ {
		c, err := Select(corpus(), SelectOptions{N: 9, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		differs = !cmp.Equal(ids(a.Runs), ids(c.Runs))
	}
	if !differs {
		t.Error("seeds 1..5 all gave the sample of seed 7; the seed has no effect")
	}
}

func TestSelectSpreadsOverSystemsStatusesAndSizes(t *testing.T) {
	for seed := int64(0); seed < 20; seed++ {
		s, err := Select(corpus(), SelectOptions{N: 9, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		c := s.Composition
		// 9 picks over 3 systems, 3 statuses and 3 terciles: a greedy
		// spread gives exactly 3 of each.
		for name, m := range map[string]map[string]int{"systems": c.Systems, "statuses": c.Statuses, "terciles": c.SizeTerciles} {
			for k, n := range m {
				if n != 3 {
					t.Errorf("seed %d: %s[%s] = %d, want 3 (%v)", seed, name, k, n, m)
				}
			}
		}
		pairs := map[string]bool{}
		for _, r := range s.Runs {
			pairs[r.System+"/"+string(r.Status)] = true
		}
		if len(pairs) != 9 {
			t.Errorf("seed %d: %d distinct system/status pairs, want 9", seed, len(pairs))
		}
	}
	s, err := Select(corpus(), SelectOptions{N: 4, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Runs) != 4 || len(s.Composition.Systems) != 3 {
		t.Errorf("N=4: %d runs over %v, want 4 over all 3 systems", len(s.Runs), s.Composition.Systems)
	}
}

func TestSelectTakesAllWhenNIsZeroOrLarge(t *testing.T) {
	for _, n := range []int{0, 36, 100} {
		s, err := Select(corpus(), SelectOptions{N: n})
		if err != nil {
			t.Fatal(err)
		}
		if len(s.Runs) != 36 {
			t.Errorf("N=%d: %d runs, want 36", n, len(s.Runs))
		}
	}
}

func TestDiscoverFindsRunsAtAnyDepthInSortedOrder(t *testing.T) {
	root := t.TempDir()
	run := map[string]string{"state.md": "1→ a ✓\n---end T\n", "program.prose": "let a = session \"x\"\n", "bindings/a.md": "a"}
	writeRun(t, filepath.Join(root, "deep", ".prose", "runs"), "20260102-000000-bbbbbb", run)
	writeRun(t, root, "20260101-000000-aaaaaa", run)
	writeRun(t, filepath.Join(root, "x"), "by-contents", run)
	writeRun(t, filepath.Join(root, "x"), "not-a-run", map[string]string{"notes.md": "hi"})
	writeRun(t, filepath.Join(root, ".git"), "20260103-000000-cccccc", run)
	writeRun(t, root, "20260104-000000-dddddd", map[string]string{"README": "named like a run, holds nothing"})
	// Nested runs inside a run directory are not searched.
	writeRun(t, filepath.Join(root, "20260101-000000-aaaaaa"), "20260105-000000-eeeeee", run)

	runs, err := Discover([]string{root, filepath.Join(root, "20260101-000000-aaaaaa")})
	if err != nil {
		t.Fatal(err)
	}
	type brief struct {
		ID    string
		Valid bool
	}
	var got []brief
	for _, r := range runs {
		got = append(got, brief{r.ID, r.Valid})
	}
	want := []brief{{"20260101-000000-aaaaaa", true}, {"20260102-000000-bbbbbb", true}, {"20260104-000000-dddddd", false}, {"by-contents", true}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Discover (-want +got):\n%s", d)
	}
	if ok, why := IsRunDir(filepath.Join(root, "x", "by-contents")); !ok || why != "contents" {
		t.Errorf("IsRunDir by contents = %v %q", ok, why)
	}
	if ok, why := IsRunDir(filepath.Join(root, "20260101-000000-aaaaaa")); !ok || why != "name" {
		t.Errorf("IsRunDir by name = %v %q", ok, why)
	}
}

func TestDiscoverRejectsMissingPathsAndFiles(t *testing.T) {
	root := t.TempDir()
	f := filepath.Join(root, "f")
	if err := os.WriteFile(f, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{filepath.Join(root, "absent"), f} {
		if _, err := Discover([]string{p}); err == nil || !strings.Contains(err.Error(), p) {
			t.Errorf("Discover(%s) err = %v, want an error naming it", p, err)
		}
	}
}
