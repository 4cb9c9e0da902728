package report

import (
	"fmt"
	"strings"

	"github.com/evalcal/evalcal/advisor"
	"github.com/evalcal/evalcal/gates"
	"github.com/evalcal/evalcal/internal/english"
	"github.com/evalcal/evalcal/segment"
	"github.com/evalcal/evalcal/statistician/aggregate"
)

// trustPhrase is each trust level in words.
var trustPhrase = map[string]string{
	advisor.TrustGate:         "Light can gate CI in deep's place",
	advisor.TrustMonitor:      "Light can stand in for deep on trends, not for gating",
	advisor.TrustExplore:      "Light is not yet a proxy for deep",
	advisor.TrustInsufficient: "These runs do not yet tell whether light can stand in for deep",
}

// Summarize sets r.Summary from the report's figures: the trust verdict
// (advisor.Trust on the linear kappa and the agreement interval) and one
// sentence with the figures behind it, the verdict-level leniency, the
// deep pass-rate estimate when there is one, the pairs of slices whose
// order or significance light gets wrong (slices), the cost per run when known,
// the gates' outcome and the priority-1 recommendation. Call it again
// after the gates were checked.
func Summarize(r *Report) {
	a := r.AgreementRate
	in := advisor.TrustInput{N: a.N, Kappa: r.Kappa.Linear}
	if a.Wilson95 != nil {
		in.AgreementLower, in.AgreementUpper = &a.Wilson95.Lower, &a.Wilson95.Upper
	}
	clustered := clusteredTrust(r, &in)
	trust, why := advisor.Trust(in)
	if clustered != "" {
		why = append([]string{clustered}, why...)
	}
	trust, why = capSameFamily(r, trust, why)
	trust, why = positionCap(r, trust, why)
	if line := directionWhy(r); line != "" {
		why = append(why, line)
	}
	failed := len(gates.Failed(r.Gates))
	r.Summary = Summary{Trust: trust, Why: why, GatesFailed: failed}

	var parts []string
	if a.Percent != nil {
		parts = append(parts, fmt.Sprintf("verdicts agree on %s of %d runs [%s, %s]",
			percent(*a.Percent), a.N, percent(a.Wilson95.Lower), percent(a.Wilson95.Upper)))
	} else {
		parts = append(parts, "no run has both verdicts")
	}
	if c := r.AgreementClustered; r.Inputs.Cluster != "" && c.CI95 != nil && c.Percent != nil {
		parts = append(parts, fmt.Sprintf("clustered by %s (%d clusters) [%s, %s]", r.Inputs.Cluster, c.Clusters,
			percent(c.CI95.Lower), percent(c.CI95.Upper)))
	}
	if k := r.Kappa.Linear; k.Reason == "" && a.N > 0 {
		parts = append(parts, fmt.Sprintf("linear kappa %s [%s, %s]", DisplayStat(k.Value), DisplayStat(k.CI95.Lower), DisplayStat(k.CI95.Upper)))
	} else if a.N > 0 && strings.Contains(k.Reason, "one verdict") {
		parts = append(parts, "linear kappa "+k.Reason)
	}
	if l := leniencyWords(r.Leniency); l != "" {
		parts = append(parts, l)
	}
	if e := r.Estimate; e != nil && e.Best != nil {
		parts = append(parts, fmt.Sprintf("deep's pass rate over all %d runs is estimated at %s [%s, %s] (%s, from %d deep inspections)",
			e.NLight, percent(100*e.Best.Point), percent(100*e.Best.Lower), percent(100*e.Best.Upper), e.Best.Method, e.NDeep))
	}
	parts = append(parts, misjudgedWords(r.Slices)...)
	if b := r.Bias; b != nil && b.SameFamily.Significant {
		parts = append(parts, b.SameFamily.Words)
	}
	if c := costWords(r.Cost); c != "" {
		parts = append(parts, c)
	}
	if r.Partial {
		failed := map[string]bool{}
		for _, f := range r.Failures {
			failed[f.RunID] = true
		}
		why := "inspections failed"
		if r.Cost.BudgetStopped {
			why = "the --max-cost budget stopped the calls"
		}
		parts = append(parts, fmt.Sprintf("PARTIAL: %s, %s an inspection", why, english.Count(len(failed), "run is missing", "runs are missing")))
	}
	if len(r.Gates) > 0 {
		if failed == 0 {
			parts = append(parts, fmt.Sprintf("all %d gates passed", len(r.Gates)))
		} else {
			var exprs []string
			for _, g := range gates.Failed(r.Gates) {
				exprs = append(exprs, g.Expr)
			}
			parts = append(parts, fmt.Sprintf("GATES FAILED: %d of %d (%s)", failed, len(r.Gates), strings.Join(exprs, "; ")))
		}
	}
	if len(r.Recommendations) > 0 {
		parts = append(parts, "priority 1: "+r.Recommendations[0].Target)
	}
	r.Summary.Sentence = fmt.Sprintf("%s (%s): %s.", trustPhrase[trust], trust, strings.Join(parts, "; "))
	if len(r.Recommendations) > 0 {
		r.Summary.Advice = adviceLine(r.Recommendations[0])
	}
}

// clusteredTrust puts the clustered agreement interval in the trust
// rule's input when the user named a cluster field (run --cluster): the
// runs of one cluster are not independent, so Wilson's interval
// overstates what they show. Without a clustered interval (fewer than
// statistician.MinClusters clusters) the rule has no agreement interval
// and says insufficient_evidence. It returns the reason sentence, or ""
// when no field was named.
func clusteredTrust(r *Report, in *advisor.TrustInput) string {
	field := r.Inputs.Cluster
	if field == "" {
		return ""
	}
	c := r.AgreementClustered
	if c.CI95 == nil {
		in.AgreementLower, in.AgreementUpper = nil, nil
		reason := c.Reason
		if reason == "" {
			reason = "not computed"
		}
		return fmt.Sprintf("runs are clustered by %s, and the clustered agreement interval is not defined: %s", field, reason)
	}
	in.AgreementLower, in.AgreementUpper = &c.CI95.Lower, &c.CI95.Upper
	return fmt.Sprintf("runs are clustered by %s: the agreement bound is the clustered interval's (%d clusters, %s)", field, c.Clusters, c.Method)
}

// capSameFamily caps a gate verdict at monitor when the bias section
// found a significant same-family effect: a judge that treats its own
// model family differently should not gate runs of that family in deep's
// place, whatever its overall agreement.
func capSameFamily(r *Report, trust string, why []string) (string, []string) {
	if r.Bias == nil || !r.Bias.SameFamily.Significant || trust != advisor.TrustGate {
		return trust, why
	}
	return advisor.TrustMonitor, append(why, "capped at monitor: "+r.Bias.SameFamily.Words)
}

// directionWhy is the one line that says why light's error points one way
// in its scores and the other at the pass line (advisor.Direction.Why):
// "light's scores are lower than deep's by ... (pessimistic), yet at the
// pass line light is lenient: the scores and the verdicts point different
// ways because ..."; empty when they agree (issue 28, item 1).
func directionWhy(r *Report) string {
	d := advisor.DirectionOf(r.Comparisons, aggregate.Stats{Leniency: aggregate.Leniency(r.Leniency), BiasDirection: r.BiasDirection})
	why := d.Why()
	if why == "" {
		return ""
	}
	m := r.MeanScoreDelta
	return fmt.Sprintf("%s, yet %s: %s", d.ScoreWords(m.RuntimeFidelity.Mean, m.TaskEffectiveness.Mean), d.VerdictWords(), why)
}

// adviceLine is a recommendation in one line: "Priority 1 [rule] target:
// change. Expected: agreement from X to Y (basis). Test: name, p = P."
func adviceLine(rec advisor.Recommendation) string {
	im := rec.ExpectedImpact
	s := fmt.Sprintf("Priority %d [%s] %s: %s. Expected: agreement %s → %s", rec.Priority, rec.Rule, rec.Target,
		rec.ProposedChange, percent(im.CurrentPercent), percent(im.AgreementPercent))
	if im.AgreementCI95 != nil {
		s += fmt.Sprintf(" [%s, %s]", percent(im.AgreementCI95.Lower), percent(im.AgreementCI95.Upper))
	}
	if im.Basis != "" {
		s += " (" + im.Basis + ")"
	}
	return s + "." + TestClause(rec.Test)
}

// TestClause is a recommendation's test as the advice line and the
// recommendations section write it: " Test: NAME (DETAIL, p = P; fires at
// p < ALPHA).", or "" without a test.
func TestClause(t *advisor.Test) string {
	if t == nil {
		return ""
	}
	var figures []string
	if t.Detail != "" {
		figures = append(figures, t.Detail)
	}
	if t.P != nil {
		figures = append(figures, "p = "+DisplayP(*t.P))
	}
	level := fmt.Sprintf("fires at p < %g", t.Alpha)
	if len(figures) == 0 {
		return " Test: " + t.Name + " (" + level + ")."
	}
	return " Test: " + t.Name + " (" + strings.Join(figures, ", ") + "; " + level + ")."
}

// leniencyWords says which way light errs at the pass line.
func leniencyWords(l Leniency) string {
	if l.N == 0 {
		return ""
	}
	var p string
	if l.McNemarP != nil {
		sig := "not significant"
		if l.Significant {
			sig = "significant"
		}
		p = fmt.Sprintf(" (McNemar p = %s, %s)", DisplayP(*l.McNemarP), sig)
	}
	switch l.Direction {
	case aggregate.Lenient:
		return fmt.Sprintf("at the pass line light is lenient: it passes %s deep does not and misses %s%s",
			english.Count(l.LightPassDeepNot, "run", "runs"), english.Count(l.DeepPassLightNot, "deep pass", "deep passes"), p)
	case aggregate.Strict:
		return fmt.Sprintf("at the pass line light is strict: it misses %s and passes %s deep does not%s",
			english.Count(l.DeepPassLightNot, "deep pass", "deep passes"), english.Count(l.LightPassDeepNot, "run", "runs"), p)
	}
	if l.LightPassDeepNot == 0 {
		return "light and deep pass the same runs"
	}
	return fmt.Sprintf("at the pass line light errs both ways equally (%d and %d runs)", l.LightPassDeepNot, l.DeepPassLightNot)
}

// costWords says what a run costs on each side, when known.
func costWords(c Cost) string {
	switch {
	case c.Light.PerRun != nil && c.Deep.PerRun != nil && c.DeepToLightPerRun != nil:
		return fmt.Sprintf("a run costs %s light and %s deep (%sx)", DisplayUSD(*c.Light.PerRun), DisplayUSD(*c.Deep.PerRun), DisplayStat(*c.DeepToLightPerRun))
	case c.Deep.PerRun != nil && *c.Deep.PerRun > 0:
		return fmt.Sprintf("a deep inspection costs %s", DisplayUSD(*c.Deep.PerRun))
	case c.Light.PerRun != nil && *c.Light.PerRun > 0:
		return fmt.Sprintf("a light inspection costs %s", DisplayUSD(*c.Light.PerRun))
	}
	return ""
}

// percent writes a percentage by the display rule (DisplayPercent).
func percent(x float64) string { return DisplayPercent(x) }

// maxMisjudgedNamed is how many misjudged pairs of one field the summary
// sentence names; the rest are counted (the slices section lists all).
const maxMisjudgedNamed = 5

// misjudgedWords names, field by field, the pairs of slices whose order or
// significance light gets wrong against deep (segment.Field.Misjudged).
func misjudgedWords(fields []segment.Field) []string {
	var out []string
	for _, f := range fields {
		m := f.Misjudged
		if len(m) == 0 {
			continue
		}
		words := strings.Join(m[:min(len(m), maxMisjudgedNamed)], "; ")
		if len(m) > maxMisjudgedNamed {
			words += fmt.Sprintf("; and %d more pairs (see slices)", len(m)-maxMisjudgedNamed)
		}
		out = append(out, fmt.Sprintf("by %s, light misjudges %s", f.Field, words))
	}
	return out
}
