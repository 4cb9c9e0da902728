package calibrate

import (
	"fmt"
	"math"
	"sort"

	"github.com/evalcal/evalcal/comparator"
	"github.com/evalcal/evalcal/report"
	"github.com/evalcal/evalcal/statistician"
	"github.com/evalcal/evalcal/statistician/aggregate"
)

// CompareReports compares cur with prev (the baseline). Neither report is
// changed. A nil report gives a report.Trend whose every change has a Reason.
//
// Every figure compared, before and now, is recomputed from the report's
// per-run comparisons (written exactly, see report.Precision), never taken
// from the report's rounded statistics: a baseline read back from its YAML
// or JSON holds kappa, correlations and the Brier score at 6 significant
// digits, and comparing those with tonight's unrounded figures gave
// differences of 1e-7 against an identical report and no Brier trend at
// all. So a report compared with itself gives differences of exactly 0. A
// report whose comparisons do not account for its sample (a hand-made or
// trimmed document) falls back to its recorded statistics.
func CompareReports(prev, cur *report.Report) report.Trend {
	t := report.Trend{Distinguishable: []string{}, RunsOnlyNow: []string{}, RunsOnlyBefore: []string{}}
	if prev == nil || cur == nil {
		c := report.Change{Reason: "no baseline or current report"}
		t.Agreement, t.KappaLinear, t.Brier, t.Calibration = c, c, c, c
		t.MeanDelta = report.ScoreChanges{RuntimeFidelity: c, TaskEffectiveness: c}
		t.Correlation = report.ScoreChanges{RuntimeFidelity: c, TaskEffectiveness: c}
		return t
	}
	t.Baseline = report.TrendSource{GeneratedBy: prev.GeneratedBy, ContentHash: prev.Inputs.ContentHash, SampleSize: prev.SampleSize}
	p, c := figuresOf(prev), figuresOf(cur)
	t.Agreement = agreementChange(p.AgreementRate, c.AgreementRate)
	t.KappaLinear = kappaChange(p.Kappa.Linear, c.Kappa.Linear)
	t.MeanDelta = report.ScoreChanges{
		RuntimeFidelity:   meanDeltaChange(p.MeanScoreDelta.RuntimeFidelity, c.MeanScoreDelta.RuntimeFidelity),
		TaskEffectiveness: meanDeltaChange(p.MeanScoreDelta.TaskEffectiveness, c.MeanScoreDelta.TaskEffectiveness),
	}
	t.Correlation = report.ScoreChanges{
		RuntimeFidelity:   correlationChange(p.ScoreCorrelation.RuntimeFidelity, c.ScoreCorrelation.RuntimeFidelity),
		TaskEffectiveness: correlationChange(p.ScoreCorrelation.TaskEffectiveness, c.ScoreCorrelation.TaskEffectiveness),
	}
	t.Brier, t.Calibration = forecastChanges(p, c)
	t.Judges = judgeChanges(prev.Inputs, cur.Inputs)
	for _, c := range []struct {
		name string
		ch   report.Change
	}{
		{"agreement", t.Agreement}, {"kappa_linear", t.KappaLinear},
		{"mean_delta.runtime_fidelity", t.MeanDelta.RuntimeFidelity}, {"mean_delta.task_effectiveness", t.MeanDelta.TaskEffectiveness},
		{"correlation.runtime_fidelity", t.Correlation.RuntimeFidelity}, {"correlation.task_effectiveness", t.Correlation.TaskEffectiveness},
		{"brier", t.Brier}, {"calibration", t.Calibration},
	} {
		if c.ch.Distinguishable {
			t.Distinguishable = append(t.Distinguishable, c.name)
		}
	}
	t.RunsOnlyNow, t.RunsOnlyBefore = runDifference(cur.Comparisons, prev.Comparisons), runDifference(prev.Comparisons, cur.Comparisons)
	return t
}

// figures are the statistics a trend compares, of one report.
type figures struct {
	AgreementRate    report.AgreementRate
	Kappa            report.KappaSection
	MeanScoreDelta   report.MeanScoreDelta
	ScoreCorrelation report.ScoreCorrelation
	Forecast         report.Forecast
	// Comparisons are the per-run data the Brier difference's interval is
	// computed from.
	Comparisons []comparator.Comparison
	// Recorded is true when the figures are the report's recorded
	// (possibly rounded) statistics, not recomputed.
	Recorded bool
}

// figuresOf recomputes r's compared figures from its exact per-run
// comparisons with aggregate.Compute, as calibrate.Fill computed them
// (kappa, correlations, mean deltas and the Brier score use the
// comparisons alone). When the comparisons do not account for the sample
// (r.SampleSize != len(r.Comparisons)), the recorded statistics are used.
func figuresOf(r *report.Report) figures {
	if r.SampleSize != len(r.Comparisons) {
		return figures{AgreementRate: r.AgreementRate, Kappa: r.Kappa, MeanScoreDelta: r.MeanScoreDelta,
			ScoreCorrelation: r.ScoreCorrelation, Forecast: r.Forecast, Comparisons: r.Comparisons, Recorded: true}
	}
	var st report.Report
	st.SetStatistics(aggregate.Compute(r.Comparisons, aggregate.Options{Bins: r.Inputs.Bins}))
	return figures{AgreementRate: st.AgreementRate, Kappa: st.Kappa, MeanScoreDelta: st.MeanScoreDelta,
		ScoreCorrelation: st.ScoreCorrelation, Forecast: st.Forecast, Comparisons: r.Comparisons}
}

// runDifference returns the run ids in a and not in b, sorted.
func runDifference(a, b []comparator.Comparison) []string {
	inB := map[string]bool{}
	for _, c := range b {
		inB[c.RunID] = true
	}
	out := []string{}
	for _, c := range a {
		if !inB[c.RunID] {
			out = append(out, c.RunID)
		}
	}
	sort.Strings(out)
	return out
}

func f64(x float64) *float64 { return &x }

// withDifference fills the difference and interval of c and decides
// distinguishability.
func withDifference(c report.Change, d float64, ci statistician.Interval) report.Change {
	c.Difference, c.CI95 = f64(d), &ci
	c.Distinguishable = ci.Lower > 0 || ci.Upper < 0
	return c
}

// agreementChange is the difference of two agreement rates in percentage
// points with Newcombe's hybrid score interval (Newcombe 1998, method 10;
// statistician.NewcombeDifference).
func agreementChange(prev, cur report.AgreementRate) report.Change {
	c := report.Change{Method: "Newcombe (1998) hybrid score interval, percentage points"}
	if prev.N > 0 {
		c.Before = f64(aggregate.AgreementRate(prev).Value())
	}
	if cur.N > 0 {
		c.Now = f64(aggregate.AgreementRate(cur).Value())
	}
	d, err := statistician.NewcombeDifference(cur.Matches, cur.N, prev.Matches, prev.N, statistician.Z95)
	if err != nil {
		c.Reason = err.Error()
		return c
	}
	return withDifference(c, 100*d.Estimate, statistician.Interval{Lower: 100 * d.CI.Lower, Upper: 100 * d.CI.Upper})
}

// kappaChange is the difference of two independent kappas with the Wald
// interval d ± Z95 sqrt(SE_now^2 + SE_before^2) from their asymptotic
// standard errors.
func kappaChange(prev, cur statistician.Kappa) report.Change {
	c := report.Change{Method: "Wald interval from both asymptotic standard errors"}
	if prev.Reason == "" && prev.N > 0 {
		c.Before = f64(prev.Value)
	}
	if cur.Reason == "" && cur.N > 0 {
		c.Now = f64(cur.Value)
	}
	if c.Before == nil || c.Now == nil {
		c.Reason = "kappa not defined in " + missingSide(c)
		return c
	}
	d := cur.Value - prev.Value
	h := statistician.Z95 * math.Hypot(cur.SE, prev.SE)
	return withDifference(c, d, statistician.Interval{Lower: d - h, Upper: d + h})
}

func missingSide(c report.Change) string {
	switch {
	case c.Before == nil && c.Now == nil:
		return "either report"
	case c.Before == nil:
		return "the baseline"
	}
	return "the current report"
}

func meanDeltaChange(prev, cur report.ScoreDelta) report.Change {
	c := report.Change{Method: "Welch t interval of the difference of two means"}
	if prev.N > 0 {
		c.Before = f64(prev.Mean)
	}
	if cur.N > 0 {
		c.Now = f64(cur.Mean)
	}
	wd, err := statistician.WelchDifference(cur.Mean, cur.SD, cur.N, prev.Mean, prev.SD, prev.N)
	d, ci := wd.Estimate, wd.CI
	if err != nil {
		c.Reason = err.Error()
		return c
	}
	return withDifference(c, d, ci)
}

// correlationChange is r_now - r_before with Zou's (2007) interval for
// the difference of two independent correlations, built from each
// correlation's Fisher-z 95% interval [l, u] as held in the report:
//
//	lower = d - sqrt((r1 - l1)^2 + (u2 - r2)^2)
//	upper = d + sqrt((u1 - r1)^2 + (r2 - l2)^2)
//
// with 1 = now and 2 = before (Zou, Psychological Methods 12:399-413,
// 2007, eq. 15).
func correlationChange(prev, cur report.Correlation) report.Change {
	c := report.Change{Method: "Zou (2007) interval from each Fisher-z interval"}
	if prev.R != nil {
		c.Before = f64(*prev.R)
	}
	if cur.R != nil {
		c.Now = f64(*cur.R)
	}
	if prev.R == nil || cur.R == nil || prev.CI95 == nil || cur.CI95 == nil {
		c.Reason = "correlation not defined in " + missingSide(c)
		return c
	}
	r1, l1, u1 := *cur.R, cur.CI95.Lower, cur.CI95.Upper
	r2, l2, u2 := *prev.R, prev.CI95.Lower, prev.CI95.Upper
	d := r1 - r2
	return withDifference(c, d, statistician.Interval{
		Lower: d - math.Hypot(r1-l1, u2-r2),
		Upper: d + math.Hypot(u1-r1, r2-l2),
	})
}

// squaredErrors returns the mean and SD of (p - y)^2 over the report's
// comparisons and checks the mean against the figures' Brier score (which
// holds by construction when the figures were recomputed; a recorded,
// rounded Brier score is checked to its 6 significant digits).
func squaredErrors(r figures) (mean, sd float64, n int, err error) {
	n = len(r.Comparisons)
	if n < 2 {
		return 0, 0, n, fmt.Errorf("%d compared runs, need at least 2", n)
	}
	e := make([]float64, n)
	for i, c := range r.Comparisons {
		p, y := aggregate.LightForecast(c)
		e[i] = (p - float64(y)) * (p - float64(y))
		mean += e[i]
	}
	mean /= float64(n)
	for _, x := range e {
		sd += (x - mean) * (x - mean)
	}
	sd = math.Sqrt(sd / float64(n-1))
	tol := 1e-9
	if r.Recorded {
		tol = max(tol, 5e-6*math.Abs(mean))
	}
	if r.Forecast.Brier == nil || math.Abs(*r.Forecast.Brier-mean) > tol {
		return 0, 0, n, fmt.Errorf("the comparisons do not reproduce the report's Brier score")
	}
	return mean, sd, n, nil
}

// forecastChanges are the changes of the Brier score and of the 0-100
// calibration score of light's forecast. The Brier difference has Welch's
// interval on the per-run squared errors (p - y)^2. Calibration is
// 100 (1 - BS/0.25) while BS <= 0.25, so its difference is -400 times the
// Brier difference and so is its interval; when either Brier score is
// above 0.25 the calibration is clamped at 0 and has no interval.
func forecastChanges(prev, cur figures) (brier, cal report.Change) {
	brier = report.Change{Method: "Welch t interval of the difference of mean per-run squared errors"}
	cal = report.Change{Method: "-400 times the Brier difference and its interval"}
	brier.Before, brier.Now = prev.Forecast.Brier, cur.Forecast.Brier
	cal.Before, cal.Now = prev.Forecast.Calibration, cur.Forecast.Calibration
	if cal.Before != nil && cal.Now != nil {
		cal.Difference = f64(*cal.Now - *cal.Before)
	}
	if brier.Before == nil || brier.Now == nil {
		brier.Reason = "Brier score not defined in " + missingSide(brier)
		cal.Reason = brier.Reason
		return brier, cal
	}
	m2, s2, n2, err := squaredErrors(prev)
	if err != nil {
		brier.Reason, cal.Reason = "baseline: "+err.Error(), "baseline: "+err.Error()
		return brier, cal
	}
	m1, s1, n1, err := squaredErrors(cur)
	if err != nil {
		brier.Reason, cal.Reason = "current report: "+err.Error(), "current report: "+err.Error()
		return brier, cal
	}
	wd, err := statistician.WelchDifference(m1, s1, n1, m2, s2, n2)
	d, ci := wd.Estimate, wd.CI
	if err != nil {
		brier.Reason, cal.Reason = err.Error(), err.Error()
		return brier, cal
	}
	brier = withDifference(brier, d, ci)
	switch {
	case cal.Difference == nil:
		cal.Reason = "calibration not defined in " + missingSide(cal)
	case m1 > statistician.BrierOfChance || m2 > statistician.BrierOfChance:
		cal.Reason = "calibration is clamped at 0 (Brier score above 0.25) in " + clampedSide(m2, m1) + "; no interval"
	default:
		cal = withDifference(cal, *cal.Difference, statistician.Interval{Lower: -400 * ci.Upper, Upper: -400 * ci.Lower})
	}
	return brier, cal
}

func clampedSide(before, now float64) string {
	switch {
	case before > statistician.BrierOfChance && now > statistician.BrierOfChance:
		return "both reports"
	case before > statistician.BrierOfChance:
		return "the baseline"
	}
	return "the current report"
}
