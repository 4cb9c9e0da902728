package calibrate

import (
	"strconv"
	"strings"
	"testing"

	"github.com/evalcal/evalcal/comparator"
	"github.com/evalcal/evalcal/inspection"
	"github.com/evalcal/evalcal/report"
	"github.com/evalcal/evalcal/statistician"
)

// pilot is a report of n paired runs, passes of them passing deep and
// matches of them agreeing.
func pilot(n, passes, matches int) *report.Report {
	rep := &report.Report{}
	for i := range n {
		c := comparator.Comparison{RunID: string(rune('a' + i%26)), DeepVerdict: inspection.VerdictFail, VerdictMatch: i < matches,
			Light: comparator.Scores{RuntimeFidelity: 30, TaskEffectiveness: 30}}
		if i < passes {
			c.DeepVerdict = inspection.VerdictPass
			c.Light = comparator.Scores{RuntimeFidelity: 80, TaskEffectiveness: 90}
		}
		rep.Comparisons = append(rep.Comparisons, c)
	}
	return rep
}

func TestPlanAnswersEveryQuestionFromThePilot(t *testing.T) {
	doc, err := Plan(pilot(40, 12, 36), PlanOptions{HalfWidth: 0.05, AgreementTarget: 80, LightRuns: 4000, Report: "p.yaml"}, "evalcal test")
	if err != nil {
		t.Fatal(err)
	}
	if *doc.Pilot.DeepPassRate != 0.3 || *doc.Pilot.AgreementPercent != 90 || doc.LightRuns != 4000 {
		t.Fatalf("pilot %+v light runs %d", doc.Pilot, doc.LightRuns)
	}
	// Classical at 0.3 over the 4000 runs: the smallest n whose
	// finite-population corrected Wilson half-width at 0.3 is at most
	// 0.05 (the normal approximation gives n0 = 1.96^2 0.21 / 0.0025 = 323
	// and Cochran's n0/(1 + (n0 - 1)/N) = 299).
	c := doc.DeepLabels[0]
	if c.Method != statistician.MethodClassical || c.N == nil {
		t.Fatalf("classical row %+v", c)
	}
	if h := statistician.WilsonHalfWidthOfRuns(0.3, *c.N, 4000, statistician.Z95); h > 0.05 || statistician.WilsonHalfWidthOfRuns(0.3, *c.N-1, 4000, statistician.Z95) <= 0.05 {
		t.Errorf("classical n %d is not the smallest with half-width <= 0.05", *c.N)
	}
	if *c.N < 290 || *c.N > 305 {
		t.Errorf("classical n %d, want about 299", *c.N)
	}
	// A light predictor that separates deep passes perfectly needs fewer
	// deep labels than deep alone.
	var ppi *PlanRow
	for i := range doc.DeepLabels {
		if doc.DeepLabels[i].Method == statistician.MethodPPI {
			ppi = &doc.DeepLabels[i]
		}
	}
	if ppi == nil || ppi.N == nil || *ppi.N >= *c.N {
		t.Errorf("ppi row %+v, want fewer deep inspections than classical's %d", ppi, *c.N)
	}
	// Agreement at 90% to clear 80%: the Wilson lower bound at n clears
	// 0.8 (with the successes rounded down).
	a := doc.Agreement
	if a.N == nil || a.Achieved == nil || *a.Achieved <= 80 {
		t.Fatalf("agreement row %+v", a)
	}
	iv, _ := statistician.WilsonInterval(int(0.9*float64(*a.N)), *a.N, statistician.Z95)
	if iv.Lower <= 0.8 {
		t.Errorf("at n = %d the lower bound is %v, not above 0.8", *a.N, iv.Lower)
	}
	if !strings.Contains(string(doc.Markdown()), "| classical | 0.3 | "+strconv.Itoa(*c.N)+" |") {
		t.Errorf("markdown:\n%s", doc.Markdown())
	}
}

func TestPlanRefusesBadOptionsAndAnEmptyPilot(t *testing.T) {
	for _, o := range []PlanOptions{{HalfWidth: 0, AgreementTarget: 80}, {HalfWidth: 1, AgreementTarget: 80},
		{HalfWidth: 0.05, AgreementTarget: 100}, {HalfWidth: 0.05, AgreementTarget: 80, LightRuns: -1}} {
		if _, err := Plan(pilot(10, 5, 5), o, ""); err == nil {
			t.Errorf("%+v accepted", o)
		}
	}
	if _, err := Plan(&report.Report{}, PlanOptions{HalfWidth: 0.05, AgreementTarget: 80}, ""); err == nil ||
		!strings.Contains(err.Error(), "no run with both depths") {
		t.Errorf("empty pilot: %v", err)
	}
}

// The plan recommends a Neyman allocation over light verdict x system
// from the pilot's deep labels, and --assurance asks for more labels.
func TestPlanAllocatesByStratumAndAssures(t *testing.T) {
	rep := &report.Report{}
	add := func(sys, lv string, deepPass bool, k int) {
		for i := range k {
			c := comparator.Comparison{RunID: sys + lv + strconv.Itoa(i), System: sys, LightVerdict: lv, DeepVerdict: inspection.VerdictFail,
				Light: comparator.Scores{RuntimeFidelity: 30, TaskEffectiveness: 30}}
			if lv == inspection.VerdictPass {
				c.Light = comparator.Scores{RuntimeFidelity: 80, TaskEffectiveness: 80}
			}
			if deepPass && i%2 == 0 || lv == inspection.VerdictPass && !deepPass {
				c.DeepVerdict = inspection.VerdictPass
			}
			c.VerdictMatch = (c.DeepVerdict == inspection.VerdictPass) == (lv == inspection.VerdictPass)
			rep.Comparisons = append(rep.Comparisons, c)
		}
	}
	add("a", inspection.VerdictPass, false, 30) // every deep label passes: sd 0
	add("a", inspection.VerdictFail, true, 20)  // half pass: sd about 0.5
	add("b", inspection.VerdictFail, false, 30) // none pass: sd 0
	doc, err := Plan(rep, PlanOptions{HalfWidth: 0.05, AgreementTarget: 60, LightRuns: 8000}, "evalcal test")
	if err != nil {
		t.Fatal(err)
	}
	al := doc.Allocation
	if al == nil || len(al.Strata) != 3 {
		t.Fatalf("allocation %+v", al)
	}
	sum := 0
	for _, r := range al.Strata {
		sum += r.N
		if r.SD == 0 && r.N != 2 {
			t.Errorf("stratum %s has no variance in the pilot: %d deep, want the floor 2", r.Stratum, r.N)
		}
	}
	if sum != al.N || al.Strata[0].Stratum != "fail / a" || al.Strata[0].N != al.N-4 || al.Strata[0].Runs != 2000 {
		t.Errorf("allocation %+v", al)
	}
	hi, err := Plan(rep, PlanOptions{HalfWidth: 0.05, AgreementTarget: 60, LightRuns: 8000, Assurance: 0.9}, "evalcal test")
	if err != nil {
		t.Fatal(err)
	}
	// The pilot's rate is 0.5: the classical plan cannot widen, PPI++'s does.
	last := len(doc.DeepLabels) - 1
	if *hi.DeepLabels[last].N <= *doc.DeepLabels[last].N || hi.Assurance != 0.9 || doc.Assurance != 0.5 || len(hi.Notes) == len(doc.Notes) {
		t.Errorf("assurance 0.9: %d labels against 0.5: %d", *hi.DeepLabels[last].N, *doc.DeepLabels[last].N)
	}
	if _, err := Plan(rep, PlanOptions{HalfWidth: 0.05, AgreementTarget: 60, Assurance: 1}, "t"); err == nil {
		t.Error("assurance 1 accepted")
	}
}
