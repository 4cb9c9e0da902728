package statistician

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// reliabilityRefs is testdata/reference/reliability/reliability_values.json,
// written by reliability_ref.py there (Debian's numpy, scipy, statsmodels
// and sklearn; R's irr when installed): Krippendorff's alpha by the
// paper's coincidence-matrix route, Gwet's AC1 from Gwet's formulas, and
// sensitivity, specificity and balanced accuracy from sklearn and
// statsmodels. The file's provenance block names the tools and versions
// and the exact calls.
type reliabilityRefs struct {
	Reliability []struct {
		Name       string
		Ratings    [][]*float64
		Categories int
		Level      float64
		Nominal    kripRef
		Ordinal    kripRef
		Interval   kripRef
		AC1        struct {
			Value, SE, Lower, Upper, PA, PE refValue
			Units                           int
			PairedUnits                     int `json:"paired_units"`
		} `json:"ac1"`
	}
	Classwise []struct {
		Counts                   [4]int
		Level                    float64
		Sensitivity, Specificity *rateRef
		BaseRate                 *rateRef `json:"base_rate"`
		Balanced                 *rateRef
	}
}

type kripRef struct {
	Alpha, Observed, Expected refValue
	Units, Values             int
	IRR                       *refValue `json:"irr"`
	IRRApplies                bool      `json:"irr_applies"`
}

type rateRef struct {
	Value, Lower, Upper refValue
}

var loadReliabilityRefs = refFile[reliabilityRefs]("reliability", "reliability_values.json")

func relRefs(t *testing.T) *reliabilityRefs { return mustRefs(t, loadReliabilityRefs) }

// refFile returns a loader, run once, of testdata/reference/dir/file
// parsed as a T.
func refFile[T any](dir, file string) func() (*T, error) {
	return sync.OnceValues(func() (*T, error) {
		path := filepath.Join("testdata", "reference", dir, file)
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", path, err)
		}
		var r T
		if err := json.Unmarshal(b, &r); err != nil {
			return nil, fmt.Errorf("parse %s: %w", path, err)
		}
		return &r, nil
	})
}

// mustRefs returns load's references or fails the test.
func mustRefs[T any](t *testing.T, load func() (*T, error)) *T {
	t.Helper()
	r, err := load()
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// ratingsOf turns JSON nulls into NaN, the missing rating.
func ratingsOf(rows [][]*float64) [][]float64 {
	out := make([][]float64, len(rows))
	for i, row := range rows {
		out[i] = make([]float64, len(row))
		for j, v := range row {
			out[i][j] = math.NaN()
			if v != nil {
				out[i][j] = *v
			}
		}
	}
	return out
}

func TestKrippendorffAlphaMatchesReference(t *testing.T) {
	cases := relRefs(t).Reliability
	if len(cases) < 20 {
		t.Fatalf("only %d data sets", len(cases))
	}
	withMissing, withIRR := 0, 0
	for _, c := range cases {
		ratings := ratingsOf(c.Ratings)
	missing:
		for _, row := range ratings {
			for _, v := range row {
				if math.IsNaN(v) {
					withMissing++
					break missing
				}
			}
		}
		for _, m := range []struct {
			metric Metric
			ref    kripRef
		}{{MetricNominal, c.Nominal}, {MetricOrdinal, c.Ordinal}, {MetricInterval, c.Interval}} {
			t.Run(c.Name+"/"+m.metric.String(), func(t *testing.T) {
				r := KrippendorffAlpha(ratings, m.metric)
				if r.Reason != "" {
					t.Fatalf("reason %q", r.Reason)
				}
				checkClose(t, "alpha", r.Alpha, m.ref.Alpha, 1e-9)
				checkClose(t, "observed", r.Observed, m.ref.Observed, 1e-9*math.Max(1, m.ref.Observed.Value))
				checkClose(t, "expected", r.Expected, m.ref.Expected, 1e-9*math.Max(1, m.ref.Expected.Value))
				if r.Units != m.ref.Units || r.Values != m.ref.Values {
					t.Errorf("units, values = %d, %d, want %d, %d", r.Units, r.Values, m.ref.Units, m.ref.Values)
				}
				if m.ref.IRR != nil && m.ref.IRRApplies {
					withIRR++
					checkClose(t, "alpha against irr", r.Alpha, *m.ref.IRR, 1e-9)
				}
			})
		}
	}
	if withMissing < 15 {
		t.Errorf("only %d data sets with missing values", withMissing)
	}
	t.Logf("%d data sets (%d with missing values), %d metric/data set pairs also checked against irr", len(cases), withMissing, withIRR)
}

func TestKrippendorffAlphaPaperExample(t *testing.T) {
	// Krippendorff (2011), section C, printed to 3 decimals.
	nan := math.NaN()
	data := [][]float64{
		{1, 1, nan, 1}, {2, 2, 3, 2}, {3, 3, 3, 3}, {3, 3, 3, 3}, {2, 2, 2, 2}, {1, 2, 3, 4},
		{4, 4, 4, 4}, {1, 1, 2, 1}, {2, 2, 2, 2}, {nan, 5, 5, 5}, {nan, nan, 1, 1}, {nan, 3, nan, nan},
	}
	for m, want := range map[Metric]float64{MetricNominal: 0.743, MetricOrdinal: 0.815, MetricInterval: 0.849} {
		r := KrippendorffAlpha(data, m)
		if math.Abs(r.Alpha-want) > 5e-4 {
			t.Errorf("%v: alpha = %.6f, paper %.3f", m, r.Alpha, want)
		}
		if r.Units != 11 || r.Values != 40 {
			t.Errorf("%v: %d units, %d values, paper 11 and 40", m, r.Units, r.Values)
		}
	}
}

func TestKrippendorffAlphaUndefined(t *testing.T) {
	nan := math.NaN()
	for name, data := range map[string][][]float64{
		"no pairable unit": {{1, nan}, {nan, 2}},
		"no variation":     {{1, 1}, {1, 1, 1}},
		"empty":            nil,
		"infinite":         {{1, math.Inf(1)}, {1, 2}},
	} {
		r := KrippendorffAlpha(data, MetricNominal)
		if r.Reason == "" || r.Alpha != 0 {
			t.Errorf("%s: %+v, want a reason and alpha 0", name, r)
		}
	}
	if r := KrippendorffAlpha([][]float64{{1, 2}}, Metric(7)); r.Reason == "" {
		t.Errorf("unknown metric accepted: %+v", r)
	}
}

func TestKrippendorffAlphaPerfectAndOrderFree(t *testing.T) {
	data := [][]float64{{1, 1, 1}, {2, 2}, {3, 3, math.NaN()}, {1, 1}}
	for _, m := range []Metric{MetricNominal, MetricOrdinal, MetricInterval} {
		if r := KrippendorffAlpha(data, m); r.Alpha != 1 {
			t.Errorf("%v: perfect agreement gives %v", m, r.Alpha)
		}
	}
	// Permuting units and raters within units leaves alpha unchanged.
	a := [][]float64{{1, 2, 3}, {2, 2, math.NaN()}, {3, 1, 1}, {1, 1, 2}}
	b := [][]float64{{1, 2, 1}, {3, 2, 1}, {math.NaN(), 2, 2}, {1, 1, 3}}
	for _, m := range []Metric{MetricNominal, MetricOrdinal, MetricInterval} {
		ra, rb := KrippendorffAlpha(a, m), KrippendorffAlpha(b, m)
		if math.Abs(ra.Alpha-rb.Alpha) > 1e-15 {
			t.Errorf("%v: %v then %v after permuting", m, ra.Alpha, rb.Alpha)
		}
	}
}

func TestGwetAC1MatchesReference(t *testing.T) {
	cases := relRefs(t).Reliability
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			r := GwetAC1(ratingsOf(c.Ratings), c.Categories, c.Level)
			if r.Reason != "" {
				t.Fatalf("reason %q", r.Reason)
			}
			checkClose(t, "AC1", r.Value, c.AC1.Value, 1e-9)
			checkClose(t, "SE", r.SE, c.AC1.SE, 1e-9)
			checkClose(t, "pa", r.PercentAgreement, c.AC1.PA, 1e-12)
			checkClose(t, "pe", r.ChanceAgreement, c.AC1.PE, 1e-12)
			lo, hi := c.AC1.Lower, c.AC1.Upper
			lo.Value, hi.Value = math.Max(-1, lo.Value), math.Min(1, hi.Value)
			checkClose(t, "lower", r.CI.Lower, lo, 1e-9)
			checkClose(t, "upper", r.CI.Upper, hi, 1e-9)
			if r.Units != c.AC1.Units || r.PairedUnits != c.AC1.PairedUnits {
				t.Errorf("units %d/%d, want %d/%d", r.Units, r.PairedUnits, c.AC1.Units, c.AC1.PairedUnits)
			}
		})
	}
}

func TestGwetAC1HighAgreementParadox(t *testing.T) {
	// 95 runs both pass, 5 with one disagreement: kappa collapses (the
	// "paradox" of Feinstein and Cicchetti 1990) while AC1 stays high.
	// By hand: pa = 0.95; pi_pass = (190 + 5)/200 = 0.975,
	// pe = 2 * 0.975 * 0.025 / 1 = 0.04875; AC1 = (0.95 - 0.04875)/0.95125.
	var data [][]float64
	for i := range 100 {
		if i < 95 {
			data = append(data, []float64{1, 1})
		} else {
			data = append(data, []float64{1, 0})
		}
	}
	r := GwetAC1(data, 2, 0.95)
	if want := (0.95 - 0.04875) / 0.95125; math.Abs(r.Value-want) > 1e-12 {
		t.Errorf("AC1 = %.15g, want %.15g", r.Value, want)
	}
	table, _ := ConfusionMatrix(colOf(data, 0), colOf(data, 1), 2)
	if k := CohenKappa(table, Unweighted); !(k.Value < 0.01) {
		t.Errorf("kappa = %v, expected the paradox (about 0)", k.Value)
	}
	// All pass on a pass/fail scale: AC1 = 1 with q = 2, undefined with q = 1.
	if r := GwetAC1([][]float64{{1, 1}, {1, 1}, {1, math.NaN()}}, 2, 0.95); r.Value != 1 || r.Reason != "" {
		t.Errorf("all pass: %+v", r)
	}
	if r := GwetAC1([][]float64{{1, 1}, {1, 1}}, 0, 0.95); r.Reason == "" {
		t.Errorf("one observed category and q unset: %+v", r)
	}
	if r := GwetAC1([][]float64{{0, 1}, {2, 1}}, 2, 0.95); r.Reason == "" {
		t.Errorf("3 categories observed with q = 2 accepted: %+v", r)
	}
}

func colOf(data [][]float64, j int) []int {
	out := make([]int, len(data))
	for i, row := range data {
		out[i] = int(row[j])
	}
	return out
}

func TestClassWiseAgreementMatchesReference(t *testing.T) {
	for _, c := range relRefs(t).Classwise {
		pc := PassCounts{BothPass: c.Counts[0], LightOnly: c.Counts[1], DeepOnly: c.Counts[2], NeitherPass: c.Counts[3]}
		a := ClassWiseAgreement(pc, c.Level)
		name := fmt.Sprint(c.Counts)
		for _, r := range []struct {
			what string
			got  Rate
			ref  *rateRef
		}{{"sensitivity", a.Sensitivity, c.Sensitivity}, {"specificity", a.Specificity, c.Specificity}, {"base rate", a.BaseRate, c.BaseRate}} {
			if r.ref == nil {
				if r.got.Reason == "" {
					t.Errorf("%s %s: defined %+v, reference has none", name, r.what, r.got)
				}
				continue
			}
			if r.what != "base rate" {
				checkClose(t, name+" "+r.what, r.got.Value, r.ref.Value, 1e-12)
			}
			checkClose(t, name+" "+r.what+" lower", r.got.CI.Lower, r.ref.Lower, 1e-12)
			checkClose(t, name+" "+r.what+" upper", r.got.CI.Upper, r.ref.Upper, 1e-12)
		}
		if c.Balanced == nil {
			if a.Reason == "" {
				t.Errorf("%s: balanced accuracy %v, reference has none", name, a.BalancedAccuracy)
			}
			continue
		}
		checkClose(t, name+" balanced accuracy", a.BalancedAccuracy, c.Balanced.Value, 1e-12)
		checkClose(t, name+" balanced lower", a.BalancedCI.Lower, c.Balanced.Lower, 1e-12)
		checkClose(t, name+" balanced upper", a.BalancedCI.Upper, c.Balanced.Upper, 1e-12)
	}
}

func TestClassWiseAgreementAllPassJudge(t *testing.T) {
	// A judge that passes everything on a 90% base rate agrees 90% but
	// has specificity 0 and balanced accuracy 0.5.
	a := ClassWiseAgreement(PassCounts{BothPass: 90, LightOnly: 10}, 0.95)
	if a.Sensitivity.Value != 1 || a.Specificity.Value != 0 || a.BalancedAccuracy != 0.5 || a.BaseRate.Value != 0.9 {
		t.Errorf("%+v", a)
	}
	if !a.BalancedCI.Contains(0.5) || a.BalancedCI.Lower == a.BalancedCI.Upper {
		t.Errorf("interval %+v", a.BalancedCI)
	}
	if a := ClassWiseAgreement(PassCounts{BothPass: -1}, 0.95); a.Reason == "" {
		t.Errorf("negative count accepted")
	}
}

// BenchmarkKrippendorffAlpha20000x5 is the size: 20,000 runs
// rated by 5 raters (light, deep and three repeats), a tenth missing.
func BenchmarkKrippendorffAlpha20000x5(b *testing.B) {
	data := benchRatings(20000, 5)
	for _, m := range []Metric{MetricNominal, MetricOrdinal, MetricInterval} {
		b.Run(m.String(), func(b *testing.B) {
			for b.Loop() {
				if r := KrippendorffAlpha(data, m); r.Reason != "" {
					b.Fatal(r.Reason)
				}
			}
		})
	}
}

func benchRatings(units, raters int) [][]float64 {
	data := make([][]float64, units)
	for u := range data {
		data[u] = make([]float64, raters)
		truth := float64(u % 3)
		for j := range data[u] {
			v := truth
			switch (u*7 + j*13) % 10 {
			case 0:
				v = math.NaN()
			case 1, 2:
				v = float64((u + j) % 3)
			}
			data[u][j] = v
		}
	}
	return data
}

func TestKrippendorffAlpha20000x5UnderOneSecond(t *testing.T) {
	if testing.Short() {
		t.Skip("timing")
	}
	res := testing.Benchmark(BenchmarkKrippendorffAlphaOrdinalOnly)
	if per := res.NsPerOp(); per > 1e9 {
		t.Errorf("20,000 x 5 ordinal alpha took %v ns, want under 1 s", per)
	} else {
		t.Logf("20,000 x 5 ordinal alpha: %.1f ms", float64(per)/1e6)
	}
}

func BenchmarkKrippendorffAlphaOrdinalOnly(b *testing.B) {
	data := benchRatings(20000, 5)
	for b.Loop() {
		KrippendorffAlpha(data, MetricOrdinal)
	}
}
