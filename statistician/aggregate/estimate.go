package aggregate

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/evalcal/evalcal/comparator"
	"github.com/evalcal/evalcal/inspection"
	"github.com/evalcal/evalcal/statistician"
)

// level is the confidence level of every interval in this file.
const level = 0.95

// rogenGladenSeed seeds the Rogan-Gladen bootstrap: fixed, so the report
// is the same for the same runs.
const roganGladenSeed = 20231127

// MinMinorityLabels is the fewest deep labels of the rarer outcome (pass or
// not pass) under which the estimate section warns that the normal
// intervals of PPI++ and IPW may cover a little less than 95% (the
// simulations in statistician/estimate_coverage_test.go: 93.7% with 5% deep and
// a 10% pass rate).
const MinMinorityLabels = 50

// leniency counts the runs light passes and deep does not, and the
// reverse, and tests them with McNemar's exact test.
func leniency(cs []comparator.Comparison) Leniency {
	l := Leniency{N: len(cs), Direction: Balanced}
	lightPass, deepPass := 0, 0
	for _, c := range cs {
		lp, dp := c.LightVerdict == inspection.VerdictPass, c.DeepVerdict == inspection.VerdictPass
		if lp {
			lightPass++
		}
		if dp {
			deepPass++
		}
		switch {
		case lp && !dp:
			l.LightPassDeepNot++
		case dp && !lp:
			l.DeepPassLightNot++
		}
	}
	if l.N == 0 {
		return l
	}
	lr, dr := 100*float64(lightPass)/float64(l.N), 100*float64(deepPass)/float64(l.N)
	l.LightPassRate, l.DeepPassRate = &lr, &dr
	m := statistician.McNemarExact(l.LightPassDeepNot, l.DeepPassLightNot)
	switch m.Direction {
	case statistician.LightLenient:
		l.Direction = Lenient
	case statistician.LightStrict:
		l.Direction = Strict
	}
	if m.Discordant > 0 {
		p := m.P
		l.McNemarP = &p
		l.Significant = p < 0.05
	}
	return l
}

// estimateRun is one run's light prediction and, when labelled, its deep
// outcome.
type estimateRun struct {
	id        string
	lightPass bool
	f         float64 // light's forecast of a deep pass
	lightRF   float64
	lightTE   float64
	labelled  bool
	deepPass  float64
	deepRF    float64
	deepTE    float64
	pi        float64
	piKnown   bool
	// stratum is light's verdict and the run's system (or the values of
	// Input.StrataBy): the strata of stratified PPI++ and of the
	// stratified deep policy.
	stratum string
	// cluster is the run's cluster (clusterOf).
	cluster string
}

// estimate computes the estimate section: what deep would say over every
// run with a light inspection, from the deep labels of the subset.
//
// The light predictor of a deep pass is the light-score forecast of the
// forecast section, f = (light runtime_fidelity + light task_effectiveness)
// / 200; of a deep score, light's same score. With a uniform design
// (every pi equal) the section gives the classical estimate (the deep
// subset alone), PPI++ and Rogan-Gladen; with unequal pi only the
// inverse-probability-weighted estimator is valid, and the others carry
// the reason. Best names the valid pass-rate estimate with the narrowest
// interval.
func estimate(in Input) Estimate {
	runs := make([]estimateRun, 0, len(in.Comparisons)+len(in.LightOnly))
	for _, c := range in.Comparisons {
		p, y := LightForecast(c)
		r := estimateRun{id: c.RunID, cluster: clusterOf(in, c.RunID, c.System), stratum: StratumKey(c.LightVerdict, c.System, c.Metadata, in.StrataBy), lightPass: c.LightVerdict == inspection.VerdictPass, f: p,
			lightRF: c.Light.RuntimeFidelity, lightTE: c.Light.TaskEffectiveness, labelled: true,
			deepPass: float64(y), deepRF: c.Deep.RuntimeFidelity, deepTE: c.Deep.TaskEffectiveness}
		r.pi, r.piKnown = in.Pi[c.RunID]
		runs = append(runs, r)
	}
	for _, l := range in.LightOnly {
		r := estimateRun{id: l.RunID, cluster: clusterOf(in, l.RunID, l.System), stratum: StratumKey(l.LightVerdict, l.System, l.Metadata, in.StrataBy), lightPass: l.LightVerdict == inspection.VerdictPass,
			f: (l.Light.RuntimeFidelity + l.Light.TaskEffectiveness) / 200, lightRF: l.Light.RuntimeFidelity, lightTE: l.Light.TaskEffectiveness}
		r.pi, r.piKnown = in.Pi[l.RunID]
		runs = append(runs, r)
	}
	// Sorted by run id: the estimators' cross-fitting folds depend on order.
	slices.SortFunc(runs, func(a, b estimateRun) int { return cmp.Compare(a.id, b.id) })

	e := Estimate{Design: in.Design, NLight: len(runs), Notes: []string{},
		Predictor: "a deep pass: (light runtime_fidelity + light task_effectiveness) / 200; a deep score: light's same score"}
	minority := [2]int{}
	for _, r := range runs {
		if r.labelled {
			e.NDeep++
			minority[int(r.deepPass)]++
		}
	}
	uniform, piOK := designOf(runs)
	e.Notes = append(e.Notes, "the classical, PPI++ (plain, stratified and calibrated) and IPW intervals are for these runs (finite-population corrected: the labels cover part of a known set); Rogan-Gladen's is for the process producing them (it also counts the runs' own sampling from it)")
	if in.Assumed {
		e.Notes = append(e.Notes, "the deep subset was not said to be random: these estimates ASSUME it was; if the labelled runs were picked for a reason, they may be biased")
	}
	if m := min(minority[0], minority[1]); e.NDeep > 0 && m < MinMinorityLabels {
		e.Notes = append(e.Notes, fmt.Sprintf("only %d deep labels of the rarer outcome: the normal intervals of PPI++ and IPW may cover a little less than 95%%", m))
	}

	pass := func(r estimateRun) float64 { return r.deepPass }
	rf := func(r estimateRun) float64 { return r.deepRF }
	te := func(r estimateRun) float64 { return r.deepTE }
	fPass := func(r estimateRun) float64 { return r.f }
	fRF := func(r estimateRun) float64 { return r.lightRF }
	fTE := func(r estimateRun) float64 { return r.lightTE }

	e.PassRate = estimateSet(runs, pass, fPass, true, uniform, piOK)
	e.RuntimeFidelity = estimateSet(runs, rf, fRF, false, uniform, piOK)
	e.TaskEffectiveness = estimateSet(runs, te, fTE, false, uniform, piOK)
	why := stratifiedValid(runs, uniform)
	e.PassRate.StratPPI = stratified(runs, pass, fPass, true, why)
	e.RuntimeFidelity.StratPPI = stratified(runs, rf, fRF, false, why)
	e.TaskEffectiveness.StratPPI = stratified(runs, te, fTE, false, why)
	if uniform {
		rg := roganGladen(runs)
		e.PassRate.RoganGladen = &rg
	}
	e.Best = best(e.PassRate)
	e.Transport = transport(runs)
	if in.ClusterField != "" || in.WholeClusters {
		clustered(&e, in, runs)
	}
	return e
}

// clustered adds the cluster-robust estimates to e (see
// ClusteredEstimates); when whole clusters were labelled the item-level
// estimators carry wholeClusterReason instead. Best is then chosen among
// the clustered estimates only.
func clustered(e *Estimate, in Input, runs []estimateRun) {
	e.Cluster = clusterDesign(in, runs)
	pass := func(r estimateRun) float64 { return r.deepPass }
	sets := []struct {
		s    *EstimateSet
		y, f func(estimateRun) float64
		rate bool
	}{
		{&e.PassRate, pass, func(r estimateRun) float64 { return r.f }, true},
		{&e.RuntimeFidelity, func(r estimateRun) float64 { return r.deepRF }, func(r estimateRun) float64 { return r.lightRF }, false},
		{&e.TaskEffectiveness, func(r estimateRun) float64 { return r.deepTE }, func(r estimateRun) float64 { return r.lightTE }, false},
	}
	for _, x := range sets {
		x.s.Clustered = clusteredSet(runs, x.y, x.f, x.rate)
		if in.WholeClusters {
			invalidateItemLevel(x.s)
		}
	}
	if in.WholeClusters {
		e.Transport = nil
		e.Notes = append(e.Notes, fmt.Sprintf("the deep subset is whole clusters of %s (%d of %d clusters labelled): only the clustered estimates are valid, and their intervals are for the process producing the runs", e.Cluster.Field, e.Cluster.LabelledClusters, e.Cluster.Clusters))
	} else {
		e.Notes = append(e.Notes, itemLevelClustered(e.Cluster.Field))
	}
	e.Best = nil
	if c := e.PassRate.Clustered; c != nil {
		e.Best = best(EstimateSet{Classical: c.Classical, PPI: c.PPI})
		if e.Best != nil {
			e.Best.Method += " (clustered by " + e.Cluster.Field + ")"
		}
	}
}

// invalidateItemLevel replaces every item-level estimate of s by
// wholeClusterReason.
func invalidateItemLevel(s *EstimateSet) {
	why := func() MethodEstimate { return MethodEstimate{Reason: wholeClusterReason} }
	s.Classical, s.PPI = why(), why()
	for _, m := range []**MethodEstimate{&s.IPW, &s.RoganGladen, &s.StratPPI, &s.PPICalibrated} {
		if *m != nil {
			w := why()
			*m = &w
		}
	}
	s.Predictor = ""
}

// transport checks the pass rate's cross-fitted isotonic map system by
// system: the mean of deep pass minus the prediction of the map not
// fitted on the run (statistician.CrossFitIsotonic, folds by position
// among the labelled runs in id order), with the t interval of
// statistician.ClassicalMean; nil with fewer than 4 labels or one system.
func transport(runs []estimateRun) []TransportCheck {
	var y, f []float64
	var sys []string
	seen := map[string]bool{}
	for _, r := range runs {
		if r.labelled {
			y, f = append(y, r.deepPass), append(f, r.f)
			s := r.stratum[strings.Index(r.stratum, " / ")+3:]
			sys = append(sys, s)
			seen[s] = true
		}
	}
	g, _, ok := statistician.CrossFitIsotonic(f, y, nil)
	if !ok || len(seen) < 2 {
		return nil
	}
	res := map[string][]float64{}
	for i := range y {
		res[sys[i]] = append(res[sys[i]], y[i]-g[i])
	}
	names := make([]string, 0, len(res))
	for s := range res {
		names = append(names, s)
	}
	slices.Sort(names)
	out := make([]TransportCheck, 0, len(names))
	for _, s := range names {
		c := TransportCheck{System: s, N: len(res[s]), Transports: true}
		m := statistician.ClassicalMean(res[s], level)
		if m.Reason != "" && m.Value == 0 && m.CI == (statistician.Interval{}) {
			c.Reason = m.Reason
		} else {
			v := m.Value
			c.MeanResidual = &v
			if m.SE > 0 {
				ci := m.CI
				c.CI95, c.Transports = &ci, ci.Contains(0)
			} else {
				c.Reason = m.Reason
			}
		}
		out = append(out, c)
	}
	return out
}

// designOf reads the deep subset's design from the runs' inclusion
// probabilities: uniform unless any two recorded probabilities differ
// (whichever runs carry them: a saved file of human labels records them
// on the labelled runs only), and piOK when every labelled run has one,
// as the inverse-probability-weighted estimator needs. A run without a
// recorded probability (an unlabelled run of a saved file) says nothing
// about the design.
func designOf(runs []estimateRun) (uniform, piOK bool) {
	uniform, piOK = true, true
	first, seen := 0.0, false
	for _, r := range runs {
		known := r.piKnown && r.pi > 0 && r.pi <= 1
		if r.labelled && !known {
			piOK = false
		}
		if !known {
			continue
		}
		if !seen {
			first, seen = r.pi, true
		} else if math.Abs(r.pi-first) > 1e-12 {
			uniform = false
		}
	}
	return uniform, piOK
}

// estimateSet estimates one target: y is the deep value of a labelled run,
// f light's prediction of it; rate says y is 0/1 (Wilson interval for the
// classical estimate, estimates clamped to [0, 1]).
func estimateSet(runs []estimateRun, y, f func(estimateRun) float64, rate, uniform, piOK bool) EstimateSet {
	var yl, fl, fu, fAll, yAll, pi []float64
	var labelled []bool
	for _, r := range runs {
		fAll = append(fAll, f(r))
		labelled = append(labelled, r.labelled)
		// IPWMean reads pi of the labelled runs only; an unknown one is
		// caught by piOK before it is called.
		p := math.NaN()
		if r.piKnown {
			p = r.pi
		}
		pi = append(pi, p)
		if r.labelled {
			yl, fl = append(yl, y(r)), append(fl, f(r))
			yAll = append(yAll, y(r))
		} else {
			fu = append(fu, f(r))
			yAll = append(yAll, 0)
		}
	}
	var s EstimateSet
	var classical statistician.Estimate
	if rate {
		classical = statistician.ClassicalRateOfRuns(yl, len(runs), level)
	} else {
		classical = statistician.ClassicalMeanOfRuns(yl, len(runs), level)
	}
	ppi := statistician.PPIMeanOfRuns(yl, fl, fu, level)
	cal := statistician.PPIMeanOfRunsCalibrated(yl, fl, fu, level)
	if rate {
		ppi, cal = ppi.ClampTo(0, 1), cal.ClampTo(0, 1)
	}
	s.Classical, s.PPI = methodEstimate(classical), methodEstimate(ppi)
	calibrated := methodEstimate(cal)
	s.PPICalibrated, s.Predictor = &calibrated, cal.Predictor
	if !uniform {
		why := "not valid here: the deep subset was drawn with unequal probabilities (see ipw)"
		s.Classical, s.PPI = MethodEstimate{Reason: why}, MethodEstimate{Reason: why}
		s.PPICalibrated, s.Predictor = &MethodEstimate{Reason: why}, ""
		var ipw MethodEstimate
		if piOK {
			est := statistician.IPWMean(fAll, yAll, pi, labelled, level)
			if rate {
				est = est.ClampTo(0, 1)
			}
			ipw = methodEstimate(est)
		} else {
			ipw = MethodEstimate{Reason: "the inclusion probability of some labelled runs is not known"}
		}
		s.IPW = &ipw
	}
	return s
}

// StratumOf is the stratum of a run with light verdict v and system sys:
// "v / sys".
func StratumOf(v, sys string) string { return v + " / " + sys }

// StratumKey is the stratum of a run with light verdict v, system and
// metadata md when the strata are light verdict x the fields by (run
// --by with --deep-policy stratified; inspection.Field: "system" is the
// run's system): "v / x, y" with the fields' values in order, "(none)"
// for a field the run lacks. With no field it is StratumOf(v, system).
func StratumKey(v, system string, md inspection.Metadata, by []string) string {
	if len(by) == 0 {
		return StratumOf(v, system)
	}
	vals := make([]string, len(by))
	for i, f := range by {
		x, ok := inspection.Field(system, md, f)
		if !ok {
			x = "(none)"
		}
		vals[i] = x
	}
	return StratumOf(v, strings.Join(vals, ", "))
}

// stratifiedValid says why stratified PPI++ is not valid for the design,
// or "": it needs a simple random sample within each stratum, which a
// uniform subset gives (post-stratification) and so does any design whose
// recorded inclusion probabilities are equal within each stratum (the
// stratified policy); the uncertain policy's are not.
func stratifiedValid(runs []estimateRun, uniform bool) string {
	if uniform {
		return ""
	}
	pi := map[string]float64{}
	for _, r := range runs {
		if !r.piKnown || !(r.pi > 0 && r.pi <= 1) {
			if r.labelled {
				return "not valid here: the inclusion probability of some labelled runs is not known"
			}
			continue
		}
		if p, ok := pi[r.stratum]; ok && math.Abs(p-r.pi) > 1e-12 {
			return "not valid here: the inclusion probabilities differ within a stratum (light verdict x system); see ipw"
		}
		pi[r.stratum] = r.pi
	}
	return ""
}

// MinStratumLabels is the fewest deep labels a stratum light verdict x
// system keeps for itself when the subset is uniform (post-stratified);
// smaller ones join the other small strata of their light verdict. On
// SummEval (12 systems, 120 labels) the 24 strata of 5 labels made the
// interval 5% wider than PPI++'s; with 10, strata of 10-19 labels (their
// PPI++ variance estimated on 5-10 labels a fold) covered 93.5-93.6% of
// 1,000 uniform subsets of 10% and 25%, with 20 94.1-96.1%
// (calibrate/estimate_real_coverage_test.go), at most 4% wider.
const MinStratumLabels = 20

// designUniform reports whether every recorded inclusion probability is
// the same.
func designUniform(runs []estimateRun) bool {
	u, _ := designOf(runs)
	return u
}

// stratified is stratified PPI++ over the strata light verdict x system,
// with small strata pooled (see MinStratumLabels, poolBySystem,
// statistician.PoolSmallStrata); nil with a single stratum (it is PPI++
// then).
func stratified(runs []estimateRun, y, f func(estimateRun) float64, rate bool, why string) *MethodEstimate {
	byName := map[string]*statistician.Stratum{}
	pi := map[string]float64{}
	var names []string
	for _, r := range runs {
		s := byName[r.stratum]
		if s == nil {
			s = &statistician.Stratum{Name: r.stratum}
			byName[r.stratum] = s
			names = append(names, r.stratum)
		}
		if r.piKnown {
			pi[r.stratum] = r.pi // equal within a stratum (stratifiedValid)
		}
		if r.labelled {
			s.Y, s.FLabelled = append(s.Y, y(r)), append(s.FLabelled, f(r))
		} else {
			s.FUnlabelled = append(s.FUnlabelled, f(r))
		}
	}
	if len(names) < 2 {
		return nil
	}
	if why != "" {
		return &MethodEstimate{Reason: why}
	}
	slices.Sort(names)
	uniform := designUniform(runs)
	strata := poolBySystem(names, byName, pi, uniform)
	strata, _ = statistician.PoolSmallStrata(strata)
	if len(strata) < 2 {
		return &MethodEstimate{Reason: "insufficient data: fewer than 2 strata with 2 deep labels each"}
	}
	var est statistician.Estimate
	if uniform {
		// One lambda over all runs when the per-stratum ones cost more
		// than the strata gain: never wider than PPI++.
		est = statistician.StratPPIMeanOfRunsUniform(strata, level)
	} else {
		est = statistician.StratPPIMeanOfRuns(strata, level)
	}
	if rate {
		est = est.ClampTo(0, 1)
	}
	m := methodEstimate(est)
	return &m
}

// poolBySystem returns the strata names (sorted) of byName with every
// stratum of fewer than MinStratumLabels labels merged into "v / other
// systems" for its light verdict v, among the strata with the same
// inclusion probability pi: within the merged stratum the labels are
// still a simple random sample (given their number), under a uniform
// subset (post-stratification) and under any design whose pi is equal
// within each stratum, as long as the merged strata share it. A stratum
// with 2-9 labels would estimate its PPI++ variance on 1-5 labels a fold:
// under Poisson subsets of SummEval averaging 25% with pi twice as large
// where light did not pass, keeping them covered 69-92% of 2,000 subsets
// (calibrate/estimate_real_coverage_test.go). Where the merged strata's
// pi differ (the stratified policy's allocation), the name says which pi.
// A stratum with no recorded pi (no labelled run of a saved file, whose
// unlabelled runs need none) takes its light verdict's pi when the
// verdict's other strata all record the same one; otherwise it stays
// apart and, with fewer than 2 labels, is pooled by PoolSmallStrata.
func poolBySystem(names []string, byName map[string]*statistician.Stratum, pi map[string]float64, uniform bool) []statistician.Stratum {
	verdictOf := func(n string) string { return n[:strings.Index(n, " / ")] }
	verdictPi := map[string]map[float64]bool{}
	for n, p := range pi {
		v := verdictOf(n)
		if verdictPi[v] == nil {
			verdictPi[v] = map[float64]bool{}
		}
		verdictPi[v][p] = true
	}
	strata := make([]statistician.Stratum, 0, len(names))
	small := map[string]*statistician.Stratum{}
	var order []string
	for _, n := range names {
		s := byName[n]
		if len(s.Y) >= MinStratumLabels {
			strata = append(strata, *s)
			continue
		}
		key := verdictOf(n) + " / other systems"
		if !uniform {
			p, ok := pi[n]
			if !ok && len(verdictPi[verdictOf(n)]) == 1 {
				for q := range verdictPi[verdictOf(n)] {
					p, ok = q, true
				}
			}
			if !ok {
				strata = append(strata, *s)
				continue
			}
			key += fmt.Sprintf(" (pi %v)", p)
		}
		if small[key] == nil {
			small[key] = &statistician.Stratum{Name: key}
			order = append(order, key)
		}
		p := small[key]
		p.Y, p.FLabelled = append(p.Y, s.Y...), append(p.FLabelled, s.FLabelled...)
		p.FUnlabelled = append(p.FUnlabelled, s.FUnlabelled...)
	}
	for _, k := range order {
		strata = append(strata, *small[k])
	}
	return strata
}

// methodEstimate turns a statistician.Estimate into the report's form:
// null figures with the reason when it is undefined.
func methodEstimate(e statistician.Estimate) MethodEstimate {
	m := MethodEstimate{Reason: e.Reason, Lambda: e.Lambda, Pooled: e.Pooled}
	if e.Reason != "" && e.SE == 0 && e.Value == 0 && e.CI == (statistician.Interval{}) {
		return m
	}
	v := e.Value
	m.Point = &v
	if e.SE > 0 {
		se, n := e.SE, e.EffectiveN
		ci := e.CI
		m.SE, m.CI95, m.EffectiveN = &se, &ci, &n
	}
	return m
}

// roganGladen is light's pass rate over every run corrected by its
// sensitivity and specificity against deep on the labelled runs.
func roganGladen(runs []estimateRun) MethodEstimate {
	var pc statistician.PassCounts
	unPass, unN := 0, 0
	for _, r := range runs {
		if !r.labelled {
			unN++
			if r.lightPass {
				unPass++
			}
			continue
		}
		dp := r.deepPass == 1
		switch {
		case r.lightPass && dp:
			pc.BothPass++
		case r.lightPass:
			pc.LightOnly++
		case dp:
			pc.DeepOnly++
		default:
			pc.NeitherPass++
		}
	}
	rg := statistician.RoganGladen(pc, unPass, unN, statistician.BootstrapOptions{Seed: roganGladenSeed, Level: level})
	return methodEstimate(rg.Estimate)
}

// best is the valid pass-rate estimate with the narrowest interval.
func best(s EstimateSet) *BestEstimate {
	var out *BestEstimate
	consider := func(name string, m *MethodEstimate) {
		if m == nil || m.Reason != "" || m.Point == nil || m.CI95 == nil {
			return
		}
		if out == nil || m.CI95.Upper-m.CI95.Lower < out.Upper-out.Lower {
			out = &BestEstimate{Method: name, Point: *m.Point, Lower: m.CI95.Lower, Upper: m.CI95.Upper}
		}
	}
	consider(statistician.MethodClassical, &s.Classical)
	consider(statistician.MethodPPI, &s.PPI)
	consider(statistician.MethodIPW, s.IPW)
	consider(statistician.MethodRoganGladen, s.RoganGladen)
	consider(statistician.MethodStratPPI, s.StratPPI)
	consider(statistician.MethodPPI+" (calibrated)", s.PPICalibrated)
	return out
}

// repeatability measures each side's agreement with itself over its
// repeats.
func repeatability(rs []RunRepeats) Repeatability {
	k := 0
	for _, r := range rs {
		k = max(k, len(r.Light), len(r.Deep))
	}
	out := Repeatability{K: k,
		Rule: "the paired statistics use each run's majority verdict (a tie goes to the stricter verdict) and mean scores over its repeats"}
	out.Light = sideRepeatability(rs, k, func(r RunRepeats) []Repeat { return r.Light })
	out.Deep = sideRepeatability(rs, k, func(r RunRepeats) []Repeat { return r.Deep })
	return out
}

func sideRepeatability(rs []RunRepeats, k int, side func(RunRepeats) []Repeat) SideRepeatability {
	var s SideRepeatability
	var counts [][]int
	var sdRF, sdTE []float64
	for _, r := range rs {
		reps := side(r)
		if len(reps) != k || k < 2 {
			continue
		}
		row := make([]int, len(verdictOrder))
		var rf, te []float64
		for _, x := range reps {
			if i := verdictIndex(x.Verdict); i >= 0 {
				row[i]++
			}
			rf, te = append(rf, x.Scores.RuntimeFidelity), append(te, x.Scores.TaskEffectiveness)
		}
		counts = append(counts, row)
		sdRF, sdTE = append(sdRF, sd(rf)), append(sdTE, sd(te))
	}
	s.Runs = len(counts)
	if s.Runs == 0 {
		s.Reason = "no run has every repeat of this side"
		return s
	}
	rep := statistician.Repeatability(counts, verdictIndex(inspection.VerdictPass), level)
	if rep.Reason == "" {
		fr, pk := rep.FlipRate, rep.PassAllK
		s.FlipRate, s.PassAllK = &fr, &pk
	} else {
		s.Reason = rep.Reason
	}
	fk := statistician.FleissKappa(counts, level)
	if fk.Reason == "" {
		v, ci := fk.Value, fk.CI
		s.FleissKappa, s.FleissCI95 = &v, &ci
	} else if s.Reason == "" {
		s.Reason = "fleiss kappa: " + fk.Reason
	}
	mrf, mte := mean(sdRF), mean(sdTE)
	s.ScoreSpread = ScoreSpread{RuntimeFidelity: &mrf, TaskEffectiveness: &mte}
	return s
}

// sd is the sample standard deviation (n-1), 0 for fewer than 2 values.
func sd(x []float64) float64 {
	if len(x) < 2 {
		return 0
	}
	m := mean(x)
	ss := 0.0
	for _, v := range x {
		ss += (v - m) * (v - m)
	}
	return math.Sqrt(ss / float64(len(x)-1))
}
