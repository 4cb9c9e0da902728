package rank

import (
	"cmp"
	"math"
	"slices"

	"github.com/evalcal/evalcal/statistician"
)

// PanelSection is a panel candidate's own section: each member against
// deep, the members against each other, and the panel's cost.
type PanelSection struct {
	// Aggregation is majority or median (programs/panel).
	Aggregation string        `yaml:"aggregation" json:"aggregation"`
	Members     []PanelMember `yaml:"members" json:"members"`
	// Fleiss is Fleiss' kappa of the members' verdicts (fail, partial,
	// pass) over the runs every member gave a verdict on.
	Fleiss statistician.FleissKappaResult `yaml:"fleiss_kappa" json:"fleiss_kappa"`
	// Krippendorff is Krippendorff's alpha, nominal, of the members'
	// verdicts over every run (an abstaining member is a missing value).
	Krippendorff statistician.KrippendorffAlphaResult `yaml:"krippendorff_alpha" json:"krippendorff_alpha"`
	// EffectiveVotes is m / (1 + (m-1) r), r the mean over member pairs
	// of the correlation of their pass indicators (floored at 0): the
	// number of independent votes the m members are worth (Kish's design
	// effect for equicorrelated votes). Null when a correlation is not
	// defined (a member that passes every run or none).
	EffectiveVotes *float64 `yaml:"effective_votes" json:"effective_votes"`
	// Cost is the sum of the members' costs; null when one is unknown.
	Cost Cost `yaml:"cost" json:"cost"`
}

// PanelMember is one member's agreement with deep and its leniency.
type PanelMember struct {
	Spec      string    `yaml:"spec" json:"spec"`
	Identity  string    `yaml:"identity" json:"identity"`
	Agreement Agreement `yaml:"agreement" json:"agreement"`
	Leniency  Leniency  `yaml:"leniency" json:"leniency"`
	Cost      Cost      `yaml:"cost" json:"cost"`
	// Abstained counts runs the member gave no verdict on (it failed);
	// the panel's verdict used the others.
	Abstained int `yaml:"abstained" json:"abstained"`
}

// PanelOf computes the panel section of agg from its members (each an
// Input with the member's verdicts against deep as Outcomes) over runs,
// the ids of every run the panel was asked about.
func PanelOf(agg string, members []Input, runs []string) PanelSection {
	s := PanelSection{Aggregation: agg, Members: []PanelMember{}}
	runs = slices.Clone(runs)
	slices.Sort(runs)
	runs = slices.Compact(runs)
	// votes[u][j] is member j's verdict on run u, -1 when it abstained.
	votes := make([][]int8, len(runs))
	for u := range votes {
		votes[u] = make([]int8, len(members))
		for j := range votes[u] {
			votes[u][j] = -1
		}
	}
	usd, sec := 0.0, 0.0
	usdKnown, secKnown := true, true
	for j, m := range members {
		outs := slices.Clone(m.Outcomes)
		slices.SortFunc(outs, func(a, b Outcome) int { return cmp.Compare(a.RunID, b.RunID) })
		c := candidateOf(m, outs)
		pm := PanelMember{Spec: m.Spec, Identity: m.Identity, Agreement: c.Agree, Leniency: c.Leniency, Cost: c.Cost}
		for _, o := range outs {
			if u, ok := slices.BinarySearch(runs, o.RunID); ok {
				votes[u][j] = o.Light
			}
		}
		for u := range runs {
			if votes[u][j] < 0 {
				pm.Abstained++
			}
		}
		s.Members = append(s.Members, pm)
		if m.USDPer1k != nil {
			usd += *m.USDPer1k
		} else {
			usdKnown = false
		}
		if m.SecondsPer1k != nil {
			sec += *m.SecondsPer1k
		} else {
			secKnown = false
		}
	}
	if usdKnown && len(members) > 0 {
		s.Cost.USDPer1k = &usd
	}
	if secKnown && len(members) > 0 {
		s.Cost.SecondsPer1k = &sec
	}
	s.Fleiss, s.Krippendorff = memberAgreement(votes, len(members))
	s.EffectiveVotes = effectiveVotes(votes, len(members))
	return s
}

// memberAgreement is Fleiss' kappa over the runs every member voted on and
// Krippendorff's nominal alpha over all runs.
func memberAgreement(votes [][]int8, m int) (statistician.FleissKappaResult, statistician.KrippendorffAlphaResult) {
	var counts [][]int
	ratings := make([][]float64, len(votes))
	for u, vs := range votes {
		row := make([]int, 3)
		full := true
		ratings[u] = make([]float64, m)
		for j, v := range vs {
			if v < 0 {
				full = false
				ratings[u][j] = math.NaN()
				continue
			}
			row[v]++
			ratings[u][j] = float64(v)
		}
		if full {
			counts = append(counts, row)
		}
	}
	return statistician.FleissKappa(counts, 0.95), statistician.KrippendorffAlpha(ratings, statistician.MetricNominal)
}

// effectiveVotes is m / (1 + (m-1) max(0, rbar)), rbar the mean Pearson
// correlation of the members' pass indicators over the runs each pair both
// voted on; nil when a pair's correlation is not defined.
func effectiveVotes(votes [][]int8, m int) *float64 {
	if m < 2 {
		return nil
	}
	sum, pairs := 0.0, 0
	for a := 0; a < m; a++ {
		for b := a + 1; b < m; b++ {
			var n, sa, sb, sab float64
			for _, vs := range votes {
				if vs[a] < 0 || vs[b] < 0 {
					continue
				}
				x, y := pass(vs[a]), pass(vs[b])
				n++
				sa += x
				sb += y
				sab += x * y
			}
			va, vb := sa/n*(1-sa/n), sb/n*(1-sb/n)
			if n < 2 || va == 0 || vb == 0 {
				return nil
			}
			sum += (sab/n - sa/n*sb/n) / math.Sqrt(va*vb)
			pairs++
		}
	}
	r := max(0, sum/float64(pairs))
	e := float64(m) / (1 + float64(m-1)*r)
	return &e
}

func pass(v int8) float64 {
	if v == Pass {
		return 1
	}
	return 0
}
