package statistician

import "math/bits"

// CORPDecomposition is the CORP decomposition of the Brier score
// (Dimitriadis, Gneiting and Jordan 2021).
type CORPDecomposition struct {
	N int
	// Brier is the score of the forecasts; Recalibrated the score of their
	// PAV recalibration.
	Brier        float64
	Recalibrated float64
	// MCB is miscalibration, DSC discrimination, UNC uncertainty.
	MCB float64
	DSC float64
	UNC float64
}

// CORP returns the CORP decomposition (Dimitriadis, Gneiting and Jordan,
// "Stable reliability diagrams for probabilistic classifiers", PNAS 118,
// 2021) of the Brier score of forecasts p of outcomes y:
//
//	rc   = PAV isotonic regression of y on p (non-decreasing in p;
//	       tied forecast values pooled first)
//	MCB  = BS(p)  - BS(rc)       miscalibration, >= 0
//	DSC  = BS(o)  - BS(rc)       discrimination, >= 0
//	UNC  = BS(o)  = o (1 - o)    uncertainty, o = mean(y)
//	BS(p) = MCB - DSC + UNC      exactly
//
// The PAV blocks' rates are exact ratios of counts, so
// BS(rc) = (1/N) sum_blocks h_b (n_b - h_b) / n_b. The identity holds to
// rounding (about 1e-16). It returns an error on bad input, as Brier
// does.
func CORP(p []float64, y []int) (CORPDecomposition, error) {
	a, err := distinctOf(p, y)
	if err != nil {
		return CORPDecomposition{}, err
	}
	return a.CORP()
}

// corpOf runs PAV on the distinct values of seq (ascending), n forecasts
// of which hits came true. Its memory is the PAV stack, at most one block
// per distinct value and in practice far fewer.
func corpOf(seq cellSeq, tn, thits int64) CORPDecomposition {
	var p pav
	for _, c := range seq {
		p.add(c)
	}
	return p.result(brierSumOf(seq), tn, thits)
}

// pav pools adjacent violators: blocks of consecutive values whose pooled
// rates are strictly increasing, fed one distinct value at a time.
type pav struct {
	blocks []forecastCell
}

func (p *pav) add(c forecastCell) {
	p.blocks = append(p.blocks, c)
	for len(p.blocks) > 1 && !rateBelow(p.blocks[len(p.blocks)-2], p.blocks[len(p.blocks)-1]) {
		last := p.blocks[len(p.blocks)-1]
		p.blocks = p.blocks[:len(p.blocks)-1]
		p.blocks[len(p.blocks)-1].n += last.n
		p.blocks[len(p.blocks)-1].hits += last.hits
	}
}

// result is the CORP decomposition from the pooled blocks and the exact
// sum of the squared errors (N times the Brier score).
func (p *pav) result(brierSum float64, tn, thits int64) CORPDecomposition {
	n := float64(tn)
	var rc exactSum
	for _, b := range p.blocks {
		rc.add(float64(b.hits) * float64(b.n-b.hits) / float64(b.n))
	}
	bs := brierSum / n
	bsrc := rc.Float64() / n
	// UNC = o(1-o) written as h(n-h)/n / n, the same operations as a
	// single PAV block, so that a forecast PAV pools into one block (no
	// discrimination) has DSC exactly 0, not a rounding residue.
	unc := float64(thits) * float64(tn-thits) / n / n
	return CORPDecomposition{
		N:            int(tn),
		Brier:        bs,
		Recalibrated: bsrc,
		MCB:          bs - bsrc,
		DSC:          unc - bsrc,
		UNC:          unc,
	}
}

// rateBelow reports whether a's rate is strictly below b's, comparing
// hits_a * n_b < hits_b * n_a in exact 128-bit integer arithmetic.
func rateBelow(a, b forecastCell) bool {
	ah, al := bits.Mul64(uint64(a.hits), uint64(b.n))
	bh, bl := bits.Mul64(uint64(b.hits), uint64(a.n))
	return ah < bh || (ah == bh && al < bl)
}
