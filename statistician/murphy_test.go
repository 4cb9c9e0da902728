package statistician

import (
	"fmt"
	"math"
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

func TestMurphyBinnedMatchesNumpyAndStatsmodels(t *testing.T) {
	cases, _ := forecastReference(t)
	for _, c := range cases {
		for _, b := range []struct {
			method Binning
			bins   int
			ref    refBinned
		}{{FixedBins, 10, c.Fixed10}, {EqualFrequencyBins, 4, c.EqualFrequency4}} {
			name := fmt.Sprintf("%s: %s/%d", c.Name, b.method, b.bins)
			m, err := MurphyBinned(c.P, c.Y, b.bins, b.method)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			checkRef(t, name+": reliability", m.Reliability, b.ref.Reliability)
			checkRef(t, name+": resolution", m.Resolution, b.ref.Resolution)
			checkRef(t, name+": uncertainty", m.Uncertainty, b.ref.Uncertainty)
			checkRef(t, name+": wbv", m.WithinBinVariance, b.ref.WithinBinVariance)
			checkRef(t, name+": wbc", m.WithinBinCovariance, b.ref.WithinBinCovariance)
			if len(m.Table) != len(b.ref.Table) {
				t.Fatalf("%s: %d bins, want %d", name, len(m.Table), len(b.ref.Table))
			}
			for i, row := range m.Table {
				want := b.ref.Table[i]
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
				for _, v := range []struct {
					what      string
					got, want float64
				}{
					{"mean forecast", row.MeanForecast, want.MeanForecast},
					{"observed rate", row.ObservedRate, want.ObservedRate},
					{"wilson lower", row.RateCI95.Lower, want.WilsonLower},
					{"wilson upper", row.RateCI95.Upper, want.WilsonUpper},
				} {
					if math.Abs(v.got-v.want) > 1e-9 {
						t.Errorf("%s: bin %d %s = %.15g, want %.15g", name, i, v.what, v.got, v.want)
					}
				}
			}
			id := m.Reliability - m.Resolution + m.Uncertainty + m.WithinBinVariance - m.WithinBinCovariance
			if math.Abs(id-m.Brier) > 1e-12 {
				t.Errorf("%s: REL - RES + UNC + WBV - WBC = %.17g, BS = %.17g", name, id, m.Brier)
			}
		}
	}
}

// By hand: 7 forecasts into 3 equal-frequency bins take sorted items
// 0..1, 2..3, 4..6 (floor(7i/3) = 0, 2, 4, 7); ties stay in input order.
func TestEqualFrequencyBinsFollowTheFloorRuleAndKeepTiesInInputOrder(t *testing.T) {
	p := []float64{0.5, 0.1, 0.5, 0.2, 0.5, 0.9, 0.3}
	y := []int{1, 0, 0, 0, 1, 1, 0}
	m, err := MurphyBinned(p, y, 3, EqualFrequencyBins)
	if err != nil {
		t.Fatal(err)
	}
	// Sorted: 0.1(0) 0.2(0) | 0.3(0) 0.5(1, first) | 0.5(0) 0.5(1) 0.9(1)
	want := []struct {
		count, hits int
		lo, hi      float64
	}{{2, 0, 0.1, 0.2}, {2, 1, 0.3, 0.5}, {3, 2, 0.5, 0.9}}
	for i, w := range want {
		r := m.Table[i]
		if r.Count != w.count || r.Hits != w.hits || r.Lower != w.lo || r.Upper != w.hi {
			t.Errorf("bin %d = %+v, want count %d hits %d [%v, %v]", i, r, w.count, w.hits, w.lo, w.hi)
		}
	}
	if m.Method != EqualFrequencyBins || m.Bins != 3 {
		t.Errorf("method %q bins %d, want equal-frequency 3", m.Method, m.Bins)
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
		if r.Count == 0 && (r.Reason == "" || r.ObservedRate != 0) {
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
