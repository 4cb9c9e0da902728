package statistician

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// randomForecasts returns n forecasts in 0.01 steps with outcomes drawn
// from them, from an explicit seed.
func randomForecasts(n int, seed uint64) ([]float64, []int) {
	r := rand.New(rand.NewPCG(seed, 1))
	p, y := make([]float64, n), make([]int, n)
	for i := range p {
		p[i] = float64(r.IntN(101)) / 100
		if r.Float64() < p[i] {
			y[i] = 1
		}
	}
	return p, y
}

func TestExactSumIsOrderIndependentAndCorrectlyRounded(t *testing.T) {
	// 1 + 2^-53 + 2^-53: naive left-to-right summation loses both small
	// terms; the exact sum is 1 + 2^-52, representable.
	var a, b exactSum
	small := math.Ldexp(1, -53)
	for _, x := range []float64{1, small, small} {
		a.add(x)
	}
	for _, x := range []float64{small, small, 1} {
		b.add(x)
	}
	want := 1 + math.Ldexp(1, -52)
	if a.Float64() != want || b.Float64() != want {
		t.Errorf("sums %v and %v, want %v", a.Float64(), b.Float64(), want)
	}
	var sub exactSum
	sub.add(math.SmallestNonzeroFloat64)
	sub.add(math.SmallestNonzeroFloat64)
	if got := sub.Float64(); got != 2*math.SmallestNonzeroFloat64 {
		t.Errorf("subnormal sum %v", got)
	}
	var big exactSum
	big.add(math.Ldexp(1, 62))
	big.add(math.Ldexp(1, 62))
	if got := big.Float64(); got != math.Ldexp(1, 63) {
		t.Errorf("large sum %v, want 2^63", got)
	}
}

func TestDistinctAccumulatorMergeEqualsOnePass(t *testing.T) {
	p, y := randomForecasts(5000, 7)
	one := NewDistinctAccumulator()
	parts := []*DistinctAccumulator{NewDistinctAccumulator(), NewDistinctAccumulator(), NewDistinctAccumulator()}
	for i := range p {
		if err := one.Add(p[i], y[i]); err != nil {
			t.Fatal(err)
		}
		if err := parts[i*7%3].Add(p[i], y[i]); err != nil {
			t.Fatal(err)
		}
	}
	merged := NewDistinctAccumulator()
	for _, a := range parts {
		merged.Merge(a)
	}
	for _, pair := range []struct {
		name string
		a    *DistinctAccumulator
	}{{"one pass", one}, {"merged", merged}} {
		if pair.a.N() != len(p) {
			t.Errorf("%s: N = %d, want %d", pair.name, pair.a.N(), len(p))
		}
	}
	m1, _ := one.Murphy()
	m2, _ := merged.Murphy()
	if d := cmp.Diff(m1, m2); d != "" {
		t.Errorf("murphy merged != one pass (-one +merged):\n%s", d)
	}
	c1, _ := one.CORP()
	c2, _ := merged.CORP()
	if d := cmp.Diff(c1, c2); d != "" {
		t.Errorf("corp merged != one pass (-one +merged):\n%s", d)
	}
	// And the accumulator agrees with the slice functions.
	want, _ := MurphyExact(p, y)
	if d := cmp.Diff(want, m1, cmpopts.EquateApprox(0, 1e-15)); d != "" {
		t.Errorf("accumulator != MurphyExact:\n%s", d)
	}
}

func TestFixedBinAccumulatorMergeEqualsOnePass(t *testing.T) {
	p, y := randomForecasts(5000, 11)
	one, _ := NewFixedBinAccumulator(10)
	a, _ := NewFixedBinAccumulator(10)
	b, _ := NewFixedBinAccumulator(10)
	for i := range p {
		if err := one.Add(p[i], y[i]); err != nil {
			t.Fatal(err)
		}
		half := a
		if i%2 == 1 {
			half = b
		}
		if err := half.Add(p[i], y[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Merge(a); err != nil { // merge in the other order on purpose
		t.Fatal(err)
	}
	r1, _ := one.Result()
	r2, _ := b.Result()
	if d := cmp.Diff(r1, r2); d != "" {
		t.Errorf("merged != one pass (-one +merged):\n%s", d)
	}
	c, _ := NewFixedBinAccumulator(5)
	if err := c.Merge(a); err == nil {
		t.Error("merging 10 bins into 5 gave no error")
	}
}

func TestRPSAccumulatorMergeEqualsOnePass(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	one, _ := NewRPSAccumulator(3)
	a, _ := NewRPSAccumulator(3)
	b, _ := NewRPSAccumulator(3)
	for i := range 3000 {
		x, z := r.Float64(), r.Float64()
		lo, hi := min(x, z), max(x, z)
		probs := []float64{lo, hi - lo, 1 - hi}
		o := r.IntN(3)
		if err := one.Add(probs, o); err != nil {
			t.Fatal(err)
		}
		part := a
		if i%3 == 0 {
			part = b
		}
		if err := part.Add(probs, o); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.Merge(b); err != nil {
		t.Fatal(err)
	}
	r1, _ := one.Result()
	r2, _ := a.Result()
	if d := cmp.Diff(r1, r2); d != "" {
		t.Errorf("merged != one pass (-one +merged):\n%s", d)
	}
}

func TestAccumulatorsRejectBadForecastsAndRecordNothing(t *testing.T) {
	d := NewDistinctAccumulator()
	f, _ := NewFixedBinAccumulator(10)
	for _, bad := range []struct {
		p float64
		y int
	}{{math.NaN(), 1}, {1.5, 0}, {-0.5, 0}, {0.5, 3}, {math.Inf(1), 1}} {
		if d.Add(bad.p, bad.y) == nil || f.Add(bad.p, bad.y) == nil {
			t.Errorf("Add(%v, %d): no error", bad.p, bad.y)
		}
	}
	if d.N() != 0 || f.N() != 0 {
		t.Errorf("N = %d, %d after bad input, want 0", d.N(), f.N())
	}
	if _, err := d.Murphy(); err == nil {
		t.Error("Murphy of nothing: no error")
	}
	if _, err := f.Result(); err == nil {
		t.Error("Result of nothing: no error")
	}
	if _, err := NewFixedBinAccumulator(0); err == nil {
		t.Error("0 bins: no error")
	}
}

func TestDistinctAccumulatorFoldsNegativeZero(t *testing.T) {
	d := NewDistinctAccumulator()
	_ = d.Add(math.Copysign(0, -1), 0)
	_ = d.Add(0, 0)
	if d.Distinct() != 1 {
		t.Errorf("Distinct = %d, want 1", d.Distinct())
	}
}
