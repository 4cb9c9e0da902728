package report

import (
	"slices"
	"strings"
	"testing"

	"github.com/evalcal/evalcal/advisor"
	"github.com/evalcal/evalcal/pairwise"
	"github.com/evalcal/evalcal/perturb"
	"github.com/evalcal/evalcal/statistician"
)

// TestTrustCappedByPositionAndPerturbation: a report that would gate is
// capped at monitor, with the reason, when position consistency's Wilson
// lower bound is under 80% or a perturbation's excess flip rate is
// significant; a consistency bound at 80% or more, or an excess whose
// interval reaches 0, leaves it at gate.
func TestTrustCappedByPositionAndPerturbation(t *testing.T) {
	consistency := func(count, n int) *Position {
		iv, err := statistician.WilsonInterval(count, n, statistician.Z95)
		if err != nil {
			t.Fatal(err)
		}
		return &Position{Judge: pairwise.Position{Consistency: pairwise.Proportion{Count: count, N: n, CI95: &iv}}}
	}
	excess := func(lower float64) []Perturbation {
		return []Perturbation{{Kind: PerturbOrder, Result: &perturb.Result{N: 300, FlipRate: 0.15, NoiseRate: 0.05, Excess: 0.1,
			CI: statistician.Interval{Lower: lower, Upper: 0.15}, Significant: lower > 0}}}
	}
	for _, c := range []struct {
		name    string
		pos     *Position
		perturb []Perturbation
		want    string
		why     string
	}{
		// Wilson lower bounds (statsmodels proportion_confint, method wilson):
		// 170/200 -> 0.7939, 180/200 -> 0.8506.
		{"inconsistent", consistency(170, 200), nil, advisor.TrustMonitor, "depends on the order the runs are shown in"},
		{"consistent", consistency(180, 200), nil, advisor.TrustGate, ""},
		{"significant", nil, excess(0.05), advisor.TrustMonitor, "under the order perturbation light's verdict flips on 15.00% of 300 runs"},
		{"not significant", nil, excess(-0.01), advisor.TrustGate, ""},
	} {
		r := trustReport(400, 376, 0.86, 0.81, 0.91)
		r.Position, r.Perturbations = c.pos, c.perturb
		Summarize(r)
		if r.Summary.Trust != c.want {
			t.Errorf("%s: trust %s, want %s (%q)", c.name, r.Summary.Trust, c.want, r.Summary.Why)
		}
		capped := slices.ContainsFunc(r.Summary.Why, func(w string) bool { return strings.HasPrefix(w, "capped at monitor") })
		if capped != (c.want == advisor.TrustMonitor) {
			t.Errorf("%s: why %q", c.name, r.Summary.Why)
		}
		if c.why != "" && !slices.ContainsFunc(r.Summary.Why, func(w string) bool { return strings.Contains(w, c.why) }) {
			t.Errorf("%s: why %q lacks %q", c.name, r.Summary.Why, c.why)
		}
	}
}
