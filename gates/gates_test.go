package gates_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/evalcal/evalcal/calibrate"
	"github.com/evalcal/evalcal/forecast"
	"github.com/evalcal/evalcal/gates"
	"github.com/evalcal/evalcal/report"
	"github.com/evalcal/evalcal/report/reportio"
)

// synthetic is the report of testdata/render: 10 of 14 runs agree,
// Wilson 95% [45.35, 88.28]; kappa linear 0.5116 [0.0944, 0.9289];
// confidence low; bias optimistic; correlation task_effectiveness
// r 0.7595 [0.3835, 0.9195]; light-score calibration 19.405.
func synthetic(t *testing.T) *report.Report {
	t.Helper()
	r, err := reportio.ReadReport("../testdata/render/synthetic.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func mustParse(t *testing.T, exprs ...string) []gates.Gate {
	t.Helper()
	gs, err := gates.Parse(exprs)
	if err != nil {
		t.Fatal(err)
	}
	if err := gates.Validate(gs, report.Report{}); err != nil {
		t.Fatal(err)
	}
	return gs
}

func ptr(x float64) *float64 { return &x }

func TestCheckOnCalibrationReport(t *testing.T) {
	r := synthetic(t)
	gs := mustParse(t,
		"agreement.lower >= 80",
		"agreement.lower >= 45",
		"agreement >= 40",
		"agreement <= 85",
		"agreement.percent >= 70",
		"confidence >= medium",
		"confidence >= low",
		"kappa.linear.lower >= 0.6",
		"correlation.task_effectiveness.lower >= 0.3",
		"bias != optimistic",
		"partial == false",
		"calibration >= 30",
		"sample_size>=14",
	)
	got := gates.Check(gs, r)
	want := []gates.Result{
		{Expr: "agreement.lower >= 80", Field: "agreement_rate.wilson95.lower", Bound: "lower", Op: ">=", Want: "80", Value: ptr(45.35), Pass: false},
		{Expr: "agreement.lower >= 45", Field: "agreement_rate.wilson95.lower", Bound: "lower", Op: ">=", Want: "45", Value: ptr(45.35), Pass: true},
		{Expr: "agreement >= 40", Field: "agreement_rate.wilson95.lower", Bound: "lower", Op: ">=", Want: "40", Value: ptr(45.35), Pass: true},
		{Expr: "agreement <= 85", Field: "agreement_rate.wilson95.upper", Bound: "upper", Op: "<=", Want: "85", Value: ptr(88.28), Pass: false},
		{Expr: "agreement.percent >= 70", Field: "agreement_rate.percent", Op: ">=", Want: "70", Value: ptr(71.43), Pass: true},
		{Expr: "confidence >= medium", Field: "confidence", Op: ">=", Want: "medium", Text: "low", Pass: false},
		{Expr: "confidence >= low", Field: "confidence", Op: ">=", Want: "low", Text: "low", Pass: true},
		{Expr: "kappa.linear.lower >= 0.6", Field: "kappa.linear.ci95.lower", Bound: "lower", Op: ">=", Want: "0.6", Value: ptr(0.0943603), Pass: false},
		{Expr: "correlation.task_effectiveness.lower >= 0.3", Field: "score_correlation.task_effectiveness.ci95.lower", Bound: "lower", Op: ">=", Want: "0.3", Value: ptr(0.383453), Pass: true},
		{Expr: "bias != optimistic", Field: "bias_direction", Op: "!=", Want: "optimistic", Text: "optimistic", Pass: false},
		{Expr: "partial == false", Field: "partial", Op: "==", Want: "false", Text: "true", Pass: false},
		{Expr: "calibration >= 30", Field: "forecast.calibration", Op: ">=", Want: "30", Value: ptr(19.41), Pass: false},
		{Expr: "sample_size>=14", Field: "sample_size", Op: ">=", Want: "14", Value: ptr(14), Pass: true},
	}
	if d := cmp.Diff(want, got, cmpopts.IgnoreFields(gates.Result{}, "Message"), cmpopts.EquateApprox(0, 1e-12)); d != "" {
		t.Errorf("results (-want +got):\n%s", d)
	}
	for _, res := range got {
		if !strings.HasPrefix(res.Message, res.Expr+": ") {
			t.Errorf("message %q does not start with the expression", res.Message)
		}
	}
}

// A gate on an interval without a bound uses the conservative bound for
// its operator and says so; naming the point uses the point.
func TestGateOnIntervalUsesBoundUnlessPointNamed(t *testing.T) {
	r := synthetic(t)
	got := gates.Check(mustParse(t, "agreement > 50", "agreement.point > 50", "kappa.linear == 0.5"), r)
	if got[0].Pass || got[0].Bound != "lower" || !strings.Contains(got[0].Message, "conservative") {
		t.Errorf("bound gate: %+v", got[0])
	}
	if !got[1].Pass || got[1].Bound != "point" || got[1].Field != "agreement_rate.percent" {
		t.Errorf("point gate: %+v", got[1])
	}
	if got[2].Bound != "point" || got[2].Field != "kappa.linear.value" {
		t.Errorf("equality on an interval uses the point: %+v", got[2])
	}
}

func TestMissingValueFailsWithTheDocumentsReason(t *testing.T) {
	r := synthetic(t)
	r.ScoreCorrelation.TaskEffectiveness = report.Report{}.ScoreCorrelation.TaskEffectiveness
	r.ScoreCorrelation.TaskEffectiveness.N = 3
	r.ScoreCorrelation.TaskEffectiveness.Insufficient = "insufficient data for correlation: 3 runs, need at least 5"
	got := gates.Check(mustParse(t, "correlation.task_effectiveness.lower >= 0.3", "correlation.task_effectiveness >= 0.3"), r)
	for _, res := range got {
		if res.Pass || !strings.Contains(res.Message, "need at least 5") {
			t.Errorf("%+v", res)
		}
	}
}

func TestScoreDocumentGatesEveryGroup(t *testing.T) {
	doc := forecast.ScoreReport{SchemaVersion: 1, Groups: []forecast.ScoredGroup{
		{Key: "alice", N: 40, Calibration: ptr(41.5)},
		{Key: "bob", N: 3, CalibrationReason: "3 resolved forecasts, need at least 5"},
		{Key: "carol", N: 60, Calibration: ptr(22)},
	}}
	gs, err := gates.Parse([]string{"calibration >= 30"})
	if err != nil {
		t.Fatal(err)
	}
	if err := gates.Validate(gs, forecast.ScoreReport{}); err != nil {
		t.Fatal(err)
	}
	got := gates.Check(gs, doc)
	want := []gates.Result{
		{Expr: "calibration >= 30", Field: "groups[alice].calibration", Op: ">=", Want: "30", Value: ptr(41.5), Pass: true},
		{Expr: "calibration >= 30", Field: "groups[bob].calibration", Op: ">=", Want: "30", Pass: false},
		{Expr: "calibration >= 30", Field: "groups[carol].calibration", Op: ">=", Want: "30", Value: ptr(22), Pass: false},
	}
	if d := cmp.Diff(want, got, cmpopts.IgnoreFields(gates.Result{}, "Message")); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if !strings.Contains(got[1].Message, "need at least 5") {
		t.Errorf("null calibration message lacks its reason: %q", got[1].Message)
	}
}

func TestCallsDocumentNamesGroupsByAgentAndSeason(t *testing.T) {
	doc := forecast.CallReport{Groups: []forecast.GroupScore{{Agent: "trader", Season: "2025Q1", Resolved: 9, Calibration: ptr(55)}}}
	gs, _ := gates.Parse([]string{"calibration >= 30"})
	if err := gates.Validate(gs, forecast.CallReport{}); err != nil {
		t.Fatal(err)
	}
	got := gates.Check(gs, doc)
	if len(got) != 1 || !got[0].Pass || got[0].Field != "groups[trader/2025Q1].calibration" {
		t.Errorf("%+v", got)
	}
}

func TestEmptyGroupsFailTheGate(t *testing.T) {
	gs, _ := gates.Parse([]string{"calibration >= 30"})
	got := gates.Check(gs, forecast.ScoreReport{Groups: []forecast.ScoredGroup{}})
	if len(gates.Failed(got)) != 1 {
		t.Errorf("a gate on no groups passed: %+v", got)
	}
}

func TestParseRejectsMalformedExpressions(t *testing.T) {
	for _, e := range []string{
		"", "agreement", "agreement >=", ">= 80", "agreement >= eighty percent",
		"agreement >> 80", "agreement >= 80 80", "agreement..lower >= 80", "agreement >= NaN",
		"agreement >= Inf", "bias >= optimistic", "agreement => 80", "a b >= 1",
	} {
		_, err := gates.Parse([]string{"confidence >= low", e})
		if err == nil {
			t.Errorf("Parse(%q) succeeded", e)
			continue
		}
		if !strings.Contains(err.Error(), "\""+e+"\"") && e != "" {
			t.Errorf("error %q does not name %q", err, e)
		}
	}
}

func TestValidateRejectsUnknownFieldsAndKindMismatches(t *testing.T) {
	for _, e := range []string{
		"agreemnt.lower >= 80", "agreement.lowest >= 80", "kappa.cubic.lower >= 0.5",
		"confidence >= 3", "agreement >= medium", "partial >= 1", "partial == maybe",
		"comparisons >= 1", "inputs >= 1",
	} {
		gs, err := gates.Parse([]string{e})
		if err != nil {
			continue // malformed is fine too, but these parse
		}
		err = gates.Validate(gs, report.Report{})
		if err == nil {
			t.Errorf("Validate(%q) succeeded", e)
			continue
		}
		if !strings.Contains(err.Error(), e) {
			t.Errorf("error %q does not name the gate", err)
		}
	}
}

func TestValidateAcceptsLiteralPaths(t *testing.T) {
	for _, e := range []string{
		"agreement_rate.wilson95.lower >= 80",
		"mean_score_delta.runtime_fidelity.bland_altman.upper_loa <= 20",
		"mean_score_delta.task_effectiveness.ccc.lower >= 0.5",
		"delta.runtime_fidelity >= -5",
		"sample.composition.systems.alpha >= 2",
		"forecast.corp.mcb <= 0.05",
		"preliminary == false",
		"disagreement_breakdown.verdict_split <= 2",
	} {
		gs, err := gates.Parse([]string{e})
		if err != nil {
			t.Fatal(err)
		}
		if err := gates.Validate(gs, report.Report{}); err != nil {
			t.Errorf("Validate(%q): %v", e, err)
		}
	}
}

func TestCheckOnUnencodableDocumentFails(t *testing.T) {
	gs, _ := gates.Parse([]string{"x >= 1"})
	got := gates.Check(gs, map[string]any{"x": make(chan int)})
	if len(got) != 1 || got[0].Pass {
		t.Errorf("%+v", got)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"agreement.lower >= 80", "confidence>=medium", "kappa.linear.lower >= 0.6", "bias != optimistic", "x<1e308", "a == -0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, expr string) {
		gs, err := gates.Parse([]string{expr})
		if err != nil {
			return
		}
		if len(gs) != 1 || gs[0].Expr != expr || gs[0].Field == "" || gs[0].Op == "" || gs[0].Want == "" {
			t.Fatalf("Parse(%q) = %+v", expr, gs)
		}
		// Validation and checking never panic on a parsed gate.
		_ = gates.Validate(gs, report.Report{})
		_ = gates.Check(gs, report.Report{})
	})
}

// Trend fields are gated like any other once the report carries a trend:
// trend.agreement is interval-valued (difference with ci95).
func TestTrendFieldsAreGated(t *testing.T) {
	type withTrend struct {
		report.Report
		Trend report.Trend `json:"trend"`
	}
	r := synthetic(t)
	doc := withTrend{Report: *r, Trend: calibrate.CompareReports(r, r)}
	gs, err := gates.Parse([]string{"trend.agreement.lower > -5", "trend.agreement > -5", "trend.agreement.point == 0"})
	if err != nil {
		t.Fatal(err)
	}
	if err := gates.Validate(gs, withTrend{}); err != nil {
		t.Fatal(err)
	}
	got := gates.Check(gs, doc)
	// The same report against itself: difference 0; Newcombe's interval
	// for 10/14 - 10/14 is about [-31, 31] points, so the lower bound fails.
	if got[0].Pass || got[0].Field != "trend.agreement.ci95.lower" || got[1].Pass || got[1].Bound != "lower" || !got[2].Pass {
		t.Errorf("%+v", got)
	}
	if err := gates.Unmet(got); err == nil || strings.Contains(err.Error(), "\n") || !strings.HasPrefix(err.Error(), "2 gates not met: trend.agreement.lower > -5; ") {
		t.Errorf("Unmet: %v", err)
	}
	if err := gates.Unmet(got[2:]); err != nil {
		t.Errorf("Unmet of passing results: %v", err)
	}
}

// A gate failing on several groups is one entry naming them (issue 28: the
// score and calls documents repeated it once a group, without the group).
func TestSummaryNamesEachFailedGateOnceWithItsGroups(t *testing.T) {
	one := 1.5
	rs := []gates.Result{
		{Expr: "calibration >= 90", Field: "groups[atlas/2026-q1].calibration", Value: &one},
		{Expr: "calibration >= 90", Field: "groups[birch/2026-q1].calibration"},
		{Expr: "calibration >= 0", Field: "groups[atlas/2026-q1].calibration", Value: &one, Pass: true},
		{Expr: "calibration >= 0", Field: "groups[birch/2026-q1].calibration"},
		{Expr: "calibration >= 90", Field: "groups[a[b]].calibration"},
	}
	want := "GATES FAILED: 2 of 2 gates: calibration >= 90 on 3 of 3 groups (atlas/2026-q1, birch/2026-q1, a[b]); " +
		"calibration >= 0 on 1 of 2 groups (birch/2026-q1)"
	if got := gates.Summary(rs); got != want {
		t.Errorf("Summary:\n got %q\nwant %q", got, want)
	}
	report := []gates.Result{{Expr: "agreement.lower >= 80", Field: "agreement_rate.wilson95.lower"}, {Expr: "kappa.linear.lower >= 0.6", Pass: true}}
	if got, want := gates.Summary(report), "GATES FAILED: 1 of 2 gates: agreement.lower >= 80"; got != want {
		t.Errorf("Summary of a report's gates = %q, want %q", got, want)
	}
	if got := gates.Summary(rs[2:3]); got != "" {
		t.Errorf("Summary with every gate passed = %q, want empty", got)
	}
	if got, want := gates.Unmet(rs[:1]).Error(), "1 gate not met: calibration >= 90"; got != want {
		t.Errorf("Unmet = %q, want %q", got, want)
	}
}

// "bias" alone still gates light's direction (bias_direction) now that the
// report has a bias section, and a dotted path reaches the section.
func TestBareBiasIsTheDirectionAndDottedBiasTheSection(t *testing.T) {
	doc := map[string]any{
		"bias_direction": "optimistic",
		"bias":           map[string]any{"runs": 12.0},
	}
	for _, tc := range []struct {
		expr string
		pass bool
	}{{"bias != optimistic", false}, {"bias == optimistic", true}, {"bias.runs >= 10", true}, {"bias.runs >= 20", false}} {
		gs, err := gates.Parse([]string{tc.expr})
		if err != nil {
			t.Fatal(err)
		}
		res := gates.Check(gs, doc)
		if len(res) != 1 || res[0].Pass != tc.pass {
			t.Errorf("%s: got %+v, want pass=%v", tc.expr, res, tc.pass)
		}
	}
}
