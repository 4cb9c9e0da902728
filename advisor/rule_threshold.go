package advisor

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/evalcal/evalcal/comparator"
	"github.com/evalcal/evalcal/statistician"
)

// thresholdRule: a cross-validated recalibration of light's verdict cuts
// on its score (recalibration).
var thresholdRule = Rule{Name: "threshold", Rank: RankTested, Fire: func(f *Facts) []Recommendation {
	r, ok := recalibration(f.Comparisons)
	if !ok {
		return nil
	}
	if f.Light.src == SourceImported || f.Light.src == SourceJudge {
		r.ProposedChange = f.Light.cutsChange(*r.Cuts, r.ProposedChange)
	}
	return []Recommendation{r}
}}

// recalibration proposes new verdict cuts on light's score (Cuts, fitted
// by FitCuts to maximise agreement with deep's verdicts) when light's
// score takes more distinct values than light's verdicts do (at least 3:
// binary scores have no cut to move) and there are ThresholdMinRuns runs.
// The expected impact is not the fitted agreement, which flatters the
// cuts, but the agreement of held-out verdicts (CrossValidated over
// ThresholdFolds folds); the rule fires only when that beats light's own
// verdicts and McNemar's exact test on the runs the two get right
// differently rejects equality at Alpha. The cuts proposed are fitted on
// all runs.
func recalibration(cs []comparator.Comparison) (Recommendation, bool) {
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
