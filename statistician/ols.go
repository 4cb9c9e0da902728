package statistician

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"
)

// maxCondition is the largest condition number of the design matrix for
// which OLSHC3 reports coefficients: beyond it the columns are collinear
// to within 1e-12 relative error of double precision (a slice indicator
// that equals another, a flag that is constant), and the coefficients
// are not identified.
const maxCondition = 1e12

// Coefficient is one regression coefficient with its standard error, t
// statistic, two-sided p-value and interval.
type Coefficient struct {
	Name     string
	Estimate float64
	SE       float64
	T        float64
	P        float64
	CI       Interval
}

// Regression is an ordinary least squares fit with heteroskedasticity-
// consistent standard errors. When it is not defined, Reason says why and
// Coefficients is empty.
type Regression struct {
	Coefficients []Coefficient
	N            int
	DF           int
	Level        float64
	Covariance   string
	Reason       string
}

// Coefficient returns the coefficient called name and whether there is
// one.
func (r Regression) Coefficient(name string) (Coefficient, bool) {
	for _, c := range r.Coefficients {
		if c.Name == name {
			return c, true
		}
	}
	return Coefficient{}, false
}

// OLSHC3 fits y = X beta + e by ordinary least squares, x[i] the row of
// run i (include a column of ones for an intercept) and names[j] the name
// of column j, with HC3 standard errors (MacKinnon and White 1985,
// J. Econometrics 29(3); recommended for small samples by Long and Ervin
// 2000, Am. Stat. 54(3)):
//
//	beta  = (X'X)^-1 X'y,  e = y - X beta,  h_i = x_i'(X'X)^-1 x_i
//	V_HC3 = (X'X)^-1 [sum_i x_i x_i' e_i^2/(1 - h_i)^2] (X'X)^-1
//	t_j   = beta_j / sqrt(V_jj),  p_j = 2 P(T_{n-k} > |t_j|)
//	CI_j  = beta_j ± t(1 - (1-level)/2; n-k) sqrt(V_jj)
//
// as statsmodels' OLS(y, X).fit(cov_type='HC3', use_t=True). The fit
// uses the QR decomposition X = QR (gonum's mat.QR): beta solves
// R beta = Q'y, (X'X)^-1 = R^-1 R^-T and h_i = |x_i' R^-1|^2, which
// avoids forming X'X.
//
// Reason is set and Coefficients is empty when n <= k (no residual degree
// of freedom), the rows or names differ in length, a value is NaN or
// infinite, the columns are collinear (condition number of X over 1e12),
// a run has leverage 1 (it alone determines a coefficient, so its
// residual is 0 and HC3 divides 0 by 0), or level is outside (0, 1).
func OLSHC3(x [][]float64, y []float64, names []string, level float64) Regression {
	r := Regression{N: len(y), Level: level, Covariance: "HC3"}
	k := len(names)
	if reason := checkDesign(x, y, k, level); reason != "" {
		r.Reason = reason
		return r
	}
	n := len(y)
	r.DF = n - k
	X := mat.NewDense(n, k, nil)
	for i, row := range x {
		X.SetRow(i, row)
	}
	var qr mat.QR
	qr.Factorize(X)
	if c := qr.Cond(); !(c <= maxCondition) {
		r.Reason = fmt.Sprintf("undefined: the columns %v are collinear (condition number %.3g); drop a column that another one determines", names, c)
		return r
	}
	var beta mat.VecDense
	if err := qr.SolveVecTo(&beta, false, mat.NewVecDense(n, y)); err != nil {
		r.Reason = fmt.Sprintf("undefined: least squares: %v", err)
		return r
	}
	var full mat.Dense
	qr.RTo(&full)
	rTri := mat.NewTriDense(k, mat.Upper, nil)
	for i := range k {
		for j := i; j < k; j++ {
			rTri.SetTri(i, j, full.At(i, j))
		}
	}
	var rInv mat.TriDense
	if err := rInv.InverseTri(rTri); err != nil {
		r.Reason = fmt.Sprintf("undefined: the columns %v are collinear: %v", names, err)
		return r
	}
	// meat accumulates sum_i w_i^2 q_i q_i' with q_i = R^-T x_i, the
	// row i of the thin Q, and w_i = e_i/(1 - h_i).
	meat := mat.NewSymDense(k, nil)
	q := mat.NewVecDense(k, nil)
	for i, row := range x {
		xi := mat.NewVecDense(k, row)
		q.MulVec(rInv.T(), xi)
		h := mat.Dot(q, q)
		if h > 1-1e-10 {
			r.Reason = fmt.Sprintf("undefined: run %d has leverage %.12g, so it alone determines a coefficient and HC3 is not defined", i, h)
			return r
		}
		e := y[i] - mat.Dot(xi, &beta)
		w := e / (1 - h)
		meat.SymRankOne(meat, w*w, q)
	}
	var v mat.Dense
	v.Product(&rInv, meat, rInv.T())
	tq := tQuantile(1-(1-level)/2, float64(r.DF))
	tDist := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(r.DF)}
	for j := range k {
		c := Coefficient{Name: names[j], Estimate: beta.AtVec(j), SE: math.Sqrt(math.Max(0, v.At(j, j)))}
		if c.SE > 0 {
			c.T = c.Estimate / c.SE
			c.P = math.Min(1, 2*tDist.Survival(math.Abs(c.T)))
		} else {
			c.P = 1
		}
		c.CI = Interval{Lower: c.Estimate - tq*c.SE, Upper: c.Estimate + tq*c.SE}
		r.Coefficients = append(r.Coefficients, c)
	}
	return r
}

// checkDesign returns why x (rows of k values), y and level cannot be an
// OLS fit with at least one residual degree of freedom, or "".
func checkDesign(x [][]float64, y []float64, k int, level float64) string {
	switch {
	case !(level > 0 && level < 1):
		return fmt.Sprintf("invalid input: confidence level %v must be in (0, 1)", level)
	case len(x) != len(y):
		return fmt.Sprintf("invalid input: %d rows and %d outcomes", len(x), len(y))
	case k == 0:
		return "invalid input: no column"
	case len(y) <= k:
		return fmt.Sprintf("insufficient data: %d runs for %d coefficients, need more runs than coefficients", len(y), k)
	}
	for i, row := range x {
		if len(row) != k {
			return fmt.Sprintf("invalid input: row %d has %d values, want %d", i, len(row), k)
		}
		if j := firstNonFinite(row); j >= 0 {
			return fmt.Sprintf("invalid input: row %d column %d is %v", i, j, row[j])
		}
	}
	if i := firstNonFinite(y); i >= 0 {
		return fmt.Sprintf("invalid input: outcome %d is %v", i, y[i])
	}
	return ""
}
