package aggregate

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalcal/evalcal/comparator"
	"github.com/evalcal/evalcal/inspection"
	"github.com/evalcal/evalcal/statistician"
)

// robustComps builds comparisons from (light, deep) verdict pairs, run ids
// r0, r1, ...
func robustComps(pairs ...[2]string) []comparator.Comparison {
	out := make([]comparator.Comparison, 0, len(pairs))
	for i, p := range pairs {
		out = append(out, comparator.Comparison{RunID: "r" + string(rune('0'+i)), System: "s",
			LightVerdict: p[0], DeepVerdict: p[1], VerdictMatch: p[0] == p[1]})
	}
	return out
}

func near(t *testing.T, name string, got *float64, want float64) {
	t.Helper()
	if got == nil {
		t.Errorf("%s = null, want %.9g", name, want)
		return
	}
	if math.Abs(*got-want) > 1e-12 {
		t.Errorf("%s = %.15g, want %.15g", name, *got, want)
	}
}

// wilson is the Wilson score interval written out (Wilson 1927), for the
// class-wise rates.
func wilson(k, n int) (float64, float64) {
	const z = 1.959963984540054
	p, nf := float64(k)/float64(n), float64(n)
	c := (p + z*z/(2*nf)) / (1 + z*z/nf)
	h := z * math.Sqrt(p*(1-p)/nf+z*z/(4*nf*nf)) / (1 + z*z/nf)
	return c - h, c + h
}

// Four runs (light, deep): (pass, pass), (pass, fail), (fail, fail),
// (partial, pass), coded 2, 0, 1. Worked by hand:
//
// Values n = 8 with n_fail = 3, n_partial = 1, n_pass = 4.
// Nominal: D_o = 4 unequal ordered pairs / 8 = 1/2; D_e = (64 - 26)/(8*7) =
// 19/28; alpha = 1 - 14/19 = 5/19.
// Ordinal: mid-ranks 1.5, 3.5, 6, so delta^2 is 4 (fail-partial), 20.25
// (fail-pass), 6.25 (partial-pass); D_o = 2 (20.25 + 6.25) / 8 = 6.625;
// D_e = 2 (3*4 + 12*20.25 + 4*6.25) / 56 = 10; alpha = 0.3375.
// AC1 (q = 3): pa = (1 + 0 + 1 + 0)/4 = 1/2; pi = (3/8, 1/8, 1/2); pe =
// (15/64 + 7/64 + 16/64)/2 = 19/64; AC1 = (13/64)/(45/64) = 13/45. Its
// linearised deviations ac1*_i - AC1 are (1632, -1376, 1376, -1632)/2025,
// so SE^2 = 2 (1632^2 + 1376^2) / 2025^2 / (4*3).
// Pass line: both pass 1, light only 1, deep only 1, neither 1: Se = Sp =
// 1/2, BA = 1/2, base rate 2/4.
func TestRobustAgreementHandWorked(t *testing.T) {
	cs := robustComps(
		[2]string{inspection.VerdictPass, inspection.VerdictPass},
		[2]string{inspection.VerdictPass, inspection.VerdictFail},
		[2]string{inspection.VerdictFail, inspection.VerdictFail},
		[2]string{inspection.VerdictPartial, inspection.VerdictPass},
	)
	r := ComputeAll(Input{Comparisons: cs}, DefaultOptions()).AgreementRobust
	if r.Units != 4 || r.Ratings != 8 {
		t.Errorf("units %d ratings %d, want 4 and 8", r.Units, r.Ratings)
	}
	near(t, "alpha nominal", r.AlphaNominal.Value, 5.0/19)
	near(t, "alpha nominal D_o", r.AlphaNominal.Observed, 0.5)
	near(t, "alpha nominal D_e", r.AlphaNominal.Expected, 19.0/28)
	near(t, "alpha ordinal", r.AlphaOrdinal.Value, 0.3375)
	near(t, "alpha ordinal D_e", r.AlphaOrdinal.Expected, 10)
	near(t, "ac1", r.AC1.Value, 13.0/45)
	near(t, "ac1 pe", r.AC1.ChanceAgreement, 19.0/64)
	near(t, "ac1 se", r.AC1.SE, math.Sqrt(2*(1632.0*1632+1376.0*1376)/(2025.0*2025)/12))
	if r.AC1.Categories != 3 || r.AC1.CI95 == nil || r.AC1.Reason != "" {
		t.Errorf("ac1 = %+v, want 3 categories and an interval", r.AC1)
	}
	cw := r.ClassWise
	near(t, "sensitivity", cw.Sensitivity.Value, 0.5)
	near(t, "specificity", cw.Specificity.Value, 0.5)
	near(t, "balanced accuracy", cw.BalancedAccuracy, 0.5)
	near(t, "base rate", cw.BaseRate.Value, 0.5)
	lo, hi := wilson(1, 2)
	if iv := cw.Sensitivity.Wilson95; iv == nil || math.Abs(iv.Lower-lo) > 1e-9 || math.Abs(iv.Upper-hi) > 1e-9 {
		t.Errorf("sensitivity interval %+v, want [%v, %v]", iv, lo, hi)
	}
	lo, hi = wilson(2, 4)
	if iv := cw.BaseRate.Wilson95; iv == nil || math.Abs(iv.Lower-lo) > 1e-9 || math.Abs(iv.Upper-hi) > 1e-9 {
		t.Errorf("base rate interval %+v, want [%v, %v]", iv, lo, hi)
	}
	if cw.Sensitivity.N != 2 || cw.Specificity.N != 2 || cw.BaseRate.N != 4 {
		t.Errorf("class sizes %d, %d, %d; want 2, 2, 4", cw.Sensitivity.N, cw.Specificity.N, cw.BaseRate.N)
	}
}

// Repeats replace a side's paired verdict and leave the other rows short
// (missing values). Run r0 has light repeats (pass, pass, fail) and no deep
// repeat, so its row is (2, 2, 0, 2); run r1 is (fail, fail) = (0, 0).
// Values n = 6, three of each used verdict. Nominal: unit r0 has 2*3*1 = 6
// unequal ordered pairs over m - 1 = 3, so D_o = 2/6; D_e = (36 - 18)/30 =
// 3/5; alpha = 4/9. With two values the ordinal delta^2 is a constant
// (mid-ranks 1.5 and 4.5), so ordinal alpha is 4/9 too. AC1: pa = (6/12 +
// 1)/2 = 3/4; pi = (5/8, 0, 3/8); pe = 2 (15/64)/2 = 15/64; AC1 =
// (33/64)/(49/64) = 33/49.
func TestRobustAgreementRepeatsAreRaters(t *testing.T) {
	cs := robustComps(
		[2]string{inspection.VerdictPass, inspection.VerdictPass},
		[2]string{inspection.VerdictFail, inspection.VerdictFail},
	)
	reps := []RunRepeats{{RunID: "r0", Light: []Repeat{
		{Verdict: inspection.VerdictPass}, {Verdict: inspection.VerdictPass}, {Verdict: inspection.VerdictFail}}}}
	r := ComputeAll(Input{Comparisons: cs, Repeats: reps}, DefaultOptions()).AgreementRobust
	if r.Units != 2 || r.Ratings != 6 {
		t.Errorf("units %d ratings %d, want 2 and 6", r.Units, r.Ratings)
	}
	near(t, "alpha nominal", r.AlphaNominal.Value, 4.0/9)
	near(t, "alpha ordinal", r.AlphaOrdinal.Value, 4.0/9)
	near(t, "ac1", r.AC1.Value, 33.0/49)
	near(t, "ac1 pa", r.AC1.PercentAgreement, 0.75)
}

// Undefined figures are null with a reason, never 0.
func TestRobustAgreementUndefinedIsNull(t *testing.T) {
	r := ComputeAll(Input{}, DefaultOptions()).AgreementRobust
	if r.AlphaNominal.Value != nil || r.AlphaNominal.Reason == "" || r.AC1.Value != nil || r.AC1.Reason == "" ||
		r.ClassWise.BalancedAccuracy != nil || r.ClassWise.BaseRate.Value != nil || r.ClassWise.Reason == "" {
		t.Errorf("no runs: %+v, want null figures with reasons", r)
	}
	// Every run passed by both: alpha has no variation, specificity has no
	// class; AC1 is defined (1) and the sensitivity is 1.
	cs := robustComps([2]string{inspection.VerdictPass, inspection.VerdictPass}, [2]string{inspection.VerdictPass, inspection.VerdictPass})
	r = ComputeAll(Input{Comparisons: cs}, DefaultOptions()).AgreementRobust
	if r.AlphaOrdinal.Value != nil || r.AlphaOrdinal.Reason == "" {
		t.Errorf("alpha with one value = %+v, want null with a reason", r.AlphaOrdinal)
	}
	near(t, "ac1 all pass", r.AC1.Value, 1)
	near(t, "sensitivity all pass", r.ClassWise.Sensitivity.Value, 1)
	if r.ClassWise.Specificity.Value != nil || r.ClassWise.Specificity.Reason == "" || r.ClassWise.BalancedAccuracy != nil {
		t.Errorf("class-wise all pass = %+v, want specificity and balanced accuracy null", r.ClassWise)
	}
}

// The agreement_robust figures of the 30 reference runs equal
// testdata/robust_reference.json, written by testdata/robust_reference.py
// (numpy from the papers' formulas, sklearn, statsmodels).
func TestRobustAgreementMatchesReference(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "robust_reference.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ref struct {
		AlphaNominal      float64    `json:"alpha_nominal"`
		AlphaOrdinal      float64    `json:"alpha_ordinal"`
		AC1               float64    `json:"ac1"`
		Sensitivity       float64    `json:"sensitivity"`
		SensitivityWilson [2]float64 `json:"sensitivity_wilson95"`
		Specificity       float64    `json:"specificity"`
		SpecificityWilson [2]float64 `json:"specificity_wilson95"`
		BalancedAccuracy  float64    `json:"balanced_accuracy"`
		BaseRate          float64    `json:"base_rate"`
		BaseRateWilson95  [2]float64 `json:"base_rate_wilson95"`
	}
	if err := json.Unmarshal(data, &ref); err != nil {
		t.Fatal(err)
	}
	r := ComputeAll(Input{Comparisons: referenceRuns(t)}, DefaultOptions()).AgreementRobust
	near9 := func(name string, got *float64, want float64) {
		t.Helper()
		if got == nil || math.Abs(*got-want) > 1e-9 {
			t.Errorf("%s = %v, want %.12g", name, got, want)
		}
	}
	interval := func(name string, p Proportion, want [2]float64) {
		t.Helper()
		if p.Wilson95 == nil || math.Abs(p.Wilson95.Lower-want[0]) > 1e-9 || math.Abs(p.Wilson95.Upper-want[1]) > 1e-9 {
			t.Errorf("%s interval = %+v, want %v", name, p.Wilson95, want)
		}
	}
	near9("alpha nominal", r.AlphaNominal.Value, ref.AlphaNominal)
	near9("alpha ordinal", r.AlphaOrdinal.Value, ref.AlphaOrdinal)
	near9("ac1", r.AC1.Value, ref.AC1)
	near9("sensitivity", r.ClassWise.Sensitivity.Value, ref.Sensitivity)
	near9("specificity", r.ClassWise.Specificity.Value, ref.Specificity)
	near9("balanced accuracy", r.ClassWise.BalancedAccuracy, ref.BalancedAccuracy)
	near9("base rate", r.ClassWise.BaseRate.Value, ref.BaseRate)
	interval("sensitivity", r.ClassWise.Sensitivity, ref.SensitivityWilson)
	interval("specificity", r.ClassWise.Specificity, ref.SpecificityWilson)
	interval("base rate", r.ClassWise.BaseRate, ref.BaseRateWilson95)
}

// When light gives one verdict on every run (deep varies), kappa is 0 by
// construction with an interval [0, 0]: it is undefined with the reason,
// not a figure that reads as certain (issue 28); raw agreement stays.
func TestKappaUndefinedWhenLightGivesOneVerdict(t *testing.T) {
	var cs []comparator.Comparison
	for i, dv := range []string{"pass", "pass", "fail", "partial", "pass", "fail"} {
		cs = append(cs, comparator.Comparison{RunID: "r" + string(rune('0'+i)), System: "s", LightVerdict: "pass", DeepVerdict: dv})
	}
	_, k := verdictAgreement(cs)
	for name, kap := range map[string]statistician.Kappa{"unweighted": k.Unweighted, "linear": k.Linear, "quadratic": k.Quadratic} {
		if !strings.Contains(kap.Reason, "light gave one verdict (pass) on every run") || kap.N != 6 || kap.CI95 != (statistician.Interval{}) {
			t.Errorf("%s kappa %+v, want undefined naming light's single verdict", name, kap)
		}
	}
	if k.RawAgreement != 0.5 {
		t.Errorf("raw agreement %v, want 3/6", k.RawAgreement)
	}
	// Both sides varying: kappa is defined.
	cs[0].LightVerdict = "fail"
	if _, k := verdictAgreement(cs); k.Linear.Reason != "" {
		t.Errorf("kappa with both sides varying: %+v", k.Linear)
	}
}
