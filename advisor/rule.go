package advisor

import (
	"github.com/evalcal/evalcal/comparator"
	"github.com/evalcal/evalcal/inspection"
	"github.com/evalcal/evalcal/statistician/aggregate"
)

// Rule is one advisor rule: its name (Recommendation.Rule), its rank
// (rank.go) and Fire, which returns its recommendations, none when it
// does not apply. Fire may leave Addresses nil and the impact unset: the
// advisor sorts the addresses and, without a Basis, computes the impact
// as if every addressed verdict disagreement were resolved
// (BasisResolved).
type Rule struct {
	Name string
	Rank Rank
	Fire func(f *Facts) []Recommendation
}

// Facts is what the rules read: the comparisons, their statistics, and
// the counts and groupings several rules share, computed once.
type Facts struct {
	Comparisons []comparator.Comparison
	Stats       aggregate.Stats
	// N counts the comparisons, Matches those whose verdicts agree.
	N, Matches int
	// Agree is the agreement rate in percent; Low is true when N > 0 and
	// it is under LowAgreement.
	Agree float64
	Low   bool
	// Split holds the ids of the runs whose verdicts differ.
	Split map[string]bool
	// DeepOnly and LightOnly map each flag raised at one depth only to the
	// sorted ids of the runs it was raised on.
	DeepOnly, LightOnly map[string][]string
	// TypeRuns lists the runs of each disagreement type, in comparison
	// order; Disagreeing every run with a disagreement type.
	TypeRuns    map[comparator.DisagreementType][]string
	Disagreeing []string
	// Light and Deep are the sides' inspectors, for phrasing a change.
	Light, Deep side
	// Direction is which way light errs (direction.go).
	Direction Direction
	// Above and Below list the runs whose light verdict is above (below)
	// deep's on the order fail < partial < pass.
	Above, Below []string

	// fired lists the names of the rules that fired so far, in table order.
	fired []Rule
}

func newFacts(in Input) *Facts {
	cs, st := in.Comparisons, in.Stats
	f := &Facts{Comparisons: cs, Stats: st, N: len(cs), Split: map[string]bool{},
		TypeRuns:  map[comparator.DisagreementType][]string{},
		Light:     side{SourceOf(in.LightSpec), in.LightSpec},
		Deep:      side{SourceOf(in.DeepSpec), in.DeepSpec},
		Direction: DirectionOf(cs, st)}
	for _, c := range cs {
		switch l, d := verdictOrder[c.LightVerdict], verdictOrder[c.DeepVerdict]; {
		case l > d:
			f.Above = append(f.Above, c.RunID)
		case l < d:
			f.Below = append(f.Below, c.RunID)
		}
		if c.VerdictMatch {
			f.Matches++
		} else {
			f.Split[c.RunID] = true
		}
		if c.DisagreementType != nil {
			f.TypeRuns[*c.DisagreementType] = append(f.TypeRuns[*c.DisagreementType], c.RunID)
			f.Disagreeing = append(f.Disagreeing, c.RunID)
		}
	}
	f.Agree = st.AgreementRate.Value()
	f.Low = f.N > 0 && f.Agree < LowAgreement
	f.DeepOnly = flagRuns(cs, func(c comparator.Comparison) []string { return c.FlagOverlap.DeepOnly })
	f.LightOnly = flagRuns(cs, func(c comparator.Comparison) []string { return c.FlagOverlap.LightOnly })
	return f
}

// verdictOrder places the verdicts on fail < partial < pass.
var verdictOrder = map[string]int{inspection.VerdictFail: 0, inspection.VerdictPartial: 1, inspection.VerdictPass: 2}

// Fired reports whether the rule named name fired before the current one
// (rules fire in table order).
func (f *Facts) Fired(name string) bool {
	for _, r := range f.fired {
		if r.Name == name {
			return true
		}
	}
	return false
}

// FiredTested reports whether a rule of RankTested fired before the
// current one.
func (f *Facts) FiredTested() bool {
	for _, r := range f.fired {
		if r.Rank == RankTested {
			return true
		}
	}
	return false
}

// resolved is the default impact of a recommendation addressing runs:
// the agreement if every verdict disagreement among them were resolved,
// an upper bound (BasisResolved).
func (f *Facts) resolved(runs []string) Impact {
	im := Impact{N: f.N, Basis: BasisResolved}
	if f.N == 0 {
		return im
	}
	for _, id := range runs {
		if f.Split[id] {
			im.VerdictsResolved++
		}
	}
	im.CurrentPercent = 100 * float64(f.Matches) / float64(f.N)
	im.AgreementPercent = 100 * float64(f.Matches+im.VerdictsResolved) / float64(f.N)
	im.GainPoints = im.AgreementPercent - im.CurrentPercent
	return im
}

// unchanged is the impact of a change that resolves no verdict: the
// agreement stays where it is, for the reason basis gives.
func (f *Facts) unchanged(basis string) Impact {
	im := Impact{N: f.N, Basis: basis}
	if f.N > 0 {
		im.CurrentPercent = 100 * float64(f.Matches) / float64(f.N)
		im.AgreementPercent = im.CurrentPercent
	}
	return im
}
