package statistician

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
)

// estimateRefs is testdata/reference/estimate/estimate_values.json,
// written by estimate_ref.py there (Debian's numpy 1.24.2, scipy 1.10.1,
// statsmodels 0.13.5): the estimators re-implemented from the papers'
// formulas in numpy, each cross-checked inside the script by a second
// route (a numerical minimiser, a brute-force scan), and statsmodels or
// scipy where they implement the statistic. Every value names its tool,
// version and exact call.
type estimateRefs struct {
	PPI []struct {
		Name                                  string
		Y                                     []float64 `json:"y"`
		FLabelled                             []float64 `json:"f_labelled"`
		FUnlabelled                           []float64 `json:"f_unlabelled"`
		Level                                 float64
		Lambda, Value, SE, Lower, Upper, EffN refValue
		EffectiveN                            refValue `json:"effective_n"`
	} `json:"ppi"`
	PPIRuns []struct {
		Name        string
		Y           []float64 `json:"y"`
		FLabelled   []float64 `json:"f_labelled"`
		FUnlabelled []float64 `json:"f_unlabelled"`
		Level       float64
		normalRef   // lambda, value, se, lower, upper, effective_n
	} `json:"ppi_runs"`
	StratPPI []struct {
		Name   string
		Strata []struct {
			Y           []float64 `json:"y"`
			FLabelled   []float64 `json:"f_labelled"`
			FUnlabelled []float64 `json:"f_unlabelled"`
		}
		Level     float64
		Uniform   bool // StratPPIMeanOfRunsUniform; Pooled its choice
		Pooled    bool
		normalRef // lambda, value, se, lower, upper, effective_n
	} `json:"strat_ppi"`
	ClassicalRuns []struct {
		Name                    string
		Y                       []float64
		Runs                    int
		Level                   float64
		Rate                    bool
		Value, SE, Lower, Upper refValue
	} `json:"classical_runs"`
	IPW []struct {
		Name                            string
		F, Y, Pi                        []float64
		Labelled                        []bool
		Level                           float64
		Lambda, Value, SE, Lower, Upper refValue
		EffectiveN                      refValue `json:"effective_n"`
	} `json:"ipw"`
	RoganGladen []struct {
		Counts                          [4]int
		UnlabelledPass                  int `json:"unlabelled_pass"`
		UnlabelledN                     int `json:"unlabelled_n"`
		Sensitivity, Specificity, Value refValue
		YoudenJ                         refValue `json:"youden_j"`
	} `json:"rogan_gladen"`
	McNemar []struct {
		B, C         int
		P            refValue
		PStatsmodels refValue `json:"p_statsmodels"`
	} `json:"mcnemar"`
	Cluster []struct {
		Name                        string
		Y                           []bool
		Groups                      []string
		Level                       float64
		Value, SE, Lower, Upper, DF refValue
	} `json:"cluster"`
	Fleiss []struct {
		Name                    string
		Counts                  [][]int
		Level                   float64
		Kappa, SE, Lower, Upper refValue
		SENull                  refValue `json:"se_null"`
		PNull                   refValue `json:"p_null"`
	} `json:"fleiss"`
	PlanClassical []struct {
		Rate        float64
		HalfWidth   float64 `json:"half_width"`
		Level       float64
		N, Achieved refValue
	} `json:"plan_classical"`
	PlanPPI []struct {
		Name                string
		Y, F                []float64
		NLight              int     `json:"n_light"`
		HalfWidth           float64 `json:"half_width"`
		Level               float64
		Unreachable         bool
		N, Achieved, Lambda refValue
	} `json:"plan_ppi"`
	PlanClassicalRuns []struct {
		Rate        float64
		HalfWidth   float64 `json:"half_width"`
		Level       float64
		NRuns       int `json:"n_runs"`
		N, Achieved refValue
	} `json:"plan_classical_runs"`
	PlanPPIRuns []struct {
		Name                string
		Y, F                []float64
		NLight              int     `json:"n_light"`
		HalfWidth           float64 `json:"half_width"`
		Level               float64
		N, Achieved, Lambda refValue
	} `json:"plan_ppi_runs"`
	PlanPPIAssured []struct {
		Name                string
		Y, F                []float64
		NLight              int     `json:"n_light"`
		HalfWidth           float64 `json:"half_width"`
		Level               float64
		Assurance           float64
		OfRuns              bool `json:"of_runs"`
		N, Achieved, Lambda refValue
	} `json:"plan_ppi_assured"`
	PlanAgreement []struct {
		Rate, Target, Z float64
		N, Achieved     refValue
	} `json:"plan_agreement"`
}

var loadEstimateRefs = sync.OnceValues(func() (*estimateRefs, error) {
	path := filepath.Join("testdata", "reference", "estimate", "estimate_values.json")
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	var r estimateRefs
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("parse %s: %w", path, err)
	}
	return &r, nil
})

func estRefs(t *testing.T) *estimateRefs {
	t.Helper()
	r, err := loadEstimateRefs()
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// estTol is the tolerance against the numpy references: both sides sum
// the same few hundred terms in a different order.
const estTol = 1e-9

func TestPPIMeanMatchesNumpyReference(t *testing.T) {
	cases := estRefs(t).PPI
	if len(cases) < 5 {
		t.Fatalf("only %d PPI reference cases", len(cases))
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			e := PPIMean(c.Y, c.FLabelled, c.FUnlabelled, c.Level)
			if e.Reason != "" || e.Lambda == nil {
				t.Fatalf("PPIMean: %+v", e)
			}
			checkClose(t, "lambda", *e.Lambda, c.Lambda, estTol)
			checkClose(t, "value", e.Value, c.Value, estTol)
			checkClose(t, "SE", e.SE, c.SE, estTol)
			checkClose(t, "lower", e.CI.Lower, c.Lower, estTol)
			checkClose(t, "upper", e.CI.Upper, c.Upper, estTol)
			checkClose(t, "effective n", e.EffectiveN, c.EffectiveN, 1e-9*c.EffectiveN.Value)
			if e.NLabelled != len(c.Y) || e.NUnlabelled != len(c.FUnlabelled) || e.Method != MethodPPI {
				t.Errorf("counts or method wrong: %+v", e)
			}
		})
	}
}

func TestPPIMeanOfRunsMatchesNumpyReference(t *testing.T) {
	cases := estRefs(t).PPIRuns
	if len(cases) < 5 {
		t.Fatalf("only %d PPI reference cases", len(cases))
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			checkNormalRef(t, "PPIMeanOfRuns", PPIMeanOfRuns(c.Y, c.FLabelled, c.FUnlabelled, c.Level), c.normalRef)
		})
	}
}

func TestStratPPIMatchesNumpyReference(t *testing.T) {
	cases := estRefs(t).StratPPI
	if len(cases) < 4 {
		t.Fatalf("only %d StratPPI reference cases", len(cases))
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			var strata []Stratum
			for i, s := range c.Strata {
				strata = append(strata, Stratum{Name: fmt.Sprint(i), Y: s.Y, FLabelled: s.FLabelled, FUnlabelled: s.FUnlabelled})
			}
			if !c.Uniform {
				checkNormalRef(t, "StratPPIMeanOfRuns", StratPPIMeanOfRuns(strata, c.Level), c.normalRef)
				return
			}
			e := StratPPIMeanOfRunsUniform(strata, c.Level)
			if e.Pooled != c.Pooled || e.Method != MethodStratPPI {
				t.Errorf("pooled %v (method %q), want %v", e.Pooled, e.Method, c.Pooled)
			}
			checkNormalRef(t, "StratPPIMeanOfRunsUniform", e, c.normalRef)
		})
	}
}

// normalRef is a reference normal interval of an estimate for the runs.
type normalRef struct {
	Lambda, Value, SE, Lower, Upper refValue
	EffectiveN                      refValue `json:"effective_n"`
}

// checkNormalRef compares e, an estimate for the runs with a lambda, with
// the reference.
func checkNormalRef(t *testing.T, name string, e Estimate, c normalRef) {
	t.Helper()
	if e.Reason != "" || e.Lambda == nil || e.Target != TargetRuns {
		t.Fatalf("%s: %+v", name, e)
	}
	checkClose(t, "lambda", *e.Lambda, c.Lambda, estTol)
	checkClose(t, "value", e.Value, c.Value, estTol)
	checkClose(t, "SE", e.SE, c.SE, estTol)
	checkClose(t, "lower", e.CI.Lower, c.Lower, estTol)
	checkClose(t, "upper", e.CI.Upper, c.Upper, estTol)
	checkClose(t, "effective n", e.EffectiveN, c.EffectiveN, 1e-9*c.EffectiveN.Value)
}

func TestClassicalOfRunsMatchesScipyReference(t *testing.T) {
	cases := estRefs(t).ClassicalRuns
	if len(cases) < 6 {
		t.Fatalf("only %d classical reference cases", len(cases))
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			e := ClassicalMeanOfRuns(c.Y, c.Runs, c.Level)
			if c.Rate {
				e = ClassicalRateOfRuns(c.Y, c.Runs, c.Level)
			}
			if e.Reason != "" || e.Target != TargetRuns || e.EffectiveN != float64(len(c.Y)) {
				t.Fatalf("classical of runs: %+v", e)
			}
			checkClose(t, "value", e.Value, c.Value, estTol)
			checkClose(t, "SE", e.SE, c.SE, estTol)
			// The t quantile (tQuantile, an inverted incomplete beta) is
			// good to about 1e-9 relative (scipy's to 1e-15).
			tol := estTol
			if !c.Rate {
				tol = 1e-8
			}
			checkClose(t, "lower", e.CI.Lower, c.Lower, tol)
			checkClose(t, "upper", e.CI.Upper, c.Upper, tol)
		})
	}
}

func TestIPWMeanMatchesNumpyReference(t *testing.T) {
	cases := estRefs(t).IPW
	if len(cases) < 4 {
		t.Fatalf("only %d IPW reference cases", len(cases))
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			e := IPWMean(c.F, c.Y, c.Pi, c.Labelled, c.Level)
			if e.Reason != "" || e.Lambda == nil {
				t.Fatalf("IPWMean: %+v", e)
			}
			checkClose(t, "lambda", *e.Lambda, c.Lambda, estTol)
			checkClose(t, "value", e.Value, c.Value, estTol)
			checkClose(t, "SE", e.SE, c.SE, estTol)
			checkClose(t, "lower", e.CI.Lower, c.Lower, estTol)
			checkClose(t, "upper", e.CI.Upper, c.Upper, estTol)
			checkClose(t, "effective n", e.EffectiveN, c.EffectiveN, 1e-9*c.EffectiveN.Value)
			// An unlabelled run's pi is never read (issue 20: saved labels
			// record it on the labelled runs only).
			pi := slices.Clone(c.Pi)
			for i, l := range c.Labelled {
				if !l {
					pi[i] = math.NaN()
				}
			}
			if u := IPWMean(c.F, c.Y, pi, c.Labelled, c.Level); u.Value != e.Value || u.SE != e.SE || *u.Lambda != *e.Lambda {
				t.Errorf("with unlabelled pi unknown: %+v, want %+v", u, e)
			}
		})
	}
}

func TestRoganGladenPointMatchesReference(t *testing.T) {
	for _, c := range estRefs(t).RoganGladen {
		lab := PassCounts{BothPass: c.Counts[0], LightOnly: c.Counts[1], DeepOnly: c.Counts[2], NeitherPass: c.Counts[3]}
		r := RoganGladen(lab, c.UnlabelledPass, c.UnlabelledN, BootstrapOptions{Seed: 1})
		name := fmt.Sprintf("%v+%d/%d", c.Counts, c.UnlabelledPass, c.UnlabelledN)
		checkClose(t, name+" sensitivity", r.Sensitivity, c.Sensitivity, 1e-12)
		checkClose(t, name+" specificity", r.Specificity, c.Specificity, 1e-12)
		checkClose(t, name+" J", r.YoudenJ, c.YoudenJ, 1e-12)
		if r.Reason != "" {
			t.Errorf("%s: unexpected reason %q", name, r.Reason)
			continue
		}
		checkClose(t, name+" corrected rate", r.Value, c.Value, 1e-12)
		if !r.CI.Contains(r.Value) {
			t.Errorf("%s: interval %+v does not contain %v", name, r.CI, r.Value)
		}
	}
}

func TestMcNemarExactMatchesScipyAndStatsmodels(t *testing.T) {
	cases := estRefs(t).McNemar
	if len(cases) < 8 {
		t.Fatalf("only %d McNemar cases", len(cases))
	}
	for _, c := range cases {
		m := McNemarExact(c.B, c.C)
		name := fmt.Sprintf("McNemarExact(%d, %d).P", c.B, c.C)
		checkClose(t, name, m.P, c.P, 1e-12)
		checkClose(t, name, m.P, c.PStatsmodels, 1e-12)
	}
}

func TestCR1ProportionMatchesStatsmodels(t *testing.T) {
	for _, c := range estRefs(t).Cluster {
		t.Run(c.Name, func(t *testing.T) {
			r := cr1Proportion(c.Y, c.Groups, c.Level)
			if r.Reason != "" {
				t.Fatalf("reason %q", r.Reason)
			}
			checkClose(t, "value", r.Value, c.Value, 1e-12)
			checkClose(t, "SE", r.SE, c.SE, 1e-12)
			// statsmodels does not clamp the interval to [0, 1]; we do.
			c.Lower.Value, c.Upper.Value = clamp01(c.Lower.Value), clamp01(c.Upper.Value)
			checkClose(t, "lower", r.CI.Lower, c.Lower, 1e-9)
			checkClose(t, "upper", r.CI.Upper, c.Upper, 1e-9)
			checkClose(t, "df", float64(r.DF), c.DF, 0)
		})
	}
}

func TestFleissKappaMatchesStatsmodelsAndGwet(t *testing.T) {
	for _, c := range estRefs(t).Fleiss {
		t.Run(c.Name, func(t *testing.T) {
			r := FleissKappa(c.Counts, c.Level)
			if r.Reason != "" {
				t.Fatalf("reason %q", r.Reason)
			}
			checkClose(t, "kappa", r.Value, c.Kappa, 1e-12)
			checkClose(t, "SE", r.SE, c.SE, 1e-12)
			checkClose(t, "lower", r.CI.Lower, c.Lower, 1e-9)
			checkClose(t, "upper", r.CI.Upper, c.Upper, 1e-9)
			checkClose(t, "SE under the null", r.SENull, c.SENull, 1e-12)
			checkClose(t, "p under the null", r.P, c.PNull, 1e-12)
		})
	}
}

// checkScanPlan checks a plan against a reference scan's smallest n and
// the half-width (or agreement bound) it achieves.
func checkScanPlan(t *testing.T, name string, p Plan, n, achieved refValue) {
	t.Helper()
	if p.Reason != "" {
		t.Errorf("%s: reason %q", name, p.Reason)
		return
	}
	checkClose(t, name+".N", float64(p.N), n, 0)
	checkClose(t, name+".Achieved", p.Achieved, achieved, 1e-12)
}

func TestPlanClassicalRateMatchesStatsmodelsScan(t *testing.T) {
	for _, c := range estRefs(t).PlanClassical {
		p := PlanClassicalRate(c.Rate, c.HalfWidth, c.Level)
		name := fmt.Sprintf("PlanClassicalRate(%v, %v, %v)", c.Rate, c.HalfWidth, c.Level)
		checkScanPlan(t, name, p, c.N, c.Achieved)
	}
}

func TestPlanPPIRateMatchesNumpyScan(t *testing.T) {
	for _, c := range estRefs(t).PlanPPI {
		t.Run(c.Name, func(t *testing.T) {
			p := PlanPPIRate(c.Y, c.F, c.NLight, c.HalfWidth, c.Level)
			if c.Unreachable {
				if p.Reason == "" || p.N != 0 {
					t.Errorf("want unreachable, got %+v", p)
				}
				checkClose(t, "best half-width", p.Achieved, c.Achieved, 1e-12)
				return
			}
			if p.Reason != "" || p.Lambda == nil {
				t.Fatalf("plan %+v", p)
			}
			checkClose(t, "N", float64(p.N), c.N, 0)
			checkClose(t, "achieved", p.Achieved, c.Achieved, 1e-12)
			checkClose(t, "lambda", *p.Lambda, c.Lambda, 1e-12)
		})
	}
}

func TestPlanClassicalRateOfRunsMatchesStatsmodelsScan(t *testing.T) {
	cases := estRefs(t).PlanClassicalRuns
	if len(cases) < 6 {
		t.Fatalf("only %d reference cases", len(cases))
	}
	for _, c := range cases {
		p := PlanClassicalRateOfRuns(c.Rate, c.HalfWidth, c.Level, c.NRuns)
		name := fmt.Sprintf("PlanClassicalRateOfRuns(%v, %v, %v, %d)", c.Rate, c.HalfWidth, c.Level, c.NRuns)
		checkScanPlan(t, name, p, c.N, c.Achieved)
	}
}

func TestPlanPPIRateOfRunsMatchesNumpyScan(t *testing.T) {
	cases := estRefs(t).PlanPPIRuns
	if len(cases) < 4 {
		t.Fatalf("only %d reference cases", len(cases))
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			p := PlanPPIRateOfRuns(c.Y, c.F, c.NLight, c.HalfWidth, c.Level)
			if p.Reason != "" || p.Lambda == nil {
				t.Fatalf("plan %+v", p)
			}
			checkClose(t, "N", float64(p.N), c.N, 0)
			checkClose(t, "achieved", p.Achieved, c.Achieved, 1e-10)
			checkClose(t, "lambda", *p.Lambda, c.Lambda, 1e-12)
		})
	}
}

// The assured PPI++ plans against a scipy scan with scipy.stats.f.ppf and
// scipy.stats.kurtosis (plan_ppi_assured_ref); the achieved half-width to
// 1e-9, gonum's F quantile (an inverted incomplete beta) being good to
// about that.
func TestPlanPPIRateAssuredMatchesScipyScan(t *testing.T) {
	cases := estRefs(t).PlanPPIAssured
	if len(cases) < 4 {
		t.Fatalf("only %d reference cases", len(cases))
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			p := PlanPPIRateAssured(c.Y, c.F, c.NLight, c.HalfWidth, c.Level, c.Assurance)
			if c.OfRuns {
				p = PlanPPIRateAssuredOfRuns(c.Y, c.F, c.NLight, c.HalfWidth, c.Level, c.Assurance)
			}
			if p.Reason != "" || p.Lambda == nil {
				t.Fatalf("plan %+v", p)
			}
			checkClose(t, "N", float64(p.N), c.N, 0)
			checkClose(t, "achieved", p.Achieved, c.Achieved, 1e-9)
			checkClose(t, "lambda", *p.Lambda, c.Lambda, 1e-12)
		})
	}
}

func TestPlanAgreementMatchesStatsmodelsScan(t *testing.T) {
	for _, c := range estRefs(t).PlanAgreement {
		p := PlanAgreement(c.Rate, c.Target, c.Z)
		name := fmt.Sprintf("PlanAgreement(%v, %v, %v)", c.Rate, c.Target, c.Z)
		checkScanPlan(t, name, p, c.N, c.Achieved)
	}
}
