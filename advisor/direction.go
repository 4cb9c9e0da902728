package advisor

import (
	"fmt"

	"github.com/evalcal/evalcal/comparator"
	"github.com/evalcal/evalcal/statistician/aggregate"
)

// Direction is which way light errs, at the two levels the report
// measures: Verdict at the pass line (aggregate.Lenient: light passes runs
// deep does not, more often than the reverse; aggregate.Strict; "" when
// balanced or undefined), the words the summary uses; Score in the mean
// score difference (aggregate.Optimistic: light scores higher;
// aggregate.Pessimistic; aggregate.Neutral), the bias_direction field.
// Offset is the mean deep-minus-light delta over both scores on the
// OffsetRuns runs whose verdicts agree: a constant gap such as a cap on
// light's scores. Every advice sentence about the direction of light's
// error is written from here.
type Direction struct {
	Verdict    string
	Score      string
	Offset     float64
	OffsetRuns int
}

// DirectionOf reads the direction from the comparisons and statistics.
func DirectionOf(cs []comparator.Comparison, st aggregate.Stats) Direction {
	d := Direction{Verdict: st.Leniency.Direction, Score: st.BiasDirection}
	if d.Verdict != aggregate.Lenient && d.Verdict != aggregate.Strict {
		d.Verdict = ""
	}
	sum := 0.0
	for _, c := range cs {
		if c.VerdictMatch {
			d.OffsetRuns++
			sum += (c.RuntimeFidelityDelta + c.TaskEffectivenessDelta) / 2
		}
	}
	if d.OffsetRuns > 0 {
		d.Offset = sum / float64(d.OffsetRuns)
	}
	return d
}

// Conflict reports whether the two levels point different ways: light
// scores lower than deep but passes more of the runs they split
// (pessimistic and lenient), or the reverse (optimistic and strict).
func (d Direction) Conflict() bool {
	return d.Score == aggregate.Pessimistic && d.Verdict == aggregate.Lenient ||
		d.Score == aggregate.Optimistic && d.Verdict == aggregate.Strict
}

// hasOffset reports whether the agreeing runs show a gap of at least
// aggregate.BiasThreshold points.
func (d Direction) hasOffset() bool {
	return d.OffsetRuns > 0 && (d.Offset <= -aggregate.BiasThreshold || d.Offset >= aggregate.BiasThreshold)
}

// ScoreWords says how light's scores differ from deep's: "light's scores
// are lower than deep's by 10.2 (runtime fidelity) and 10.5 (task
// effectiveness) points on average (pessimistic)".
func (d Direction) ScoreWords(rf, te float64) string {
	switch d.Score {
	case aggregate.Optimistic:
		return fmt.Sprintf("light's scores are higher than deep's by %.2f (runtime fidelity) and %.2f (task effectiveness) points on average (optimistic)", -rf, -te)
	case aggregate.Pessimistic:
		return fmt.Sprintf("light's scores are lower than deep's by %.2f (runtime fidelity) and %.2f (task effectiveness) points on average (pessimistic)", rf, te)
	}
	return "light's scores are close to deep's on average"
}

// VerdictWords says which way light errs at the pass line, in the
// summary's words: "at the pass line light is lenient"; empty when it
// errs neither way.
func (d Direction) VerdictWords() string {
	if d.Verdict == "" {
		return ""
	}
	return "at the pass line light is " + d.Verdict
}

// Why is the one line that says why the score level and the verdict
// level point different ways; empty when they do not (Conflict).
func (d Direction) Why() string {
	if !d.Conflict() {
		return ""
	}
	s := "the scores and the verdicts point different ways because the mean score difference is taken over every run, the leniency over the runs split at the pass line"
	if d.hasOffset() && (d.Offset > 0) == (d.Score == aggregate.Pessimistic) {
		s = fmt.Sprintf("the scores and the verdicts point different ways because on the %d runs whose verdicts agree deep still differs by %+.2f points on average: the score gap is a scale offset (such as a cap on light's scores), not a difference in criteria",
			d.OffsetRuns, d.Offset)
	}
	return s
}
