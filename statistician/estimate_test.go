package statistician

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestClassicalRateHandWorked18Of30(t *testing.T) {
	y := make([]float64, 30)
	for i := range 18 {
		y[i] = 1
	}
	e := ClassicalRate(y, 0.95)
	// Wilson by hand (see TestWilsonIntervalWorkedCase18Of30): [0.4232, 0.7541];
	// SE = sqrt(0.6 * 0.4 / 30) = 0.0894427.
	if e.Reason != "" || e.Value != 0.6 || math.Abs(e.SE-0.0894427191) > 1e-9 ||
		math.Abs(e.CI.Lower-0.4232) > 1e-4 || math.Abs(e.CI.Upper-0.7541) > 1e-4 || e.EffectiveN != 30 {
		t.Errorf("ClassicalRate(18 of 30) = %+v", e)
	}
}

func TestClassicalRateRejectsNonBinaryLabels(t *testing.T) {
	e := ClassicalRate([]float64{1, 0, 0.5}, 0.95)
	if !strings.Contains(e.Reason, "y[2]") || e.Value != 0 {
		t.Errorf("got %+v", e)
	}
	if e := ClassicalRate(nil, 0.95); e.Reason == "" {
		t.Errorf("no labels: got %+v", e)
	}
}

func TestClassicalMeanHandWorked(t *testing.T) {
	// mean 2.5, s = sqrt(5/3) = 1.2909944, SE = 0.6454972,
	// t(0.975; 3) = 3.1824463 (tables), half = 2.0542603.
	e := ClassicalMean([]float64{1, 2, 3, 4}, 0.95)
	if e.Reason != "" || e.Value != 2.5 || math.Abs(e.SE-0.6454972244) > 1e-9 ||
		math.Abs(e.CI.Lower-(2.5-2.0542603)) > 1e-6 || math.Abs(e.CI.Upper-(2.5+2.0542603)) > 1e-6 {
		t.Errorf("ClassicalMean = %+v", e)
	}
	e = ClassicalMean([]float64{7, 7, 7}, 0.95)
	if e.Value != 7 || e.Reason == "" || e.CI != (Interval{}) {
		t.Errorf("constant labels: %+v", e)
	}
	for name, e := range map[string]Estimate{
		"one label": ClassicalMean([]float64{7}, 0.95),
		"NaN":       ClassicalMean([]float64{7, math.NaN()}, 0.95),
		"level":     ClassicalMean([]float64{7, 8}, 0),
	} {
		if e.Reason == "" || e.Value != 0 {
			t.Errorf("%s: %+v", name, e)
		}
	}
}

func TestPPIMeanHandWorked(t *testing.T) {
	// Folds: even positions y = (1, 1, 0), f = (0.9, 0.6, 0.4); odd
	// positions y = (0, 1), f = (0.2, 0.7). Var(fu) = 0.109167, and
	// n/N_u Var(fu) = 5/4 0.109167 = 0.136458.
	// lambda_0 (from the odd fold) = 0.25/(0.125 + 0.136458) = 0.956175;
	// lambda_1 (from the even fold) = 0.116667/(0.063333 + 0.136458) = 0.583942;
	// lambda_bar = (3 0.956175 + 2 0.583942)/5 = 0.807282.
	// r: even 0.139442, 0.426295, -0.382470 (mean 0.061089),
	//    odd -0.116788, 0.591241 (mean 0.237226);
	// theta = (3 0.061089 + 2 0.237226)/5 + 0.807282 0.475 = 0.515003.
	e := PPIMean([]float64{1, 0, 1, 1, 0}, []float64{0.9, 0.2, 0.6, 0.7, 0.4}, []float64{0.8, 0.1, 0.7, 0.3}, 0.95)
	if e.Reason != "" || math.Abs(*e.Lambda-0.807282) > 2e-6 || math.Abs(e.Value-0.515003) > 2e-6 {
		t.Errorf("PPIMean = %+v, lambda %v", e, *e.Lambda)
	}
}

// A perfect predictor leaves almost no rectifier variance: with
// a = Var(f)/n and b = Var(fu)/N_u the optimum of (1-l)^2 a + l^2 b is
// ab/(a+b), below both, at lambda = a/(a+b); cross-fitting tunes each
// fold on the other, so it lands close to, not exactly on, the optimum.
func TestPPIMeanPerfectPredictorCombinesBothVariances(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	y := make([]float64, 50)
	fu := make([]float64, 950)
	for i := range y {
		y[i] = float64(rng.IntN(2))
	}
	for i := range fu {
		fu[i] = float64(rng.IntN(2))
	}
	e := PPIMean(y, y, fu, 0.95)
	a, b := sampleVariance(y)/50, sampleVariance(fu)/950
	if math.Abs(*e.Lambda-a/(a+b)) > 0.01 || math.Abs(e.SE*e.SE/(a*b/(a+b))-1) > 0.01 {
		t.Errorf("lambda %v SE^2 %v, want about %v and %v", *e.Lambda, e.SE*e.SE, a/(a+b), a*b/(a+b))
	}
	if e.EffectiveN < 900 {
		t.Errorf("a perfect predictor over 1000 runs is worth %v labels, want about 1000", e.EffectiveN)
	}
}

func TestPPIMeanDegenerateInputs(t *testing.T) {
	y := []float64{1, 0, 1, 1, 0}
	fl := []float64{0.8, 0.3, 0.6, 0.9, 0.2}
	classical := ClassicalMean(y, 0.95)

	all := PPIMean(y, fl, nil, 0.95) // every run labelled
	if all.Reason != "" || *all.Lambda != 0 || all.Value != classical.Value || math.Abs(all.SE-classical.SE) > 1e-15 {
		t.Errorf("N_u = 0: %+v, want the classical mean %v with SE %v", all, classical.Value, classical.SE)
	}
	if one := PPIMean(y, fl, []float64{0.5}, 0.95); *one.Lambda != 0 || one.Value != classical.Value {
		t.Errorf("N_u = 1: %+v", one)
	}
	flat := PPIMean(y, []float64{0.5, 0.5, 0.5, 0.5, 0.5}, []float64{0.5, 0.5, 0.5}, 0.95)
	if *flat.Lambda != 0 || flat.Value != classical.Value {
		t.Errorf("Var(f) = 0: %+v", flat)
	}
	for name, e := range map[string]Estimate{
		"n < 2":         PPIMean([]float64{1}, []float64{0.5}, []float64{0.1, 0.2}, 0.95),
		"unequal":       PPIMean(y, fl[:4], []float64{0.1, 0.2}, 0.95),
		"NaN label":     PPIMean([]float64{1, math.NaN()}, []float64{0.5, 0.5}, []float64{0.1, 0.2}, 0.95),
		"Inf unlabeled": PPIMean(y, fl, []float64{0.1, math.Inf(1)}, 0.95),
		"bad level":     PPIMean(y, fl, []float64{0.1, 0.2}, 1),
	} {
		if e.Reason == "" || e.Value != 0 || e.SE != 0 || e.Lambda != nil {
			t.Errorf("%s: want a reason and no numbers, got %+v", name, e)
		}
	}
	same := PPIMean([]float64{1, 1, 1}, []float64{0.2, 0.5, 0.9}, []float64{0.1, 0.3}, 0.95)
	if same.Value != 1 || !strings.HasPrefix(same.Reason, "interval undefined") {
		t.Errorf("constant labels: %+v", same)
	}
}

// randomLabelledData draws n labelled and nu unlabelled runs whose
// prediction is a random linear function of the label plus noise, so
// that lambda falls anywhere, including outside [0, 1] before clipping.
func randomLabelledData(rng *rand.Rand, n, nu int) (y, fl, fu []float64) {
	slope := rng.Float64()*6 - 3
	noise := rng.Float64() * 0.5
	p := 0.05 + 0.9*rng.Float64()
	draw := func() (float64, float64) {
		yy := 0.0
		if rng.Float64() < p {
			yy = 1
		}
		return yy, slope*yy + noise*rng.NormFloat64()
	}
	y, fl, fu = make([]float64, n), make([]float64, n), make([]float64, nu)
	for i := range y {
		y[i], fl[i] = draw()
	}
	for i := range fu {
		_, fu[i] = draw()
	}
	return y, fl, fu
}

func TestPPIMeanProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	for trial := range 500 {
		n := 2 + rng.IntN(60)
		y, fl, fu := randomLabelledData(rng, n, rng.IntN(400))
		e := PPIMean(y, fl, fu, 0.95)
		if e.Reason != "" {
			if !strings.HasPrefix(e.Reason, "interval undefined") {
				t.Fatalf("trial %d: %q", trial, e.Reason)
			}
			continue
		}
		if l := *e.Lambda; !(l >= 0 && l <= 1) {
			t.Fatalf("trial %d: lambda %v outside [0, 1]", trial, l)
		}
		if !e.CI.Contains(e.Value) || !(e.SE > 0) || !(e.EffectiveN > 0) {
			t.Fatalf("trial %d: %+v", trial, e)
		}
	}
}

func TestIPWMeanWithEveryRunLabelledIsTheFullMean(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	f, y, pi, lab := make([]float64, 200), make([]float64, 200), make([]float64, 200), make([]bool, 200)
	for i := range f {
		y[i] = float64(rng.IntN(101))
		f[i] = y[i]*0.7 + 10*rng.NormFloat64()
		pi[i], lab[i] = 1, true
	}
	e := IPWMean(f, y, pi, lab, 0.95)
	c := ClassicalMean(y, 0.95)
	// The target is the mean over these runs: with every run labelled it
	// is known exactly.
	if !strings.HasPrefix(e.Reason, "exact") || math.Abs(e.Value-c.Value) > 1e-12 || e.SE != 0 || e.EffectiveN != 200 {
		t.Errorf("IPW with every run labelled: %+v, want the mean %v exactly", e, c.Value)
	}
	// One run unlabelled and a few labelled ones drawn with pi < 1: a
	// design variance again.
	lab[0] = false
	for i := range 10 {
		pi[i] = 0.5
	}
	if e := IPWMean(f, y, pi, lab, 0.95); e.Reason != "" {
		t.Errorf("one run unlabelled: %+v", e)
	}
}

// The finite-population estimators: every run labelled is exact, more
// labels than runs is refused, and the interval narrows by the factor the
// design says.
func TestOfRunsEstimatorsFiniteCorrection(t *testing.T) {
	y := []float64{1, 0, 1, 1, 0, 1, 0, 1, 1, 1}
	if e := ClassicalRateOfRuns(y, 10, 0.95); !strings.HasPrefix(e.Reason, "exact") || e.Value != 0.7 || e.SE != 0 {
		t.Errorf("rate, every run labelled: %+v", e)
	}
	if e := ClassicalRateOfRuns(y, 9, 0.95); !strings.HasPrefix(e.Reason, "invalid input") || e.Value != 0 {
		t.Errorf("rate, 10 labels of 9 runs: %+v", e)
	}
	big, small := ClassicalRate(y, 0.95), ClassicalRateOfRuns(y, 1_000_000, 0.95)
	if math.Abs(big.CI.Lower-small.CI.Lower) > 1e-5 || math.Abs(big.SE-small.SE) > 1e-5 {
		t.Errorf("a huge population should need no correction: %+v vs %+v", big, small)
	}
	s := []float64{52, 61, 70, 48, 66, 73, 59, 62}
	m, mr := ClassicalMean(s, 0.95), ClassicalMeanOfRuns(s, 32, 0.95)
	if f := math.Sqrt(1 - 8.0/32); math.Abs(mr.SE-m.SE*f) > 1e-12 || math.Abs((mr.CI.Upper-mr.CI.Lower)-(m.CI.Upper-m.CI.Lower)*f) > 1e-12 {
		t.Errorf("mean of 8 of 32 runs: %+v against %+v", mr, m)
	}
	if e := ClassicalMeanOfRuns(s, 8, 0.95); !strings.HasPrefix(e.Reason, "exact") || e.Value != m.Value {
		t.Errorf("mean, every run labelled: %+v", e)
	}
	if e := PPIMeanOfRuns(s, s, nil, 0.95); !strings.HasPrefix(e.Reason, "exact") || e.Value != m.Value {
		t.Errorf("PPI++, every run labelled: %+v", e)
	}
}

func TestIPWMeanIsShiftEquivariant(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	N := 300
	f, y, pi, lab := make([]float64, N), make([]float64, N), make([]float64, N), make([]bool, N)
	for i := range f {
		y[i] = float64(rng.IntN(2))
		f[i] = 0.3 + 0.3*y[i] + 0.2*rng.NormFloat64()
		pi[i] = 0.1 + 0.4*math.Exp(-8*(f[i]-0.5)*(f[i]-0.5))
		lab[i] = rng.Float64() < pi[i]
	}
	a := IPWMean(f, y, pi, lab, 0.95)
	for i := range f {
		f[i] += 10
		y[i] += 10
	}
	b := IPWMean(f, y, pi, lab, 0.95)
	if a.Reason != "" || math.Abs(b.Value-a.Value-10) > 1e-9 || math.Abs(b.SE-a.SE) > 1e-9 || math.Abs(*b.Lambda-*a.Lambda) > 1e-9 {
		t.Errorf("shifting y and f by 10: %+v then %+v", a, b)
	}
}

// Light's scores run below deep's (they are capped): a constant shift of
// f alone must not move the estimate.
func TestIPWMeanIgnoresAShiftOfThePredictions(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	N := 400
	f, y, pi, lab := make([]float64, N), make([]float64, N), make([]float64, N), make([]bool, N)
	for i := range f {
		y[i] = float64(rng.IntN(2))
		f[i] = 0.3 + 0.3*y[i] + 0.2*rng.NormFloat64()
		pi[i] = 0.2 + 0.6*rng.Float64()
		lab[i] = rng.Float64() < pi[i]
	}
	a := IPWMean(f, y, pi, lab, 0.95)
	for i := range f {
		f[i] -= 0.25
	}
	b := IPWMean(f, y, pi, lab, 0.95)
	if a.Reason != "" || *a.Lambda == 0 || math.Abs(b.Value-a.Value) > 1e-12 || math.Abs(b.SE-a.SE) > 1e-12 {
		t.Errorf("shifting f moved the estimate: %+v then %+v", a, b)
	}
}

func TestIPWMeanIgnoresUnlabelledLabelsAndRejectsBadInput(t *testing.T) {
	f := []float64{0.9, 0.2, 0.6, 0.8, 0.1}
	y := []float64{1, 0, 1, 0, 0}
	pi := []float64{0.5, 0.5, 0.25, 1, 0.5}
	lab := []bool{true, true, true, false, false}
	a := IPWMean(f, y, pi, lab, 0.95)
	y2 := []float64{1, 0, 1, math.NaN(), math.Inf(1)}
	b := IPWMean(f, y2, []float64{0.5, 0.5, 0.25, math.NaN(), 0}, lab, 0.95)
	if a.Reason != "" || a.Value != b.Value || a.SE != b.SE || *a.Lambda != *b.Lambda {
		t.Errorf("unlabelled slots (label and pi) changed the estimate: %+v vs %+v", a, b)
	}
	if a.NLabelled != 3 || a.NUnlabelled != 2 {
		t.Errorf("counts %+v", a)
	}
	for name, e := range map[string]Estimate{
		"pi = 0":       IPWMean(f, y, []float64{0.5, 0, 0.25, 1, 0.5}, lab, 0.95),
		"pi > 1":       IPWMean(f, y, []float64{0.5, 1.5, 0.25, 1, 0.5}, lab, 0.95),
		"NaN pi":       IPWMean(f, y, []float64{0.5, 0.5, math.NaN(), 1, 0.5}, lab, 0.95),
		"lengths":      IPWMean(f, y[:4], pi, lab, 0.95),
		"one label":    IPWMean(f, y, pi, []bool{true, false, false, false, false}, 0.95),
		"NaN f":        IPWMean([]float64{0.9, math.NaN(), 0.6, 0.8, 0.1}, y, pi, lab, 0.95),
		"NaN labelled": IPWMean(f, []float64{math.NaN(), 0, 1, 0, 0}, pi, lab, 0.95),
		"bad level":    IPWMean(f, y, pi, lab, 0),
	} {
		if e.Reason == "" || e.Value != 0 || e.Lambda != nil {
			t.Errorf("%s: want a reason and no numbers, got %+v", name, e)
		}
	}
}

func TestIPWMeanProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 10))
	for trial := range 300 {
		N := 20 + rng.IntN(500)
		f, y, pi, lab := make([]float64, N), make([]float64, N), make([]float64, N), make([]bool, N)
		slope := rng.Float64()*4 - 2
		for i := range f {
			y[i] = float64(rng.IntN(2))
			f[i] = slope*y[i] + rng.NormFloat64()*rng.Float64()
			pi[i] = 0.02 + 0.98*rng.Float64()
			lab[i] = rng.Float64() < pi[i]
		}
		e := IPWMean(f, y, pi, lab, 0.95)
		if e.Reason != "" {
			if !strings.HasPrefix(e.Reason, "insufficient data") && !strings.HasPrefix(e.Reason, "interval undefined") {
				t.Fatalf("trial %d: %q", trial, e.Reason)
			}
			continue
		}
		if l := *e.Lambda; !(l >= 0 && l <= 1) || !e.CI.Contains(e.Value) || !(e.SE > 0) {
			t.Fatalf("trial %d: %+v (lambda %v)", trial, e, *e.Lambda)
		}
	}
}

func TestEstimateClampTo(t *testing.T) {
	e := Estimate{Value: -0.01, CI: Interval{Lower: -0.05, Upper: 0.03}, SE: 0.02}
	c := e.ClampTo(0, 1)
	if c.Value != 0 || c.CI != (Interval{Lower: 0, Upper: 0.03}) || c.SE != 0.02 || !c.CI.Contains(c.Value) {
		t.Errorf("ClampTo = %+v", c)
	}
	bad := Estimate{Reason: "insufficient data"}
	if bad.ClampTo(0.5, 1) != bad {
		t.Errorf("an estimate without numbers changed")
	}
}
