package report

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/evalcal/evalcal/advisor"
	"github.com/evalcal/evalcal/comparator"
	"github.com/evalcal/evalcal/gates"
	"github.com/evalcal/evalcal/segment"
	"github.com/evalcal/evalcal/statistician"
	"github.com/evalcal/evalcal/statistician/aggregate"
)

// trustReport is a report with the figures the trust rule reads: n runs,
// the agreement percent with its Wilson interval, and the linear kappa
// with its interval.
func trustReport(n, matches int, kappa, kLo, kHi float64) *Report {
	r := &Report{}
	p := 100 * float64(matches) / float64(n)
	iv, _ := statistician.WilsonInterval(matches, n, statistician.Z95)
	r.AgreementRate = AgreementRate{Percent: &p, Matches: matches, N: n,
		Wilson95: &statistician.Interval{Lower: 100 * iv.Lower, Upper: 100 * iv.Upper}}
	r.Kappa.Linear = statistician.Kappa{Value: kappa, CI95: statistician.Interval{Lower: kLo, Upper: kHi}, N: n}
	r.Leniency = Leniency{N: n, LightPassDeepNot: n - matches, Direction: aggregate.Lenient}
	return r
}

// One golden summary per trust level: the rule's verdict, its reasons and
// the sentence a team lead reads.
func TestSummaryGoldenForEveryTrustLevel(t *testing.T) {
	cases := []struct {
		name string
		rep  *Report
		want string
	}{
		{"gate", trustReport(400, 376, 0.86, 0.81, 0.91), advisor.TrustGate},
		{"monitor", trustReport(120, 100, 0.62, 0.5, 0.74), advisor.TrustMonitor},
		{"explore", trustReport(200, 110, 0.25, 0.15, 0.35), advisor.TrustExplore},
		{"insufficient_evidence", trustReport(12, 9, 0.55, 0.1, 0.95), advisor.TrustInsufficient},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.name == "monitor" {
				c.rep.Gates = []gates.GateRecord{{Expr: "agreement.lower >= 80", Pass: false}, {Expr: "kappa.linear.lower >= 0.4", Pass: true}}
			}
			Summarize(c.rep)
			if c.rep.Summary.Trust != c.want {
				t.Fatalf("trust %q, want %q (why: %v)", c.rep.Summary.Trust, c.want, c.rep.Summary.Why)
			}
			// The summary holds no float, so yaml.v3 writes what the
			// document encoder (internal/reportenc) writes.
			var buf bytes.Buffer
			enc := yaml.NewEncoder(&buf)
			enc.SetIndent(2)
			if err := enc.Encode(map[string]Summary{"summary": c.rep.Summary}); err != nil {
				t.Fatal(err)
			}
			got := buf.Bytes()
			checkGolden(t, fmt.Sprintf("testdata/summary/%s.yaml", c.name), got)
		})
	}
}

func TestSummaryPutsFailedGatesInTheSentence(t *testing.T) {
	r := trustReport(120, 100, 0.62, 0.5, 0.74)
	r.Gates = []gates.GateRecord{{Expr: "agreement.lower >= 80", Pass: false}}
	Summarize(r)
	if r.Summary.GatesFailed != 1 || !strings.Contains(r.Summary.Sentence, "GATES FAILED: 1 of 1 (agreement.lower >= 80)") {
		t.Errorf("summary %+v", r.Summary)
	}
}

// The sentence names up to five misjudged pairs of a field and counts the
// rest; a field with none adds nothing.
func TestSummaryNamesTheMisjudgedSlices(t *testing.T) {
	r := trustReport(120, 100, 0.62, 0.5, 0.74)
	var pairs []string
	for i := range 7 {
		pairs = append(pairs, fmt.Sprintf("s%d vs t", i))
	}
	r.Slices = []segment.Field{{Field: "task", Misjudged: pairs}, {Field: "system", Misjudged: []string{}}}
	Summarize(r)
	want := "by task, light misjudges s0 vs t; s1 vs t; s2 vs t; s3 vs t; s4 vs t; and 2 more pairs (see slices)"
	if !strings.Contains(r.Summary.Sentence, want) || strings.Contains(r.Summary.Sentence, "by system") {
		t.Errorf("sentence %q lacks %q", r.Summary.Sentence, want)
	}
}

func TestSummaryOfNoRunsSaysSoWithoutFigures(t *testing.T) {
	r := &Report{}
	r.Kappa.Linear = statistician.Kappa{Reason: "no runs with both verdicts"}
	Summarize(r)
	if r.Summary.Trust != advisor.TrustInsufficient || strings.Contains(r.Summary.Sentence, "0.00%") ||
		!strings.Contains(r.Summary.Sentence, "no run has both verdicts") {
		t.Errorf("summary %+v", r.Summary)
	}
}

// The advice line and the recommendations section write a test alike.
func TestTestClause(t *testing.T) {
	p := 0.00354
	for _, c := range []struct {
		test *advisor.Test
		want string
	}{
		{nil, ""},
		{&advisor.Test{Name: "exact McNemar", Detail: "b = 12, c = 2", P: &p, Alpha: 0.05},
			" Test: exact McNemar (b = 12, c = 2, p = 0.0035; fires at p < 0.05)."},
		{&advisor.Test{Name: "non-overlapping intervals", Alpha: 0.05}, " Test: non-overlapping intervals (fires at p < 0.05)."},
		{&advisor.Test{Name: "x", Detail: "read off intervals", Alpha: 0.01}, " Test: x (read off intervals; fires at p < 0.01)."},
	} {
		if got := TestClause(c.test); got != c.want {
			t.Errorf("%+v: %q, want %q", c.test, got, c.want)
		}
	}
}

// Where light's scores and its verdicts err different ways, the summary
// has one line saying why (issue 28, item 1): here light scores 10 points
// below deep on the runs whose verdicts agree (a cap) yet passes 8 runs
// deep fails and misses 2 deep passes. Where they agree (optimistic and
// lenient), there is no such line.
func TestSummarySaysWhyScoresAndVerdictsPointDifferentWays(t *testing.T) {
	conflict := func(bias string) *Report {
		r := trustReport(60, 50, 0.62, 0.5, 0.74)
		r.Leniency = Leniency{N: 60, LightPassDeepNot: 8, DeepPassLightNot: 2, Direction: aggregate.Lenient}
		r.BiasDirection = bias
		r.MeanScoreDelta.RuntimeFidelity.Mean, r.MeanScoreDelta.TaskEffectiveness.Mean = 9.5, 10.5
		for i := range 60 {
			c := comparator.Comparison{RunID: fmt.Sprintf("r%02d", i), VerdictMatch: i < 50, RuntimeFidelityDelta: 10, TaskEffectivenessDelta: 10}
			if i >= 50 {
				c.RuntimeFidelityDelta, c.TaskEffectivenessDelta = -5, -5
			}
			r.Comparisons = append(r.Comparisons, c)
		}
		return r
	}
	r := conflict(aggregate.Pessimistic)
	Summarize(r)
	want := "light's scores are lower than deep's by 9.50 (runtime fidelity) and 10.50 (task effectiveness) points on average (pessimistic), " +
		"yet at the pass line light is lenient: the scores and the verdicts point different ways because on the 50 runs whose verdicts agree deep still differs by +10.00 points on average"
	n := 0
	for _, line := range r.Summary.Why {
		if strings.Contains(line, "point different ways") {
			n++
			if !strings.HasPrefix(line, want) {
				t.Errorf("why line\n%q\nwant it to start\n%q", line, want)
			}
		}
	}
	if n != 1 {
		t.Errorf("%d lines say why the directions differ, want 1: %q", n, r.Summary.Why)
	}
	r = conflict(aggregate.Optimistic)
	Summarize(r)
	for _, line := range r.Summary.Why {
		if strings.Contains(line, "point different ways") {
			t.Errorf("optimistic and lenient agree, yet: %q", line)
		}
	}
}
