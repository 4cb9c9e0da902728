package statistician

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestNewcombePairedDifferenceProperties: the interval holds the estimate,
// lies in [-1, 1], and swapping the two measurements negates it.
func TestNewcombePairedDifferenceProperties(t *testing.T) {
	for _, tab := range []PairedTable{{12, 5, 9, 18}, {30, 0, 0, 0}, {0, 3, 0, 7}, {0, 0, 0, 1}, {0, 10, 0, 0}, {140, 10, 2, 148}} {
		d, err := NewcombePairedDifference(tab, Z95)
		if err != nil {
			t.Fatal(err)
		}
		if !(d.CI.Lower <= d.Estimate && d.Estimate <= d.CI.Upper && d.CI.Lower >= -1 && d.CI.Upper <= 1) {
			t.Errorf("%+v: %+v", tab, d)
		}
		s, err := NewcombePairedDifference(PairedTable{tab.Both, tab.SecondOnly, tab.FirstOnly, tab.Neither}, Z95)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(s.Estimate+d.Estimate) > 1e-15 || math.Abs(s.CI.Lower+d.CI.Upper) > 1e-15 || math.Abs(s.CI.Upper+d.CI.Lower) > 1e-15 {
			t.Errorf("%+v: swapped %+v, not the negation of %+v", tab, s, d)
		}
	}
	for _, bad := range []PairedTable{{}, {-1, 2, 3, 4}} {
		if _, err := NewcombePairedDifference(bad, Z95); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
	if _, err := NewcombePairedDifference(PairedTable{1, 2, 3, 4}, 0); err == nil {
		t.Error("z = 0 accepted")
	}
}

// TestNewcombePairedDifferenceCoverage: over 4,000 simulated tables each,
// the 95% interval holds the true difference at least 93% of the time
// (Newcombe 1998 reports coverage close to nominal for method 10).
func TestNewcombePairedDifferenceCoverage(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("simulation: skipped under -short and the race detector")
	}
	rng := rand.New(rand.NewPCG(1998, 10))
	for _, c := range []struct {
		n     int
		probs [4]float64
	}{{50, [4]float64{0.6, 0.1, 0.05, 0.25}}, {300, [4]float64{0.7, 0.08, 0.02, 0.2}}, {30, [4]float64{0.45, 0.05, 0.05, 0.45}}} {
		truth := c.probs[2] - c.probs[1]
		hits := 0
		const reps = 4000
		for range reps {
			var tab PairedTable
			cells := []*int{&tab.Both, &tab.FirstOnly, &tab.SecondOnly, &tab.Neither}
			for range c.n {
				u, acc := rng.Float64(), 0.0
				for i, p := range c.probs {
					acc += p
					if u < acc || i == 3 {
						*cells[i]++
						break
					}
				}
			}
			d, err := NewcombePairedDifference(tab, Z95)
			if err != nil {
				t.Fatal(err)
			}
			if d.CI.Contains(truth) {
				hits++
			}
		}
		if cov := float64(hits) / reps; cov < 0.93 {
			t.Errorf("n %d cells %v: coverage %.4f, want >= 0.93", c.n, c.probs, cov)
		} else {
			t.Logf("n %d cells %v: coverage %.4f", c.n, c.probs, cov)
		}
	}
}
