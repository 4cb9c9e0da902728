package statistician

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// Reference: R 4.2.2 from the same summary statistics,
//
//	v1 <- s1^2/n1; v2 <- s2^2/n2; df <- (v1+v2)^2/(v1^2/(n1-1)+v2^2/(n2-1))
//	m1 - m2 + c(-1, 1) * qt(0.975, df) * sqrt(v1 + v2)
//	# 0.10737212439408617 3.90977073274877007
//
// (scipy 1.10.1's t.ppf at this fractional df, 5.26, differs by 4e-9.)
func TestWelchDifferenceMatchesR(t *testing.T) {
	d, err := WelchDifference(3.48, 1.561089363233252, 5, 1.471428571428572, 0.729644401322283, 7)
	if err != nil {
		t.Fatal(err)
	}
	want := Interval{Lower: 0.10737212439408617, Upper: 3.90977073274877007}
	if diff := cmp.Diff(want, d.CI, cmpopts.EquateApprox(0, 1e-10)); diff != "" || d.Estimate != 3.48-1.471428571428572 {
		t.Errorf("d = %v, ci (-want +got):\n%s", d.Estimate, diff)
	}
}

func TestWelchDifferenceRefusesTooFewValues(t *testing.T) {
	if _, err := WelchDifference(1, 1, 1, 2, 1, 5); err == nil {
		t.Error("n = 1 accepted")
	}
	if _, err := WelchDifference(1, -1, 3, 2, 1, 5); err == nil {
		t.Error("negative SD accepted")
	}
}
