package statistician

import (
	"math"
	"testing"
)

// fuzzForecasts turns fuzz bytes into forecasts: each pair of bytes is a
// forecast in [0, 1] (a 0.5% grid, so ties are common) and an outcome.
func fuzzForecasts(data []byte) ([]float64, []int) {
	var p []float64
	var y []int
	for i := 0; i+1 < len(data); i += 2 {
		p = append(p, float64(data[i]%201)/200)
		y = append(y, int(data[i+1]&1))
	}
	return p, y
}

func FuzzForecastIdentities(f *testing.F) {
	f.Add([]byte{140, 1, 140, 1, 140, 0, 140, 1, 140, 1}, uint8(10))
	f.Add([]byte{0, 1, 200, 0, 100, 1}, uint8(3))
	f.Add([]byte{1, 0}, uint8(1))
	f.Fuzz(func(t *testing.T, data []byte, bins uint8) {
		p, y := fuzzForecasts(data)
		if len(p) == 0 {
			return
		}
		k := int(bins%20) + 1
		bs, err := Brier(p, y)
		if err != nil {
			t.Fatal(err)
		}
		if !(bs >= 0 && bs <= 1) {
			t.Fatalf("Brier %v outside [0, 1]", bs)
		}
		if cs := CalibrationScore(bs); !(cs >= 0 && cs <= 100) {
			t.Fatalf("calibration %v outside [0, 100]", cs)
		}
		m, err := MurphyExact(p, y)
		if err != nil {
			t.Fatal(err)
		}
		if gap := m.Reliability - m.Resolution + m.Uncertainty - bs; math.Abs(gap) > 1e-12 {
			t.Fatalf("exact Murphy identity off by %g", gap)
		}
		c, err := CORP(p, y)
		if err != nil {
			t.Fatal(err)
		}
		if gap := c.MCB - c.DSC + c.UNC - bs; math.Abs(gap) > 1e-12 {
			t.Fatalf("CORP identity off by %g", gap)
		}
		if c.MCB < -1e-12 || c.DSC < -1e-12 {
			t.Fatalf("CORP MCB %v or DSC %v negative", c.MCB, c.DSC)
		}
		for _, method := range []Binning{FixedBins, EqualFrequencyBins} {
			b, err := MurphyBinned(p, y, k, method)
			if err != nil {
				t.Fatal(err)
			}
			id := b.Reliability - b.Resolution + b.Uncertainty + b.WithinBinVariance - b.WithinBinCovariance
			if math.Abs(id-bs) > 1e-12 {
				t.Fatalf("%s binned identity off by %g", method, id-bs)
			}
			n := 0
			for _, r := range b.Table {
				n += r.Count
				if r.Count > 0 && !(r.RateCI95.Lower <= *r.ObservedRate && *r.ObservedRate <= r.RateCI95.Upper) {
					t.Fatalf("bin %+v: Wilson interval excludes the rate", r)
				}
			}
			if n != len(p) {
				t.Fatalf("%s bins hold %d forecasts, want %d", method, n, len(p))
			}
		}
		// Merging halves equals one pass, bit for bit.
		one, half1, half2 := NewDistinctAccumulator(), NewDistinctAccumulator(), NewDistinctAccumulator()
		fb, fb1, fb2 := newFixed(k), newFixed(k), newFixed(k)
		for i := range p {
			_ = one.Add(p[i], y[i])
			_ = fb.Add(p[i], y[i])
			if i < len(p)/2 {
				_ = half1.Add(p[i], y[i])
				_ = fb1.Add(p[i], y[i])
			} else {
				_ = half2.Add(p[i], y[i])
				_ = fb2.Add(p[i], y[i])
			}
		}
		half2.Merge(half1)
		_ = fb2.Merge(fb1)
		m1, _ := one.Murphy()
		m2, _ := half2.Murphy()
		r1, _ := fb.Result()
		r2, _ := fb2.Result()
		if m1 != m2 || r1.Brier != r2.Brier || r1.Reliability != r2.Reliability || r1.WithinBinCovariance != r2.WithinBinCovariance {
			t.Fatalf("merged accumulators differ from one pass: %+v vs %+v", m1, m2)
		}
	})
}

func newFixed(k int) *FixedBinAccumulator {
	a, _ := NewFixedBinAccumulator(k)
	return a
}

func FuzzRPSInRange(f *testing.F) {
	f.Add(uint16(100), uint16(300), uint8(2))
	f.Fuzz(func(t *testing.T, a, b uint16, o uint8) {
		x, z := float64(a)/65535, float64(b)/65535
		lo, hi := min(x, z), max(x, z)
		r, err := RPS([]float64{lo, hi - lo, 1 - hi}, int(o%3))
		if err != nil {
			t.Fatal(err)
		}
		if !(r >= 0 && r <= 1) {
			t.Fatalf("RPS %v outside [0, 1]", r)
		}
	})
}
