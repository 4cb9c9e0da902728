package statistician

import (
	"math"
	"math/rand/v2"
)

// binomialSampler draws exact Binomial(n, p) variates from a seeded
// source. It exists because the bootstrap draws millions of them:
// gonum's distuv.Binomial evaluates log-gamma on every draw (about 340 ns),
// while these algorithms accept most draws after two uniforms.
//
//   - n min(p, 1-p) < 30: inversion, a sequential search of the CDF from 0
//     with the pmf recurrence f(x) = f(x-1) (n-x+1) p / (x q)
//     (Kachitvichyanukul and Schmeiser 1988, algorithm BINV).
//   - otherwise: BTPE (Kachitvichyanukul and Schmeiser, "Binomial random
//     variate generation", Comm. ACM 31(2), 1988): a triangle, two
//     parallelograms and two exponential tails majorise the pmf; a
//     squeeze on log f(y)/f(m) decides most of the rest, and the exact
//     ratio (by recurrence near the mode, by Stirling's series far from
//     it) decides the remainder.
//
// Both are exact: the draws follow the binomial pmf, which the tests
// check with chi-square goodness of fit against the pmf.
type binomialSampler struct {
	rng *rand.Rand
}

// draw returns a Binomial(n, p) variate; n >= 0 and p in [0, 1].
func (b binomialSampler) draw(n int, p float64) int {
	switch {
	case n <= 0 || p <= 0:
		return 0
	case p >= 1:
		return n
	}
	r := p
	if r > 0.5 {
		r = 1 - p
	}
	var y int
	if float64(n)*r < 30 {
		y = b.inversion(n, r)
	} else {
		y = b.btpe(n, r)
	}
	if p > 0.5 {
		return n - y
	}
	return y
}

// inversion draws Binomial(n, p) for p <= 0.5 and n p < 30.
func (b binomialSampler) inversion(n int, p float64) int {
	q := 1 - p
	qn := math.Exp(float64(n) * math.Log1p(-p))
	np := float64(n) * p
	bound := math.Min(float64(n), np+10*math.Sqrt(np*q+1))
	x := 0
	px := qn
	u := b.rng.Float64()
	for u > px {
		x++
		if float64(x) > bound {
			// The tail beyond the bound holds a negligible mass; restart
			// rather than walk on with rounding error.
			x, px, u = 0, qn, b.rng.Float64()
			continue
		}
		u -= px
		px = px * float64(n-x+1) * p / (float64(x) * q)
	}
	return x
}

// btpe draws Binomial(n, p) for p <= 0.5 and n p >= 30.
func (b binomialSampler) btpe(n int, p float64) int {
	nf := float64(n)
	q := 1 - p
	npq := nf * p * q
	fm := nf*p + p
	m := math.Floor(fm)
	p1 := math.Floor(2.195*math.Sqrt(npq)-4.6*q) + 0.5
	xm := m + 0.5
	xl := xm - p1
	xr := xm + p1
	c := 0.134 + 20.5/(15.3+m)
	a := (fm - xl) / (fm - xl*p)
	laml := a * (1 + a/2)
	a = (xr - fm) / (xr * q)
	lamr := a * (1 + a/2)
	p2 := p1 * (1 + 2*c)
	p3 := p2 + c/laml
	p4 := p3 + c/lamr

	for {
		u := b.rng.Float64() * p4
		v := b.rng.Float64()
		var y float64
		switch {
		case u <= p1: // triangle: accept at once
			return int(math.Floor(xm - p1*v + u))
		case u <= p2: // parallelograms
			x := xl + (u-p1)/c
			v = v*c + 1 - math.Abs(m-x+0.5)/p1
			if v > 1 {
				continue
			}
			y = math.Floor(x)
		case u <= p3: // left exponential tail
			y = math.Floor(xl + math.Log(v)/laml)
			if y < 0 {
				continue
			}
			v = v * (u - p2) * laml
		default: // right exponential tail
			y = math.Floor(xr - math.Log(v)/lamr)
			if y > nf {
				continue
			}
			v = v * (u - p3) * lamr
		}

		k := math.Abs(y - m)
		if k <= 20 || k >= npq/2-1 {
			// Exact f(y)/f(m) by the pmf recurrence.
			s := p / q
			aa := s * (nf + 1)
			f := 1.0
			if m < y {
				for i := m + 1; i <= y; i++ {
					f *= aa/i - s
				}
			} else if m > y {
				for i := y + 1; i <= m; i++ {
					f /= aa/i - s
				}
			}
			if v <= f {
				return int(y)
			}
			continue
		}
		// Squeeze on log f(y)/f(m) with the bounds of the paper.
		rho := (k / npq) * ((k*(k/3+0.625)+0.1666666666666)/npq + 0.5)
		t := -k * k / (2 * npq)
		logv := math.Log(v)
		if logv < t-rho {
			return int(y)
		}
		if logv > t+rho {
			continue
		}
		// Final test with Stirling's series: log f(y)/f(m) =
		//   (m+1/2) log f1 - (y+1/2) log x1 + (n-m+1/2) log z - (n-y+1/2) log w
		//   + (y-m) log(p/q) + d(f1) - d(x1) + d(z) - d(w)
		// with d the series' tail. The signs of the d terms follow from
		// log k! = (k+1/2) log(k+1) - (k+1) + log(2 pi)/2 + d(k+1); the
		// form printed in the paper (and copied widely) adds all four.
		x1 := y + 1
		f1 := m + 1
		z := nf + 1 - m
		w := nf - y + 1
		bound := xm*math.Log(f1/x1) + (nf-m+0.5)*math.Log(z/w) + (y-m)*math.Log(w*p/(x1*q)) +
			stirlingTail(f1) - stirlingTail(x1) + stirlingTail(z) - stirlingTail(w)
		if logv <= bound {
			return int(y)
		}
	}
}

// stirlingTail is the tail of Stirling's series for log Gamma at a,
//
//	d(a) = 1/(12a) - 1/(360a^3) + 1/(1260a^5) - 1/(1680a^7) + 1/(1188a^9)
//	     = (13860 - (462 - (132 - (99 - 140/a^2)/a^2)/a^2)/a^2)/a/166320
//
// as BTPE's final test uses it.
func stirlingTail(a float64) float64 {
	a2 := a * a
	return (13860 - (462-(132-(99-140/a2)/a2)/a2)/a2) / a / 166320
}
