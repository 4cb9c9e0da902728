package main

import (
	"encoding/json"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/evalcal/evalcal/report"
)

// refScore is one score's reference values (report_ref.py).
type refScore struct {
	PearsonR, PearsonP, PearsonLower, PearsonUpper float64
	SpearmanRho                                    float64
	MeanDelta, MeanDeltaLower, MeanDeltaUpper      float64
	BABias, BASD, BALowerLoA, BAUpperLoA           float64
}

func (r *refScore) UnmarshalJSON(b []byte) error {
	var m map[string]float64
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	*r = refScore{m["pearson_r"], m["pearson_p"], m["pearson_lower"], m["pearson_upper"], m["spearman_rho"],
		m["mean_delta"], m["mean_delta_lower"], m["mean_delta_upper"], m["ba_bias"], m["ba_sd"], m["ba_lower_loa"], m["ba_upper_loa"]}
	return nil
}

// TestRunReportMatchesIndependentReference checks the whole pipeline's
// numbers for testdata/inspections/twelve.jsonl against values computed
// with scipy 1.10.1, statsmodels 0.13.5 and scikit-learn 1.2.1 by
// testdata/reference/report/report_ref.py (provenance in its output):
// the pairing of light and deep, the deep-minus-light direction, the
// percentages, the verdict order of the kappa table and the light-score
// forecast.
func TestRunReportMatchesIndependentReference(t *testing.T) {
	t.Chdir(repoRoot(t))
	data, err := os.ReadFile("testdata/reference/report/report_values.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref struct {
		N         int
		Agreement struct {
			Matches                           int
			Percent, WilsonLower, WilsonUpper float64
		}
		RuntimeFidelity   refScore `json:"runtime_fidelity"`
		TaskEffectiveness refScore `json:"task_effectiveness"`
		Confusion         [][]int
		KappaUnweighted   struct{ Value, SE float64 }                    `json:"kappa_unweighted"`
		KappaLinear       struct{ Value, SE float64 }                    `json:"kappa_linear"`
		KappaQuadratic    struct{ Value, SE float64 }                    `json:"kappa_quadratic"`
		Forecast          struct{ Brier, Calibration, BaseRate float64 } `json:"forecast"`
	}
	if err := json.Unmarshal(data, &ref); err != nil {
		t.Fatal(err)
	}
	// encoding/json matches wilson_lower to WilsonLower case-insensitively
	// only without underscores; read those by hand.
	var raw map[string]map[string]float64
	_ = json.Unmarshal(data, &raw)
	ref.Agreement.WilsonLower, ref.Agreement.WilsonUpper = raw["agreement"]["wilson_lower"], raw["agreement"]["wilson_upper"]
	ref.Forecast.BaseRate = raw["forecast"]["base_rate"]

	out, stderr, code := runCLI(t, "run", "--no-cache", "--format", "json", "--inspections", "testdata/inspections/twelve.jsonl")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var r report.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	// The document follows the precision rule (report/precision.go): a
	// figure must equal the reference to within half a unit of its last
	// written digit: 0.005 for percentages and 0-100 scores (2 decimals),
	// a relative 5e-6 for statistics (6 significant digits), 5e-3 for
	// p-values (3 significant digits). The statistics themselves are
	// checked to 1e-9 against the same references in statistician/.
	near := func(name string, got, want float64) {
		t.Helper()
		var tol float64
		switch {
		case strings.HasSuffix(name, " p"):
			tol = 5e-3 * math.Abs(want)
		case strings.Contains(name, "agreement") || strings.Contains(name, "delta") || strings.Contains(name, "bland-altman") ||
			strings.Contains(name, "wilson") || strings.Contains(name, "simultaneous") || strings.Contains(name, "calibration"):
			tol = 0.005
		default:
			tol = 5e-6 * math.Abs(want)
		}
		if math.Abs(got-want) > tol+1e-12 {
			t.Errorf("%s = %.15g, reference %.15g (tolerance %g)", name, got, want, tol)
		}
	}
	if r.SampleSize != ref.N || r.AgreementRate.Matches != ref.Agreement.Matches {
		t.Fatalf("n %d matches %d, reference %d and %d", r.SampleSize, r.AgreementRate.Matches, ref.N, ref.Agreement.Matches)
	}
	near("agreement percent", *r.AgreementRate.Percent, ref.Agreement.Percent)
	near("agreement wilson lower", r.AgreementRate.Wilson95.Lower, ref.Agreement.WilsonLower)
	near("agreement wilson upper", r.AgreementRate.Wilson95.Upper, ref.Agreement.WilsonUpper)
	for _, s := range []struct {
		name string
		corr report.Correlation
		d    report.ScoreDelta
		ref  refScore
	}{
		{"runtime_fidelity", r.ScoreCorrelation.RuntimeFidelity, r.MeanScoreDelta.RuntimeFidelity, ref.RuntimeFidelity},
		{"task_effectiveness", r.ScoreCorrelation.TaskEffectiveness, r.MeanScoreDelta.TaskEffectiveness, ref.TaskEffectiveness},
	} {
		if s.corr.R == nil {
			t.Fatalf("%s: no correlation (%s%s)", s.name, s.corr.Insufficient, s.corr.Undefined)
		}
		near(s.name+" pearson r", *s.corr.R, s.ref.PearsonR)
		near(s.name+" pearson p", *s.corr.P, s.ref.PearsonP)
		near(s.name+" pearson lower", s.corr.CI95.Lower, s.ref.PearsonLower)
		near(s.name+" pearson upper", s.corr.CI95.Upper, s.ref.PearsonUpper)
		near(s.name+" spearman", *s.corr.Spearman, s.ref.SpearmanRho)
		near(s.name+" mean delta", s.d.Mean, s.ref.MeanDelta)
		near(s.name+" mean delta lower", s.d.CI95.Lower, s.ref.MeanDeltaLower)
		near(s.name+" mean delta upper", s.d.CI95.Upper, s.ref.MeanDeltaUpper)
		near(s.name+" bland-altman bias", s.d.BlandAltman.Bias, s.ref.BABias)
		near(s.name+" bland-altman sd", s.d.BlandAltman.SD, s.ref.BASD)
		near(s.name+" lower limit of agreement", s.d.BlandAltman.Lower, s.ref.BALowerLoA)
		near(s.name+" upper limit of agreement", s.d.BlandAltman.Upper, s.ref.BAUpperLoA)
	}
	for i := range ref.Confusion {
		for j := range ref.Confusion[i] {
			if r.Confusion.Counts[i][j] != ref.Confusion[i][j] {
				t.Errorf("confusion[%d][%d] = %d, reference %d", i, j, r.Confusion.Counts[i][j], ref.Confusion[i][j])
			}
		}
	}
	var bySystem struct {
		AgreementBySystem []map[string]any `json:"agreement_by_system"`
	}
	_ = json.Unmarshal(data, &bySystem)
	if len(bySystem.AgreementBySystem) != len(r.AgreementBySystem) || len(r.AgreementBySystem) != 4 {
		t.Fatalf("%d systems in the report, %d in the reference, want 4", len(r.AgreementBySystem), len(bySystem.AgreementBySystem))
	}
	for i, want := range bySystem.AgreementBySystem {
		got := r.AgreementBySystem[i]
		if got.System != want["system"] || float64(got.Matches) != want["matches"].(float64) || float64(got.N) != want["n"].(float64) {
			t.Errorf("system %d: %+v, reference %v", i, got, want)
		}
		if tested, _ := want["tested"].(bool); !tested {
			if got.Wilson95 != nil || got.Simultaneous != nil || got.Reason == "" {
				t.Errorf("system %s under 10 runs: %+v, want no interval and a reason", got.System, got)
			}
			continue
		}
		if got.Wilson95 == nil || got.Simultaneous == nil {
			t.Fatalf("system %s: %+v, want its intervals", got.System, got)
		}
		near(got.System+" wilson lower", got.Wilson95.Lower, want["wilson_lower"].(float64))
		near(got.System+" wilson upper", got.Wilson95.Upper, want["wilson_upper"].(float64))
		near(got.System+" simultaneous lower", got.Simultaneous.Lower, want["simultaneous_lower"].(float64))
		near(got.System+" simultaneous upper", got.Simultaneous.Upper, want["simultaneous_upper"].(float64))
	}
	near("kappa unweighted", r.Kappa.Unweighted.Value, ref.KappaUnweighted.Value)
	near("kappa unweighted se", r.Kappa.Unweighted.SE, ref.KappaUnweighted.SE)
	near("kappa linear", r.Kappa.Linear.Value, ref.KappaLinear.Value)
	near("kappa linear se", r.Kappa.Linear.SE, ref.KappaLinear.SE)
	near("kappa quadratic", r.Kappa.Quadratic.Value, ref.KappaQuadratic.Value)
	near("kappa quadratic se", r.Kappa.Quadratic.SE, ref.KappaQuadratic.SE)
	near("forecast brier", *r.Forecast.Brier, ref.Forecast.Brier)
	near("forecast calibration", *r.Forecast.Calibration, ref.Forecast.Calibration)
	near("forecast base rate", r.Forecast.BaseRate, ref.Forecast.BaseRate)
}
