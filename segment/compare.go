package segment

import (
	"fmt"
	"math"

	"github.com/evalcal/evalcal/statistician"
)

// Alpha is the significance level of the comparisons (after Holm).
const Alpha = 0.05

// Comparison compares two tested slices, A and B (A before B by value), by
// deep's pass rate and by light's.
type Comparison struct {
	A string `yaml:"a" json:"a"`
	B string `yaml:"b" json:"b"`
	// Deep is deep's (corrected) pass rate of A minus B's; Light the same
	// difference as light alone reports it.
	Deep  Difference `yaml:"deep" json:"deep"`
	Light Difference `yaml:"light" json:"light"`
	// OrderWrong: deep's difference is significant after Holm (p_holm <
	// Alpha: deep establishes an order) and light's has the other sign.
	// SignificanceWrong: one is significant after Holm and the other is
	// not. A pair neither side tells apart is never wrong.
	OrderWrong        bool `yaml:"order_wrong" json:"order_wrong"`
	SignificanceWrong bool `yaml:"significance_wrong" json:"significance_wrong"`
}

// Difference is a difference of two independent pass-rate estimates in
// points (percentage points), A minus B:
//
//	d = p_A - p_B,  SE = sqrt(SE_A^2 + SE_B^2)
//	CI95 = d ± z SE,  z = Phi^-1(0.975)
//	p = 2 (1 - Phi(|d| / SE))
//
// (the Wald test of two independent proportions, statsmodels'
// test_proportions_2indep(method="wald") for classical rates; for PPI++ the
// same normal form, the two slices being disjoint runs). PHolm is p after
// Holm's step-down adjustment over the field's comparisons (Holm 1979,
// Scand. J. Statist. 6(2)), of the same side (deep or light). With SE 0 or
// an undefined rate the interval and p are null and Reason says why.
type Difference struct {
	Points      *float64               `yaml:"points" json:"points"`
	SE          *float64               `yaml:"se" json:"se"`
	CI95        *statistician.Interval `yaml:"ci95" json:"ci95"`
	P           *float64               `yaml:"p" json:"p"`
	PHolm       *float64               `yaml:"p_holm" json:"p_holm"`
	Significant bool                   `yaml:"significant" json:"significant"`
	Reason      string                 `yaml:"reason,omitempty" json:"reason,omitempty"`
}

// compare compares every pair of tested slices (in value order) and says
// which pairs light misjudges.
func compare(ss []Slice) ([]Comparison, []string) {
	var tested []Slice
	for _, s := range ss {
		if s.Tested {
			tested = append(tested, s)
		}
	}
	cs := []Comparison{}
	for i := range tested {
		for j := i + 1; j < len(tested); j++ {
			a, b := tested[i], tested[j]
			cs = append(cs, Comparison{A: a.Value, B: b.Value,
				Deep: difference(a.DeepPassRate, b.DeepPassRate), Light: difference(a.LightPassRate, b.LightPassRate)})
		}
	}
	holmInto(cs, func(c *Comparison) *Difference { return &c.Deep })
	holmInto(cs, func(c *Comparison) *Difference { return &c.Light })
	misjudged := []string{}
	for i := range cs {
		c := &cs[i]
		if c.Deep.Points == nil || c.Light.Points == nil {
			continue
		}
		dd, dl := *c.Deep.Points, *c.Light.Points
		c.OrderWrong = dd*dl < 0 && c.Deep.Significant
		c.SignificanceWrong = c.Deep.P != nil && c.Light.P != nil && c.Deep.Significant != c.Light.Significant
		if !c.OrderWrong && !c.SignificanceWrong {
			continue
		}
		misjudged = append(misjudged, misjudgement(*c))
	}
	return cs, misjudged
}

// misjudgement says in words how light gets pair c wrong.
func misjudgement(c Comparison) string {
	dd, dl := *c.Deep.Points, *c.Light.Points
	what := fmt.Sprintf("%s vs %s: deep says %+.2f points", c.A, c.B, dd)
	if c.Deep.Significant {
		what += " (significant)"
	}
	what += fmt.Sprintf(", light %+.2f", dl)
	if c.Light.Significant {
		what += " (significant)"
	}
	switch {
	case c.OrderWrong && c.SignificanceWrong:
		what += ": light gets the order and the significance wrong"
	case c.OrderWrong:
		what += ": light gets the order wrong"
	default:
		what += ": light gets the significance wrong"
	}
	return what
}

// difference is a minus b (see Difference).
func difference(a, b *Rate) Difference {
	var d Difference
	if a == nil || b == nil || a.Percent == nil || b.Percent == nil {
		d.Reason = "a pass rate is not defined"
		return d
	}
	pts := *a.Percent - *b.Percent
	d.Points = &pts
	if a.SE == nil || b.SE == nil {
		d.Reason = "a pass rate has no standard error"
		return d
	}
	se := math.Hypot(*a.SE, *b.SE)
	if !(se > 0) {
		d.Reason = "both pass rates have standard error 0"
		return d
	}
	d.SE = &se
	d.CI95 = &statistician.Interval{Lower: pts - statistician.Z95*se, Upper: pts + statistician.Z95*se}
	p := math.Erfc(math.Abs(pts/se) / math.Sqrt2)
	d.P = &p
	return d
}

// holmInto sets PHolm and Significant of the differences side picks, over
// those with a p.
func holmInto(cs []Comparison, side func(*Comparison) *Difference) {
	var ps []float64
	var at []int
	for i := range cs {
		if d := side(&cs[i]); d.P != nil {
			ps, at = append(ps, *d.P), append(at, i)
		}
	}
	for k, q := range statistician.Holm(ps) {
		d := side(&cs[at[k]])
		v := q
		d.PHolm, d.Significant = &v, q < Alpha
	}
}
