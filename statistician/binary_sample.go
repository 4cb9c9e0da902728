package statistician

import (
	"context"
	"fmt"
	"iter"
	"math"
	"math/rand/v2"
	"slices"
)

// cellSeq yields distinct forecast values in ascending order, each with
// how many forecasts stated it and how many of those came true.
type cellSeq = iter.Seq2[float64, forecastCell]

// brierSumOf returns N * Brier = sum over values of (n-h) p^2 + h (1-p)^2,
// summed exactly.
func brierSumOf(seq cellSeq) float64 {
	var s exactSum
	for p, c := range seq {
		s.add(float64(c.n-c.hits) * p * p)
		s.add(float64(c.hits) * (1 - p) * (1 - p))
	}
	return s.Float64()
}

// murphyOf is the exact Murphy decomposition (see MurphyExact) of the
// distinct values of seq, n forecasts of which hits came true.
func murphyOf(seq cellSeq, tn, thits int64) MurphyDecomposition {
	m, _ := murphyCORPOf(seq, tn, thits, false)
	return m
}

// murphyCORPOf computes the exact Murphy decomposition and, when withCORP
// is set, the CORP decomposition in one pass over seq: the same operations
// in the same order as murphyOf and corpOf apart, so bit for bit the same
// results.
func murphyCORPOf(seq cellSeq, tn, thits int64, withCORP bool) (MurphyDecomposition, CORPDecomposition) {
	n := float64(tn)
	obar := float64(thits) / n
	var rel, res, bsum exactSum
	var p pav
	distinct := 0
	for v, c := range seq {
		ok := float64(c.hits) / float64(c.n)
		rel.add(float64(c.n) * (v - ok) * (v - ok))
		res.add(float64(c.n) * (ok - obar) * (ok - obar))
		bsum.add(float64(c.n-c.hits) * v * v)
		bsum.add(float64(c.hits) * (1 - v) * (1 - v))
		if withCORP {
			p.add(c)
		}
		distinct++
	}
	brierSum := bsum.Float64()
	m := MurphyDecomposition{
		N:           int(tn),
		Distinct:    distinct,
		BaseRate:    obar,
		Brier:       brierSum / n,
		Reliability: rel.Float64() / n,
		Resolution:  res.Float64() / n,
		Uncertainty: obar * (1 - obar),
	}
	if !withCORP {
		return m, CORPDecomposition{}
	}
	return m, p.result(brierSum, tn, thits)
}

// equalFrequencyOf bins the m forecasts of seq by the rule of
// EqualFrequencyBins: with k = min(bins, m) and targets
// t_i = floor(m (i+1) / k), a bin closes after the first distinct value at
// which the cumulative count reaches or passes its target, and the next
// bin takes the first target above that count. Tied forecasts are never
// split, so fewer than k bins may result.
func equalFrequencyOf(seq cellSeq, m int64, bins int) (BinnedMurphy, error) {
	k := min(int64(bins), m)
	target := func(i int64) int64 { return m * (i + 1) / k }
	var sums []binSums
	var bounds []Interval
	var cur binSums
	var lo, hi float64
	var cum int64
	b := int64(0)
	for p, c := range seq {
		if cur.n == 0 {
			lo = p
		}
		cur.addCell(p, c)
		hi = p
		cum += c.n
		if cum >= target(b) {
			sums = append(sums, cur)
			bounds = append(bounds, Interval{Lower: lo, Upper: hi})
			cur = binSums{}
			for b < k-1 && target(b) <= cum {
				b++
			}
		}
	}
	if cur.n > 0 { // unreachable: the last target is m
		sums = append(sums, cur)
		bounds = append(bounds, Interval{Lower: lo, Upper: hi})
	}
	return binnedResult(EqualFrequencyBins, sums, bounds)
}

// fixedBinsOf bins the forecasts of seq into k fixed-width bins (see
// FixedBins).
func fixedBinsOf(seq cellSeq, k int) (BinnedMurphy, error) {
	a, err := NewFixedBinAccumulator(k)
	if err != nil {
		return BinnedMurphy{}, err
	}
	for p, c := range seq {
		a.bins[fixedBin(p, k)].addCell(p, c)
	}
	return a.Result()
}

// sampleChunkLen is the length of a BinarySample's storage chunks: 64 KiB,
// so that growing never copies more than one chunk.
const (
	sampleChunkShift = 13
	sampleChunkLen   = 1 << sampleChunkShift
)

// floatChunks is a growable list of float64 values kept in fixed-size
// chunks, so that appending never copies the values already held (a
// slice grown by append copies all of them and leaves the old array as
// garbage, up to twice the memory at its peak). The first chunk starts
// small and doubles up to sampleChunkLen, so that small groups stay small;
// every chunk but the last is full, so value i is in chunk
// i / sampleChunkLen. The values are sorted in place, chunks and all: no
// second copy is ever made.
type floatChunks struct {
	chunks [][]float64
	n      int
	sorted bool
}

func (c *floatChunks) add(x float64) {
	last := len(c.chunks) - 1
	if last < 0 || len(c.chunks[last]) == cap(c.chunks[last]) {
		switch {
		case last < 0:
			c.chunks = append(c.chunks, make([]float64, 0, 8))
		case cap(c.chunks[last]) < sampleChunkLen && last == 0:
			grown := make([]float64, len(c.chunks[0]), min(2*cap(c.chunks[0]), sampleChunkLen))
			copy(grown, c.chunks[0])
			c.chunks[0] = grown
		default:
			c.chunks = append(c.chunks, make([]float64, 0, sampleChunkLen))
		}
		last = len(c.chunks) - 1
	}
	c.chunks[last] = append(c.chunks[last], x)
	c.n++
	c.sorted = false
}

// sortedView sorts the values in place (see sortView) and returns them.
func (c *floatChunks) sortedView(ctx context.Context) (floatView, error) {
	v := viewOf(c.chunks, c.n)
	if c.sorted {
		return v, nil
	}
	if err := sortView(ctx, v); err != nil {
		return floatView{}, err
	}
	c.sorted = true
	return v, nil
}

// floatView is n values held in chunks, addressed by index: value i is
// c[i >> shift][i & mask]. A single slice is one chunk of any length.
type floatView struct {
	c     [][]float64
	shift uint
	mask  int
	n     int
}

func viewOf(chunks [][]float64, n int) floatView {
	if len(chunks) <= 1 {
		return floatView{c: chunks, shift: 62, mask: 1<<62 - 1, n: n}
	}
	return floatView{c: chunks, shift: sampleChunkShift, mask: sampleChunkLen - 1, n: n}
}

func (v floatView) at(i int) float64     { return v.c[i>>v.shift][i&v.mask] }
func (v floatView) set(i int, x float64) { v.c[i>>v.shift][i&v.mask] = x }

// run returns values lo..hi-1 as one slice when they sit in one chunk.
func (v floatView) run(lo, hi int) ([]float64, bool) {
	if lo>>v.shift != (hi-1)>>v.shift {
		return nil, false
	}
	c := v.c[lo>>v.shift]
	return c[lo&v.mask : (hi-1)&v.mask+1], true
}

// cursor walks a floatView one value at a time, forward or backward, with
// the current chunk at hand, so that a pass costs what a loop over one
// slice costs. It is positioned on value pos (valid while 0 <= pos < n).
type cursor struct {
	v   floatView
	ch  []float64 // the chunk holding pos
	k   int       // pos's index in ch
	pos int
}

func (v floatView) cursorAt(pos int) cursor {
	c := cursor{v: v, pos: pos}
	if pos >= 0 && pos < v.n {
		c.ch, c.k = v.c[pos>>v.shift], pos&v.mask
	}
	return c
}

func (c *cursor) val() float64  { return c.ch[c.k] }
func (c *cursor) set(x float64) { c.ch[c.k] = x }
func (c *cursor) valid() bool   { return c.pos >= 0 && c.pos < c.v.n }
func (c *cursor) forward() {
	c.pos++
	if c.k++; c.k == len(c.ch) && c.pos < c.v.n {
		c.ch, c.k = c.v.c[c.pos>>c.v.shift], 0
	}
}
func (c *cursor) backward() {
	c.pos--
	if c.k--; c.k < 0 && c.pos >= 0 {
		c.ch = c.v.c[c.pos>>c.v.shift]
		c.k = len(c.ch) - 1
	}
}

// sortLeafLen is the largest piece sortView hands to slices.Sort without
// looking at ctx again: 64k values sort in about 3 ms.
const sortLeafLen = 1 << 16

// sortFloats sorts x (no NaN) in ascending order (see sortView).
func sortFloats(ctx context.Context, x []float64) error {
	return sortView(ctx, viewOf([][]float64{x}, len(x)))
}

// sortView sorts the values of v (no NaN) in ascending order in place, and
// stops with ctx.Err() when ctx is done: it partitions the values around
// pivots (the median of three values drawn from a fixed-seed source, so
// the work is reproducible, and three-way, so runs of equal values end at
// once) until every piece has at most sortLeafLen values, looking at ctx
// before each piece and every sortLeafLen values of a partition, and sorts
// the pieces with slices.Sort (a piece across chunks through a scratch
// buffer of sortLeafLen values). Sorting numbers, the result does not
// depend on the pivots.
func sortView(ctx context.Context, v floatView) error {
	rng := rand.New(rand.NewPCG(0x5eed, uint64(v.n)))
	var scratch []float64
	stack := [][2]int{{0, v.n}}
	for len(stack) > 0 {
		if err := ctx.Err(); err != nil {
			return err
		}
		lo, hi := stack[len(stack)-1][0], stack[len(stack)-1][1]
		stack = stack[:len(stack)-1]
		if hi-lo <= sortLeafLen {
			if hi-lo < 2 {
				continue
			}
			if s, ok := v.run(lo, hi); ok {
				slices.Sort(s)
				continue
			}
			scratch = scratch[:0]
			for i := lo; i < hi; i++ {
				scratch = append(scratch, v.at(i))
			}
			slices.Sort(scratch)
			for i, x := range scratch {
				v.set(lo+i, x)
			}
			continue
		}
		size := hi - lo
		a, b, c := v.at(lo+rng.IntN(size)), v.at(lo+rng.IntN(size)), v.at(lo+rng.IntN(size))
		pivot := max(min(a, b), min(max(a, b), c))
		// Dutch national flag: [lo, lt) < pivot, [lt, gt) == pivot, [gt, hi) > pivot.
		if s, ok := v.run(lo, hi); ok {
			l, g, err := partition(ctx, s, pivot)
			if err != nil {
				return err
			}
			stack = append(stack, [2]int{lo, lo + l}, [2]int{lo + g, hi})
			continue
		}
		lt, i, gt := v.cursorAt(lo), v.cursorAt(lo), v.cursorAt(hi-1)
		for step := 1; i.pos <= gt.pos; step++ {
			if step%sortLeafLen == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			switch x := i.val(); {
			case x < pivot:
				i.set(lt.val())
				lt.set(x)
				lt.forward()
				i.forward()
			case x > pivot:
				i.set(gt.val())
				gt.set(x)
				gt.backward()
			default:
				i.forward()
			}
		}
		stack = append(stack, [2]int{lo, lt.pos}, [2]int{gt.pos + 1, hi})
		continue
	}
	return nil
}

// partition is sortView's three-way partition of one slice: s[:lt] <
// pivot, s[lt:gt] == pivot, s[gt:] > pivot.
func partition(ctx context.Context, s []float64, pivot float64) (lt, gt int, err error) {
	i := 0
	gt = len(s)
	for step := 1; i < gt; step++ {
		if step%sortLeafLen == 0 {
			if err := ctx.Err(); err != nil {
				return 0, 0, err
			}
		}
		switch v := s[i]; {
		case v < pivot:
			s[lt], s[i] = s[i], s[lt]
			lt++
			i++
		case v > pivot:
			gt--
			s[gt], s[i] = s[i], s[gt]
		default:
			i++
		}
	}
	return lt, gt, nil
}

// BinarySample holds binary forecasts for the statistics that need more
// than streaming sums: equal-frequency bins, CORP and the label's
// bootstrap. It keeps 8 bytes per forecast (the value, in a list for its
// outcome, in chunks of 64 KiB) and nothing per forecast besides; Sorted
// turns the lists into two ascending arrays in place. The zero value is
// ready to use.
type BinarySample struct {
	zeros, ones floatChunks
}

// Add records one forecast p of outcome y. It returns an error, and
// records nothing, when p is not in [0, 1] (NaN included) or y is not 0
// or 1. -0 is recorded as 0.
func (s *BinarySample) Add(p float64, y int) error {
	if err := checkForecast(p, y); err != nil {
		return err
	}
	if p == 0 {
		p = 0
	}
	if y == 1 {
		s.ones.add(p)
	} else {
		s.zeros.add(p)
	}
	return nil
}

// Len returns the number of forecasts recorded.
func (s *BinarySample) Len() int { return s.zeros.n + s.ones.n }

// Sorted sorts the recorded forecasts in place (see sortView: it stops
// with ctx.Err() when ctx is done) and returns a view of them. The view
// shares the sample's memory and stays valid until the next Add.
func (s *BinarySample) Sorted(ctx context.Context) (SortedBinary, error) {
	z, err := s.zeros.sortedView(ctx)
	if err != nil {
		return SortedBinary{}, fmt.Errorf("statistician: sort forecasts: %w", err)
	}
	o, err := s.ones.sortedView(ctx)
	if err != nil {
		return SortedBinary{}, fmt.Errorf("statistician: sort forecasts: %w", err)
	}
	return SortedBinary{zeros: z, ones: o}, nil
}

// SortedBinary is a BinarySample's forecasts in ascending order, split by
// outcome. Every statistic it gives depends on the multiset of (forecast,
// outcome) pairs only, never on the order they were added in, and equals
// the function of the same name on the forecasts as slices (MurphyExact,
// CORP, MurphyBinned) bit for bit.
type SortedBinary struct {
	zeros, ones floatView
}

// N returns the number of forecasts.
func (t SortedBinary) N() int { return t.zeros.n + t.ones.n }

// Hits returns the number of forecasts whose outcome was 1.
func (t SortedBinary) Hits() int { return t.ones.n }

// cells yields the distinct forecast values in ascending order with their
// counts, merging the two sorted lists.
func (t SortedBinary) cells() cellSeq {
	return func(yield func(float64, forecastCell) bool) {
		z, o := t.zeros.cursorAt(0), t.ones.cursorAt(0)
		for z.valid() || o.valid() {
			var p float64
			if !o.valid() || (z.valid() && z.val() <= o.val()) {
				p = z.val()
			} else {
				p = o.val()
			}
			var c forecastCell
			for z.valid() && z.val() == p {
				z.forward()
				c.n++
			}
			for o.valid() && o.val() == p {
				o.forward()
				c.n++
				c.hits++
			}
			if !yield(p, c) {
				return
			}
		}
	}
}

// SquaredErrors yields the distinct squared errors (p - y)^2 of the
// forecasts in ascending order, each with how many forecasts have it: the
// cells of the label's bootstrap. Squared errors p^2 of the outcome-0
// forecasts rise with p, and (p - 1)^2 of the outcome-1 forecasts fall
// with p, so the two sorted lists merge without sorting again.
func (t SortedBinary) SquaredErrors() iter.Seq2[float64, int] {
	return func(yield func(float64, int) bool) {
		z, o := t.zeros.cursorAt(0), t.ones.cursorAt(t.ones.n-1)
		sq0 := func() float64 { p := z.val(); return p * p }
		sq1 := func() float64 { d := o.val() - 1; return d * d }
		for z.valid() || o.valid() {
			var e float64
			switch {
			case !o.valid():
				e = sq0()
			case !z.valid():
				e = sq1()
			default:
				e = min(sq0(), sq1())
			}
			c := 0
			for z.valid() && sq0() == e {
				z.forward()
				c++
			}
			for o.valid() && sq1() == e {
				o.backward()
				c++
			}
			if !yield(e, c) {
				return
			}
		}
	}
}

// Murphy returns the exact Murphy decomposition (see MurphyExact). It
// returns an error when there are no forecasts.
func (t SortedBinary) Murphy() (MurphyDecomposition, error) {
	if t.N() == 0 {
		return MurphyDecomposition{}, fmt.Errorf("statistician: no forecasts")
	}
	return murphyOf(t.cells(), int64(t.N()), int64(t.Hits())), nil
}

// CORP returns the CORP decomposition (see CORP). It returns an error when
// there are no forecasts.
func (t SortedBinary) CORP() (CORPDecomposition, error) {
	if t.N() == 0 {
		return CORPDecomposition{}, fmt.Errorf("statistician: no forecasts")
	}
	return corpOf(t.cells(), int64(t.N()), int64(t.Hits())), nil
}

// Binned returns the binned Murphy decomposition (see MurphyBinned). It
// returns an error when there are no forecasts, bins < 1 or the method is
// unknown.
func (t SortedBinary) Binned(bins int, method Binning) (BinnedMurphy, error) {
	return binnedOf(t.cells(), int64(t.N()), bins, method)
}

func binnedOf(seq cellSeq, n int64, bins int, method Binning) (BinnedMurphy, error) {
	switch {
	case n == 0:
		return BinnedMurphy{}, fmt.Errorf("statistician: binned murphy: no forecasts recorded")
	case bins < 1:
		return BinnedMurphy{}, fmt.Errorf("statistician: binned murphy: need at least 1 bin, got %d", bins)
	}
	switch method {
	case FixedBins:
		return fixedBinsOf(seq, bins)
	case EqualFrequencyBins:
		return equalFrequencyOf(seq, n, bins)
	}
	return BinnedMurphy{}, fmt.Errorf("statistician: binned murphy: unknown binning %q", method)
}

// MurphyAndCORP returns Murphy and CORP together, in one pass: bit for bit
// what the two methods give. It returns an error when there are no
// forecasts.
func (t SortedBinary) MurphyAndCORP() (MurphyDecomposition, CORPDecomposition, error) {
	if t.N() == 0 {
		return MurphyDecomposition{}, CORPDecomposition{}, fmt.Errorf("statistician: no forecasts")
	}
	m, c := murphyCORPOf(t.cells(), int64(t.N()), int64(t.Hits()), true)
	return m, c, nil
}

// ErrorMoments summarises the squared errors e_i = (p_i - y_i)^2 of a
// sample about a center c (the Brier score, their mean, for the moments
// below to be central).
type ErrorMoments struct {
	N        int     // forecasts
	Distinct int     // distinct squared errors
	Center   float64 // c
	// Sum2 is sum (e_i - c)^2, summed exactly; Sum3 and Sum4 are
	// sum (e_i - c)^3 and ^4 (compensated sums).
	Sum2, Sum3, Sum4 float64
}

// ErrorMoments returns the squared errors' moments about c in one pass.
func (t SortedBinary) ErrorMoments(c float64) ErrorMoments {
	out := ErrorMoments{N: t.N(), Center: c}
	var s2 exactSum
	var s3, s4 neumaierSum
	for e, k := range t.SquaredErrors() {
		d := e - c
		s2.addTimes(d*d, uint64(k))
		w := float64(k)
		s3.add(w * d * d * d)
		s4.add(w * d * d * d * d)
		out.Distinct++
	}
	out.Sum2, out.Sum3, out.Sum4 = s2.Float64(), s3.value(), s4.value()
	return out
}

// BrierSE returns the standard error of the Brier score of n >= 2
// forecasts from their squared errors' moments about the Brier score bs:
// the sample SD of the squared errors e_i = (p_i - y_i)^2 over sqrt(n),
//
//	SE = sqrt( sum (e_i - bs)^2 / (n - 1) / n )
//
// with the sum exact (order-independent). It returns 0 when n < 2.
func (m ErrorMoments) BrierSE() float64 {
	if m.N < 2 {
		return 0
	}
	return math.Sqrt(m.Sum2 / float64(m.N-1) / float64(m.N))
}

// BrierSE is ErrorMoments(bs).BrierSE().
func (t SortedBinary) BrierSE(bs float64) float64 { return t.ErrorMoments(bs).BrierSE() }
