package statistician

import (
	"math"
	"math/big"
	"testing"
)

func TestMcNemarExactHandWorkedCorpus(t *testing.T) {
	// The bundled corpus: 7 runs light pass / deep partial against 3 the
	// other way. P(X <= 3), X ~ Bin(10, 1/2) = (1 + 10 + 45 + 120)/1024
	// = 0.171875, so p = 0.34375.
	m := McNemarExact(7, 3)
	if math.Abs(m.P-0.34375) > 1e-15 || m.Direction != LightLenient || m.Discordant != 10 || m.Reason != "" {
		t.Errorf("McNemarExact(7, 3) = %+v", m)
	}
	if r := McNemarExact(3, 7); r.P != m.P || r.Direction != LightStrict {
		t.Errorf("McNemarExact(3, 7) = %+v", r)
	}
	if r := McNemarExact(10, 10); r.P != 1 || r.Direction != Balanced {
		t.Errorf("McNemarExact(10, 10) = %+v", r)
	}
}

func TestMcNemarExactDegenerate(t *testing.T) {
	if m := McNemarExact(0, 0); m.P != 1 || m.Reason == "" || m.Direction != Balanced {
		t.Errorf("no discordant pairs: %+v", m)
	}
	if m := McNemarExact(-1, 3); m.Reason == "" || m.P != 0 {
		t.Errorf("negative count: %+v", m)
	}
	// Large counts neither panic nor lose the tail.
	m := McNemarExact(1_000_000, 1_010_000)
	if !(m.P > 0 && m.P < 1e-4) || m.Direction != LightStrict {
		t.Errorf("large counts: %+v", m)
	}
	if m := McNemarExact(0, 1_000_000); !(m.P >= 0 && m.P < 1e-300) {
		t.Errorf("extreme counts: %+v", m)
	}
}

// binomialHalfCDF against the exact rational sum for every k <= m <= 80.
func TestBinomialHalfCDFIsExactForSmallM(t *testing.T) {
	for m := 1; m <= 80; m++ {
		sum := new(big.Int)
		denom := new(big.Int).Lsh(big.NewInt(1), uint(m))
		for k := 0; k <= m; k++ {
			sum.Add(sum, new(big.Int).Binomial(int64(m), int64(k)))
			want, _ := new(big.Rat).SetFrac(sum, denom).Float64()
			if got := binomialHalfCDF(k, m); math.Abs(got-want) > 1e-14*math.Max(want, 1e-300) && math.Abs(got-want) > 1e-15 {
				t.Fatalf("P(X <= %d), X ~ Bin(%d, 1/2) = %v, want %v", k, m, got, want)
			}
		}
	}
}
