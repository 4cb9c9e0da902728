package reportio

import (
	"strings"
	"testing"
)

// A series whose judges or run paths change says so in its banner (issue
// 28: render --history compared reports of different inspectors silently).
func TestHistoryWarnsWhenJudgesOrRunsChange(t *testing.T) {
	nights := []HistoryNight{
		{Label: "d1", Judges: "light builtin/1, deep builtin/1", Runs: "runs"},
		{Label: "d2", Judges: "light builtin/1, deep builtin/1", Runs: "runs"},
		{Label: "d3", Judges: "light openai:x@1, deep builtin/1", Runs: "other"},
	}
	w := History{Nights: nights}.Changes()
	if len(w) != 2 || !strings.Contains(w[0], "the judges change") || !strings.Contains(w[0], "d3 (light openai:x@1, deep builtin/1) after d2") ||
		!strings.Contains(w[1], "the run paths change") {
		t.Errorf("warnings %q", w)
	}
	if w := (History{Nights: nights[:2]}).Changes(); len(w) != 0 {
		t.Errorf("a steady series: %q", w)
	}
}

func TestFailedNightsCountsNightsWithAFailedGate(t *testing.T) {
	h := History{Nights: []HistoryNight{{Label: "d1"}, {Label: "d2", GatesFailed: []string{"agreement.lower >= 80"}}, {Label: "d3"}}}
	if got := h.FailedNights(); got != 1 {
		t.Errorf("FailedNights = %d, want 1", got)
	}
}
