package statistician

import (
	"math"
	"testing"
)

func TestCORPMatchesScikitLearnIsotonicRegression(t *testing.T) {
	cases, _ := forecastReference(t)
	for _, c := range cases {
		d, err := CORP(c.P, c.Y)
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		checkRef(t, c.Name+": mcb", d.MCB, c.CORP.MCB)
		checkRef(t, c.Name+": dsc", d.DSC, c.CORP.DSC)
		checkRef(t, c.Name+": unc", d.UNC, c.CORP.UNC)
		if gap := d.MCB - d.DSC + d.UNC - d.Brier; math.Abs(gap) > 1e-12 {
			t.Errorf("%s: MCB - DSC + UNC - BS = %g", c.Name, gap)
		}
	}
}

// By hand: p = 0.2, 0.4, 0.6, 0.8 with y = 0, 1, 0, 1. PAV pools 0.4 and
// 0.6 (rates 1 > 0), giving rc = 0, 0.5, 0.5, 1: BS(rc) = 2*0.25/4 = 0.125.
// BS(p) = (0.04 + 0.36 + 0.36 + 0.04)/4 = 0.2; UNC = 0.25.
func TestCORPPoolsAdjacentViolators(t *testing.T) {
	d, err := CORP([]float64{0.2, 0.4, 0.6, 0.8}, []int{0, 1, 0, 1})
	if err != nil {
		t.Fatal(err)
	}
	want := CORPDecomposition{N: 4, Brier: 0.2, Recalibrated: 0.125, MCB: 0.075, DSC: 0.125, UNC: 0.25}
	for _, v := range []struct {
		what      string
		got, want float64
	}{{"brier", d.Brier, want.Brier}, {"rc", d.Recalibrated, want.Recalibrated}, {"mcb", d.MCB, want.MCB}, {"dsc", d.DSC, want.DSC}, {"unc", d.UNC, want.UNC}} {
		if math.Abs(v.got-v.want) > 1e-15 {
			t.Errorf("%s = %v, want %v", v.what, v.got, v.want)
		}
	}
}

// A constant forecast cannot discriminate: PAV returns the base rate, so
// DSC = 0 exactly (not a rounding residue) and MCB = (p - o)^2.
func TestCORPConstantForecastHasNoDiscrimination(t *testing.T) {
	p, y := repeat(0.9, 10, 6)
	d, err := CORP(p, y)
	if err != nil {
		t.Fatal(err)
	}
	if d.DSC != 0 || math.Abs(d.MCB-0.09) > 1e-15 {
		t.Errorf("DSC = %v, MCB = %v; want 0 and 0.09", d.DSC, d.MCB)
	}
}
