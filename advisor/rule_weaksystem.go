package advisor

import (
	"fmt"
	"math"
	"sort"

	"github.com/evalcal/evalcal/comparator"
	"github.com/evalcal/evalcal/statistician"
	"github.com/evalcal/evalcal/statistician/aggregate"
)

// weakSystemRule: a system whose simultaneous agreement interval lies
// below the other systems' agreement (weakSystemRules).
var weakSystemRule = Rule{Name: "weak-system", Rank: RankTested, Fire: func(f *Facts) []Recommendation {
	return weakSystemRules(f.Comparisons, f.Stats.AgreementBySystem, f.N, f.Matches, f.Light)
}}

// weakSystemRules flags each system whose agreement is below the rest's
// beyond chance: its simultaneous 95% interval (Wilson at the Bonferroni
// z over the k tested systems, those of at least segment.MinRuns runs:
// aggregate.SystemAgreement, the slices section's system slices) lies
// wholly below the same interval (at the same z) of the agreement on all
// other systems' runs, so neither
// the system's few runs nor the rest's can make a difference of chance
// look real (two intervals that do not overlap: a conservative test). It
// needs two tested systems or more and looks at tested systems only (an
// untested one has no interval); total and matches count all runs and those
// whose verdicts agree. Its impact is that system's runs agreeing as often
// as the others' (BasisRestRate); it lists the system's disagreeing runs
// to look at.
func weakSystemRules(cs []comparator.Comparison, systems []aggregate.SystemAgreement, total, matches int, light side) []Recommendation {
	k := 0
	for _, s := range systems {
		if s.Simultaneous != nil {
			k++
		}
	}
	if k < 2 {
		return nil
	}
	var out []Recommendation
	for _, s := range systems {
		restN, restM := total-s.N, matches-s.Matches
		if restN == 0 || s.N == 0 || s.Simultaneous == nil {
			continue
		}
		rest := 100 * float64(restM) / float64(restN)
		restIV, err := statistician.WilsonInterval(restM, restN, statistician.BonferroniZ(statistician.Z95, k))
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
			Rationale: fmt.Sprintf("light agrees with deep on %d of %d runs of %s (%.2f%%, simultaneous 95%% interval [%.2f, %.2f] over %d tested systems) against %.2f%% [%.2f, %.2f] on the other systems' %d runs",
				s.Matches, s.N, s.System, s.Percent, s.Simultaneous.Lower, s.Simultaneous.Upper, k, rest, 100*restIV.Lower, 100*restIV.Upper, restN),
			ProposedChange: fmt.Sprintf("look at the %d disagreeing runs of %s (%s) for what light misreads there, and give that system's runs %s; until then do not gate %s on light", len(runs), s.System, list(runs), light.systemFix(), s.System),
			Test: &Test{
				Name:   fmt.Sprintf("Bonferroni-simultaneous Wilson 95%% intervals over %d tested systems: the system's lies below the other systems'", k),
				Detail: fmt.Sprintf("[%.2f, %.2f] below [%.2f, %.2f]", s.Simultaneous.Lower, s.Simultaneous.Upper, 100*restIV.Lower, 100*restIV.Upper),
				Alpha:  Alpha,
			},
			ExpectedImpact: im,
			Addresses:      runs,
		})
	}
	return out
}
