// Package aggregate is the statistician stage: it turns per-run
// comparisons into the calibration statistics of the report, using the
// scoring core in package statistician for every number.
//
// It lives in its own package so that the scoring core keeps its import
// rule (standard library and gonum only) while the
// stage may depend on the comparator's types.
//
// Its result types carry no yaml or json tags: the report publishes its
// own (report/sections*.go), mapped from Stats in one place
// (report/from_stats.go). The per-run input records LightOnlyRun,
// RunRepeats and Repeat are the exception, published as they are.
package aggregate

import (
	"fmt"
	"sort"

	"github.com/evalcal/evalcal/comparator"
	"github.com/evalcal/evalcal/inspection"
	"github.com/evalcal/evalcal/segment"
	"github.com/evalcal/evalcal/statistician"
)

// Bias directions. Light is optimistic when it scores higher than deep
// (mean deep-minus-light delta below -BiasThreshold), pessimistic when it
// scores lower (above +BiasThreshold), neutral otherwise.
const (
	Optimistic  = "optimistic"
	Pessimistic = "pessimistic"
	Neutral     = "neutral"
)

// BiasThreshold is the mean-delta threshold in score points
// (eval-calibrator statistician: "optimistic if mean delta < -5").
const BiasThreshold = 5.0

// Confidence levels (eval-calibrator: high = 20+ runs and agreement > 90%,
// medium = 10+ runs and > 75%, low otherwise).
const (
	ConfidenceHigh   = "high"
	ConfidenceMedium = "medium"
	ConfidenceLow    = "low"
)

// MinCorrelationPairs is the fewest runs for which a correlation is
// reported (eval-calibrator: "fewer than 5 points: insufficient data").
const MinCorrelationPairs = 5

// verdictOrder is the ordinal scale fail < partial < pass.
var verdictOrder = []string{inspection.VerdictFail, inspection.VerdictPartial, inspection.VerdictPass}

// Stats is what the stage computes. Every figure carries its raw counts.
type Stats struct {
	SampleSize            int
	AgreementRate         AgreementRate
	AgreementBySystem     []SystemAgreement
	ScoreCorrelation      ScoreCorrelation
	MeanScoreDelta        MeanScoreDelta
	BiasDirection         string
	DisagreementBreakdown Breakdown
	Confidence            string
	Preliminary           bool
	Kappa                 KappaSection
	Confusion             Confusion
	Forecast              Forecast
	AgreementClustered    ClusteredRate
	Leniency              Leniency
	AgreementRobust       RobustAgreement
	Estimate              *Estimate
	Repeatability         *Repeatability
	Disagreements         []*comparator.Comparison
	Warnings              []string
	byType                map[comparator.DisagreementType][]string
}

// ByType returns the run ids of each disagreement type, sorted.
func (s Stats) ByType() map[comparator.DisagreementType][]string { return s.byType }

// Breakdown counts the runs of each disagreement type.
type Breakdown struct {
	VerdictSplit     int
	FalseNegative    int
	SeverityMismatch int
	FalsePositive    int
}

func (b *Breakdown) add(t comparator.DisagreementType) {
	switch t {
	case comparator.VerdictSplit:
		b.VerdictSplit++
	case comparator.FalseNegative:
		b.FalseNegative++
	case comparator.SeverityMismatch:
		b.SeverityMismatch++
	case comparator.FalsePositive:
		b.FalsePositive++
	}
}

// AgreementRate is the share of runs whose light and deep verdicts match,
// in percent (0..100), with its Wilson 95% interval in percent. Over no
// run the rate is not defined: Percent and Wilson95 are null and Reason
// says why.
type AgreementRate struct {
	Percent  *float64
	Matches  int
	N        int
	Wilson95 *statistician.Interval
	Reason   string
}

// Value is the rate in percent, 0 when it is not defined.
func (a AgreementRate) Value() float64 {
	if a.Percent == nil {
		return 0
	}
	return *a.Percent
}

// Interval is the Wilson 95% interval in percent, zero when not defined.
func (a AgreementRate) Interval() statistician.Interval {
	if a.Wilson95 == nil {
		return statistician.Interval{}
	}
	return *a.Wilson95
}

// SystemAgreement is the agreement rate on one system's runs, in percent,
// with its Wilson 95% interval and a simultaneous interval: Wilson at the
// Bonferroni-adjusted z for the k tested systems at once (those with at
// least segment.MinRuns runs),
//
//	z' = Phi^-1(1 - 0.025/k)
//
// (statistician.BonferroniZ(Z95, k)), so that all k intervals hold
// together with 95% confidence. A system under segment.MinRuns runs is
// listed with its counts and a Reason, not tested, and has no interval
// (the intervals' presence says a system is tested; reports of earlier
// versions have both intervals for every system, Bonferroni over all).
// These are the figures of the slices section's system slices
// (segment.Agreements): one computation, one interval per system.
// Systems are sorted by name.
type SystemAgreement struct {
	System       string
	Percent      float64
	Matches      int
	N            int
	Reason       string
	Wilson95     *statistician.Interval
	Simultaneous *statistician.Interval
}

// ScoreCorrelation holds the light-versus-deep correlation of each score.
type ScoreCorrelation struct {
	RuntimeFidelity   Correlation
	TaskEffectiveness Correlation
}

// Correlation is Pearson r with its Fisher-z 95% interval and p-value,
// and Spearman rho; or, when not defined, only N and the reason
// (Insufficient under MinCorrelationPairs runs, Undefined otherwise).
type Correlation struct {
	R            *float64
	CI95         *statistician.Interval
	P            *float64
	Spearman     *float64
	N            int
	Insufficient string
	Undefined    string
}

// MeanScoreDelta holds the deep-minus-light delta of each score.
type MeanScoreDelta struct {
	RuntimeFidelity   ScoreDelta
	TaskEffectiveness ScoreDelta
}

// ScoreDelta is the mean deep-minus-light delta of one score with its t
// 95% interval, its bias direction, Bland-Altman limits of agreement and
// Lin's concordance correlation coefficient.
type ScoreDelta struct {
	Mean        float64
	CI95        *statistician.Interval
	SD          float64
	N           int
	Direction   string
	Reason      string
	BlandAltman statistician.BlandAltmanResult
	CCC         statistician.CCC
}

// KappaSection is Cohen's kappa on the ordinal verdicts, unweighted and
// with linear and quadratic weights, with raw agreement and PABAK.
type KappaSection struct {
	Unweighted   statistician.Kappa
	Linear       statistician.Kappa
	Quadratic    statistician.Kappa
	RawAgreement float64
	PABAK        float64
}

// Confusion is the 3x3 verdict confusion matrix: rows are light's verdict,
// columns deep's, both in Order (fail, partial, pass). The risky cells
// list their run ids.
type Confusion struct {
	Order             []string
	Rows              string
	Columns           string
	Counts            [][]int
	LightPassDeepFail []string
	LightFailDeepPass []string
}

// Options configures Compute.
type Options struct {
	// Bins is the number of equal-frequency bins of the light-score
	// reliability table (default 10).
	Bins int
}

// DefaultOptions returns the options evalcal uses unless told otherwise.
func DefaultOptions() Options { return Options{Bins: 10} }

// ComputeAll aggregates everything in: the paired statistics over the
// comparisons, the verdict-level leniency and the clustered agreement
// interval, the chance-robust and class-wise agreement, and, when deep ran on a subset or repeats were made, the
// estimates of what deep would say and the repeatability of each side. It
// never fails; where a statistic is undefined the result says why.
func ComputeAll(in Input, opts Options) Stats {
	s := Compute(in.Comparisons, opts)
	s.AgreementClustered = clusteredAgreement(in)
	s.Leniency = leniency(in.Comparisons)
	s.AgreementRobust = robustAgreement(in.Comparisons, in.Repeats)
	if in.Pi != nil {
		e := estimate(in)
		s.Estimate = &e
	}
	if len(in.Repeats) > 0 {
		r := repeatability(in.Repeats)
		s.Repeatability = &r
	}
	return s
}

// Compute aggregates the comparisons (one per run). It never fails; where
// a statistic is undefined the result says why.
func Compute(cs []comparator.Comparison, opts Options) Stats {
	if opts.Bins <= 0 {
		opts.Bins = DefaultOptions().Bins
	}
	n := len(cs)
	s := Stats{
		SampleSize:    n,
		Disagreements: []*comparator.Comparison{},
		Warnings:      []string{},
		byType:        map[comparator.DisagreementType][]string{},
	}
	matches := 0
	// Sized once: grown a run at a time, the copies of a million
	// comparisons were a tenth of the statistics' CPU.
	s.Disagreements = comparator.Disagreements(cs)
	lightRF, deepRF, lightTE, deepTE, dRF, dTE := make([]float64, 0, n), make([]float64, 0, n), make([]float64, 0, n),
		make([]float64, 0, n), make([]float64, 0, n), make([]float64, 0, n)
	for _, c := range cs {
		if c.VerdictMatch {
			matches++
		}
		if c.DisagreementType != nil {
			t := *c.DisagreementType
			s.DisagreementBreakdown.add(t)
			s.byType[t] = append(s.byType[t], c.RunID)
		}
		lightRF, deepRF = append(lightRF, c.Light.RuntimeFidelity), append(deepRF, c.Deep.RuntimeFidelity)
		lightTE, deepTE = append(lightTE, c.Light.TaskEffectiveness), append(deepTE, c.Deep.TaskEffectiveness)
		dRF, dTE = append(dRF, c.RuntimeFidelityDelta), append(dTE, c.TaskEffectivenessDelta)
	}
	for _, ids := range s.byType {
		sort.Strings(ids)
	}

	s.AgreementRate = agreement(matches, n)
	s.AgreementBySystem = bySystem(cs)
	s.ScoreCorrelation = ScoreCorrelation{
		RuntimeFidelity:   correlation(lightRF, deepRF),
		TaskEffectiveness: correlation(lightTE, deepTE),
	}
	s.MeanScoreDelta = MeanScoreDelta{
		RuntimeFidelity:   scoreDelta(lightRF, deepRF, dRF),
		TaskEffectiveness: scoreDelta(lightTE, deepTE, dTE),
	}
	s.BiasDirection = Neutral
	if n > 0 {
		s.BiasDirection = direction((mean(dRF) + mean(dTE)) / 2)
	}
	s.Confidence, s.Preliminary = confidence(n, s.AgreementRate.Value())
	if s.Preliminary {
		s.Warnings = append(s.Warnings, fmt.Sprintf("preliminary: only %d runs; results from 3 to 5 runs are indicative at best", n))
	}
	s.Confusion, s.Kappa = verdictAgreement(cs)
	s.Forecast = lightAsForecast(cs, opts.Bins)
	return s
}

func agreement(matches, n int) AgreementRate {
	a := AgreementRate{Matches: matches, N: n}
	if n == 0 {
		a.Reason = "no run has both verdicts"
		return a
	}
	p := 100 * float64(matches) / float64(n)
	a.Percent = &p
	if iv, err := statistician.WilsonInterval(matches, n, statistician.Z95); err == nil {
		a.Wilson95 = &statistician.Interval{Lower: 100 * iv.Lower, Upper: 100 * iv.Upper}
	}
	return a
}

// bySystem is the agreement on each system's runs: segment.Agreements by
// system over the compared runs, the figures of the slices section's
// system slices.
func bySystem(cs []comparator.Comparison) []SystemAgreement {
	runs := make([]segment.Run, len(cs))
	for i, c := range cs {
		runs[i] = segment.Run{ID: c.RunID, System: c.System, LightVerdict: c.LightVerdict, DeepVerdict: c.DeepVerdict}
	}
	sl := segment.Agreements(runs, inspection.SystemField)
	out := make([]SystemAgreement, 0, len(sl))
	for _, s := range sl {
		out = append(out, SystemAgreement{System: s.Value, Percent: *s.Percent, Matches: s.Matches, N: s.N,
			Reason: s.Reason, Wilson95: s.Wilson95, Simultaneous: s.Simultaneous95})
	}
	return out
}

func correlation(light, deep []float64) Correlation {
	c := Correlation{N: len(light)}
	if len(light) < MinCorrelationPairs {
		c.Insufficient = fmt.Sprintf("insufficient data for correlation: %d runs, need at least %d", len(light), MinCorrelationPairs)
		return c
	}
	p := statistician.Pearson(light, deep)
	if p.Reason != "" {
		c.Undefined = p.Reason
		return c
	}
	r, pv, ci := p.R, p.P, p.CI95
	c.R, c.P, c.CI95 = &r, &pv, &ci
	if sp := statistician.Spearman(light, deep); sp.Reason == "" {
		rho := sp.R
		c.Spearman = &rho
	}
	return c
}

func scoreDelta(light, deep, d []float64) ScoreDelta {
	md := statistician.MeanDifference(d, 0.95)
	sd := ScoreDelta{Mean: md.Mean, SD: md.SD, N: len(d), Reason: md.Reason}
	if md.Reason == "" {
		ci := md.CI
		sd.CI95 = &ci
	}
	sd.Direction = Neutral
	if len(d) > 0 {
		sd.Direction = direction(mean(d))
	}
	sd.BlandAltman = statistician.BlandAltman(light, deep)
	sd.CCC = statistician.LinCCC(light, deep)
	return sd
}

func direction(meanDelta float64) string {
	switch {
	case meanDelta < -BiasThreshold:
		return Optimistic
	case meanDelta > BiasThreshold:
		return Pessimistic
	}
	return Neutral
}

// confidence applies the eval-calibrator levels on the point agreement
// percentage; preliminary marks 3 to 5 runs (and fewer, which the sampler
// refuses but saved inspections may still produce).
func confidence(n int, percent float64) (string, bool) {
	level := ConfidenceLow
	switch {
	case n >= 20 && percent > 90:
		level = ConfidenceHigh
	case n >= 10 && percent > 75:
		level = ConfidenceMedium
	}
	return level, n <= 5
}

func verdictIndex(v string) int {
	for i, o := range verdictOrder {
		if o == v {
			return i
		}
	}
	return -1
}

func verdictAgreement(cs []comparator.Comparison) (Confusion, KappaSection) {
	conf := Confusion{
		Order:             append([]string(nil), verdictOrder...),
		Rows:              "light",
		Columns:           "deep",
		Counts:            [][]int{{0, 0, 0}, {0, 0, 0}, {0, 0, 0}},
		LightPassDeepFail: []string{},
		LightFailDeepPass: []string{},
	}
	var rows, cols []int
	for _, c := range cs {
		i, j := verdictIndex(c.LightVerdict), verdictIndex(c.DeepVerdict)
		if i < 0 || j < 0 {
			continue // the runner validated verdicts; be safe anyway
		}
		conf.Counts[i][j]++
		rows, cols = append(rows, i), append(cols, j)
		switch {
		case c.LightVerdict == inspection.VerdictPass && c.DeepVerdict == inspection.VerdictFail:
			conf.LightPassDeepFail = append(conf.LightPassDeepFail, c.RunID)
		case c.LightVerdict == inspection.VerdictFail && c.DeepVerdict == inspection.VerdictPass:
			conf.LightFailDeepPass = append(conf.LightFailDeepPass, c.RunID)
		}
	}
	sort.Strings(conf.LightPassDeepFail)
	sort.Strings(conf.LightFailDeepPass)

	var k KappaSection
	table, err := statistician.ConfusionMatrix(rows, cols, len(verdictOrder))
	if err != nil || len(rows) == 0 {
		reason := "no runs with both verdicts"
		k.Unweighted = statistician.Kappa{Reason: reason}
		k.Linear, k.Quadratic = k.Unweighted, k.Unweighted
		return conf, k
	}
	k.Unweighted = statistician.CohenKappa(table, statistician.Unweighted)
	k.Linear = statistician.CohenKappa(table, statistician.Linear)
	k.Quadratic = statistician.CohenKappa(table, statistician.Quadratic)
	if reason := oneVerdictReason(rows, cols); reason != "" && k.Linear.Reason == "" {
		for _, kap := range []*statistician.Kappa{&k.Unweighted, &k.Linear, &k.Quadratic} {
			*kap = statistician.Kappa{N: kap.N, Reason: reason}
		}
	}
	k.RawAgreement, _ = statistician.RawAgreement(table)
	k.PABAK, _ = statistician.PABAK(table)
	return conf, k
}

// oneVerdictReason says why kappa is not shown when one side gave the same
// verdict on every run and the other did not: kappa is then 0 by
// construction (p_o = p_e) with an asymptotic SE of 0, an interval [0, 0]
// that reads as certain and says nothing (issue 28). "" otherwise.
func oneVerdictReason(rows, cols []int) string {
	single := func(x []int) bool {
		for _, v := range x[1:] {
			if v != x[0] {
				return false
			}
		}
		return true
	}
	if len(rows) == 0 {
		return ""
	}
	switch lightOne, deepOne := single(rows), single(cols); {
	case lightOne && !deepOne:
		return fmt.Sprintf("undefined: light gave one verdict (%s) on every run, so kappa is 0 by construction and measures nothing", verdictOrder[rows[0]])
	case deepOne && !lightOne:
		return fmt.Sprintf("undefined: deep gave one verdict (%s) on every run, so kappa is 0 by construction and measures nothing", verdictOrder[cols[0]])
	}
	return ""
}

func mean(x []float64) float64 {
	if len(x) == 0 {
		return 0
	}
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}
