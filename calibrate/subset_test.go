package calibrate

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/evalcal/evalcal/inspection"
	"github.com/evalcal/evalcal/sampler"
)

func insp(v string, rf, te float64) inspection.Inspection {
	return inspection.Inspection{Verdict: v, RuntimeFidelity: rf, TaskEffectiveness: te}
}

// An LLM judge scoring 0 or 100 is far from every threshold: only its
// repeats can tell sure runs from unsure ones.
func TestUncertaintyFromRepeats(t *testing.T) {
	pass, fail := inspection.VerdictPass, inspection.VerdictFail
	cases := []struct {
		name string
		reps []inspection.Inspection
		want float64
	}{
		{"one inspection, far from thresholds", []inspection.Inspection{insp(pass, 100, 100)}, 0},
		{"three agreeing repeats", []inspection.Inspection{insp(pass, 100, 100), insp(pass, 100, 100), insp(pass, 100, 100)}, 0},
		// Votes 2:1 of 3: (1 - 2/3)/(1 - 1/3) = 0.5; the scores' sd is
		// 57.7 for both (100, 100, 0): capped at 1.
		{"2:1 split, 0/100 scores", []inspection.Inspection{insp(pass, 100, 100), insp(pass, 100, 100), insp(fail, 0, 0)}, 1},
		// Votes 3:1 of 4 (1/4)/(3/4) = 1/3; scores 90, 90, 90, 80: sd 5
		// over 25 = 0.2; the consolidated scores 87.5 are 17.5 from 70:
		// 1 - 17.5/30 = 0.41667.
		{"3:1 split", []inspection.Inspection{insp(pass, 90, 90), insp(pass, 90, 90), insp(pass, 90, 90), insp(fail, 80, 80)}, 1 - 17.5/30},
		{"even split of 2", []inspection.Inspection{insp(pass, 100, 100), insp(fail, 100, 100)}, 1},
		{"none", nil, 0},
	}
	for _, c := range cases {
		if got := uncertainty(c.reps); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("%s: uncertainty %v, want %v", c.name, got, c.want)
		}
	}
	// The vote split alone: scores equal across repeats, far from thresholds.
	reps := []inspection.Inspection{insp(pass, 100, 0), insp(pass, 100, 0), insp(fail, 100, 0), insp(fail, 100, 0), insp(pass, 100, 0)}
	// 3:2 of 5: (1 - 3/5)/(1 - 1/5) = 0.5; consolidated verdict pass with
	// scores 100 and 0: 30 and 40 from the thresholds, 0.
	if got := uncertainty(reps); math.Abs(got-0.5) > 1e-12 {
		t.Errorf("3:2 vote split: %v, want 0.5", got)
	}
}

// A panel of judges scoring 0 or 100 tells runs apart by its members'
// vote split, abstentions left out; repeats of a panel pool their votes.
func TestUncertaintyFromPanelVotes(t *testing.T) {
	pass, fail, partial := inspection.VerdictPass, inspection.VerdictFail, inspection.VerdictPartial
	panel := func(v string, votes ...string) inspection.Inspection {
		in := insp(v, 100, 100)
		if v == fail {
			in = insp(v, 0, 0)
		}
		in.Votes = votes
		return in
	}
	cases := []struct {
		name string
		reps []inspection.Inspection
		want float64
	}{
		{"unanimous", []inspection.Inspection{panel(pass, pass, pass, pass)}, 0},
		// 2:1 of 3: (1 - 2/3)/(1 - 1/3) = 0.5.
		{"2:1", []inspection.Inspection{panel(pass, pass, fail, pass)}, 0.5},
		// An abstention is no vote: 1:1 of 2 is an even split.
		{"1:1 and an abstention", []inspection.Inspection{panel(fail, pass, "abstained", fail)}, 1},
		// Three verdicts 2:1:1 of 4: (1 - 2/4)/(1 - 1/4) = 2/3.
		{"2:1:1", []inspection.Inspection{panel(fail, fail, pass, fail, partial)}, 2.0 / 3},
		// Two repeats of a 3-member panel: 5:1 of 6: (1/6)/(5/6) = 0.2.
		{"repeats pool votes", []inspection.Inspection{panel(pass, pass, pass, pass), panel(pass, pass, fail, pass)}, 0.2},
		{"one vote is not a split", []inspection.Inspection{panel(pass, pass, "abstained")}, 0},
	}
	for _, c := range cases {
		if got := uncertainty(c.reps); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("%s: uncertainty %v, want %v", c.name, got, c.want)
		}
	}
}

// When every run is equally uncertain the uncertain policy falls back to
// a uniform Poisson sample, says so, and gives every run the same pi (so
// the estimate section keeps classical and PPI++ valid).
func TestUncertainPolicyFallsBackToUniform(t *testing.T) {
	d := design{policy: PolicyUncertain, subset: Subset{Policy: PolicyUncertain, Seed: 1, Fraction: 0.2}, n: 50, target: 10, pi: map[string]float64{}}
	light := map[string][]inspection.Inspection{}
	for i := range 50 {
		v, s := inspection.VerdictPass, 100.0
		if i%3 == 0 {
			v, s = inspection.VerdictFail, 0
		}
		light[string(rune('A'+i%26))+string(rune('a'+i/26))] = []inspection.Inspection{insp(v, s, s)}
	}
	chosen := d.selectUncertain(50)(light)
	if !d.uniformFallback || len(d.pi) != 50 {
		t.Fatalf("fallback %v, %d probabilities", d.uniformFallback, len(d.pi))
	}
	for id, p := range d.pi {
		if p != 0.2 {
			t.Fatalf("pi of %s = %v, want 0.2 for every run", id, p)
		}
	}
	if len(chosen) == 0 || len(chosen) == 50 {
		t.Errorf("%d runs chosen of 50 at pi 0.2", len(chosen))
	}
	if in := d.inputs(); !strings.Contains(in.HowChosen, "fell back to uniform") || in.MinPi != 0.2 {
		t.Errorf("inputs %+v", in)
	}
	// With repeats that disagree on some runs, the policy is not uniform.
	d2 := design{policy: PolicyUncertain, subset: d.subset, n: 50, target: 10, pi: map[string]float64{}}
	for id, reps := range light {
		if id[0] == 'A' {
			light[id] = append(reps, insp(inspection.VerdictFail, 0, 0), insp(inspection.VerdictPass, 100, 100))
		}
	}
	d2.selectUncertain(50)(light)
	if d2.uniformFallback || d2.pi["Aa"] <= d2.pi["Ba"] {
		t.Errorf("split repeats: fallback %v, pi %v vs %v", d2.uniformFallback, d2.pi["Aa"], d2.pi["Ba"])
	}
}

// The stratified policy: strata by light verdict x system, every stratum
// at least 2 deep labels (or all its runs), the budget met, pi equal
// within a stratum, and the estimate section's stratified PPI++ valid
// while classical and PPI++ (which assume one uniform subset) are not
// when the strata's probabilities differ.
func TestStratifiedDeepSubset(t *testing.T) {
	cfg := builtinConfig()
	cfg.Subset = Subset{Fraction: 0.5, Policy: PolicyStratified, Seed: 5}
	rep := mustRun(t, cfg)
	strata := map[string][]float64{}
	deep := map[string]int{}
	system := map[string]string{}
	verdict := map[string]string{}
	for _, c := range rep.Comparisons {
		system[c.RunID], verdict[c.RunID] = c.System, c.LightVerdict
	}
	for _, l := range rep.LightOnly {
		system[l.RunID], verdict[l.RunID] = l.System, l.LightVerdict
	}
	total := 0
	for _, in := range rep.Inclusion {
		h := verdict[in.RunID] + " / " + system[in.RunID]
		if in.Pi == nil {
			t.Fatalf("%s: no pi", in.RunID)
		}
		strata[h] = append(strata[h], *in.Pi)
		if in.Deep {
			deep[h]++
			total++
		}
	}
	floors := 0
	for _, pis := range strata {
		floors += min(2, len(pis))
	}
	if want := max(floors, int(math.Round(0.5*float64(len(rep.Sample.Runs))))); total != want {
		t.Errorf("%d deep inspections in %d strata, want %d (the budget, or the floors when more)", total, len(strata), want)
	}
	for h, pis := range strata {
		for _, p := range pis {
			if p != pis[0] {
				t.Errorf("stratum %s: pi %v", h, pis)
				break
			}
		}
		if deep[h] < min(2, len(pis)) || math.Abs(pis[0]-float64(deep[h])/float64(len(pis))) > 1e-12 {
			t.Errorf("stratum %s: %d deep of %d, pi %v", h, deep[h], len(pis), pis[0])
		}
	}
	if rep.Inputs.DeepSubset == nil || rep.Inputs.DeepSubset.Policy != PolicyStratified || !strings.Contains(rep.Inputs.DeepSubset.HowChosen, "Neyman") {
		t.Errorf("inputs %+v", rep.Inputs.DeepSubset)
	}
	e := rep.Estimate
	if e == nil || e.PassRate.StratPPI == nil {
		t.Fatalf("no stratified estimate: %+v", e)
	}
	if len(strata) > 1 && e.PassRate.StratPPI.Reason != "" && !strings.HasPrefix(e.PassRate.StratPPI.Reason, "interval undefined") {
		t.Errorf("stratified PPI++: %q", e.PassRate.StratPPI.Reason)
	}
}

// With run --by, the stratified policy's strata are light verdict x the
// fields' values (here a metadata field splitting the runs in two, and
// the system left out): pi is equal within each such stratum, the inputs
// name the field, and the estimate's stratified PPI++ uses the same
// strata (it would find pi differing within light verdict x system).
func TestStratifiedDeepSubsetByField(t *testing.T) {
	runs, err := sampler.Discover([]string{corpus})
	if err != nil {
		t.Fatal(err)
	}
	half := map[string]string{}
	for i := range runs {
		runs[i].Metadata = inspection.Metadata{"half": []string{"a", "b"}[i%2]}
		half[runs[i].ID] = runs[i].Metadata["half"]
	}
	cfg := builtinConfig()
	cfg.Paths, cfg.Runs, cfg.By = nil, runs, []string{"half"}
	cfg.Subset = Subset{Fraction: 0.5, Policy: PolicyStratified, Seed: 5}
	rep := mustRun(t, cfg)
	verdict := map[string]string{}
	for _, c := range rep.Comparisons {
		verdict[c.RunID] = c.LightVerdict
	}
	for _, l := range rep.LightOnly {
		verdict[l.RunID] = l.LightVerdict
	}
	pis := map[string]map[float64]bool{}
	for _, in := range rep.Inclusion {
		h := verdict[in.RunID] + " / " + half[in.RunID]
		if pis[h] == nil {
			pis[h] = map[float64]bool{}
		}
		pis[h][*in.Pi] = true
	}
	for h, p := range pis {
		if len(p) != 1 {
			t.Errorf("stratum %s: pi %v", h, p)
		}
	}
	if d := rep.Inputs.DeepSubset; d == nil || !strings.Contains(d.HowChosen, "(light verdict x half)") ||
		!strings.Contains(d.HowChosen, fmt.Sprintf("each of %d strata", len(pis))) {
		t.Errorf("inputs %+v, %d strata", rep.Inputs.DeepSubset, len(pis))
	}
	sp := rep.Estimate.PassRate.StratPPI
	if sp == nil || strings.HasPrefix(sp.Reason, "not valid") {
		t.Errorf("stratified PPI++ by half: %+v", sp)
	}
}
