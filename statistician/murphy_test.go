package statistician

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"
)

func TestMurphyExactMatchesNumpy(t *testing.T) {
	cases, _ := forecastReference(t)
	for _, c := range cases {
		m, err := MurphyExact(c.P, c.Y)
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		checkRef(t, c.Name+": reliability", m.Reliability, c.Murphy.Reliability)
		checkRef(t, c.Name+": resolution", m.Resolution, c.Murphy.Resolution)
		checkRef(t, c.Name+": uncertainty", m.Uncertainty, c.Murphy.Uncertainty)
		checkRef(t, c.Name+": brier", m.Brier, c.Brier)
		if gap := m.Reliability - m.Resolution + m.Uncertainty - m.Brier; math.Abs(gap) > 1e-12 {
			t.Errorf("%s: REL - RES + UNC - BS = %g, want 0", c.Name, gap)
		}
	}
}

// Fixed-width bins against testdata/reference/forecast/forecast_ref.py
// (numpy terms, statsmodels Wilson intervals; versions in each value's
// source). Its equal-frequency entries split tied forecasts (numpy
// argsort) and are superseded by the tie rule's reference below.
func TestMurphyBinnedMatchesNumpyAndStatsmodels(t *testing.T) {
	cases, _ := forecastReference(t)
	for _, c := range cases {
		name := fmt.Sprintf("%s: fixed/10", c.Name)
		m, err := MurphyBinned(c.P, c.Y, 10, FixedBins)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		ref := c.Fixed10
		checkRef(t, name+": reliability", m.Reliability, ref.Reliability)
		checkRef(t, name+": resolution", m.Resolution, ref.Resolution)
		checkRef(t, name+": uncertainty", m.Uncertainty, ref.Uncertainty)
		checkRef(t, name+": wbv", m.WithinBinVariance, ref.WithinBinVariance)
		checkRef(t, name+": wbc", m.WithinBinCovariance, ref.WithinBinCovariance)
		if len(m.Table) != len(ref.Table) {
			t.Fatalf("%s: %d bins, want %d", name, len(m.Table), len(ref.Table))
		}
		for i, row := range m.Table {
			want := ref.Table[i]
			if row.Count != want.Count {
				t.Errorf("%s: bin %d count %d, want %d", name, i, row.Count, want.Count)
				continue
			}
			if row.Count == 0 {
				if row.Reason == "" {
					t.Errorf("%s: empty bin %d has no reason", name, i)
				}
				continue
			}
			checkBinRow(t, fmt.Sprintf("%s: bin %d", name, i), row, want.MeanForecast, want.ObservedRate, want.WilsonLower, want.WilsonUpper)
		}
		checkBinnedIdentity(t, name, m)
	}
}

func checkBinRow(t *testing.T, name string, row ReliabilityBin, mean, rate, lo, hi float64) {
	t.Helper()
	for _, v := range []struct {
		what      string
		got, want float64
	}{
		{"mean forecast", *row.MeanForecast, mean},
		{"observed rate", *row.ObservedRate, rate},
		{"wilson lower", row.RateCI95.Lower, lo},
		{"wilson upper", row.RateCI95.Upper, hi},
	} {
		if math.Abs(v.got-v.want) > 1e-9 {
			t.Errorf("%s %s = %.15g, want %.15g", name, v.what, v.got, v.want)
		}
	}
}

func checkBinnedIdentity(t *testing.T, name string, m BinnedMurphy) {
	t.Helper()
	id := m.Reliability - m.Resolution + m.Uncertainty + m.WithinBinVariance - m.WithinBinCovariance
	if math.Abs(id-m.Brier) > 1e-12 {
		t.Errorf("%s: REL - RES + UNC + WBV - WBC = %.17g, BS = %.17g", name, id, m.Brier)
	}
}

// binningReference is statistician/testdata/reference/binning/binning_ref.json,
// written by binning_ref.py (numpy and statsmodels; versions in "source").
type binningReference struct {
	Source string `json:"source"`
	Cases  []struct {
		Name   string    `json:"name"`
		P      []float64 `json:"p"`
		Y      []int     `json:"y"`
		Binned []struct {
			Bins  int     `json:"bins"`
			Rel   float64 `json:"reliability"`
			Res   float64 `json:"resolution"`
			Unc   float64 `json:"uncertainty"`
			WBV   float64 `json:"within_bin_variance"`
			WBC   float64 `json:"within_bin_covariance"`
			Table []struct {
				Count        int     `json:"count"`
				Lo           float64 `json:"lower"`
				Hi           float64 `json:"upper"`
				MeanForecast float64 `json:"mean_forecast"`
				ObservedRate float64 `json:"observed_rate"`
				WL           float64 `json:"wilson_lower"`
				WU           float64 `json:"wilson_upper"`
			} `json:"table"`
		} `json:"binned"`
	} `json:"cases"`
}

// Equal-frequency bins that keep ties together, against
// binning_ref.py: numpy tests each distinct value against every target
// (a different formulation from evalcal's target pointer), statsmodels
// 0.13.5 proportion_confint(method='wilson') gives the intervals.
func TestEqualFrequencyBinsMatchTheTieRuleReference(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "reference", "binning", "binning_ref.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ref binningReference
	if err := json.Unmarshal(data, &ref); err != nil {
		t.Fatal(err)
	}
	if len(ref.Cases) < 6 {
		t.Fatalf("%d reference cases, want at least 6", len(ref.Cases))
	}
	for _, c := range ref.Cases {
		for _, b := range c.Binned {
			name := fmt.Sprintf("%s: %d bins", c.Name, b.Bins)
			m, err := MurphyBinned(c.P, c.Y, b.Bins, EqualFrequencyBins)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			src := forecastRef{Source: ref.Source}
			for _, v := range []struct {
				what      string
				got, want float64
			}{{"reliability", m.Reliability, b.Rel}, {"resolution", m.Resolution, b.Res}, {"uncertainty", m.Uncertainty, b.Unc},
				{"wbv", m.WithinBinVariance, b.WBV}, {"wbc", m.WithinBinCovariance, b.WBC}} {
				src.Value = v.want
				checkRef(t, name+": "+v.what, v.got, src)
			}
			if len(m.Table) != len(b.Table) || m.Bins != len(b.Table) {
				t.Fatalf("%s: %d bins (Bins %d), want %d", name, len(m.Table), m.Bins, len(b.Table))
			}
			for i, row := range m.Table {
				want := b.Table[i]
				if row.Count != want.Count || row.Lower != want.Lo || row.Upper != want.Hi {
					t.Errorf("%s: bin %d = %d in [%v, %v], want %d in [%v, %v]", name, i, row.Count, row.Lower, row.Upper, want.Count, want.Lo, want.Hi)
					continue
				}
				checkBinRow(t, fmt.Sprintf("%s: bin %d", name, i), row, want.MeanForecast, want.ObservedRate, want.WL, want.WU)
			}
			checkBinnedIdentity(t, name, m)
		}
	}
}

// By hand: 7 forecasts into 3 equal-frequency bins, targets floor(7i/3) =
// 2, 4, 7. Sorted: 0.1 0.2 | 0.3 0.5 0.5 0.5 | 0.9. The first bin closes at
// 0.2 (count 2 = target 2); the three 0.5s stay together, so the second
// closes at 0.5 with count 6, past targets 4; the last takes 0.9.
func TestEqualFrequencyBinsKeepTiesTogether(t *testing.T) {
	p := []float64{0.5, 0.1, 0.5, 0.2, 0.5, 0.9, 0.3}
	y := []int{1, 0, 0, 0, 1, 1, 0}
	m, err := MurphyBinned(p, y, 3, EqualFrequencyBins)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		count, hits int
		lo, hi      float64
	}{{2, 0, 0.1, 0.2}, {4, 2, 0.3, 0.5}, {1, 1, 0.9, 0.9}}
	if len(m.Table) != len(want) || m.Bins != len(want) {
		t.Fatalf("%d bins (Bins %d), want %d", len(m.Table), m.Bins, len(want))
	}
	for i, w := range want {
		r := m.Table[i]
		if r.Count != w.count || r.Hits != w.hits || r.Lower != w.lo || r.Upper != w.hi {
			t.Errorf("bin %d = %+v, want count %d hits %d [%v, %v]", i, r, w.count, w.hits, w.lo, w.hi)
		}
	}
	// Without ties the rule is the floor rule: 7 distinct values in 3
	// bins hold 2, 2, 3.
	m, err = MurphyBinned([]float64{0.7, 0.1, 0.6, 0.2, 0.5, 0.9, 0.3}, y, 3, EqualFrequencyBins)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range []int{2, 2, 3} {
		if m.Table[i].Count != c {
			t.Errorf("distinct values: bin %d count %d, want %d", i, m.Table[i].Count, c)
		}
	}
}

// A perfectly calibrated constant forecaster is one bin, not ten bins of
// one forecast each (issue 10).
func TestEqualFrequencyConstantForecasterIsOneBin(t *testing.T) {
	p, y := make([]float64, 10), []int{1, 1, 1, 1, 1, 1, 0, 0, 0, 0}
	for i := range p {
		p[i] = 0.6
	}
	m, err := MurphyBinned(p, y, 10, EqualFrequencyBins)
	if err != nil {
		t.Fatal(err)
	}
	if m.Bins != 1 || len(m.Table) != 1 || m.Table[0].Count != 10 || *m.Table[0].ObservedRate != 0.6 {
		t.Errorf("constant forecaster: %d bins %+v, want one bin of 10 at rate 0.6", m.Bins, m.Table)
	}
}

func TestEqualFrequencyUsesAtMostOneBinPerForecast(t *testing.T) {
	m, err := MurphyBinned([]float64{0.2, 0.8}, []int{0, 1}, 10, EqualFrequencyBins)
	if err != nil {
		t.Fatal(err)
	}
	if m.Bins != 2 || len(m.Table) != 2 {
		t.Errorf("bins = %d (table %d), want 2", m.Bins, len(m.Table))
	}
}

func TestFixedBinsReportEmptyBinsWithoutARate(t *testing.T) {
	m, err := MurphyBinned([]float64{0.05, 1, 0.95}, []int{0, 1, 1}, 4, FixedBins)
	if err != nil {
		t.Fatal(err)
	}
	counts := []int{1, 0, 0, 2} // 1.0 is in the last, closed bin
	for i, r := range m.Table {
		if r.Count != counts[i] {
			t.Errorf("bin %d count %d, want %d", i, r.Count, counts[i])
		}
		if r.Count == 0 && (r.Reason == "" || r.ObservedRate != nil || r.MeanForecast != nil || r.RateCI95 != nil) {
			t.Errorf("empty bin %d = %+v, want a reason and no rate", i, r)
		}
		if lo, hi := float64(i)/4, float64(i+1)/4; r.Lower != lo || r.Upper != hi {
			t.Errorf("bin %d bounds [%v, %v], want [%v, %v]", i, r.Lower, r.Upper, lo, hi)
		}
	}
}

func TestMurphyBinnedRejectsBadOptions(t *testing.T) {
	p, y := []float64{0.5}, []int{1}
	if _, err := MurphyBinned(p, y, 0, FixedBins); err == nil {
		t.Error("0 bins: no error")
	}
	if _, err := MurphyBinned(p, y, 5, Binning("quantile")); err == nil {
		t.Error("unknown binning: no error")
	}
	if _, err := ParseBinning("quantile"); err == nil {
		t.Error("ParseBinning(quantile): no error")
	}
}
