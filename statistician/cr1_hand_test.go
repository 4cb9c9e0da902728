package statistician

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestCR1ProportionHandWorked(t *testing.T) {
	// x: 4 of 6 match, y: 2 of 4; p = 0.6. u_x = 4 - 6(0.6) = 0.4,
	// u_y = 2 - 4(0.6) = -0.4; Var = 2/1 (0.16 + 0.16)/100 = 0.0064,
	// SE = 0.08; t(0.975; 1) = 12.706 makes the interval [0, 1].
	m := []bool{true, true, false, true, false, true, true, false, false, true}
	g := []string{"x", "x", "x", "x", "x", "x", "y", "y", "y", "y"}
	c := cr1Proportion(m, g, 0.95)
	if c.Reason != "" || c.Value != 0.6 || math.Abs(c.SE-0.08) > 1e-15 || c.DF != 1 || c.Clusters != 2 ||
		c.CI != (Interval{Lower: 0, Upper: 1}) {
		t.Errorf("got %+v", c)
	}
}

func TestCR1ProportionDoesNotDependOnRunOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 3))
	n := 500
	m, g := make([]bool, n), make([]string, n)
	for i := range m {
		m[i] = rng.Float64() < 0.7
		g[i] = string(rune('a' + rng.IntN(9)))
	}
	a := cr1Proportion(m, g, 0.95)
	rng.Shuffle(n, func(i, j int) { m[i], m[j] = m[j], m[i]; g[i], g[j] = g[j], g[i] })
	if b := cr1Proportion(m, g, 0.95); a != b || a.Reason != "" {
		t.Errorf("order changed the result: %+v vs %+v", a, b)
	}
}

func TestCR1ProportionDegenerate(t *testing.T) {
	one := cr1Proportion([]bool{true, false, true}, []string{"s", "s", "s"}, 0.95)
	if one.Reason == "" || math.Abs(one.Value-2.0/3) > 1e-15 || one.CI != (Interval{}) || one.Clusters != 1 {
		t.Errorf("one cluster: %+v", one)
	}
	same := cr1Proportion([]bool{true, false, true, false}, []string{"a", "a", "b", "b"}, 0.95)
	if same.Reason == "" || same.Value != 0.5 || same.SE != 0 {
		t.Errorf("equal shares: %+v", same)
	}
	for name, c := range map[string]cr1Result{
		"empty":   cr1Proportion(nil, nil, 0.95),
		"lengths": cr1Proportion([]bool{true}, []string{"a", "b"}, 0.95),
		"level":   cr1Proportion([]bool{true, false}, []string{"a", "b"}, 1.5),
	} {
		if c.Reason == "" || c.Value != 0 {
			t.Errorf("%s: %+v", name, c)
		}
	}
}
