package advisor

import (
	"fmt"
	"strconv"
	"strings"
)

// Alpha is the significance level every tested rule fires at.
const Alpha = 0.05

// The bases of an expected impact (Impact.Basis).
const (
	BasisResolved       = "upper bound: every addressed disagreement resolved"
	BasisImbalance      = "the one-sided excess of split runs resolved"
	BasisCrossValidated = "held-out verdicts, 10-fold cross-validation across runs"
	BasisRestRate       = "the system's runs agreeing as often as the other systems' runs"
	// BasisScale and BasisSample change no verdict: the first rescales
	// light's scores, the second changes the calibration sample.
	BasisScale  = "no verdict changes: a change of light's score scale"
	BasisSample = "no verdict changes: a change of the calibration sample"
)

// Tested reports whether the impact is a tested estimate (held-out runs,
// counted imbalance, the other systems' rate) rather than an upper bound
// (BasisResolved) or no change of verdicts.
func (im Impact) Tested() bool {
	return im.Basis == BasisImbalance || im.Basis == BasisCrossValidated || im.Basis == BasisRestRate
}

// RankingNote says, for recommendations that rank tested estimates beside
// upper bounds, which priorities are which, so no reader compares the two
// figure for figure; empty when the list holds one kind only.
func RankingNote(recs []Recommendation) string {
	var tested, bounds []string
	for _, r := range recs {
		switch {
		case r.ExpectedImpact.Tested():
			tested = append(tested, strconv.Itoa(r.Priority))
		case r.ExpectedImpact.Basis == BasisResolved:
			bounds = append(bounds, strconv.Itoa(r.Priority))
		}
	}
	if len(tested) == 0 || len(bounds) == 0 {
		return ""
	}
	return fmt.Sprintf("Expected impacts of two kinds: %s (measured on held-out runs or counts); %s (as if every addressed disagreement were resolved), ranked after the tested ones and not comparable with them figure for figure.",
		carry(tested, "a tested estimate", "tested estimates"), carry(bounds, "an upper bound", "upper bounds"))
}

// carry writes "priority 1 carries an upper bound" or "priorities 3, 4
// carry upper bounds".
func carry(ps []string, one, many string) string {
	if len(ps) == 1 {
		return "priority " + ps[0] + " carries " + one
	}
	return "priorities " + strings.Join(ps, ", ") + " carry " + many
}

// Test is the significance test a rule passed before it fired.
type Test struct {
	// Name says which test, Detail what it was computed on.
	Name   string `yaml:"name" json:"name"`
	Detail string `yaml:"detail" json:"detail"`
	// P is the p-value; null for a test read off an interval.
	P     *float64 `yaml:"p" json:"p"`
	Alpha float64  `yaml:"alpha" json:"alpha"`
}
