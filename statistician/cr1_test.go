package statistician

import (
	"fmt"
	"math"
	"slices"
)

// cr1Result is a proportion with a CR1 cluster-robust standard error and
// t interval. When it is not defined, Reason says why and the
// numbers are zero; when only the interval is undefined the value is kept.
type cr1Result struct {
	Value    float64  `yaml:"value" json:"value"`
	SE       float64  `yaml:"se" json:"se"`
	CI       Interval `yaml:"ci" json:"ci"`
	Level    float64  `yaml:"level" json:"level"`
	N        int      `yaml:"n" json:"n"`
	Clusters int      `yaml:"clusters" json:"clusters"`
	DF       int      `yaml:"df" json:"df"`
	Reason   string   `yaml:"reason,omitempty" json:"reason,omitempty"`
}

// cr1Proportion is the CR1 interval the pipeline no longer uses (it
// under-covers with few clusters: TestClusterRobustAgreementCoverage), kept
// for tests only as the baseline that shows why ClusterRobustAgreement uses
// CR2; checked against statsmodels. It returns the share of true values of matches
// (e.g. light and deep agree on a run) with a cluster-robust interval,
// runs clustered by cluster[i] (e.g. the system that produced the run):
// runs of one system are not independent, so the binomial interval is too
// narrow when systems differ. With p the share, N runs, G clusters and
// u_g = sum over cluster g of (y_i - p), y_i = 1 for a match:
//
//	Var = G/(G-1) sum_g u_g^2 / N^2
//	CI  = p ± t(1 - (1-level)/2; G-1) sqrt(Var), clamped to [0, 1]
//
// This is the CR1 sandwich variance of the intercept of an OLS regression
// of y on a constant (the finite-sample factor (N-1)/(N-K) is 1 for
// K = 1), as statsmodels' OLS(y, ones).fit(cov_type='cluster',
// cov_kwds={'groups': g}, use_t=True) and Stata's vce(cluster), with
// G - 1 degrees of freedom as Cameron and Miller (2015, "A practitioner's
// guide to cluster-robust inference", J. Human Resources 50(2), section
// VI) recommend for few clusters. Clusters are summed in sorted order of
// their names, so the result does not depend on the order of the runs.
//
// With fewer than 2 clusters, no runs, unequal lengths or level outside
// (0, 1) the result has a Reason (and the value, when there are runs).
// Zero variance (every cluster's share equals p) keeps the value with a
// Reason: the interval would be a point.
func cr1Proportion(matches []bool, cluster []string, level float64) cr1Result {
	c := cr1Result{Level: level, N: len(matches)}
	if len(matches) != len(cluster) {
		c.Reason = fmt.Sprintf("invalid input: %d matches and %d cluster names", len(matches), len(cluster))
		return c
	}
	if !(level > 0 && level < 1) {
		c.Reason = fmt.Sprintf("invalid input: confidence level %v must be in (0, 1)", level)
		return c
	}
	if len(matches) == 0 {
		c.Reason = "insufficient data: no runs"
		return c
	}
	hits := 0
	for _, m := range matches {
		if m {
			hits++
		}
	}
	nf := float64(len(matches))
	p := float64(hits) / nf
	c.Value = p

	type tally struct{ n, hits int }
	byCluster := make(map[string]tally)
	for i, name := range cluster {
		t := byCluster[name]
		t.n++
		if matches[i] {
			t.hits++
		}
		byCluster[name] = t
	}
	names := make([]string, 0, len(byCluster))
	for name := range byCluster {
		names = append(names, name)
	}
	slices.Sort(names)
	g := len(names)
	c.Clusters = g
	if g < 2 {
		c.Reason = fmt.Sprintf("insufficient data: %d cluster, need at least 2 for a cluster-robust interval", g)
		return c
	}
	var ss float64
	for _, name := range names {
		t := byCluster[name]
		u := float64(t.hits) - float64(t.n)*p
		ss += u * u
	}
	gf := float64(g)
	variance := gf / (gf - 1) * ss / (nf * nf)
	c.DF = g - 1
	if !(variance > 0) {
		c.Reason = "interval undefined: every cluster has the same share, so the cluster-robust variance is 0"
		return c
	}
	c.SE = math.Sqrt(variance)
	t := tQuantile(1-(1-level)/2, gf-1)
	c.CI = Interval{Lower: clamp01(p - t*c.SE), Upper: clamp01(p + t*c.SE)}
	return c
}
