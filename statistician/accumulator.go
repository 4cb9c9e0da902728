package statistician

import (
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"sort"
)

// exactSum is an order-independent, exact sum of non-negative finite
// float64 values below 2^63 (a "long accumulator", Kulisch 2013, in the
// fixed-point form of Neal 2015, arXiv:1505.05571). Every double is an
// integer multiple of 2^-1074, so the sum is held as an integer in 40
// limbs of 32 bits each, carried lazily. Because integer addition is
// associative, adding values in any order, or summing parts and merging
// them, gives bit-for-bit the same sum; Float64 rounds it once, to
// nearest. It is what makes the accumulators' Merge exact.
type exactSum struct {
	limbs [exactLimbs]int64
	// pending counts additions since the last carry propagation; each
	// adds less than 2^32 to a limb, so 2^30 of them cannot overflow.
	pending int
}

const (
	exactLimbs      = 40 // 40*32 = 1280 bits: 2^-1074 .. 2^63 * 2^62 values
	exactMaxPending = 1 << 30
)

// add adds x, which the caller guarantees is finite and in [0, 2^63).
func (s *exactSum) add(x float64) {
	b := math.Float64bits(x)
	exp := int(b >> 52 & 0x7ff)
	mant := b & (1<<52 - 1)
	if exp == 0 {
		if mant == 0 {
			return
		}
		exp = 1 // subnormal: mant * 2^-1074
	} else {
		mant |= 1 << 52
	}
	off := exp - 1 // x = mant * 2^(off-1074)
	i, sh := off>>5, uint(off&31)
	hi, lo := bits.Mul64(mant, 1<<sh) // mant << sh as 128 bits (< 2^85)
	s.limbs[i] += int64(lo & 0xffffffff)
	s.limbs[i+1] += int64(lo >> 32)
	s.limbs[i+2] += int64(hi & 0xffffffff)
	s.pending++
	if s.pending >= exactMaxPending {
		s.carry()
	}
}

// addTimes adds c copies of x exactly (c * x as an integer multiple of
// 2^-1074, no rounding): the same sum as c calls of add(x), in O(1). x is
// finite and in [0, 1] (as every forecast term is), so that the product
// spans at most five limbs.
func (s *exactSum) addTimes(x float64, c uint64) {
	if c == 0 || x == 0 {
		return
	}
	if c == 1 {
		s.add(x)
		return
	}
	b := math.Float64bits(x)
	exp := int(b >> 52 & 0x7ff)
	mant := b & (1<<52 - 1)
	if exp == 0 {
		exp = 1
	} else {
		mant |= 1 << 52
	}
	off := exp - 1
	i, sh := off>>5, uint(off&31)
	hi, lo := bits.Mul64(mant, c) // < 2^116
	// (hi, lo) << sh as three words; sh < 32 keeps it under 2^148.
	w0 := lo << sh
	w1 := hi<<sh | lo>>(64-sh)
	w2 := hi >> (64 - sh)
	if sh == 0 {
		w1, w2 = hi, 0
	}
	s.limbs[i] += int64(w0 & 0xffffffff)
	s.limbs[i+1] += int64(w0 >> 32)
	s.limbs[i+2] += int64(w1 & 0xffffffff)
	s.limbs[i+3] += int64(w1 >> 32)
	s.limbs[i+4] += int64(w2 & 0xffffffff)
	s.pending++
	if s.pending >= exactMaxPending {
		s.carry()
	}
}

// carry propagates carries so that every limb but the last is < 2^32.
func (s *exactSum) carry() {
	for i := 0; i < exactLimbs-1; i++ {
		s.limbs[i+1] += s.limbs[i] >> 32
		s.limbs[i] &= 0xffffffff
	}
	s.pending = 0
}

// merge adds the sum held in o; o is not changed.
func (s *exactSum) merge(o *exactSum) {
	c := *o
	c.carry()
	s.carry()
	for i := range s.limbs {
		s.limbs[i] += c.limbs[i]
	}
	s.carry()
}

// bigInt returns the sum in units of 2^-1074.
func (s *exactSum) bigInt() *big.Int {
	c := *s
	c.carry()
	v := new(big.Int)
	for i := exactLimbs - 1; i >= 0; i-- {
		v.Lsh(v, 32)
		v.Add(v, big.NewInt(c.limbs[i]))
	}
	return v
}

// Float64 returns the sum rounded once to the nearest float64.
func (s *exactSum) Float64() float64 {
	f := new(big.Float).SetInt(s.bigInt())
	f.SetMantExp(f, -1074)
	x, _ := f.Float64()
	return x
}

// checkForecast reports whether p is a probability and y an outcome 0/1.
func checkForecast(p float64, y int) error {
	if !(p >= 0 && p <= 1) {
		return fmt.Errorf("statistician: forecast %v outside [0, 1]", p)
	}
	if y != 0 && y != 1 {
		return fmt.Errorf("statistician: outcome %d is not 0 or 1", y)
	}
	return nil
}

// forecastCell counts the forecasts that share one forecast value.
type forecastCell struct {
	n, hits int64
}

// DistinctAccumulator is a streaming accumulator of binary forecasts keyed
// by distinct forecast value: it keeps, per value, how many forecasts
// stated it and how many of those came true. Memory is O(distinct
// values), independent of the number of forecasts when forecasts come from
// a finite set (e.g. 0.05 steps). From these counts it gives the Brier
// score, the exact Murphy decomposition and the CORP decomposition (PAV
// pools tied forecasts first, so it needs no more than the counts).
// Equal-frequency bins need the values in input order and are not
// available from it. Merge is exact: counts are integers and every result
// is computed from the merged counts in sorted key order, so merged
// accumulators give bit-for-bit the results of one pass. The zero value is
// not ready; use NewDistinctAccumulator.
type DistinctAccumulator struct {
	cells map[float64]forecastCell
}

// NewDistinctAccumulator returns an empty DistinctAccumulator.
func NewDistinctAccumulator() *DistinctAccumulator {
	return &DistinctAccumulator{cells: make(map[float64]forecastCell)}
}

// Add records one forecast p of outcome y. It returns an error, and
// records nothing, when p is not in [0, 1] (NaN included) or y is not 0
// or 1.
func (a *DistinctAccumulator) Add(p float64, y int) error {
	if err := checkForecast(p, y); err != nil {
		return err
	}
	if p == 0 {
		p = 0 // fold -0 into +0 so that it is one key
	}
	c := a.cells[p]
	c.n++
	c.hits += int64(y)
	a.cells[p] = c
	return nil
}

// Merge adds the forecasts recorded in b; b is not changed.
func (a *DistinctAccumulator) Merge(b *DistinctAccumulator) {
	for p, c := range b.cells {
		m := a.cells[p]
		m.n += c.n
		m.hits += c.hits
		a.cells[p] = m
	}
}

// N returns the number of forecasts recorded.
func (a *DistinctAccumulator) N() int {
	var n int64
	for _, c := range a.cells {
		n += c.n
	}
	return int(n)
}

// Distinct returns the number of distinct forecast values recorded.
func (a *DistinctAccumulator) Distinct() int { return len(a.cells) }

// valueCells is the accumulator's table sorted by forecast value.
type valueCells struct {
	p       []float64
	cells   []forecastCell
	n, hits int64
}

func (a *DistinctAccumulator) sorted() (valueCells, error) {
	if len(a.cells) == 0 {
		return valueCells{}, fmt.Errorf("statistician: no forecasts recorded")
	}
	t := valueCells{p: make([]float64, 0, len(a.cells))}
	for p := range a.cells {
		t.p = append(t.p, p)
	}
	sort.Float64s(t.p)
	t.cells = make([]forecastCell, len(t.p))
	for i, p := range t.p {
		c := a.cells[p]
		t.cells[i] = c
		t.n += c.n
		t.hits += c.hits
	}
	return t, nil
}

// seq yields the table's cells in ascending order of value.
func (t valueCells) seq() cellSeq {
	return func(yield func(float64, forecastCell) bool) {
		for i, p := range t.p {
			if !yield(p, t.cells[i]) {
				return
			}
		}
	}
}

// brierSum returns N * Brier = sum over values of
// (n-h) p^2 + h (1-p)^2, summed exactly.
func (t valueCells) brierSum() float64 { return brierSumOf(t.seq()) }

// Brier returns the Brier score of the recorded forecasts (see Brier). It
// returns an error when nothing was recorded.
func (a *DistinctAccumulator) Brier() (float64, error) {
	t, err := a.sorted()
	if err != nil {
		return 0, err
	}
	return t.brierSum() / float64(t.n), nil
}

// Murphy returns the exact Murphy decomposition of the recorded forecasts
// (see MurphyExact). It returns an error when nothing was recorded.
func (a *DistinctAccumulator) Murphy() (MurphyDecomposition, error) {
	t, err := a.sorted()
	if err != nil {
		return MurphyDecomposition{}, err
	}
	return murphyOf(t.seq(), t.n, t.hits), nil
}

// CORP returns the CORP decomposition of the recorded forecasts (see
// CORP). It returns an error when nothing was recorded.
func (a *DistinctAccumulator) CORP() (CORPDecomposition, error) {
	t, err := a.sorted()
	if err != nil {
		return CORPDecomposition{}, err
	}
	return corpOf(t.seq(), t.n, t.hits), nil
}

// binSums holds the sums one reliability bin needs; every float sum is
// exact, so bins merge exactly.
type binSums struct {
	n, hits                       int64
	sumP, sumP2, sumPHit, sumSqEr exactSum
}

// add records forecast p (checked by the caller) of outcome y.
func (b *binSums) add(p float64, y int) {
	b.n++
	b.sumP.add(p)
	b.sumP2.add(p * p)
	if y == 1 {
		b.hits++
		b.sumPHit.add(p)
		b.sumSqEr.add((1 - p) * (1 - p))
	} else {
		b.sumSqEr.add(p * p)
	}
}

// addCell records the c.n forecasts of value p (checked by the caller),
// c.hits of which came true: exactly the sums of c.n calls of add.
func (b *binSums) addCell(p float64, c forecastCell) {
	miss := uint64(c.n - c.hits)
	hits := uint64(c.hits)
	b.n += c.n
	b.hits += c.hits
	b.sumP.addTimes(p, uint64(c.n))
	b.sumP2.addTimes(p*p, uint64(c.n))
	b.sumPHit.addTimes(p, hits)
	b.sumSqEr.addTimes((1-p)*(1-p), hits)
	b.sumSqEr.addTimes(p*p, miss)
}

func (b *binSums) merge(o *binSums) {
	b.n += o.n
	b.hits += o.hits
	b.sumP.merge(&o.sumP)
	b.sumP2.merge(&o.sumP2)
	b.sumPHit.merge(&o.sumPHit)
	b.sumSqEr.merge(&o.sumSqEr)
}

// FixedBinAccumulator is a streaming accumulator of binary forecasts in k
// fixed-width bins of [0, 1] (see MurphyBinned with FixedBins). Memory is
// O(k), independent of the number of forecasts. Merge is exact: counts
// are integers and the float sums are exact (order-independent), so
// merged accumulators give bit-for-bit the result of one pass. The zero
// value is not ready; use NewFixedBinAccumulator.
type FixedBinAccumulator struct {
	bins []binSums
}

// NewFixedBinAccumulator returns an accumulator with k fixed-width bins.
// It returns an error when k < 1.
func NewFixedBinAccumulator(k int) (*FixedBinAccumulator, error) {
	if k < 1 {
		return nil, fmt.Errorf("statistician: fixed bins: need at least 1 bin, got %d", k)
	}
	return &FixedBinAccumulator{bins: make([]binSums, k)}, nil
}

// fixedBin returns the bin of p among k fixed-width bins of [0, 1]:
// min(floor(p*k), k-1) in float64 arithmetic, so that bin i is
// [i/k, (i+1)/k) and the last bin is closed.
func fixedBin(p float64, k int) int {
	i := int(p * float64(k))
	if i >= k {
		i = k - 1
	}
	return i
}

// Add records one forecast p of outcome y. It returns an error, and
// records nothing, when p is not in [0, 1] (NaN included) or y is not 0
// or 1.
func (a *FixedBinAccumulator) Add(p float64, y int) error {
	if err := checkForecast(p, y); err != nil {
		return err
	}
	a.bins[fixedBin(p, len(a.bins))].add(p, y)
	return nil
}

// Merge adds the forecasts recorded in b; b is not changed. It returns an
// error when the two accumulators have different numbers of bins.
func (a *FixedBinAccumulator) Merge(b *FixedBinAccumulator) error {
	if len(a.bins) != len(b.bins) {
		return fmt.Errorf("statistician: merge fixed bins: %d bins with %d", len(a.bins), len(b.bins))
	}
	for i := range a.bins {
		a.bins[i].merge(&b.bins[i])
	}
	return nil
}

// N returns the number of forecasts recorded.
func (a *FixedBinAccumulator) N() int {
	var n int64
	for i := range a.bins {
		n += a.bins[i].n
	}
	return int(n)
}

// Result returns the fixed-width binned Murphy decomposition of the
// recorded forecasts. It returns an error when nothing was recorded.
func (a *FixedBinAccumulator) Result() (BinnedMurphy, error) {
	k := len(a.bins)
	bounds := make([]Interval, k)
	for i := range bounds {
		bounds[i] = Interval{Lower: float64(i) / float64(k), Upper: float64(i+1) / float64(k)}
	}
	return binnedResult(FixedBins, a.bins, bounds)
}

// RPSAccumulator is a streaming accumulator of ordered-category forecasts
// (see RPS): it keeps the exact sum of the forecasts' RPS and the count of
// each category, O(K) memory. From the counts it gives the climatological
// baseline (the observed category frequencies), so the skill score against
// climatology needs no second pass. Merge is exact. The zero value is not
// ready; use NewRPSAccumulator.
type RPSAccumulator struct {
	sum    exactSum
	counts []int64
}

// NewRPSAccumulator returns an accumulator for k >= 2 ordered categories.
func NewRPSAccumulator(k int) (*RPSAccumulator, error) {
	if k < 2 {
		return nil, fmt.Errorf("statistician: rps: need at least 2 categories, got %d", k)
	}
	return &RPSAccumulator{counts: make([]int64, k)}, nil
}

// Add records one forecast of the categories' probabilities and the index
// of the category that happened. It returns an error, and records
// nothing, when the forecast is not valid (see RPS).
func (a *RPSAccumulator) Add(probs []float64, outcome int) error {
	if len(probs) != len(a.counts) {
		return fmt.Errorf("statistician: rps: forecast has %d categories, accumulator %d", len(probs), len(a.counts))
	}
	r, err := RPS(probs, outcome)
	if err != nil {
		return err
	}
	a.sum.add(r)
	a.counts[outcome]++
	return nil
}

// Categories returns the number of ordered categories K.
func (a *RPSAccumulator) Categories() int { return len(a.counts) }

// Merge adds the forecasts recorded in b; b is not changed. It returns an
// error when the numbers of categories differ.
func (a *RPSAccumulator) Merge(b *RPSAccumulator) error {
	if len(a.counts) != len(b.counts) {
		return fmt.Errorf("statistician: rps: merge %d categories with %d", len(a.counts), len(b.counts))
	}
	a.sum.merge(&b.sum)
	for i, c := range b.counts {
		a.counts[i] += c
	}
	return nil
}

// Result returns the mean RPS and the skill score against climatology
// (the observed category frequencies). It returns an error when nothing
// was recorded.
func (a *RPSAccumulator) Result() (RPSResult, error) {
	return a.ResultAgainst(nil)
}

// ResultAgainst returns the mean RPS and the skill score against the
// baseline distribution (nil means climatology, the observed category
// frequencies). It returns an error when nothing was recorded or the
// baseline is not a probability vector over the same categories.
func (a *RPSAccumulator) ResultAgainst(baseline []float64) (RPSResult, error) {
	var n int64
	for _, c := range a.counts {
		n += c
	}
	if n == 0 {
		return RPSResult{}, fmt.Errorf("statistician: rps: no forecasts recorded")
	}
	if baseline == nil {
		baseline = make([]float64, len(a.counts))
		for i, c := range a.counts {
			baseline[i] = float64(c) / float64(n)
		}
	} else if err := checkProbs(baseline); err != nil {
		return RPSResult{}, fmt.Errorf("statistician: rps baseline: %w", err)
	} else if len(baseline) != len(a.counts) {
		return RPSResult{}, fmt.Errorf("statistician: rps baseline has %d categories, forecasts %d", len(baseline), len(a.counts))
	}
	var base exactSum
	for o, c := range a.counts {
		base.add(float64(c) * rpsChecked(baseline, o))
	}
	mean := a.sum.Float64() / float64(n)
	baseRPS := base.Float64() / float64(n)
	return RPSResult{
		N:           int(n),
		Mean:        mean,
		Baseline:    append([]float64(nil), baseline...),
		BaselineRPS: baseRPS,
		Skill:       SkillAgainst(mean, baseRPS),
	}, nil
}
