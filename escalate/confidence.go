package escalate

import (
	"errors"
	"fmt"
	"math"
	"strings"
)

// Source names where a run's light confidence comes from.
type Source string

// The confidence sources, in the order DefaultSource prefers them.
const (
	// SourceScoreDistance is the distance in points of light's score from
	// the verdict cut that would change its verdict (see Cuts).
	SourceScoreDistance Source = "score-distance"
	// SourceUnanimity is the share of light's repeats (--repeat K, K >= 2)
	// that gave light's final verdict.
	SourceUnanimity Source = "unanimity"
	// SourcePanel is the share of a panel's members that voted for the
	// panel's verdict.
	SourcePanel Source = "panel"
	// SourceProbability is the probability the model gave its own verdict
	// (from the provider's log-probabilities).
	SourceProbability Source = "probability"
)

// Sources lists the confidence sources in DefaultSource's order of
// preference.
var Sources = []Source{SourceScoreDistance, SourceUnanimity, SourcePanel, SourceProbability}

// ParseSource returns the Source named s, or an error listing the names.
func ParseSource(s string) (Source, error) {
	for _, src := range Sources {
		if string(src) == s {
			return src, nil
		}
	}
	return "", fmt.Errorf("escalate: unknown confidence source %q (want %s, %s, %s or %s)", s, Sources[0], Sources[1], Sources[2], Sources[3])
}

// Unit is what a source's confidence values measure, for the report.
func (s Source) Unit() string {
	if s == SourceScoreDistance {
		return "points"
	}
	return "share"
}

// Verdicts light and deep give, ordered fail < partial < pass (the same
// words as runner's; escalate does not import the runner).
const (
	VerdictFail    = "fail"
	VerdictPartial = "partial"
	VerdictPass    = "pass"
)

// Cuts are the verdict lines on a 0-100 score: a run fails under
// FailBelow, passes at PassAt or above, and is partial in between
// (README.md, "Inspectors": the builtin rule; the same lines as
// inspection.FailBelow and inspection.PassAt).
type Cuts struct {
	FailBelow float64
	PassAt    float64
}

// DefaultCuts are the report's verdict lines, 40 and 70.
var DefaultCuts = Cuts{FailBelow: 40, PassAt: 70}

// Evidence is what light said about one run, from which a confidence is
// read. Fields a source does not use may be left empty.
type Evidence struct {
	// Verdict is light's final verdict (its majority verdict under
	// --repeat K, a panel's verdict for a panel).
	Verdict string
	// Scores are light's 0-100 scores (runtime fidelity and task
	// effectiveness, the means under --repeat K). The verdict rule cuts
	// their minimum, so score-distance reads the minimum.
	Scores []float64
	// Repeats are the verdicts of light's K repeats (unanimity).
	Repeats []string
	// Votes are a panel's member verdicts (panel). A panel of judges
	// feeds escalation by filling Votes and Verdict.
	Votes []string
	// Probability is the model's probability of Verdict in [0, 1], from
	// the log-probabilities of its answer (probability); nil when the
	// provider returned none.
	Probability *float64
}

// ErrUnavailable is wrapped by Confidence when the evidence lacks what
// the source needs (no scores, fewer than two repeats or votes, no
// probability).
var ErrUnavailable = errors.New("confidence source not available for this run")

// Confidence returns light's confidence in its verdict on one run from
// source src; larger means surer. Per source:
//
//   - score-distance: with m = min(Scores) and the verdict the cuts give
//     m (fail under c.FailBelow, pass at c.PassAt or above, partial in
//     between), the distance in points from m to the nearest cut of that
//     verdict's band: FailBelow - m for fail, m - PassAt for pass, and
//     min(m - FailBelow, PassAt - m) for partial. Range [0, 70] on the
//     default cuts. When light's verdict is not the one its score gives
//     (a critical flag made a high-scoring run partial; a judge's verdict
//     contradicts its scores), the score backs the verdict by no margin
//     and the confidence is 0.
//   - unanimity: the share of Repeats equal to Verdict, in [1/K, 1]
//     (needs K >= 2).
//   - panel: the share of Votes equal to Verdict (needs 2 votes or more).
//   - probability: Probability itself, in [0, 1].
//
// It returns an error wrapping ErrUnavailable when the evidence lacks the
// source's input, and another error when the input is invalid (a score
// outside [0, 100] or not finite, a probability outside [0, 1], an
// unknown verdict or source).
func Confidence(src Source, ev Evidence, c Cuts) (float64, error) {
	if !knownVerdict(ev.Verdict) {
		return 0, fmt.Errorf("escalate: %s: light verdict %q is not fail, partial or pass", src, ev.Verdict)
	}
	switch src {
	case SourceScoreDistance:
		return scoreDistance(ev, c)
	case SourceUnanimity:
		return share(src, ev.Verdict, ev.Repeats, "repeats")
	case SourcePanel:
		return share(src, ev.Verdict, ev.Votes, "votes")
	case SourceProbability:
		if ev.Probability == nil {
			return 0, fmt.Errorf("escalate: %s: no probability: %w", src, ErrUnavailable)
		}
		p := *ev.Probability
		if !(p >= 0 && p <= 1) {
			return 0, fmt.Errorf("escalate: %s: probability %v outside [0, 1]", src, p)
		}
		return p, nil
	}
	return 0, fmt.Errorf("escalate: unknown confidence source %q", src)
}

func scoreDistance(ev Evidence, c Cuts) (float64, error) {
	if len(ev.Scores) == 0 {
		return 0, fmt.Errorf("escalate: %s: no scores: %w", SourceScoreDistance, ErrUnavailable)
	}
	m := math.Inf(1)
	for _, s := range ev.Scores {
		if !(s >= 0 && s <= 100) {
			return 0, fmt.Errorf("escalate: %s: score %v outside [0, 100]", SourceScoreDistance, s)
		}
		m = math.Min(m, s)
	}
	var implied string
	var d float64
	switch {
	case m < c.FailBelow:
		implied, d = VerdictFail, c.FailBelow-m
	case m >= c.PassAt:
		implied, d = VerdictPass, m-c.PassAt
	default:
		implied, d = VerdictPartial, math.Min(m-c.FailBelow, c.PassAt-m)
	}
	if implied != ev.Verdict {
		return 0, nil
	}
	return d, nil
}

func share(src Source, verdict string, votes []string, what string) (float64, error) {
	if len(votes) < 2 {
		return 0, fmt.Errorf("escalate: %s: %d %s, need 2 or more: %w", src, len(votes), what, ErrUnavailable)
	}
	same := 0
	for _, v := range votes {
		if !knownVerdict(v) {
			return 0, fmt.Errorf("escalate: %s: verdict %q among the %s is not fail, partial or pass", src, v, what)
		}
		if v == verdict {
			same++
		}
	}
	return float64(same) / float64(len(votes)), nil
}

func knownVerdict(v string) bool {
	return v == VerdictFail || v == VerdictPartial || v == VerdictPass
}

// DefaultSource returns the first source in Sources that the data
// supports: every run's evidence yields a confidence from it, and the
// confidences take at least two distinct values (a constant confidence
// cannot tell sure runs from unsure ones). When no source qualifies it
// returns an error saying why each was passed over. Invalid evidence (a
// score out of range) is an error too: it would be one under any source.
func DefaultSource(evs []Evidence, c Cuts) (Source, error) {
	if len(evs) == 0 {
		return "", errors.New("escalate: no runs to choose a confidence source on")
	}
	var why []string
	for _, src := range Sources {
		first, varies, missing := 0.0, false, 0
		for i, ev := range evs {
			v, err := Confidence(src, ev, c)
			if errors.Is(err, ErrUnavailable) {
				missing++
				continue
			}
			if err != nil {
				return "", fmt.Errorf("escalate: run %d: %w", i+1, err)
			}
			if i == 0 {
				first = v
			} else if v != first {
				varies = true
			}
		}
		switch {
		case missing > 0:
			why = append(why, fmt.Sprintf("%s: missing on %d of %d runs", src, missing, len(evs)))
		case !varies:
			why = append(why, fmt.Sprintf("%s: the same on every run", src))
		default:
			return src, nil
		}
	}
	return "", fmt.Errorf("escalate: no confidence source fits the data (%s)", strings.Join(why, "; "))
}
