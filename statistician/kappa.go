package statistician

import (
	"fmt"
	"math"
)

// Weighting selects the agreement weights of Cohen's kappa for k ordered
// categories.
type Weighting int

const (
	// Unweighted counts only exact agreement: w_ij = 1 if i = j, else 0.
	Unweighted Weighting = iota
	// Linear weights: w_ij = 1 - |i-j|/(k-1) (Cicchetti and Allison 1971).
	Linear
	// Quadratic weights: w_ij = 1 - (i-j)^2/(k-1)^2 (Fleiss and Cohen 1973).
	Quadratic
)

// String returns "unweighted", "linear" or "quadratic".
func (w Weighting) String() string {
	switch w {
	case Unweighted:
		return "unweighted"
	case Linear:
		return "linear"
	case Quadratic:
		return "quadratic"
	}
	return fmt.Sprintf("Weighting(%d)", int(w))
}

// maxExactCount is 2^53, the largest count a float64 holds exactly.
const maxExactCount = 1 << 53

// Kappa is Cohen's kappa with its asymptotic standard error and 95%
// interval. N is the table total rounded to an integer (at most 2^53).
// When kappa is not defined, Reason says why and the numbers are zero.
type Kappa struct {
	Value  float64  `yaml:"value" json:"value"`
	SE     float64  `yaml:"se" json:"se"`
	CI95   Interval `yaml:"ci95" json:"ci95"`
	N      int      `yaml:"n" json:"n"`
	Reason string   `yaml:"reason,omitempty" json:"reason,omitempty"`
}

// ConfusionMatrix counts the pairs (rows[i], cols[i]) of category indices
// in [0, k) into a k x k table: table[r][c] is the number of items rated r
// by the first rater and c by the second. It returns an error when the
// slices differ in length, k < 1, or an index is outside [0, k).
func ConfusionMatrix(rows, cols []int, k int) ([][]float64, error) {
	if len(rows) != len(cols) {
		return nil, fmt.Errorf("statistician: confusion matrix: %d row ratings and %d column ratings", len(rows), len(cols))
	}
	if k < 1 {
		return nil, fmt.Errorf("statistician: confusion matrix: need at least 1 category, got %d", k)
	}
	table := make([][]float64, k)
	for i := range table {
		table[i] = make([]float64, k)
	}
	for i := range rows {
		r, c := rows[i], cols[i]
		if r < 0 || r >= k || c < 0 || c >= k {
			return nil, fmt.Errorf("statistician: confusion matrix: item %d has categories (%d, %d) outside [0, %d)", i, r, c, k)
		}
		table[r][c]++
	}
	return table, nil
}

// RawAgreement returns the observed proportion of agreement of a k x k
// table, p_o = sum_i table[i][i] / sum_ij table[i][j], in [0, 1]. It
// returns an error for a table that is not square, is empty, has a
// negative or non-finite cell, or sums to 0.
func RawAgreement(table [][]float64) (float64, error) {
	total, err := checkTable(table)
	if err != nil {
		return 0, err
	}
	var diag float64
	for i := range table {
		diag += table[i][i]
	}
	return clamp01(diag / total), nil
}

// PABAK returns the prevalence- and bias-adjusted kappa of a k x k table
// (Byrt, Bishop and Carlin 1993, generalised to k categories):
//
//	PABAK = (k p_o - 1)/(k - 1)
//
// in [-1/(k-1), 1]. It is defined whenever p_o is, including for a table
// whose ratings all fall in one category. It returns an error for an
// invalid table (see RawAgreement) or k < 2.
func PABAK(table [][]float64) (float64, error) {
	po, err := RawAgreement(table)
	if err != nil {
		return 0, err
	}
	k := float64(len(table))
	if k < 2 {
		return 0, fmt.Errorf("statistician: pabak needs at least 2 categories, got %d", len(table))
	}
	return (k*po - 1) / (k - 1), nil
}

// CohenKappa returns Cohen's kappa of a k x k table of counts (Cohen 1960;
// weighted, Cohen 1968) with agreement weights w_ij chosen by w, cell
// proportions p_ij, margins p_i. and p_.j and N the table total:
//
//	p_o = sum w_ij p_ij,  p_e = sum w_ij p_i. p_.j
//	kappa = (p_o - p_e)/(1 - p_e)
//
// Its standard error is the large-sample non-null one of Fleiss, Cohen and
// Everitt (1969), as statsmodels' cohens_kappa(...).std_kappa, with
// wr_i = sum_j p_.j w_ij and wc_j = sum_i p_i. w_ij:
//
//	Var = [sum p_ij (w_ij - (wr_i + wc_j)(1-kappa))^2 - (kappa - p_e(1-kappa))^2] / (N (1-p_e)^2)
//
// and CI95 = kappa ± Z95 SE clamped to [-1, 1]. kappa <= 1.
//
// Degenerate tables: when p_e = 1 (both raters used one and the same
// category only) kappa is 0/0 and the result carries a Reason, although
// RawAgreement and PABAK are defined. Perfect agreement over more than one
// category gives kappa 1 with SE 0 and interval [1, 1]: the asymptotic
// variance is exactly zero there, which understates the uncertainty of a
// small sample. An invalid table or weighting gives a Reason too. Kappa
// never holds NaN.
func CohenKappa(table [][]float64, w Weighting) Kappa {
	total, err := checkTable(table)
	if err != nil {
		return Kappa{Reason: "invalid input: " + err.Error()}
	}
	kap := Kappa{N: int(math.Round(math.Min(total, maxExactCount)))}
	k := len(table)
	weight, err := agreementWeights(k, w)
	if err != nil {
		kap.Reason = "invalid input: " + err.Error()
		return kap
	}
	row := make([]float64, k)
	col := make([]float64, k)
	for i := range table {
		for j, v := range table[i] {
			row[i] += v / total
			col[j] += v / total
		}
	}
	var po, pe float64
	for i := range table {
		for j, v := range table[i] {
			po += weight(i, j) * v / total
			pe += weight(i, j) * row[i] * col[j]
		}
	}
	// p_e <= 1 always; equality up to rounding means a single category.
	if pe >= 1-1e-12 {
		kap.Reason = "undefined: expected agreement is 1 (both raters used a single category)"
		return kap
	}
	kappa := (po - pe) / (1 - pe)
	kappa = math.Max(-1, math.Min(1, kappa))
	// wr and wc are the weighted margins of Fleiss, Cohen and Everitt.
	wr := make([]float64, k)
	wc := make([]float64, k)
	for i := 0; i < k; i++ {
		for j := 0; j < k; j++ {
			wr[i] += col[j] * weight(i, j)
			wc[j] += row[i] * weight(i, j)
		}
	}
	var a float64
	for i := range table {
		for j, v := range table[i] {
			t := weight(i, j) - (wr[i]+wc[j])*(1-kappa)
			a += v / total * t * t
		}
	}
	c := kappa - pe*(1-kappa)
	variance := (a - c*c) / (total * (1 - pe) * (1 - pe))
	// The variance is non-negative in exact arithmetic; rounding can make
	// it a tiny negative number at perfect agreement.
	se := math.Sqrt(math.Max(0, variance))
	if math.IsNaN(se) || math.IsInf(se, 0) || math.IsNaN(kappa) {
		kap.Reason = "undefined: counts overflow floating point"
		return kap
	}
	kap.Value, kap.SE = kappa, se
	kap.CI95 = Interval{Lower: math.Max(-1, kappa-Z95*se), Upper: math.Min(1, kappa+Z95*se)}
	return kap
}

// agreementWeights returns the weight function of w for k categories.
func agreementWeights(k int, w Weighting) (func(i, j int) float64, error) {
	span := float64(k - 1)
	switch w {
	case Unweighted:
		return func(i, j int) float64 {
			if i == j {
				return 1
			}
			return 0
		}, nil
	case Linear:
		return func(i, j int) float64 {
			if span == 0 {
				return 1
			}
			return 1 - math.Abs(float64(i-j))/span
		}, nil
	case Quadratic:
		return func(i, j int) float64 {
			if span == 0 {
				return 1
			}
			d := float64(i-j) / span
			return 1 - d*d
		}, nil
	}
	return nil, fmt.Errorf("unknown weighting %d", int(w))
}

// checkTable returns the total of a square table of non-negative finite
// counts, or an error.
func checkTable(table [][]float64) (float64, error) {
	k := len(table)
	if k == 0 {
		return 0, fmt.Errorf("statistician: agreement table is empty")
	}
	var total float64
	for i, row := range table {
		if len(row) != k {
			return 0, fmt.Errorf("statistician: agreement table is not square: row %d has %d cells, want %d", i, len(row), k)
		}
		for j, v := range row {
			if !(v >= 0) || math.IsInf(v, 0) {
				return 0, fmt.Errorf("statistician: agreement table cell [%d][%d] = %v must be a finite count >= 0", i, j, v)
			}
			total += v
		}
	}
	if !(total > 0) || math.IsInf(total, 0) {
		return 0, fmt.Errorf("statistician: agreement table total %v must be positive and finite", total)
	}
	return total, nil
}
