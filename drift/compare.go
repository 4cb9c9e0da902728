package drift

import (
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/evalcal/evalcal/inspection"
	"github.com/evalcal/evalcal/statistician"
)

// Observation is one side's verdict and scores on one run.
type Observation struct {
	Verdict           string  `yaml:"verdict" json:"verdict"`
	RuntimeFidelity   float64 `yaml:"runtime_fidelity" json:"runtime_fidelity"`
	TaskEffectiveness float64 `yaml:"task_effectiveness" json:"task_effectiveness"`
}

// passes reports whether the verdict is at the pass line.
func (o Observation) passes() bool { return o.Verdict == inspection.VerdictPass }

// verdictIndex orders fail < partial < pass for kappa.
func verdictIndex(v string) int {
	switch v {
	case inspection.VerdictPass:
		return 2
	case inspection.VerdictPartial:
		return 1
	}
	return 0
}

// Pair is one anchor run judged by one side then (frozen) and now.
type Pair struct {
	RunID     string
	Then, Now Observation
	// Deep is deep's frozen label, nil when the run has none; only the
	// light side's result uses it.
	Deep *Observation
}

// Options are the thresholds of drift detection.
type Options struct {
	// Alpha is the significance level of the flip test; intervals are at
	// level 1 - Alpha. In (0, 1); DefaultOptions has 0.05.
	Alpha float64
	// MaxDrop is the largest fall of the agreement with deep, a
	// proportion in [0, 1) (0.05 = 5 points), that is not drift: drift is
	// detected when the interval's upper bound of the change lies below
	// -MaxDrop.
	MaxDrop float64
}

// DefaultOptions are alpha 0.05 and a largest tolerated fall of 5 points.
func DefaultOptions() Options { return Options{Alpha: 0.05, MaxDrop: 0.05} }

func (o Options) check() error {
	switch {
	case !(o.Alpha > 0 && o.Alpha < 1):
		return fmt.Errorf("drift: alpha %v must be in (0, 1)", o.Alpha)
	case !(o.MaxDrop >= 0 && o.MaxDrop < 1):
		return fmt.Errorf("drift: max drop %v must be in [0, 1)", o.MaxDrop)
	}
	return nil
}

// Flips are the runs whose verdict crossed the pass line between then and
// now. Directions: ToPass counts runs not passed then and passed now (the
// judge turned more lenient on them), ToNotPass the reverse.
type Flips struct {
	Count int     `yaml:"count" json:"count"`
	N     int     `yaml:"n" json:"n"`
	Rate  float64 `yaml:"rate" json:"rate"`
	// CI is the Wilson interval of Rate at level 1 - alpha.
	CI        statistician.Interval `yaml:"ci" json:"ci"`
	ToPass    int                   `yaml:"to_pass" json:"to_pass"`
	ToNotPass int                   `yaml:"to_not_pass" json:"to_not_pass"`
	// McNemarP is McNemar's exact two-sided p of ToPass against
	// ToNotPass (1 when no run flipped).
	McNemarP float64 `yaml:"mcnemar_p" json:"mcnemar_p"`
	// Direction is "more lenient now", "stricter now" or "balanced".
	Direction string `yaml:"direction" json:"direction"`
	// VerdictChanges counts the runs whose verdict changed at all (a
	// partial turned fail included).
	VerdictChanges int `yaml:"verdict_changes" json:"verdict_changes"`
}

// ScoreShift is the mean change of each score, now minus then, with its
// paired t interval at level 1 - alpha.
type ScoreShift struct {
	RuntimeFidelity   statistician.MeanDiff `yaml:"runtime_fidelity" json:"runtime_fidelity"`
	TaskEffectiveness statistician.MeanDiff `yaml:"task_effectiveness" json:"task_effectiveness"`
}

// AgreementChange is the change of the light side's verdict agreement
// with deep's frozen labels, on the runs that have one: then is light's
// frozen verdict against deep's, now light's verdict tonight against the
// same label.
type AgreementChange struct {
	// Table counts runs agreeing with deep both times (both), then only
	// (first_only), now only (second_only) and neither.
	Table statistician.PairedTable `yaml:"table" json:"table"`
	N     int                      `yaml:"n" json:"n"`
	Then  float64                  `yaml:"then" json:"then"`
	Now   float64                  `yaml:"now" json:"now"`
	// Change is Now - Then with Newcombe's paired interval at Level.
	Change statistician.Difference `yaml:"change" json:"change"`
	Level  float64                 `yaml:"level" json:"level"`
	// Fell is true when the whole interval lies below -max_drop.
	Fell bool `yaml:"fell" json:"fell"`
}

// SideResult is one side's drift between the frozen anchors and tonight.
type SideResult struct {
	N     int   `yaml:"n" json:"n"`
	Flips Flips `yaml:"flips" json:"flips"`
	// Kappa is Cohen's linear-weighted kappa of the verdicts (fail <
	// partial < pass) then against now.
	Kappa             statistician.Kappa `yaml:"kappa" json:"kappa"`
	ScoreShift        ScoreShift         `yaml:"score_shift" json:"score_shift"`
	AgreementWithDeep *AgreementChange   `yaml:"agreement_with_deep,omitempty" json:"agreement_with_deep,omitempty"`
	Detected          bool               `yaml:"detected" json:"detected"`
	// Reasons say why drift was detected, one line a criterion met.
	Reasons []string `yaml:"reasons" json:"reasons"`
}

// CompareSide computes one side's drift over pairs (see SideResult) and
// detects it when either
//
//   - the flips at the pass line are significant: McNemar's exact p of
//     ToPass against ToNotPass is below alpha, or
//   - agreement with deep fell by more than MaxDrop: the upper bound of
//     the change's interval at level 1 - alpha lies below -MaxDrop
//     (bound-based, as gates are).
//
// It returns an error for invalid options or no pair.
func CompareSide(pairs []Pair, o Options) (SideResult, error) {
	if err := o.check(); err != nil {
		return SideResult{}, err
	}
	if len(pairs) == 0 {
		return SideResult{}, errors.New("drift: no anchor run to compare")
	}
	z, err := statistician.ZForLevel(1 - o.Alpha)
	if err != nil {
		return SideResult{}, fmt.Errorf("drift: %w", err)
	}
	r := SideResult{N: len(pairs), Reasons: []string{}}
	r.Flips = flips(pairs, z)
	r.Kappa = verdictKappa(pairs)
	var rf, te []float64
	for _, p := range pairs {
		rf = append(rf, p.Now.RuntimeFidelity-p.Then.RuntimeFidelity)
		te = append(te, p.Now.TaskEffectiveness-p.Then.TaskEffectiveness)
	}
	r.ScoreShift = ScoreShift{RuntimeFidelity: statistician.MeanDifference(rf, 1-o.Alpha),
		TaskEffectiveness: statistician.MeanDifference(te, 1-o.Alpha)}
	if r.Flips.McNemarP < o.Alpha {
		r.Reasons = append(r.Reasons, fmt.Sprintf("the verdicts flipped across the pass line more one way than the other: %d to pass, %d to not pass (McNemar p = %s < %s)",
			r.Flips.ToPass, r.Flips.ToNotPass, formatP(r.Flips.McNemarP), strconv.FormatFloat(o.Alpha, 'g', -1, 64)))
	}
	if a, ok := agreementChange(pairs, z, 1-o.Alpha, o.MaxDrop); ok {
		r.AgreementWithDeep = &a
		if a.Fell {
			r.Reasons = append(r.Reasons, fmt.Sprintf("agreement with deep fell by more than %s points: %s → %s, change %s points [%s, %s]",
				points(o.MaxDrop), percent(a.Then), percent(a.Now), points(a.Change.Estimate), points(a.Change.CI.Lower), points(a.Change.CI.Upper)))
		}
	}
	r.Detected = len(r.Reasons) > 0
	return r, nil
}

// flips counts the pass-line flips and tests their direction.
func flips(pairs []Pair, z float64) Flips {
	f := Flips{N: len(pairs)}
	for _, p := range pairs {
		switch {
		case !p.Then.passes() && p.Now.passes():
			f.ToPass++
		case p.Then.passes() && !p.Now.passes():
			f.ToNotPass++
		}
		if p.Then.Verdict != p.Now.Verdict {
			f.VerdictChanges++
		}
	}
	f.Count = f.ToPass + f.ToNotPass
	f.Rate = float64(f.Count) / float64(f.N)
	f.CI, _ = statistician.WilsonInterval(f.Count, f.N, z) // n > 0, z valid: checked by the caller
	m := statistician.McNemarExact(f.ToPass, f.ToNotPass)
	f.McNemarP = m.P
	switch {
	case f.ToPass > f.ToNotPass:
		f.Direction = "more lenient now"
	case f.ToPass < f.ToNotPass:
		f.Direction = "stricter now"
	default:
		f.Direction = "balanced"
	}
	return f
}

// verdictKappa is the linear-weighted kappa of the verdicts then and now.
func verdictKappa(pairs []Pair) statistician.Kappa {
	rows := make([]int, len(pairs))
	cols := make([]int, len(pairs))
	for i, p := range pairs {
		rows[i], cols[i] = verdictIndex(p.Then.Verdict), verdictIndex(p.Now.Verdict)
	}
	table, err := statistician.ConfusionMatrix(rows, cols, 3)
	if err != nil {
		return statistician.Kappa{Reason: "invalid input: " + err.Error()}
	}
	return statistician.CohenKappa(table, statistician.Linear)
}

// agreementChange is the change of agreement with deep's labels on the
// pairs that carry one; ok is false when none does.
func agreementChange(pairs []Pair, z, level, maxDrop float64) (AgreementChange, bool) {
	var t statistician.PairedTable
	for _, p := range pairs {
		if p.Deep == nil {
			continue
		}
		then, now := p.Then.Verdict == p.Deep.Verdict, p.Now.Verdict == p.Deep.Verdict
		switch {
		case then && now:
			t.Both++
		case then:
			t.FirstOnly++
		case now:
			t.SecondOnly++
		default:
			t.Neither++
		}
	}
	if t.N() == 0 {
		return AgreementChange{}, false
	}
	return agreementFromTable(t, z, level, maxDrop), true
}

// agreementFromTable computes the change and its bound from the counts,
// so that a later look can recompute it at another level.
func agreementFromTable(t statistician.PairedTable, z, level, maxDrop float64) AgreementChange {
	n := float64(t.N())
	a := AgreementChange{Table: t, N: t.N(), Then: float64(t.Both+t.FirstOnly) / n, Now: float64(t.Both+t.SecondOnly) / n, Level: level}
	a.Change, _ = statistician.NewcombePairedDifference(t, z) // counts >= 0, n > 0, z valid
	a.Fell = a.Change.CI.Upper < -maxDrop
	return a
}

// formatP writes a p-value as the report does (3 significant digits).
func formatP(p float64) string { return strconv.FormatFloat(p, 'g', 3, 64) }

// percent writes a proportion as a percentage with 2 decimals.
func percent(p float64) string { return strconv.FormatFloat(100*p, 'f', 2, 64) + "%" }

// points writes a difference of proportions in percentage points.
func points(d float64) string {
	return strconv.FormatFloat(roundTo(100*d, 2), 'f', -1, 64)
}

func roundTo(x float64, decimals int) float64 {
	s := math.Pow(10, float64(decimals))
	return math.Round(x*s) / s
}
