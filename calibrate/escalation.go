package calibrate

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/evalcal/evalcal/comparator"
	"github.com/evalcal/evalcal/escalate"
	"github.com/evalcal/evalcal/inspection"
	"github.com/evalcal/evalcal/report"
	"github.com/evalcal/evalcal/statistician"
)

// escalationMethod names the procedure in the report.
const escalationMethod = "fixed-sequence testing from the most confident threshold down, each step an exact one-sided Clopper-Pearson bound " +
	"(Jung, Brahman and Choi, Trust or Escalate, ICLR 2025; Bauer 1991; Angelopoulos et al., Learn then Test, 2021)"

// curvePoints bounds the coverage-risk curve the report keeps: points at
// least 1/curvePoints of the runs apart, plus the chosen one and the last.
const curvePoints = 50

// EscalationPolicy is the saved policy a cascade applies (run --escalate):
// set Config.Escalate to it. selectEscalated routes the runs.
type EscalationPolicy = escalate.Policy

// escalationSection computes the report's escalation section from the
// per-run data (so merge recomputes it), or nil without the settings.
func escalationSection(rep *report.Report, data Data) *report.Escalation {
	in := rep.Inputs.Escalation
	if in == nil {
		return nil
	}
	if in.Mode == report.EscalationCascade {
		return cascadeSection(in, rep, data)
	}
	return calibrationSection(in, rep, data)
}

// lightEvidence is light's evidence on one run: its verdict and scores,
// and its repeats' verdicts under --repeat K.
func lightEvidence(verdict string, s comparator.Scores, reps []report.Repeat) escalate.Evidence {
	ev := escalate.Evidence{Verdict: verdict, Scores: []float64{s.RuntimeFidelity, s.TaskEffectiveness}}
	for _, r := range reps {
		ev.Repeats = append(ev.Repeats, r.Verdict)
	}
	return ev
}

func lightRepeatsByRun(reps []report.RunRepeats) map[string][]report.Repeat {
	out := map[string][]report.Repeat{}
	for _, r := range reps {
		out[r.RunID] = r.Light
	}
	return out
}

func calibrationSection(in *report.EscalationInputs, rep *report.Report, data Data) *report.Escalation {
	tg := escalate.Target{Agreement: in.TargetAgreement, Risk: in.Risk}
	sec := &report.Escalation{Mode: report.EscalationCalibrate, Method: escalationMethod, Source: in.Confidence,
		Guarantee: report.EscalationGuarantee{TargetAgreementPercent: 100 * tg.Agreement, Risk: tg.Risk, CalibrationN: len(data.Comparisons)}}
	notMet := func(reason string) *report.Escalation {
		sec.Reason = reason
		sec.Coverage = rate(0, len(data.Comparisons))
		sec.Escalated = rate(len(data.Comparisons), len(data.Comparisons))
		sec.Guarantee.Statement = "none: every run goes to deep"
		return sec
	}
	if d := rep.Inputs.DeepSubset; d != nil && d.Policy == PolicyUncertain {
		return notMet("the deep subset leans to runs light is unsure of (--deep-policy uncertain): the runs with both depths are not a random sample, so no threshold can be calibrated on them")
	}
	reps := lightRepeatsByRun(data.Repeats)
	evs := make([]escalate.Evidence, len(data.Comparisons))
	for i, c := range data.Comparisons {
		evs[i] = lightEvidence(c.LightVerdict, c.Light, reps[c.RunID])
	}
	src := escalate.Source(in.Confidence)
	sec.SourceChosen = "--confidence"
	if in.Confidence == "" {
		sec.SourceChosen = "default: the first of score-distance, unanimity, panel, probability that every run supports"
		s, err := escalate.DefaultSource(evs, escalate.DefaultCuts)
		if err != nil {
			return notMet(err.Error())
		}
		src = s
	}
	sec.Source, sec.Unit = string(src), src.Unit()
	scored := make([]escalate.Scored, len(evs))
	for i, ev := range evs {
		conf, err := escalate.Confidence(src, ev, escalate.DefaultCuts)
		if err != nil {
			return notMet(fmt.Sprintf("run %s: %v", data.Comparisons[i].RunID, err))
		}
		scored[i] = escalate.Scored{Confidence: conf, Agree: data.Comparisons[i].VerdictMatch}
	}
	res, err := escalate.Calibrate(scored, tg)
	if err != nil {
		return notMet(err.Error())
	}
	sec.Guarantee.MinCovered = res.MinCovered
	sec.Curve = curveOf(res)
	if !res.Met {
		notMet(res.Reason)
		sec.Needed = neededOf(res)
		sec.DeepCostSaved = saving(0, len(data.Comparisons), rep.Cost.Deep.PerRun, false)
		return sec
	}
	thr := res.Threshold
	sec.Met, sec.Threshold = true, &thr
	sec.Coverage = rate(res.Covered, res.N)
	sec.Escalated = rate(res.N-res.Covered, res.N)
	ag := rate(res.Matches, res.Covered)
	lower := 100 * res.AgreementLower
	ag.GuaranteedLowerPercent = &lower
	sec.Agreement = &ag
	sec.Guarantee.Statement = fmt.Sprintf("light decides runs with %s >= %s alone; among them agreement with deep is >= %s%% with probability >= %s (calibrated on %d runs with both depths)",
		src, fmtExact(thr), fmtExact(100*tg.Agreement), fmtExact(1-tg.Risk), res.N)
	sec.DeepCostSaved = saving(res.Covered, res.N, rep.Cost.Deep.PerRun, false)
	return sec
}

// cascadeSection is the section of a cascade: every run's route and final
// verdict, the share escalated, deep's cost saved, and the guarantee the
// policy carries from its calibration.
func cascadeSection(in *report.EscalationInputs, rep *report.Report, data Data) *report.Escalation {
	p := in.Policy
	pol := policyOf(in)
	sec := &report.Escalation{Mode: report.EscalationCascade, Method: escalationMethod, Source: p.Source, SourceChosen: "--escalate " + p.File,
		Unit: pol.Source.Unit(), Met: p.Met, Threshold: p.Threshold,
		Guarantee: report.EscalationGuarantee{TargetAgreementPercent: 100 * in.TargetAgreement, Risk: in.Risk, CalibrationN: p.CalibrationN}}
	if p.Met {
		sec.Guarantee.Statement = fmt.Sprintf("carried from the calibration: among the runs light decides (%s >= %s), agreement with deep is >= %s%% with probability >= %s (calibrated on %d runs with both depths, from the same population as these)",
			p.Source, fmtExact(*p.Threshold), fmtExact(100*in.TargetAgreement), fmtExact(1-in.Risk), p.CalibrationN)
	} else {
		sec.Guarantee.Statement = "none: the calibration found no threshold, so every run went to deep"
		sec.Reason = "the saved calibration met no threshold"
	}
	reps := lightRepeatsByRun(data.Repeats)
	type row struct {
		report.EscalationRun
		escalated bool
	}
	var rows []row
	add := func(id, light, deep string, s comparator.Scores, hasDeep bool) {
		r := report.EscalationRun{RunID: id, LightVerdict: light, DecidedBy: report.DecidedByLight}
		// A run without the policy's source, or with light data the
		// source cannot read, goes to deep with no confidence.
		conf, err := escalate.Confidence(pol.Source, lightEvidence(light, s, reps[id]), pol.Cuts)
		esc := err != nil || pol.Escalates(conf)
		if err == nil {
			r.Confidence = &conf
		}
		if esc {
			r.DecidedBy, r.DeepVerdict = report.DecidedByDeep, deep
		}
		r.FinalVerdict = escalate.Final(light, deep, esc)
		if esc && !hasDeep {
			r.FinalVerdict = "" // deep's inspection failed: see failures
		}
		rows = append(rows, row{r, esc})
	}
	for _, c := range data.Comparisons {
		add(c.RunID, c.LightVerdict, c.DeepVerdict, c.Light, true)
	}
	for _, l := range data.LightOnly {
		add(l.RunID, l.LightVerdict, "", l.Light, false)
	}
	slices.SortFunc(rows, func(a, b row) int { return cmp.Compare(a.RunID, b.RunID) })
	covered, noFinal := 0, 0
	for _, r := range rows {
		sec.Runs = append(sec.Runs, r.EscalationRun)
		if !r.escalated {
			covered++
		}
		if r.FinalVerdict == "" {
			noFinal++
		}
	}
	sec.Coverage = rate(covered, len(rows))
	sec.Escalated = rate(len(rows)-covered, len(rows))
	sec.DeepCostSaved = saving(covered, len(rows), rep.Cost.Deep.PerRun, true)
	rep.Warnings = append(rep.Warnings, fmt.Sprintf("cascade (--escalate): deep inspected only the %d runs light was unsure of; agreement, kappa and the trust verdict describe those runs, not light on all %d; the runs light decided carry the calibration's guarantee (see escalation)",
		len(rows)-covered, len(rows)))
	if noFinal > 0 {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("cascade: %d escalated runs have no final verdict because deep's inspection failed (see failures)", noFinal))
	}
	return sec
}

// policyOf is the escalate.Policy the inputs of a cascade describe.
func policyOf(in *report.EscalationInputs) escalate.Policy {
	p := escalate.Policy{Source: escalate.Source(in.Policy.Source), Met: in.Policy.Met, N: in.Policy.CalibrationN,
		Target: escalate.Target{Agreement: in.TargetAgreement, Risk: in.Risk}, Cuts: escalate.DefaultCuts}
	if in.Policy.Threshold != nil {
		p.Threshold = *in.Policy.Threshold
	}
	return p
}

// selectEscalated is the runner's SelectDeep of a cascade: the runs whose
// light confidence is under the threshold, or that lack the source. The
// runner gives each run's light repeats; their consolidated inspection
// gives the verdict and scores, the repeats' verdicts the unanimity.
// Invalid light data (which the runner's validation rules out) also goes
// to deep.
func selectEscalated(in *report.EscalationInputs) func(map[string][]inspection.Inspection) map[string]bool {
	pol := policyOf(in)
	return func(light map[string][]inspection.Inspection) map[string]bool {
		deep := map[string]bool{}
		for id, is := range light {
			l := inspection.Consolidate(is)
			var reps []report.Repeat
			if len(is) > 1 {
				for _, r := range is {
					reps = append(reps, report.Repeat{Verdict: r.Verdict})
				}
			}
			_, esc, err := pol.Route(lightEvidence(l.Verdict, comparator.Scores{RuntimeFidelity: l.RuntimeFidelity, TaskEffectiveness: l.TaskEffectiveness}, reps))
			if esc || err != nil {
				deep[id] = true
			}
		}
		return deep
	}
}

func rate(x, n int) report.EscalationRate {
	r := report.EscalationRate{Runs: x, N: n}
	if n == 0 {
		r.Reason = "no runs"
		return r
	}
	p := 100 * float64(x) / float64(n)
	r.Percent = &p
	if iv, err := statistician.ClopperPearson(x, n, escalate.IntervalLevel); err == nil {
		pc := statistician.Interval{Lower: 100 * iv.Lower, Upper: 100 * iv.Upper}
		r.CI95 = &pc
	}
	return r
}

// saving is deep's cost not spent on covered of n runs at deep's cost per
// run (nil when unknown); total adds the amount over the covered runs.
func saving(covered, n int, deepPerRun *float64, total bool) report.EscalationSaving {
	var s report.EscalationSaving
	if n > 0 {
		p := 100 * float64(covered) / float64(n)
		s.Percent = &p
	}
	if deepPerRun == nil {
		s.Reason = "deep's cost per run is unknown (no price, or no deep inspection in this report)"
		return s
	}
	if n > 0 {
		v := float64(covered) / float64(n) * *deepPerRun
		s.USDPerRun = &v
	}
	if total {
		v := float64(covered) * *deepPerRun
		s.USD = &v
	}
	return s
}

func curveOf(res escalate.Result) []report.EscalationPoint {
	var out []report.EscalationPoint
	last := -res.N
	for i, p := range res.Points {
		keep := i == res.Chosen || i == len(res.Points)-1 || (p.Covered-last)*curvePoints >= res.N
		if !keep {
			continue
		}
		last = p.Covered
		pt := report.EscalationPoint{Threshold: p.Threshold, Covered: p.Covered,
			CoveragePercent:  100 * float64(p.Covered) / float64(res.N),
			AgreementPercent: 100 * float64(p.Matches) / float64(p.Covered)}
		if p.Tested {
			lo := 100 * p.Lower
			pt.LowerPercent = &lo
		}
		out = append(out, pt)
	}
	return out
}

func neededOf(res escalate.Result) *report.EscalationNeeded {
	n := &report.EscalationNeeded{Runs: res.Needed.N, Reason: res.Needed.Reason}
	if res.NeededAt >= 0 {
		t := res.Points[res.NeededAt].Threshold
		n.AtThreshold = &t
	}
	return n
}

// fmtExact writes a number as its shortest decimal.
func fmtExact(x float64) string { return fmt.Sprint(x) }
