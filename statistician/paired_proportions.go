package statistician

import (
	"fmt"
	"math"
)

// PairedTable is a 2 x 2 table of paired binary outcomes on the same
// items, first (then) against second (now): Both counts items that are a
// success both times, FirstOnly a success the first time only, SecondOnly
// the second time only, Neither in neither.
type PairedTable struct {
	Both       int `yaml:"both" json:"both"`
	FirstOnly  int `yaml:"first_only" json:"first_only"`
	SecondOnly int `yaml:"second_only" json:"second_only"`
	Neither    int `yaml:"neither" json:"neither"`
}

// N is the number of pairs.
func (t PairedTable) N() int { return t.Both + t.FirstOnly + t.SecondOnly + t.Neither }

// NewcombePairedDifference returns p2 - p1 for two proportions measured on
// the same n items, p1 = (Both + FirstOnly)/n and p2 = (Both +
// SecondOnly)/n, with Newcombe's hybrid score interval for paired data
// (Newcombe 1998, Stat. Med. 17:2635-2650, method 10, no continuity
// correction). With the Wilson intervals (l1, u1), (l2, u2) at standard
// normal quantile z and, in the paper's cells a = Both, b = FirstOnly,
// c = SecondOnly, d = Neither,
//
//	phi = (a d - b c) / sqrt((a+b)(c+d)(a+c)(b+d))   (0 when a margin is 0)
//	d   = p2 - p1
//	lower = d - sqrt((p2-l2)^2 - 2 phi (p2-l2)(u1-p1) + (u1-p1)^2)
//	upper = d + sqrt((u2-p2)^2 - 2 phi (u2-p2)(p1-l1) + (p1-l1)^2)
//
// (the paper's interval for p1 - p2 with the two proportions swapped). The
// interval lies in [-1, 1] and contains d. It returns an error when a
// count is negative, there is no pair, or z is not positive and finite.
func NewcombePairedDifference(t PairedTable, z float64) (Difference, error) {
	if t.Both < 0 || t.FirstOnly < 0 || t.SecondOnly < 0 || t.Neither < 0 {
		return Difference{}, fmt.Errorf("statistician: paired difference: negative count in %+v", t)
	}
	n := t.N()
	w1, err := WilsonInterval(t.Both+t.FirstOnly, n, z)
	if err != nil {
		return Difference{}, fmt.Errorf("statistician: paired difference, first proportion: %w", err)
	}
	w2, err := WilsonInterval(t.Both+t.SecondOnly, n, z)
	if err != nil {
		return Difference{}, fmt.Errorf("statistician: paired difference, second proportion: %w", err)
	}
	nf := float64(n)
	p1, p2 := float64(t.Both+t.FirstOnly)/nf, float64(t.Both+t.SecondOnly)/nf
	phi := pairedPhi(t)
	d := p2 - p1
	lowerHalf := math.Sqrt(math.Max(0, sq(p2-w2.Lower)-2*phi*(p2-w2.Lower)*(w1.Upper-p1)+sq(w1.Upper-p1)))
	upperHalf := math.Sqrt(math.Max(0, sq(w2.Upper-p2)-2*phi*(w2.Upper-p2)*(p1-w1.Lower)+sq(p1-w1.Lower)))
	return Difference{
		Estimate: d,
		CI:       Interval{Lower: math.Max(d-lowerHalf, -1), Upper: math.Min(d+upperHalf, 1)},
	}, nil
}

// pairedPhi is the phi coefficient of a paired table, 0 when a margin is
// empty (Newcombe 1998, section 2, method 10).
func pairedPhi(t PairedTable) float64 {
	a, b, c, d := float64(t.Both), float64(t.FirstOnly), float64(t.SecondOnly), float64(t.Neither)
	den := (a + b) * (c + d) * (a + c) * (b + d)
	if den == 0 {
		return 0
	}
	// Each factor is at most 2^53, so the product may overflow; the square
	// roots of the pairs keep it finite.
	return (a*d - b*c) / (math.Sqrt((a+b)*(c+d)) * math.Sqrt((a+c)*(b+d)))
}

func sq(x float64) float64 { return x * x }
