package escalate

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/evalcal/evalcal/inspection"
)

func ptr(f float64) *float64 { return &f }

func TestDefaultCutsAreTheRunnersVerdictLines(t *testing.T) {
	if DefaultCuts.FailBelow != inspection.FailBelow || DefaultCuts.PassAt != inspection.PassAt {
		t.Fatalf("DefaultCuts = %+v, runner has %v and %v", DefaultCuts, inspection.FailBelow, inspection.PassAt)
	}
	for _, v := range []string{inspection.VerdictFail, inspection.VerdictPartial, inspection.VerdictPass} {
		if !knownVerdict(v) {
			t.Errorf("runner verdict %q unknown to escalate", v)
		}
	}
}

// Worked by hand from the definitions in Confidence's doc comment.
func TestConfidenceWorkedCases(t *testing.T) {
	for _, c := range []struct {
		name string
		src  Source
		ev   Evidence
		want float64
	}{
		{"pass: the lower score is 2 over 70", SourceScoreDistance, Evidence{Verdict: "pass", Scores: []float64{95, 72}}, 2},
		{"fail: the lower score is 30 under 40; the other does not count", SourceScoreDistance, Evidence{Verdict: "fail", Scores: []float64{10, 90}}, 30},
		{"fail at 0 is 40 from the cut", SourceScoreDistance, Evidence{Verdict: "fail", Scores: []float64{0, 0}}, 40},
		{"partial in the middle of the band", SourceScoreDistance, Evidence{Verdict: "partial", Scores: []float64{55, 60}}, 15},
		{"partial near the pass cut", SourceScoreDistance, Evidence{Verdict: "partial", Scores: []float64{62, 80}}, 8},
		{"pass exactly at 70", SourceScoreDistance, Evidence{Verdict: "pass", Scores: []float64{70, 100}}, 0},
		{"partial by a critical flag despite pass scores: no margin", SourceScoreDistance, Evidence{Verdict: "partial", Scores: []float64{80, 90}}, 0},
		{"a judge that passes a run it scores 30: no margin", SourceScoreDistance, Evidence{Verdict: "pass", Scores: []float64{30, 90}}, 0},
		{"two of three repeats", SourceUnanimity, Evidence{Verdict: "pass", Repeats: []string{"pass", "fail", "pass"}}, 2.0 / 3},
		{"unanimous repeats", SourceUnanimity, Evidence{Verdict: "fail", Repeats: []string{"fail", "fail"}}, 1},
		{"three of four panel votes", SourcePanel, Evidence{Verdict: "pass", Votes: []string{"pass", "pass", "partial", "pass"}}, 0.75},
		{"the model's probability", SourceProbability, Evidence{Verdict: "fail", Probability: ptr(0.93)}, 0.93},
	} {
		got, err := Confidence(c.src, c.ev, DefaultCuts)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if math.Abs(got-c.want) > 1e-12 {
			t.Errorf("%s: Confidence(%s) = %v, want %v", c.name, c.src, got, c.want)
		}
	}
}

func TestConfidenceMovesWithTheCuts(t *testing.T) {
	// An importer mapping pass at 0.8 puts the pass cut at 80.
	got, err := Confidence(SourceScoreDistance, Evidence{Verdict: "pass", Scores: []float64{95}}, Cuts{FailBelow: 40, PassAt: 80})
	if err != nil || got != 15 {
		t.Fatalf("distance from the cut at 80 = %v, %v; want 15", got, err)
	}
}

func TestConfidenceUnavailableAndInvalid(t *testing.T) {
	for _, c := range []struct {
		name        string
		src         Source
		ev          Evidence
		unavailable bool
	}{
		{"no scores", SourceScoreDistance, Evidence{Verdict: "pass"}, true},
		{"one repeat", SourceUnanimity, Evidence{Verdict: "pass", Repeats: []string{"pass"}}, true},
		{"no panel", SourcePanel, Evidence{Verdict: "pass"}, true},
		{"no probability", SourceProbability, Evidence{Verdict: "pass"}, true},
		{"score over 100", SourceScoreDistance, Evidence{Verdict: "pass", Scores: []float64{101}}, false},
		{"NaN score", SourceScoreDistance, Evidence{Verdict: "pass", Scores: []float64{math.NaN()}}, false},
		{"probability over 1", SourceProbability, Evidence{Verdict: "pass", Probability: ptr(1.2)}, false},
		{"unknown verdict", SourceScoreDistance, Evidence{Verdict: "ok", Scores: []float64{80}}, false},
		{"unknown repeat verdict", SourceUnanimity, Evidence{Verdict: "pass", Repeats: []string{"pass", "maybe"}}, false},
		{"unknown source", Source("vibes"), Evidence{Verdict: "pass"}, false},
	} {
		_, err := Confidence(c.src, c.ev, DefaultCuts)
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		if errors.Is(err, ErrUnavailable) != c.unavailable {
			t.Errorf("%s: error %q: unavailable = %v, want %v", c.name, err, errors.Is(err, ErrUnavailable), c.unavailable)
		}
	}
}

func TestDefaultSourceTakesTheFirstSupportedInOrder(t *testing.T) {
	withAll := []Evidence{
		{Verdict: "pass", Scores: []float64{90, 95}, Repeats: []string{"pass", "pass"}, Probability: ptr(0.9)},
		{Verdict: "fail", Scores: []float64{10, 30}, Repeats: []string{"fail", "pass"}, Probability: ptr(0.6)},
	}
	if got, err := DefaultSource(withAll, DefaultCuts); err != nil || got != SourceScoreDistance {
		t.Fatalf("DefaultSource = %v, %v; want %s", got, err, SourceScoreDistance)
	}
	// Scores that give every run the same distance cannot rank runs:
	// unanimity is next.
	flat := []Evidence{
		{Verdict: "pass", Scores: []float64{100}, Repeats: []string{"pass", "pass"}},
		{Verdict: "pass", Scores: []float64{100}, Repeats: []string{"pass", "fail"}},
	}
	if got, err := DefaultSource(flat, DefaultCuts); err != nil || got != SourceUnanimity {
		t.Fatalf("DefaultSource(flat scores) = %v, %v; want %s", got, err, SourceUnanimity)
	}
	// Probability only where every run has one.
	probs := []Evidence{
		{Verdict: "pass", Scores: []float64{100}, Probability: ptr(0.9)},
		{Verdict: "pass", Scores: []float64{100}, Probability: ptr(0.7)},
	}
	if got, err := DefaultSource(probs, DefaultCuts); err != nil || got != SourceProbability {
		t.Fatalf("DefaultSource(probabilities) = %v, %v; want %s", got, err, SourceProbability)
	}
	probs[1].Probability = nil
	_, err := DefaultSource(probs, DefaultCuts)
	if err == nil || !strings.Contains(err.Error(), "probability: missing on 1 of 2 runs") || !strings.Contains(err.Error(), "score-distance: the same on every run") {
		t.Fatalf("DefaultSource with nothing usable: %v; want the reason for each source", err)
	}
	if _, err := DefaultSource([]Evidence{{Verdict: "pass", Scores: []float64{120}}}, DefaultCuts); err == nil {
		t.Fatal("DefaultSource accepted a score of 120")
	}
}

func TestParseSource(t *testing.T) {
	for _, s := range Sources {
		if got, err := ParseSource(string(s)); err != nil || got != s {
			t.Errorf("ParseSource(%q) = %v, %v", s, got, err)
		}
	}
	if _, err := ParseSource("logprob"); err == nil || !strings.Contains(err.Error(), "score-distance") {
		t.Errorf("ParseSource(logprob): %v; want an error listing the sources", err)
	}
}
