package statistician

import (
	"fmt"
)

// MurphyDecomposition is the exact Murphy (1973) decomposition of the
// Brier score over the distinct forecast values.
type MurphyDecomposition struct {
	N           int     `yaml:"n" json:"n"`
	Distinct    int     `yaml:"distinct" json:"distinct"`
	BaseRate    float64 `yaml:"base_rate" json:"base_rate"`
	Brier       float64 `yaml:"brier" json:"brier"`
	Reliability float64 `yaml:"reliability" json:"reliability"`
	Resolution  float64 `yaml:"resolution" json:"resolution"`
	Uncertainty float64 `yaml:"uncertainty" json:"uncertainty"`
}

// MurphyExact returns the Murphy (1973) decomposition of the Brier score
// of forecasts p of outcomes y, grouping the forecasts by distinct value
// p_k (n_k forecasts, observed rate o_k) with overall rate o:
//
//	REL = (1/N) sum_k n_k (p_k - o_k)^2     reliability (lower is better)
//	RES = (1/N) sum_k n_k (o_k - o)^2       resolution (higher is better)
//	UNC = o (1 - o)                         uncertainty
//	BS  = REL - RES + UNC                   exactly
//
// The identity is algebraic; in floating point it holds to about 1e-15
// because every sum is exact and rounded once. REL, RES, UNC lie in
// [0, 1]. It returns an error on bad input, as Brier does.
func MurphyExact(p []float64, y []int) (MurphyDecomposition, error) {
	a, err := distinctOf(p, y)
	if err != nil {
		return MurphyDecomposition{}, err
	}
	return a.Murphy()
}

func distinctOf(p []float64, y []int) (*DistinctAccumulator, error) {
	if err := checkBinary(p, y); err != nil {
		return nil, err
	}
	a := NewDistinctAccumulator()
	for i := range p {
		_ = a.Add(p[i], y[i]) // checked above
	}
	return a, nil
}

// Binning is how MurphyBinned groups forecasts into bins.
type Binning string

const (
	// EqualFrequencyBins sorts the m forecasts by value and fills bins in
	// that order without ever splitting tied forecasts: with
	// k = min(bins, m) and targets t_i = floor(m (i+1) / k), a bin closes
	// after the first distinct value at which the cumulative count reaches
	// or passes its target, and the next bin aims at the first target
	// above that count. Without ties this is the floor rule (bin i holds
	// sorted items floor(m i/k) .. floor(m (i+1)/k) - 1); with ties a bin
	// may hold more than m/k forecasts and fewer than k bins may result (a
	// constant forecaster gets one bin). The bins depend on the multiset
	// of forecasts only, never on their order.
	EqualFrequencyBins Binning = "equal-frequency"
	// FixedBins splits [0, 1] into k equal-width bins [i/k, (i+1)/k), the
	// last closed; a forecast goes to bin min(floor(p*k), k-1) computed in
	// float64, so a boundary such as 0.3 with k = 10 falls in the upper
	// bin, as it reads. Bins may be empty.
	FixedBins Binning = "fixed"
)

// ParseBinning returns the Binning named s ("equal-frequency" or "fixed").
func ParseBinning(s string) (Binning, error) {
	switch b := Binning(s); b {
	case EqualFrequencyBins, FixedBins:
		return b, nil
	}
	return "", fmt.Errorf("statistician: unknown binning %q (want %q or %q)", s, EqualFrequencyBins, FixedBins)
}

// ReliabilityBin is one bin of a reliability table. An empty bin has
// Count 0, Reason "empty bin" and no rate: its MeanForecast, ObservedRate
// and RateCI95 are nil (null in a document, as the README promises; not 0,
// which would read as a rate of 0%).
type ReliabilityBin struct {
	// Lower and Upper bound the bin: the fixed-width bin's edges, or the
	// smallest and largest forecast in an equal-frequency bin.
	Lower        float64
	Upper        float64
	Count        int
	Hits         int
	MeanForecast *float64
	ObservedRate *float64
	RateCI95     *Interval
	Reason       string
}

// BinnedMurphy is the Murphy decomposition over bins, with the two
// within-bin terms that make it an identity.
type BinnedMurphy struct {
	Method Binning
	// Bins is the number of bins used (for equal-frequency at most
	// min(bins, n), fewer when tied forecasts fill several targets).
	Bins        int
	N           int
	Brier       float64
	Reliability float64
	Resolution  float64
	Uncertainty float64
	// WithinBinVariance (WBV) and WithinBinCovariance (WBC) are the terms
	// binning leaves out (Stephenson, Coelho and Jolliffe 2008):
	// BS = REL - RES + UNC + WBV - WBC.
	WithinBinVariance   float64
	WithinBinCovariance float64
	Table               []ReliabilityBin
}

// MurphyBinned returns the Murphy decomposition of the Brier score over
// bins of forecasts (equal-frequency or fixed-width, see Binning), with
// bin k holding n_k forecasts of mean pbar_k and observed rate o_k:
//
//	REL = (1/N) sum_k n_k (pbar_k - o_k)^2
//	RES = (1/N) sum_k n_k (o_k - o)^2
//	UNC = o (1 - o)
//	WBV = (1/N) sum_k sum_{i in k} (p_i - pbar_k)^2
//	WBC = (2/N) sum_k sum_{i in k} (y_i - o_k)(p_i - pbar_k)
//	BS  = REL - RES + UNC + WBV - WBC
//
// Unlike the exact form, the binned REL - RES + UNC differs from BS by
// WBV - WBC, which is not zero when a bin holds different forecast
// values (Stephenson, Coelho and Jolliffe 2008, Weather and Forecasting
// 23:752-757); both terms are reported so the gap is visible. Each bin
// has its Wilson 95% interval of the observed rate. It returns an error
// on bad input (as Brier), bins < 1 or an unknown method.
func MurphyBinned(p []float64, y []int, bins int, method Binning) (BinnedMurphy, error) {
	if err := checkBinary(p, y); err != nil {
		return BinnedMurphy{}, err
	}
	if bins < 1 {
		return BinnedMurphy{}, fmt.Errorf("statistician: binned murphy: need at least 1 bin, got %d", bins)
	}
	switch method {
	case FixedBins:
		a, _ := NewFixedBinAccumulator(bins) // bins >= 1
		for i := range p {
			_ = a.Add(p[i], y[i]) // checked above
		}
		return a.Result()
	case EqualFrequencyBins:
		a, _ := distinctOf(p, y) // checked above
		t, _ := a.sorted()       // not empty
		return equalFrequencyOf(t.seq(), t.n, bins)
	}
	return BinnedMurphy{}, fmt.Errorf("statistician: binned murphy: unknown binning %q", method)
}

// binnedResult computes the binned decomposition from per-bin sums.
func binnedResult(method Binning, bins []binSums, bounds []Interval) (BinnedMurphy, error) {
	var n, hits int64
	var sq exactSum
	for i := range bins {
		n += bins[i].n
		hits += bins[i].hits
		sq.merge(&bins[i].sumSqEr)
	}
	if n == 0 {
		return BinnedMurphy{}, fmt.Errorf("statistician: binned murphy: no forecasts recorded")
	}
	nf := float64(n)
	obar := float64(hits) / nf
	out := BinnedMurphy{
		Method:      method,
		Bins:        len(bins),
		N:           int(n),
		Brier:       sq.Float64() / nf,
		Uncertainty: obar * (1 - obar),
		Table:       make([]ReliabilityBin, len(bins)),
	}
	var rel, res, wbv, wbcPos, wbcNeg exactSum
	for i := range bins {
		b := &bins[i]
		row := ReliabilityBin{Lower: bounds[i].Lower, Upper: bounds[i].Upper, Count: int(b.n), Hits: int(b.hits)}
		if b.n == 0 {
			row.Reason = "empty bin"
			out.Table[i] = row
			continue
		}
		bn := float64(b.n)
		sumP := b.sumP.Float64()
		pbar := sumP / bn
		ok := float64(b.hits) / bn
		row.MeanForecast, row.ObservedRate = &pbar, &ok
		ci, err := WilsonInterval(int(b.hits), int(b.n), Z95)
		if err != nil {
			return BinnedMurphy{}, fmt.Errorf("statistician: binned murphy: bin %d: %w", i, err)
		}
		row.RateCI95 = &ci
		out.Table[i] = row
		rel.add(bn * (pbar - ok) * (pbar - ok))
		res.add(bn * (ok - obar) * (ok - obar))
		// sum (p - pbar)^2 = sum p^2 - (sum p)^2 / n, never negative.
		wbv.add(max(b.sumP2.Float64()-sumP*pbar, 0))
		// sum (y - o_k)(p - pbar) = sum_{hits} p - pbar * hits.
		if c := b.sumPHit.Float64() - pbar*float64(b.hits); c >= 0 {
			wbcPos.add(c)
		} else {
			wbcNeg.add(-c)
		}
	}
	out.Reliability = rel.Float64() / nf
	out.Resolution = res.Float64() / nf
	out.WithinBinVariance = wbv.Float64() / nf
	out.WithinBinCovariance = 2 * (wbcPos.Float64() - wbcNeg.Float64()) / nf
	return out, nil
}
