package aggregate

import (
	"fmt"

	"github.com/evalcal/evalcal/statistician"
)

// ClusterSystem is the field runs are clustered by unless the user names
// another (run --cluster FIELD).
const ClusterSystem = "system"

// SmallClusters is the number of clusters under which the report calls
// the clustered interval's method small-sample: Cameron and Miller (2015,
// "A practitioner's guide to cluster-robust inference", J. Human
// Resources 50(2), section VI) find the CR1 interval too narrow below
// about 30 to 50 clusters. The CR2 interval with Bell-McCaffrey degrees
// of freedom (statistician.ClusterRobustAgreement) is used at every
// number of clusters (it approaches CR1 as clusters grow alike); the
// report's note says when the count is small.
const SmallClusters = 30

// clusterOf is the cluster of run id, of system sys, under in: its value
// in in.Clusters, or the system when in.Clusters does not name it (the
// default field).
func clusterOf(in Input, id, sys string) string {
	if c, ok := in.Clusters[id]; ok {
		return c
	}
	return sys
}

// clusterField is the field the runs of in are clustered by.
func clusterField(in Input) string {
	if in.ClusterField == "" {
		return ClusterSystem
	}
	return in.ClusterField
}

// clusteredAgreement is the agreement rate with runs clustered by the
// field of in (the system unless the user named another), in percent:
// statistician.ClusterRobustAgreement (the CR2 variance with
// Bell-McCaffrey degrees of freedom, in a Wilson interval on the
// effective sample size), and the design effect, the clustered variance
// over the binomial one. With fewer than statistician.MinClusters
// clusters there is no interval and Reason says why.
func clusteredAgreement(in Input) ClusteredRate {
	cs := in.Comparisons
	c := ClusteredRate{N: len(cs), Field: clusterField(in)}
	matches := make([]bool, len(cs))
	clusters := make([]string, len(cs))
	seen := map[string]bool{}
	for i, x := range cs {
		matches[i], clusters[i] = x.VerdictMatch, clusterOf(in, x.RunID, x.System)
		seen[clusters[i]] = true
	}
	c.Clusters = len(seen)
	if len(cs) == 0 {
		c.Reason = "insufficient data: no runs"
		return c
	}
	r := statistician.ClusterRobustAgreement(matches, clusters, level)
	p := 100 * r.Value
	c.Percent = &p
	if r.Method == "" || r.CI == (statistician.Interval{}) {
		c.Reason = r.Reason
		return c
	}
	c.Method = r.Method
	df, ne := r.DF, r.EffectiveN
	c.DF, c.EffectiveN = &df, &ne
	c.CI95 = &statistician.Interval{Lower: 100 * r.CI.Lower, Upper: 100 * r.CI.Upper}
	if v := r.Value * (1 - r.Value) / float64(len(cs)); v > 0 && r.SE > 0 {
		d := r.SE * r.SE / v
		c.DesignEffect = &d
	}
	c.Note = fmt.Sprintf("CR2 variance with Bell-McCaffrey degrees of freedom (%.3g), in a Wilson interval on the effective sample size", df)
	if c.Clusters < SmallClusters {
		c.Note = fmt.Sprintf("%d clusters, fewer than %d: the small-sample ", c.Clusters, SmallClusters) + c.Note
	}
	return c
}

// ClusteredEstimates are the estimates of one target when the runs are
// clustered (several runs of one task): the classical estimate from the
// deep labels alone and PPI++, each with a CR1 cluster-robust variance
// (influence terms summed by cluster) and a t interval on G_L - 1 degrees
// of freedom, G_L the clusters holding a deep label
// (statistician.ClusterClassicalMean, statistician.ClusterPPIMean). The
// intervals are for the process producing the runs (no finite-population
// correction). With fewer than statistician.MinClusters labelled
// clusters the points are kept and the reasons say there is no interval.
type ClusteredEstimates struct {
	Classical MethodEstimate
	PPI       MethodEstimate
	// DF is the t interval's degrees of freedom, G_L - 1; null without
	// an interval.
	DF *float64
}

// ClusterDesign says how the estimate section accounts for clusters: the
// field, the number of clusters over all runs and among the labelled
// ones, and whether whole clusters were labelled (--deep-policy cluster).
type ClusterDesign struct {
	Field            string
	Clusters         int
	LabelledClusters int
	WholeClusters    bool
}

// clusterDesign counts the clusters of the estimate's runs.
func clusterDesign(in Input, runs []estimateRun) *ClusterDesign {
	d := &ClusterDesign{Field: clusterField(in), WholeClusters: in.WholeClusters}
	all, lab := map[string]bool{}, map[string]bool{}
	for _, r := range runs {
		all[r.cluster] = true
		if r.labelled {
			lab[r.cluster] = true
		}
	}
	d.Clusters, d.LabelledClusters = len(all), len(lab)
	return d
}

// clusteredSet is the clustered classical and PPI++ estimates of one
// target (see ClusteredEstimates); rate clamps them to [0, 1].
func clusteredSet(runs []estimateRun, y, f func(estimateRun) float64, rate bool) *ClusteredEstimates {
	var yl []float64
	var cl []string
	fAll := make([]float64, len(runs))
	yAll := make([]float64, len(runs))
	labelled := make([]bool, len(runs))
	cAll := make([]string, len(runs))
	for i, r := range runs {
		fAll[i], labelled[i], cAll[i] = f(r), r.labelled, r.cluster
		if r.labelled {
			yAll[i] = y(r)
			yl, cl = append(yl, y(r)), append(cl, r.cluster)
		}
	}
	classical := statistician.ClusterClassicalMean(yl, cl, level)
	ppi := statistician.ClusterPPIMean(fAll, yAll, labelled, cAll, level)
	if rate {
		classical.Estimate = classical.ClampTo(0, 1)
		ppi.Estimate = ppi.ClampTo(0, 1)
	}
	out := &ClusteredEstimates{Classical: methodEstimate(classical.Estimate), PPI: methodEstimate(ppi.Estimate)}
	if ppi.SE > 0 || classical.SE > 0 {
		df := max(ppi.DF, classical.DF)
		out.DF = &df
	}
	return out
}

// wholeClusterReason is why the item-level estimators are not valid when
// whole clusters were labelled.
const wholeClusterReason = "not valid here: whole clusters were labelled (--deep-policy cluster), so the runs are not a simple random sample; see clustered"

// itemLevelClustered is why an item-level interval ignores the clusters
// the user named, for the estimate's notes.
func itemLevelClustered(field string) string {
	return fmt.Sprintf("runs are clustered by %s: the item-level intervals (classical, ppi, stratified, calibrated, Rogan-Gladen) treat runs as independent and are too narrow when runs of one %s agree together; best is chosen among the clustered ones", field, field)
}
