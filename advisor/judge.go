package advisor

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/evalcal/evalcal/comparator"
	"github.com/evalcal/evalcal/runner"
	"github.com/evalcal/evalcal/statistician"
	"github.com/evalcal/evalcal/statistician/aggregate"
)

// Alpha is the significance level every tested rule fires at.
const Alpha = 0.05

// The bases of an expected impact (Impact.Basis).
const (
	BasisResolved       = "upper bound: every addressed disagreement resolved"
	BasisImbalance      = "the one-sided excess of split runs resolved"
	BasisCrossValidated = "held-out verdicts, 10-fold cross-validation across runs"
	BasisRestRate       = "the system's runs agreeing as often as the other systems' runs"
)

// Test is the significance test a rule passed before it fired.
type Test struct {
	// Name says which test, Detail what it was computed on.
	Name   string `yaml:"name" json:"name"`
	Detail string `yaml:"detail" json:"detail"`
	// P is the p-value; null for a test read off an interval.
	P     *float64 `yaml:"p" json:"p"`
	Alpha float64  `yaml:"alpha" json:"alpha"`
}

// leniencyRule fires when the verdict-level split at the pass line is
// one-sided beyond chance: McNemar's exact test (aggregate.Leniency) at
// Alpha. It says which way, by how many runs, by how many points light
// misstates the pass rate, and, from the disagreeing runs' summaries,
// which words the stricter side's summaries use and the other's do not
// (DistinctiveTerms): the criteria the lenient side lacks. Its impact is
// the imbalance resolved: the agreement if light erred as often one way as
// the other (BasisImbalance).
func leniencyRule(cs []comparator.Comparison, l aggregate.Leniency) (Recommendation, bool) {
	// The rule's own level, not aggregate's Significant (which has its
	// own): it fires where it says it does.
	if l.McNemarP == nil || *l.McNemarP >= Alpha || l.LightPassRate == nil || l.DeepPassRate == nil {
		return Recommendation{}, false
	}
	lenient := l.Direction == aggregate.Lenient
	var runs, own, other []string
	for _, c := range cs {
		lp, dp := c.LightVerdict == runner.VerdictPass, c.DeepVerdict == runner.VerdictPass
		if lenient && lp && !dp || !lenient && dp && !lp {
			runs = append(runs, c.RunID)
			// The stricter side's summary says why the run does not pass.
			if lenient {
				own, other = append(own, c.DeepSummary), append(other, c.LightSummary)
			} else {
				own, other = append(own, c.LightSummary), append(other, c.DeepSummary)
			}
		}
	}
	gap := *l.LightPassRate - *l.DeepPassRate
	p := *l.McNemarP
	r := Recommendation{
		Rule: "leniency",
		Test: &Test{
			Name:   "exact McNemar (two-sided binomial on the runs light and deep split at the pass line)",
			Detail: fmt.Sprintf("%d runs light passes and deep does not, %d deep passes and light does not", l.LightPassDeepNot, l.DeepPassLightNot),
			P:      &p, Alpha: Alpha,
		},
		Addresses: runs,
	}
	terms := DistinctiveTerms(own, other)
	if lenient {
		r.Target = "light's pass bar (too lenient)"
		r.Rationale = fmt.Sprintf("light passes %d runs deep does not pass and misses %d deep passes (exact McNemar p = %.2g): light overstates the pass rate by %.2f points (%.2f%% against deep's %.2f%%)",
			l.LightPassDeepNot, l.DeepPassLightNot, p, gap, *l.LightPassRate, *l.DeepPassRate)
		r.ProposedChange = "raise light's bar for a pass: pass a run only when it meets the criteria deep applies"
		if len(terms) > 0 {
			r.ProposedChange += "; on these runs deep's summaries name what light's do not: " + termList(terms, len(runs), "light's")
		}
	} else {
		r.Target = "light's pass bar (too strict)"
		r.Rationale = fmt.Sprintf("light fails or marks partial %d runs deep passes and passes %d deep does not (exact McNemar p = %.2g): light understates the pass rate by %.2f points (%.2f%% against deep's %.2f%%)",
			l.DeepPassLightNot, l.LightPassDeepNot, p, -gap, *l.LightPassRate, *l.DeepPassRate)
		r.ProposedChange = "lower light's bar for a pass: drop or relax the light criteria deep does not hold runs to"
		if len(terms) > 0 {
			r.ProposedChange += "; on these runs light's summaries name what deep's do not: " + termList(terms, len(runs), "deep's")
		}
	}
	return r, true
}

// thresholdRule proposes new verdict cuts on light's score (Cuts, fitted
// by FitCuts to maximise agreement with deep's verdicts) when light's
// score takes more distinct values than light's verdicts do (at least 3:
// binary scores have no cut to move) and there are ThresholdMinRuns runs.
// The expected impact is not the fitted agreement, which flatters the
// cuts, but the agreement of held-out verdicts (CrossValidated over
// ThresholdFolds folds); the rule fires only when that beats light's own
// verdicts and McNemar's exact test on the runs the two get right
// differently rejects equality at Alpha. The cuts proposed are fitted on
// all runs.
func thresholdRule(cs []comparator.Comparison) (Recommendation, bool) {
	n := len(cs)
	if n < ThresholdMinRuns {
		return Recommendation{}, false
	}
	ids := make([]string, n)
	x := make([]float64, n)
	deep := make([]string, n)
	values, verdicts := map[float64]bool{}, map[string]bool{}
	for i, c := range cs {
		ids[i], x[i], deep[i] = c.RunID, LightScore(c.Light.RuntimeFidelity, c.Light.TaskEffectiveness), c.DeepVerdict
		values[x[i]] = true
		verdicts[c.LightVerdict] = true
	}
	if len(values) < 3 || len(values) <= len(verdicts) {
		return Recommendation{}, false
	}
	held, ok := CrossValidated(ids, x, deep, ThresholdFolds)
	if !ok {
		return Recommendation{}, false
	}
	cuts, _, ok := FitCuts(x, deep)
	if !ok {
		return Recommendation{}, false
	}
	oldM, newM, gained, lost := 0, 0, 0, 0
	var fixed []string
	for i, c := range cs {
		o, nw := c.LightVerdict == c.DeepVerdict, held[i] == c.DeepVerdict
		if o {
			oldM++
		}
		if nw {
			newM++
		}
		switch {
		case nw && !o:
			gained++
		case o && !nw:
			lost++
		}
		if !o && cuts.Verdict(x[i]) == c.DeepVerdict {
			fixed = append(fixed, c.RunID)
		}
	}
	m := statistician.McNemarExact(gained, lost)
	if newM <= oldM || m.P >= Alpha { // newM > oldM: gained >= 1, so the test has discordant runs
		return Recommendation{}, false
	}
	p := m.P
	oldIV, _ := statistician.WilsonInterval(oldM, n, statistician.Z95)
	newIV, _ := statistician.WilsonInterval(newM, n, statistician.Z95)
	im := Impact{
		CurrentPercent:   100 * float64(oldM) / float64(n),
		AgreementPercent: 100 * float64(newM) / float64(n),
		VerdictsResolved: newM - oldM,
		N:                n,
		Basis:            BasisCrossValidated,
		CurrentCI95:      &statistician.Interval{Lower: 100 * oldIV.Lower, Upper: 100 * oldIV.Upper},
		AgreementCI95:    &statistician.Interval{Lower: 100 * newIV.Lower, Upper: 100 * newIV.Upper},
	}
	im.GainPoints = im.AgreementPercent - im.CurrentPercent
	rule := fmt.Sprintf("pass at %s or above, partial from %s, fail below %s", fmtCut(cuts.PassAt), fmtCut(cuts.FailBelow), fmtCut(cuts.FailBelow))
	switch {
	case cuts.FailBelow == cuts.PassAt:
		rule = fmt.Sprintf("pass at %s or above, fail below (no partial)", fmtCut(cuts.PassAt))
	case cuts.FailBelow == 0:
		rule = fmt.Sprintf("pass at %s or above, partial below (no fail on the score alone)", fmtCut(cuts.PassAt))
	}
	return Recommendation{
		Rule:   "threshold",
		Target: "light's verdict cuts on its score",
		Rationale: fmt.Sprintf("light's score takes %d distinct values but light gives %d verdicts: cuts on the score chosen on %d folds of the runs and applied to the remaining one, fold by fold, agree with deep on %d of %d held-out runs (%.2f%%) against %d (%.2f%%) for light's own verdicts",
			len(values), len(verdicts), ThresholdFolds-1, newM, n, im.AgreementPercent, oldM, im.CurrentPercent),
		ProposedChange: fmt.Sprintf("set light's verdict from its score min(runtime_fidelity, task_effectiveness): %s (cuts fitted on all %d runs to maximise agreement with deep's verdicts)",
			rule, n),
		Test: &Test{
			Name:   "exact McNemar (two-sided) on the held-out runs the recalibrated cuts and light's verdicts get right differently",
			Detail: fmt.Sprintf("%d runs right only under the new cuts, %d only under light's verdicts", gained, lost),
			P:      &p, Alpha: Alpha,
		},
		Cuts:           &cuts,
		ExpectedImpact: im,
		Addresses:      fixed,
	}, true
}

// fmtCut writes a cut to at most 2 decimals.
func fmtCut(x float64) string {
	return strings.TrimSuffix(strings.TrimRight(strconv.FormatFloat(x, 'f', 2, 64), "0"), ".")
}

// weakSystemRules flags each system whose agreement is below the rest's
// beyond chance: its simultaneous 95% interval (Wilson at the Bonferroni
// z over all k systems, aggregate.SystemAgreement) lies wholly below the
// same interval of the agreement on all other systems' runs, so neither
// the system's few runs nor the rest's can make a difference of chance
// look real (two intervals that do not overlap: a conservative test). It
// needs two systems or more; total and matches count all runs and those
// whose verdicts agree. Its impact is that system's runs agreeing as often
// as the others' (BasisRestRate); it lists the system's disagreeing runs
// to look at.
func weakSystemRules(cs []comparator.Comparison, systems []aggregate.SystemAgreement, total, matches int) []Recommendation {
	if len(systems) < 2 {
		return nil
	}
	var out []Recommendation
	for _, s := range systems {
		restN, restM := total-s.N, matches-s.Matches
		if restN == 0 || s.N == 0 {
			continue
		}
		rest := 100 * float64(restM) / float64(restN)
		restIV, err := statistician.WilsonInterval(restM, restN, statistician.BonferroniZ(statistician.Z95, len(systems)))
		if err != nil || !(s.Simultaneous.Upper < 100*restIV.Lower) {
			continue
		}
		var runs []string
		for _, c := range cs {
			if c.System == s.System && !c.VerdictMatch {
				runs = append(runs, c.RunID)
			}
		}
		sort.Strings(runs)
		// Every system at the rest's rate: (restM + rest s.N) / total = rest.
		im := Impact{
			CurrentPercent:   100 * float64(matches) / float64(total),
			AgreementPercent: rest,
			VerdictsResolved: int(math.Round(rest/100*float64(s.N))) - s.Matches,
			N:                total,
			Basis:            BasisRestRate,
		}
		im.GainPoints = im.AgreementPercent - im.CurrentPercent
		out = append(out, Recommendation{
			Rule:   "weak-system",
			Target: "light on system " + s.System,
			Rationale: fmt.Sprintf("light agrees with deep on %d of %d runs of %s (%.2f%%, simultaneous 95%% interval [%.2f, %.2f] over %d systems) against %.2f%% [%.2f, %.2f] on the other systems' %d runs",
				s.Matches, s.N, s.System, s.Percent, s.Simultaneous.Lower, s.Simultaneous.Upper, len(systems), rest, 100*restIV.Lower, 100*restIV.Upper, restN),
			ProposedChange: fmt.Sprintf("look at the %d disagreeing runs of %s (%s) for what light misreads there, and give that system's runs the checks or rubric they need; until then do not gate %s on light", len(runs), s.System, list(runs), s.System),
			Test: &Test{
				Name:   fmt.Sprintf("Bonferroni-simultaneous Wilson 95%% intervals over %d systems: the system's lies below the other systems'", len(systems)),
				Detail: fmt.Sprintf("[%.2f, %.2f] below [%.2f, %.2f]", s.Simultaneous.Lower, s.Simultaneous.Upper, 100*restIV.Lower, 100*restIV.Upper),
				Alpha:  Alpha,
			},
			ExpectedImpact: im,
			Addresses:      runs,
		})
	}
	return out
}
