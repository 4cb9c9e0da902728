package statistician

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// FleissKappaResult is Fleiss' kappa for K ratings per item with two
// standard errors: SE, the non-null one behind the interval, and SENull,
// the one under the hypothesis of chance agreement behind Z and P. When
// kappa is not defined, Reason says why and the numbers are zero.
type FleissKappaResult struct {
	Value      float64  `yaml:"value" json:"value"`
	SE         float64  `yaml:"se" json:"se"`
	CI         Interval `yaml:"ci" json:"ci"`
	Level      float64  `yaml:"level" json:"level"`
	SENull     float64  `yaml:"se_null" json:"se_null"`
	Z          float64  `yaml:"z" json:"z"`
	P          float64  `yaml:"p" json:"p"`
	Items      int      `yaml:"items" json:"items"`
	Ratings    int      `yaml:"ratings_per_item" json:"ratings_per_item"`
	Categories int      `yaml:"categories" json:"categories"`
	Reason     string   `yaml:"reason,omitempty" json:"reason,omitempty"`
}

// FleissKappa returns Fleiss' kappa (Fleiss 1971) of counts[i][j], the
// number of the K ratings of item i (for judge repeatability: the K
// repeated verdicts of one run) that fell in category j (e.g. fail,
// partial, pass). With n items and p_j = sum_i counts[i][j]/(n K):
//
//	P_i   = (sum_j counts[i][j]^2 - K) / (K (K-1))
//	P_bar = mean P_i,  P_e = sum_j p_j^2
//	kappa = (P_bar - P_e) / (1 - P_e)
//
// as statsmodels.stats.inter_rater.fleiss_kappa(counts, method='fleiss').
// kappa lies in [-1/(K-1), 1].
//
// SE and the interval are Gwet's (2008, Br. J. Math. Stat. Psychol. 61,
// 29-48; as irrCAC's fleiss.kappa.dist), a linearisation valid for any
// kappa, not only under chance agreement:
//
//	kappa_i  = (P_i - P_e)/(1 - P_e)
//	pe_i     = sum_j counts[i][j] p_j / K
//	kappa*_i = kappa_i - 2 (1 - kappa)(pe_i - P_e)/(1 - P_e)
//	SE^2     = sum_i (kappa*_i - kappa)^2 / (n (n-1))
//	CI       = kappa ± t(1 - (1-level)/2; n-1) SE, clamped to [-1, 1]
//
// SENull is the asymptotic standard error under the null hypothesis of
// chance agreement (Fleiss, Nee and Landis 1979, Psychol. Bull. 86(5);
// as R's irr::kappam.fleiss), with q_j = 1 - p_j:
//
//	SENull = sqrt(2/(n K (K-1))) sqrt((sum p_j q_j)^2 - sum p_j q_j (q_j - p_j)) / sum p_j q_j
//
// and Z = kappa/SENull, P = 2 (1 - Phi(|Z|)). It tests kappa = 0 and
// should not be used for an interval: it ignores the variance of kappa
// away from 0.
//
// Degenerate input: every rating in one category makes P_e = 1 and kappa
// 0/0 (Reason set). Fewer than 2 items, fewer than 2 categories, K < 2,
// items with different K, a negative count, or level outside (0, 1) give
// a Reason and zero numbers. Perfect agreement over several categories
// gives kappa 1 with SE 0 and the interval [1, 1].
func FleissKappa(counts [][]int, level float64) FleissKappaResult {
	r := FleissKappaResult{Level: level, Items: len(counts)}
	if !(level > 0 && level < 1) {
		r.Reason = fmt.Sprintf("invalid input: confidence level %v must be in (0, 1)", level)
		return r
	}
	k, raters, reason := checkRatingCounts(counts)
	if reason != "" {
		r.Reason = reason
		return r
	}
	r.Ratings, r.Categories = raters, k
	n := len(counts)
	nf, kf := float64(n), float64(raters)
	pj := make([]float64, k)
	pi := make([]float64, n)
	for i, row := range counts {
		var sq float64
		for j, c := range row {
			pj[j] += float64(c)
			sq += float64(c) * float64(c)
		}
		pi[i] = (sq - kf) / (kf * (kf - 1))
	}
	var pe, pq, pqqp float64
	for j := range pj {
		pj[j] /= nf * kf
		pe += pj[j] * pj[j]
		q := 1 - pj[j]
		pq += pj[j] * q
		pqqp += pj[j] * q * (q - pj[j])
	}
	if pe >= 1-1e-12 {
		r.Reason = "undefined: every rating fell in one category, so chance agreement is 1"
		return r
	}
	pbar := mean(pi)
	kappa := (pbar - pe) / (1 - pe)

	var ss float64
	for i, row := range counts {
		var pei float64
		for j, c := range row {
			pei += float64(c) * pj[j]
		}
		pei /= kf
		ki := (pi[i]-pe)/(1-pe) - 2*(1-kappa)*(pei-pe)/(1-pe)
		ss += (ki - kappa) * (ki - kappa)
	}
	se := math.Sqrt(ss / (nf * (nf - 1)))
	seNull := math.Sqrt(2/(nf*kf*(kf-1))) * math.Sqrt(math.Max(0, pq*pq-pqqp)) / pq
	if math.IsNaN(kappa) || math.IsNaN(se) || math.IsInf(se, 0) || math.IsNaN(seNull) {
		r.Reason = "undefined: counts overflow floating point"
		return r
	}
	r.Value, r.SE, r.SENull = kappa, se, seNull
	t := tQuantile(1-(1-level)/2, nf-1)
	r.CI = Interval{Lower: math.Max(-1, kappa-t*se), Upper: math.Min(1, kappa+t*se)}
	if seNull > 0 {
		r.Z = kappa / seNull
		r.P = math.Min(1, 2*distuv.UnitNormal.Survival(math.Abs(r.Z)))
	} else {
		r.P = 1
	}
	return r
}

// checkRatingCounts returns the number of categories and of ratings per
// item of counts, or a reason why they are not a valid items x categories
// table with the same K >= 2 ratings on each of at least 2 items.
func checkRatingCounts(counts [][]int) (categories, ratings int, reason string) {
	if len(counts) < 2 {
		return 0, 0, fmt.Sprintf("insufficient data: %d items, need at least 2", len(counts))
	}
	categories = len(counts[0])
	if categories < 2 {
		return 0, 0, fmt.Sprintf("invalid input: %d categories, need at least 2", categories)
	}
	for i, row := range counts {
		if len(row) != categories {
			return 0, 0, fmt.Sprintf("invalid input: item %d has %d categories, item 0 has %d", i, len(row), categories)
		}
		sum := 0
		for j, c := range row {
			if c < 0 {
				return 0, 0, fmt.Sprintf("invalid input: item %d, category %d has negative count %d", i, j, c)
			}
			sum += c
		}
		if i == 0 {
			ratings = sum
		} else if sum != ratings {
			return 0, 0, fmt.Sprintf("invalid input: item %d has %d ratings, item 0 has %d; Fleiss' kappa needs the same number on every item", i, sum, ratings)
		}
	}
	if ratings < 2 {
		return 0, 0, fmt.Sprintf("insufficient data: %d rating per item, need at least 2", ratings)
	}
	return categories, ratings, ""
}

// RepeatabilityResult summarises K repeated verdicts per run: the share
// of runs whose K verdicts are not all the same (FlipRate) and the share
// whose K verdicts are all pass (PassAllK, "pass^K"), each with its Wilson
// interval.
type RepeatabilityResult struct {
	FlipRate   float64  `yaml:"flip_rate" json:"flip_rate"`
	FlipRateCI Interval `yaml:"flip_rate_ci" json:"flip_rate_ci"`
	PassAllK   float64  `yaml:"pass_all_k" json:"pass_all_k"`
	PassAllKCI Interval `yaml:"pass_all_k_ci" json:"pass_all_k_ci"`
	Level      float64  `yaml:"level" json:"level"`
	Runs       int      `yaml:"runs" json:"runs"`
	Repeats    int      `yaml:"repeats" json:"repeats"`
	Reason     string   `yaml:"reason,omitempty" json:"reason,omitempty"`
}

// Repeatability returns the flip rate and pass^K of counts[i][j], the
// number of the K verdicts of run i in category j, pass being category
// passCategory:
//
//	FlipRate = #{runs with verdicts in more than one category} / n
//	PassAllK = #{runs with counts[i][passCategory] = K} / n
//
// each with the Wilson score interval at the two-sided level (see
// WilsonInterval). Both lie in [0, 1]. A table that FleissKappa rejects
// (fewer than 2 runs, K < 2, unequal K, ...), passCategory outside the
// categories, or level outside (0, 1) gives a Reason and zero numbers.
func Repeatability(counts [][]int, passCategory int, level float64) RepeatabilityResult {
	r := RepeatabilityResult{Level: level, Runs: len(counts)}
	z, err := ZForLevel(level)
	if err != nil {
		r.Reason = "invalid input: " + err.Error()
		return r
	}
	k, raters, reason := checkRatingCounts(counts)
	if reason != "" {
		r.Reason = reason
		return r
	}
	if passCategory < 0 || passCategory >= k {
		r.Reason = fmt.Sprintf("invalid input: pass category %d outside [0, %d)", passCategory, k)
		return r
	}
	r.Repeats = raters
	flips, passAll := 0, 0
	for _, row := range counts {
		unanimous := false
		for _, c := range row {
			if c == raters {
				unanimous = true
			}
		}
		if !unanimous {
			flips++
		}
		if row[passCategory] == raters {
			passAll++
		}
	}
	n := len(counts)
	r.FlipRate = float64(flips) / float64(n)
	r.PassAllK = float64(passAll) / float64(n)
	r.FlipRateCI, _ = WilsonInterval(flips, n, z)
	r.PassAllKCI, _ = WilsonInterval(passAll, n, z)
	return r
}
