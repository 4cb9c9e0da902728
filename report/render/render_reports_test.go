package render_test

import (
	"fmt"
	"testing"

	"github.com/evalcal/evalcal/calibrate"
	"github.com/evalcal/evalcal/comparator"
	"github.com/evalcal/evalcal/gates"
	"github.com/evalcal/evalcal/inspection"
	"github.com/evalcal/evalcal/report"
	"github.com/evalcal/evalcal/runner"
	"github.com/evalcal/evalcal/sampler"
	"github.com/evalcal/evalcal/statistician"
	"github.com/evalcal/evalcal/statistician/aggregate"
)

// cell is n synthetic runs with the given light and deep verdicts.
type cell struct {
	light, deep string
	n           int
}

// fullOptions adds the optional parts of a report to a synthetic one.
type fullOptions struct {
	// readInPart runs carry sampler warnings; invalid runs were set
	// aside; failures are failed deep inspections of extra runs.
	readInPart, invalid, failures int
	// lightOnly runs were inspected at light depth only (a uniform deep
	// subset with inclusion probability deepPi).
	lightOnly int
	deepPi    float64
	// repeat is the number of repeated inspections per side (0: none).
	repeat int
	// cost adds per-side usage and USD.
	cost bool
	// gates are --require expressions checked on the report.
	gates []string
}

// scoresFor gives 0-100 scores that fit a verdict, varied a little by
// the run's index so that some runs share a place in the scatter and
// some do not.
func scoresFor(verdict string, i int, light bool) (rf, te float64) {
	switch verdict {
	case "pass":
		rf, te = 78+float64(i%3)*3, 74+float64(i%2)*4
	case "partial":
		rf, te = 58+float64(i%2)*5, 50+float64(i%3)*2.5
	default:
		rf, te = 30+float64(i%2)*5, 20+float64(i%3)*5
	}
	if light {
		rf, te = min(rf+2, 85), min(te+1, 80)
	}
	return rf, te
}

// fullReport builds a calibration report from synthetic inspections with
// the real stages (comparator, calibrate.Fill: statistician, advisor,
// summary) and, when asked, gates.
func fullReport(t testing.TB, cells []cell, o fullOptions) *report.Report {
	t.Helper()
	systems := []string{"alpha", "beta", "gamma"}
	var (
		pairs     []runner.Pair
		sample    []report.SampleRun
		inclusion []report.Inclusion
		lightOnly []report.LightOnlyRun
		repeats   []report.RunRepeats
	)
	comp := sampler.Composition{Systems: map[string]int{}, Eras: map[string]int{}, Statuses: map[string]int{}, SizeTerciles: map[string]int{}}
	i := 0
	for _, c := range cells {
		for k := 0; k < c.n; k++ {
			id := fmt.Sprintf("20260101-%06d-r%05d", 100000+i, i)
			sys := systems[i%len(systems)]
			lrf, lte := scoresFor(c.light, i, true)
			drf, dte := scoresFor(c.deep, i, false)
			l := inspection.Inspection{RunID: id, System: sys, Depth: "light", Verdict: c.light, RuntimeFidelity: lrf, TaskEffectiveness: lte}
			d := inspection.Inspection{RunID: id, System: sys, Depth: "deep", Verdict: c.deep, RuntimeFidelity: drf, TaskEffectiveness: dte}
			if c.deep == "fail" {
				d.Flags = []inspection.Flag{{ID: "truncated-log", Severity: "critical", Description: "log ends early", Evidence: "vm.log.md"}}
			}
			pairs = append(pairs, runner.Pair{Light: l, Deep: d})
			run := report.SampleRun{ID: id, System: sys, Era: "era3", Status: "completed", Services: 3, SizeBytes: 4096,
				ContentHash: fmt.Sprintf("%064x", i)}
			if i < o.readInPart {
				run.Warnings = []string{"vm.log.md:12: marker outside the spec: 3→ ⊕ merge"}
			}
			sample = append(sample, run)
			comp.Systems[sys]++
			if o.lightOnly > 0 {
				pi := o.deepPi
				inclusion = append(inclusion, report.Inclusion{RunID: id, Pi: &pi, Deep: true})
			}
			if o.repeat > 1 {
				rr := report.RunRepeats{RunID: id}
				for r := 0; r < o.repeat; r++ {
					lv := c.light
					if r == o.repeat-1 && i%5 == 0 {
						lv = "partial" // one repeat in five runs flips
					}
					rr.Light = append(rr.Light, report.Repeat{Verdict: lv, Scores: comparator.Scores{RuntimeFidelity: lrf + float64(r), TaskEffectiveness: lte}})
					rr.Deep = append(rr.Deep, report.Repeat{Verdict: c.deep, Scores: comparator.Scores{RuntimeFidelity: drf, TaskEffectiveness: dte - float64(r)}})
				}
				repeats = append(repeats, rr)
			}
			i++
		}
	}
	for k := 0; k < o.lightOnly; k++ {
		id := fmt.Sprintf("20260102-%06d-l%05d", 100000+k, k)
		v := []string{"pass", "partial", "fail"}[k%3]
		rf, te := scoresFor(v, k, true)
		lightOnly = append(lightOnly, report.LightOnlyRun{RunID: id, System: systems[k%3], LightVerdict: v,
			Light: comparator.Scores{RuntimeFidelity: rf, TaskEffectiveness: te}})
		pi := o.deepPi
		inclusion = append(inclusion, report.Inclusion{RunID: id, Pi: &pi, Deep: false})
		sample = append(sample, report.SampleRun{ID: id, System: systems[k%3], Era: "era3", Status: "completed", Services: 3, SizeBytes: 2048,
			ContentHash: fmt.Sprintf("%064x", 100000+k)})
	}
	var failures []inspection.Failure
	for k := 0; k < o.failures; k++ {
		id := fmt.Sprintf("20260103-%06d-f%05d", 100000+k, k)
		failures = append(failures, inspection.Failure{RunID: id, Depth: "deep", Attempts: 2, Reason: "exec: exit status 1: inspector crashed | see stderr"})
		sample = append(sample, report.SampleRun{ID: id, System: "alpha", Era: "era2", Status: "failed", Services: 2, SizeBytes: 1024,
			ContentHash: fmt.Sprintf("%064x", 200000+k)})
	}
	var invalid []report.Invalid
	for k := 0; k < o.invalid; k++ {
		invalid = append(invalid, report.Invalid{ID: fmt.Sprintf("20260104-%06d-x%05d", 100000+k, k), Path: fmt.Sprintf("runs/bad-%d", k), Reason: "no log (state.md or vm.log.md)"})
	}
	comp.Discovered, comp.Valid, comp.Sampled = len(sample)+len(invalid), len(sample), len(sample)
	rep := &report.Report{
		SchemaVersion: report.SchemaVersion,
		GeneratedBy:   "evalcal 0.1.0",
		Inputs: report.Inputs{Paths: []string{"runs/nightly"}, Inspector: "builtin/1", Seed: 1, Bins: 10, Repeat: max(o.repeat, 1),
			Light:       report.Side{Spec: "builtin", Identity: "builtin/1"},
			Deep:        report.Side{Spec: "builtin", Identity: "builtin/1"},
			ContentHash: fmt.Sprintf("%064x", len(sample)),
			CommandLine: []string{"--seed", "1", "--require", "agreement.lower >= 80", "--inspector", "exec:sh inspect.sh {run} '{depth}'", "runs/nightly"}},
		Sample: report.Sample{Composition: comp, Runs: sample, Invalid: invalid},
	}
	if rep.Sample.Invalid == nil {
		rep.Sample.Invalid = []report.Invalid{}
	}
	if o.lightOnly > 0 {
		rep.Inputs.DeepSubset = &report.SubsetInputs{Policy: "uniform", Expected: o.deepPi * float64(len(inclusion)), Sampled: len(inclusion),
			HowChosen: "seeded uniform sampling", Assumed: false}
	}
	data := calibrate.Data{Comparisons: comparator.Compare(pairs), Failures: failures, LightOnly: lightOnly, Inclusion: inclusion, Repeats: repeats}
	if o.cost {
		lu, du := 0.0123, 0.4567
		data.Cost.Light.SideCost = runner.SideCost{Identity: "openai:gpt-light", Model: "gpt-light", Inspections: len(pairs) + o.lightOnly,
			Calls: len(pairs) + o.lightOnly + 2, CacheHits: 3, Retries: 2, Tokens: 123456, USD: &lu, Seconds: 12.3456,
			Usage: inspection.Usage{Model: "gpt-light", Calls: int64(len(pairs) + o.lightOnly + 2), Input: 100000, Output: 23456, CachedInput: 5000}}
		data.Cost.Deep.SideCost = runner.SideCost{Identity: "anthropic:claude-deep", Model: "claude-deep", Inspections: len(pairs),
			Calls: len(pairs) + o.failures*2, Retries: o.failures, Failed: o.failures, Tokens: 987654, USD: &du, Seconds: 345.678}
		data.Cost.Deep.Price = &runner.Price{Input: 3, Output: 15}
	}
	calibrate.Fill(rep, data)
	standInSections(rep, o)
	report.Summarize(rep)
	if len(o.gates) > 0 {
		gs, err := gates.Parse(o.gates)
		if err != nil {
			t.Fatal(err)
		}
		rep.Gates = gates.Check(gs, rep)
		report.Summarize(rep)
	}
	return rep
}

// trustCells are synthetic samples whose verdict is each trust level
// (checked by TestTrustGoldenFixturesHitTheirLevel).
var trustCells = map[string][]cell{
	"gate": {{"pass", "pass", 30}, {"partial", "partial", 15}, {"fail", "fail", 15}, {"pass", "partial", 1}},
	"monitor": {{"pass", "pass", 14}, {"partial", "partial", 8}, {"fail", "fail", 8},
		{"pass", "partial", 3}, {"partial", "fail", 1}, {"fail", "partial", 1}},
	"explore": {{"pass", "pass", 5}, {"partial", "partial", 2}, {"fail", "fail", 3},
		{"pass", "fail", 3}, {"pass", "partial", 3}, {"fail", "pass", 2}, {"partial", "pass", 2}},
	"insufficient_evidence": {{"pass", "pass", 4}, {"fail", "fail", 2}, {"pass", "partial", 1}},
}

// trustOptions gives each level's golden a different set of the optional
// parts; monitor carries them all.
var trustOptions = map[string]fullOptions{
	"gate":                  {cost: true, gates: []string{"agreement.lower >= 80", "kappa.linear.lower >= 0.7"}},
	"monitor":               {readInPart: 3, invalid: 2, failures: 1, lightOnly: 12, deepPi: 0.75, repeat: 3, cost: true, gates: []string{"agreement.lower >= 80", "confidence >= low"}},
	"explore":               {invalid: 1},
	"insufficient_evidence": {failures: 2},
}

func trustReport(t testing.TB, level string) *report.Report {
	t.Helper()
	return fullReport(t, trustCells[level], trustOptions[level])
}

var trustLevels = []string{"gate", "monitor", "explore", "insufficient_evidence"}

func TestTrustGoldenFixturesHitTheirLevel(t *testing.T) {
	for _, level := range trustLevels {
		r := trustReport(t, level)
		if r.Summary.Trust != level {
			t.Errorf("%s fixture: trust %q (%v)", level, r.Summary.Trust, r.Summary.Why)
		}
	}
}

// standInSections fills the sections whose statistics another stage
// computes (clustered agreement, leniency, the deep estimate,
// repeatability) with fixed illustrative figures, so that these goldens
// test the renderers' layout of every field and do not move when those
// statistics change. Only the leniency counts are counted from the
// comparisons, so that the sentence and the confusion matrix agree; its
// p-value is an illustrative figure too. Nothing here checks a statistic.
func standInSections(rep *report.Report, o fullOptions) {
	f := func(x float64) *float64 { return &x }
	iv := func(lo, hi float64) *statistician.Interval { return &statistician.Interval{Lower: lo, Upper: hi} }
	cs := rep.Comparisons
	if len(cs) == 0 {
		return
	}
	systems := map[string]bool{}
	for _, c := range cs {
		systems[c.System] = true
	}
	rep.AgreementClustered = report.ClusteredRate{Percent: rep.AgreementRate.Percent, N: len(cs), Clusters: len(systems),
		CI95: iv(62.318734, 100), DesignEffect: f(1.7413925)}
	l := report.Leniency{N: len(cs), Direction: aggregate.Balanced}
	lightPass, deepPass := 0, 0
	for _, c := range cs {
		lp, dp := c.LightVerdict == "pass", c.DeepVerdict == "pass"
		switch {
		case lp && !dp:
			l.LightPassDeepNot++
		case dp && !lp:
			l.DeepPassLightNot++
		}
		if lp {
			lightPass++
		}
		if dp {
			deepPass++
		}
	}
	l.LightPassRate, l.DeepPassRate = f(100*float64(lightPass)/float64(len(cs))), f(100*float64(deepPass)/float64(len(cs)))
	switch {
	case l.LightPassDeepNot > l.DeepPassLightNot:
		l.Direction = aggregate.Lenient
	case l.LightPassDeepNot < l.DeepPassLightNot:
		l.Direction = aggregate.Strict
	}
	if l.LightPassDeepNot+l.DeepPassLightNot > 0 {
		l.McNemarP = f(0.0312500000000001)
		l.Significant = true
	}
	rep.Leniency = l
	if rep.Estimate != nil {
		rep.Estimate = &report.Estimate{
			Design: "seeded uniform sampling", NLight: len(cs) + len(rep.LightOnly), NDeep: len(cs),
			Predictor: "light's verdict and scores",
			PassRate: report.EstimateSet{
				Classical:   report.MethodEstimate{Point: f(0.4), CI95: iv(0.238095, 0.561905), SE: f(0.0828079), EffectiveN: f(35)},
				PPI:         report.MethodEstimate{Point: f(0.41234567), CI95: iv(0.30211, 0.522581), SE: f(0.0562402), Lambda: f(0.873), EffectiveN: f(75.8812)},
				IPW:         &report.MethodEstimate{Point: f(0.405), CI95: iv(0.27, 0.54), SE: f(0.0688), EffectiveN: f(50.7)},
				RoganGladen: &report.MethodEstimate{Reason: "light's specificity plus sensitivity is not above 1"},
			},
			RuntimeFidelity: report.EstimateSet{
				Classical: report.MethodEstimate{Point: f(61.1714286), CI95: iv(54.1, 68.242857), SE: f(3.6078), EffectiveN: f(35)},
				PPI:       report.MethodEstimate{Point: f(60.958), CI95: iv(57.3, 64.616), SE: f(1.8663), Lambda: f(0.95), EffectiveN: f(131.46)},
			},
			TaskEffectiveness: report.EstimateSet{
				Classical: report.MethodEstimate{Point: f(53.3), CI95: iv(45.2, 61.4), SE: f(4.1327), EffectiveN: f(35)},
				PPI:       report.MethodEstimate{Reason: "fewer than 10 deep inspections in a cross-fitting fold"},
			},
			Notes: []string{"the PPI interval assumes the deep subset is a uniform random draw"},
			Best:  &report.BestEstimate{Method: "ppi", Point: 0.41234567, Lower: 0.30211, Upper: 0.522581},
		}
	}
	if rep.Repeatability != nil {
		rep.Repeatability = &report.Repeatability{K: o.repeat,
			Light: report.SideRepeatability{Runs: len(cs), FlipRate: f(0.114286), PassAllK: f(0.371429), FleissKappa: f(0.812345), FleissCI95: iv(0.70034, 0.92435),
				ScoreSpread: report.ScoreSpread{RuntimeFidelity: f(1), TaskEffectiveness: f(0)}},
			Deep: report.SideRepeatability{Runs: len(cs), FlipRate: f(0), PassAllK: f(0.4), FleissKappa: f(1),
				ScoreSpread: report.ScoreSpread{RuntimeFidelity: f(0), TaskEffectiveness: f(1)}, Reason: "no verdict flipped: the interval is not defined"},
			Rule: "The paired verdict is the majority of the repeats (ties go to the worse verdict); the paired scores are the repeats' means."}
	}
}
