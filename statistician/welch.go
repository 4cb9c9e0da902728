package statistician

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// WelchDifference returns the difference m1 - m2 of two independent means
// from their sample means, standard deviations (n-1 denominator) and
// sizes, with Welch's t 95% interval (Welch 1947; as R's
// t.test(x, y)$conf.int):
//
//	v1 = s1^2/n1,  v2 = s2^2/n2,  SE = sqrt(v1 + v2)
//	df = (v1 + v2)^2 / (v1^2/(n1-1) + v2^2/(n2-1))
//	CI = (m1 - m2) ± t(0.975; df) SE
//
// When both SDs are 0 the interval is the point. It returns an error when
// a size is below 2, an SD is negative, or a value is not finite.
func WelchDifference(m1, s1 float64, n1 int, m2, s2 float64, n2 int) (Difference, error) {
	for _, x := range []float64{m1, s1, m2, s2} {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return Difference{}, fmt.Errorf("statistician: welch: non-finite mean or SD")
		}
	}
	switch {
	case n1 < 2 || n2 < 2:
		return Difference{}, fmt.Errorf("statistician: welch: need at least 2 values on each side, have %d and %d", n1, n2)
	case s1 < 0 || s2 < 0:
		return Difference{}, fmt.Errorf("statistician: welch: negative SD")
	}
	d := m1 - m2
	v1, v2 := s1*s1/float64(n1), s2*s2/float64(n2)
	if v1+v2 == 0 {
		return Difference{Estimate: d, CI: Interval{Lower: d, Upper: d}}, nil
	}
	df := (v1 + v2) * (v1 + v2) / (v1*v1/float64(n1-1) + v2*v2/float64(n2-1))
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Quantile(0.975)
	h := t * math.Sqrt(v1+v2)
	return Difference{Estimate: d, CI: Interval{Lower: d - h, Upper: d + h}}, nil
}
