package statistician

import (
	"math"
	"testing"
)

// robustRefs is testdata/reference/robust/robust_values.json, written by
// robust_ref.py there (Debian's numpy 1.24.2, scipy 1.10.1, statsmodels
// 0.13.5): CR2 with Bell-McCaffrey degrees of freedom from the general
// matrix formulas, statsmodels' CR1 and HC3 fits, and the cluster-robust
// PPI++ from influence functions; each value names its tool and call.
type robustRefs struct {
	ClusterMean []struct {
		Name                       string
		Y                          []float64
		Groups                     []string
		Level                      float64
		Mean, SE, DF, Lower, Upper refValue
		SEClubSandwich             *refValue `json:"se_clubsandwich"`
		DFClubSandwich             *refValue `json:"df_clubsandwich"`
		Agreement                  *struct {
			EffectiveN   refValue `json:"effective_n"`
			Lower, Upper refValue
		}
		CR1 *struct{ SE, Lower, Upper, DF refValue } `json:"cr1"`
	} `json:"cluster_mean"`
	ClusterPPI []struct {
		Name                                string
		Tune                                bool
		F, Y                                []float64
		Labelled                            []bool
		Groups                              []string
		Level                               float64
		Lambda, Value, SE, Lower, Upper, DF refValue
		EffectiveN                          refValue `json:"effective_n"`
	} `json:"cluster_ppi"`
	HC3  []hc3Ref `json:"hc3"`
	Bias struct {
		Runs []struct {
			LightScore float64 `json:"light_score"`
			DeepScore  float64 `json:"deep_score"`
			LightPass  bool    `json:"light_pass"`
			DeepPass   bool    `json:"deep_pass"`
			Length     float64
			SameFamily bool `json:"same_family"`
			Slice      string
		}
		ScoreGap hc3Ref `json:"score_gap"`
		Leniency hc3Ref
	}
}

type hc3Ref struct {
	Name         string
	X            [][]float64
	Y            []float64
	Names        []string
	Level        float64
	DF           int
	Coefficients []struct {
		Name                             string
		Estimate, SE, T, P, Lower, Upper refValue
	}
}

var loadRobustRefs = refFile[robustRefs]("robust", "robust_values.json")

func robRefs(t *testing.T) *robustRefs { return mustRefs(t, loadRobustRefs) }

// scipyTTol is the tolerance for interval bounds statsmodels computes
// with scipy 1.10's t.ppf, accurate to about 1e-8 relative only (R's qt
// and gonum agree to 1e-15 where scipy is off by 8e-9 at 39 df), times
// the standard error.
func scipyTTol(se float64) float64 { return 2e-8 * math.Max(se, 1e-3) }

func TestClusterRobustMeanMatchesCR2Reference(t *testing.T) {
	cases := robRefs(t).ClusterMean
	if len(cases) < 6 {
		t.Fatalf("only %d cases", len(cases))
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			r := ClusterRobustMean(c.Y, c.Groups, c.Level)
			if r.Reason != "" || r.Method != MethodCR2BM {
				t.Fatalf("%+v", r)
			}
			checkClose(t, "mean", r.Value, c.Mean, 1e-12)
			checkClose(t, "SE", r.SE, c.SE, 1e-12)
			checkClose(t, "df", r.DF, c.DF, 1e-9*c.DF.Value)
			checkClose(t, "lower", r.CI.Lower, c.Lower, 1e-9)
			checkClose(t, "upper", r.CI.Upper, c.Upper, 1e-9)
			if c.SEClubSandwich != nil {
				checkClose(t, "SE against clubSandwich", r.SE, *c.SEClubSandwich, 1e-9)
				checkClose(t, "df against clubSandwich", r.DF, *c.DFClubSandwich, 1e-6)
			}
			if c.Agreement == nil {
				return
			}
			matches := make([]bool, len(c.Y))
			for i, v := range c.Y {
				matches[i] = v == 1
			}
			a := ClusterRobustAgreement(matches, c.Groups, c.Level)
			if a.Reason != "" || a.Method != MethodCR2BMWilson {
				t.Fatalf("agreement: %+v", a)
			}
			checkClose(t, "effective n", a.EffectiveN, c.Agreement.EffectiveN, 1e-9*c.Agreement.EffectiveN.Value)
			checkClose(t, "agreement lower", a.CI.Lower, c.Agreement.Lower, 1e-9)
			checkClose(t, "agreement upper", a.CI.Upper, c.Agreement.Upper, 1e-9)
			// The CR1 reference: statsmodels, through ClusterClassicalMean.
			cl := ClusterClassicalMean(c.Y, c.Groups, c.Level)
			checkClose(t, "CR1 SE", cl.SE, c.CR1.SE, 1e-12)
			checkClose(t, "CR1 df", cl.DF, c.CR1.DF, 0)
			checkClose(t, "CR1 lower", cl.CI.Lower, c.CR1.Lower, scipyTTol(cl.SE))
			checkClose(t, "CR1 upper", cl.CI.Upper, c.CR1.Upper, scipyTTol(cl.SE))
		})
	}
}

func TestClusterPPIMeanMatchesReference(t *testing.T) {
	cases := robRefs(t).ClusterPPI
	if len(cases) < 6 {
		t.Fatalf("only %d cases", len(cases))
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			var e ClusteredEstimate
			if c.Tune {
				e = ClusterPPIMean(c.F, c.Y, c.Labelled, c.Groups, c.Level)
			} else {
				e = ClusterClassicalMean(c.Y, c.Groups, c.Level)
			}
			if e.Reason != "" {
				t.Fatalf("reason %q", e.Reason)
			}
			lambda := 0.0
			if e.Lambda != nil {
				lambda = *e.Lambda
			}
			checkClose(t, "lambda", lambda, c.Lambda, 1e-9)
			checkClose(t, "value", e.Value, c.Value, 1e-12)
			checkClose(t, "SE", e.SE, c.SE, 1e-12)
			checkClose(t, "df", e.DF, c.DF, 0)
			checkClose(t, "lower", e.CI.Lower, c.Lower, 1e-9)
			checkClose(t, "upper", e.CI.Upper, c.Upper, 1e-9)
			checkClose(t, "effective n", e.EffectiveN, c.EffectiveN, 1e-9*c.EffectiveN.Value)
		})
	}
}

func TestOLSHC3MatchesStatsmodels(t *testing.T) {
	for _, c := range robRefs(t).HC3 {
		t.Run(c.Name, func(t *testing.T) {
			checkHC3(t, OLSHC3(c.X, c.Y, c.Names, c.Level), c)
		})
	}
}

func TestBiasRegressionMatchesStatsmodels(t *testing.T) {
	ref := robRefs(t).Bias
	runs := make([]BiasRun, len(ref.Runs))
	for i, r := range ref.Runs {
		runs[i] = BiasRun{LightScore: r.LightScore, DeepScore: r.DeepScore, LightPass: r.LightPass, DeepPass: r.DeepPass,
			Length: r.Length, SameFamily: r.SameFamily, Slice: r.Slice}
	}
	b := BiasRegression(runs, 0.95)
	if b.ReferenceSlice != "alpha" || len(b.Omitted) != 0 {
		t.Errorf("reference slice %q, omitted %v", b.ReferenceSlice, b.Omitted)
	}
	checkHC3(t, b.ScoreGap, ref.ScoreGap)
	checkHC3(t, b.Leniency, ref.Leniency)
}

func checkHC3(t *testing.T, r Regression, c hc3Ref) {
	t.Helper()
	if r.Reason != "" {
		t.Fatalf("%s: reason %q", c.Name, r.Reason)
	}
	if r.DF != c.DF || len(r.Coefficients) != len(c.Coefficients) {
		t.Fatalf("%s: df %d with %d coefficients, want %d and %d", c.Name, r.DF, len(r.Coefficients), c.DF, len(c.Coefficients))
	}
	for j, want := range c.Coefficients {
		got := r.Coefficients[j]
		if got.Name != want.Name {
			t.Errorf("%s: coefficient %d is %q, want %q", c.Name, j, got.Name, want.Name)
		}
		what := c.Name + " " + want.Name
		checkClose(t, what+" estimate", got.Estimate, want.Estimate, 1e-9)
		checkClose(t, what+" SE", got.SE, want.SE, 1e-9)
		checkClose(t, what+" t", got.T, want.T, 1e-9*math.Max(1, math.Abs(want.T.Value)))
		checkClose(t, what+" p", got.P, want.P, 1e-9)
		checkClose(t, what+" lower", got.CI.Lower, want.Lower, scipyTTol(got.SE))
		checkClose(t, what+" upper", got.CI.Upper, want.Upper, scipyTTol(got.SE))
	}
}
