package statistician

import (
	"encoding/binary"
	"math"
	"testing"
)

// floatsFrom decodes data as little-endian float64s, ignoring a trailing
// partial value.
func floatsFrom(data []byte) []float64 {
	x := make([]float64, len(data)/8)
	for i := range x {
		x[i] = math.Float64frombits(binary.LittleEndian.Uint64(data[8*i:]))
	}
	return x
}

// bytesFrom encodes x as little-endian float64s (for seed corpora).
func bytesFrom(x ...float64) []byte {
	b := make([]byte, 8*len(x))
	for i, v := range x {
		binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(v))
	}
	return b
}

func anyNaN(x ...float64) bool {
	for _, v := range x {
		if math.IsNaN(v) {
			return true
		}
	}
	return false
}

func FuzzWilsonInterval(f *testing.F) {
	f.Add(18, 30, 1.96)
	f.Add(0, 1, 1e-300)
	f.Add(1<<40, 1<<41, 1e200)
	f.Add(7, 7, 3.0)
	f.Add(3, 1_000_000_000, 1.0)
	f.Add(1<<61, 1<<62, 1.0)
	f.Fuzz(func(t *testing.T, k, n int, z float64) {
		iv, err := WilsonInterval(k, n, z)
		valid := n > 0 && k >= 0 && k <= n && z > 0 && !math.IsInf(z, 0)
		if valid != (err == nil) {
			t.Fatalf("WilsonInterval(%d, %d, %v): err = %v, valid input = %v", k, n, z, err, valid)
		}
		if err != nil {
			return
		}
		p := float64(k) / float64(n)
		if anyNaN(iv.Lower, iv.Upper) || iv.Lower < 0 || iv.Upper > 1 || !iv.Contains(p) {
			t.Fatalf("WilsonInterval(%d, %d, %v) = %+v: want a subset of [0, 1] containing %v", k, n, z, iv, p)
		}
		cp, err := ClopperPearson(k, n, 0.95)
		if (err == nil) != (n <= MaxClopperPearsonN) {
			t.Fatalf("ClopperPearson(%d, %d, 0.95): err = %v", k, n, err)
		}
		if err == nil && (anyNaN(cp.Lower, cp.Upper) || cp.Lower < 0 || cp.Upper > 1 || !cp.Contains(p)) {
			t.Fatalf("ClopperPearson(%d, %d, 0.95) = %+v: want a subset of [0, 1] containing %v", k, n, cp, p)
		}
	})
}

func FuzzCohenKappa(f *testing.F) {
	f.Add(bytesFrom(12, 3, 1, 4, 15, 5, 0, 6, 20), uint8(0))
	f.Add(bytesFrom(0, 0, 0, 0, 0, 0, 0, 0, 9), uint8(2))
	f.Add(bytesFrom(5, 0, 0, 7), uint8(1))
	f.Add(bytesFrom(1e300, 1e-300, 3, 1e300), uint8(2))
	f.Fuzz(func(t *testing.T, data []byte, wt uint8) {
		cells := floatsFrom(data)
		k := int(math.Sqrt(float64(len(cells))))
		if k == 0 || k > 6 {
			return
		}
		table := make([][]float64, k)
		for i := range table {
			table[i] = cells[i*k : (i+1)*k]
		}
		w := Weighting(wt % 4) // 3 is invalid on purpose
		got := CohenKappa(table, w)
		if anyNaN(got.Value, got.SE, got.CI95.Lower, got.CI95.Upper) {
			t.Fatalf("CohenKappa(%v, %v) = %+v has NaN", table, w, got)
		}
		if got.Reason != "" {
			if got.Value != 0 || got.SE != 0 || got.CI95 != (Interval{}) {
				t.Fatalf("CohenKappa(%v, %v) = %+v: numbers beside a reason", table, w, got)
			}
			return
		}
		if got.Value > 1 || got.Value < -1 || got.SE < 0 || !got.CI95.Contains(got.Value) || got.CI95.Lower < -1 || got.CI95.Upper > 1 {
			t.Fatalf("CohenKappa(%v, %v) = %+v out of range", table, w, got)
		}
		po, err := RawAgreement(table)
		if err != nil || po < 0 || po > 1 {
			t.Fatalf("RawAgreement(%v) = %v, %v for a table kappa accepted", table, po, err)
		}
	})
}

func FuzzPearson(f *testing.F) {
	f.Add(bytesFrom(1, 2, 2, 4, 3, 5, 4, 4, 5, 5))
	f.Add(bytesFrom(1e300, -1e300, 2e300, 1, -3e300, 5, 4e300, 4, 5, 5e300))
	f.Add(bytesFrom(1e-310, 1, 2e-310, 2, 3e-310, 3, 4e-310, 4, 5e-310, 5))
	f.Add(bytesFrom(1, 1, 1, 1, 1, 1, 1, 1, 1, 2))
	f.Fuzz(func(t *testing.T, data []byte) {
		v := floatsFrom(data)
		n := len(v) / 2
		x, y := v[:n], v[n:2*n]
		for name, c := range map[string]Correlation{"Pearson": Pearson(x, y), "Spearman": Spearman(x, y)} {
			if anyNaN(c.R, c.P, c.CI95.Lower, c.CI95.Upper) {
				t.Fatalf("%s(%v, %v) = %+v has NaN", name, x, y, c)
			}
			if c.N != n {
				t.Fatalf("%s N = %d, want %d", name, c.N, n)
			}
			if c.Reason != "" {
				if c.R != 0 || c.P != 0 || c.CI95 != (Interval{}) {
					t.Fatalf("%s(%v, %v) = %+v: numbers beside a reason", name, x, y, c)
				}
				continue
			}
			if c.R < -1 || c.R > 1 || c.P < 0 || c.P > 1 || !c.CI95.Contains(c.R) || c.CI95.Lower < -1 || c.CI95.Upper > 1 {
				t.Fatalf("%s(%v, %v) = %+v out of range", name, x, y, c)
			}
		}
		cc := LinCCC(x, y)
		if anyNaN(cc.Value, cc.SE, cc.CI95.Lower, cc.CI95.Upper) || cc.Value < -1 || cc.Value > 1 || cc.SE < 0 {
			t.Fatalf("LinCCC(%v, %v) = %+v has NaN or is out of range", x, y, cc)
		}
		if cc.Reason == "" && !cc.CI95.Contains(cc.Value) {
			t.Fatalf("LinCCC(%v, %v) = %+v: interval misses the value", x, y, cc)
		}
		ba := BlandAltman(x, y)
		if anyNaN(ba.Bias, ba.SD, ba.Lower, ba.Upper, ba.BiasCI.Lower, ba.BiasCI.Upper, ba.LowerCI.Lower, ba.UpperCI.Upper) {
			t.Fatalf("BlandAltman(%v, %v) = %+v has NaN", x, y, ba)
		}
	})
}
