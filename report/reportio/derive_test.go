package reportio

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/evalcal/evalcal/advisor"
)

// A report written before recommendations_note existed reads as a new
// one: ParseReport fills the note once, by report.Report.Derive (the
// function calibrate.Fill builds it with), so the renderers only print.
func TestParseReportFillsTheRecommendationsNoteOfAnOlderReport(t *testing.T) {
	var recs []any
	for _, rec := range []advisor.Recommendation{
		{Priority: 1, Rule: "threshold", Target: "cuts", Addresses: []string{}, ExpectedImpact: advisor.Impact{CurrentPercent: 70, AgreementPercent: 80, GainPoints: 10, Basis: advisor.BasisCrossValidated}},
		{Priority: 2, Rule: "cluster", Target: "check", Addresses: []string{}, ExpectedImpact: advisor.Impact{CurrentPercent: 70, AgreementPercent: 100, GainPoints: 30, Basis: advisor.BasisResolved}},
	} {
		b, err := json.Marshal(rec)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		recs = append(recs, m)
	}
	for _, tc := range []struct {
		name, note, want string
	}{
		{"absent", "", "priority 1 carries a tested estimate (measured on held-out runs or counts); priority 2 carries an upper bound"},
		{"present", "as written", "as written"},
	} {
		data := editedReport(t, func(m map[string]any) {
			m["recommendations"] = recs
			delete(m, "recommendations_note")
			if tc.note != "" {
				m["recommendations_note"] = tc.note
			}
		})
		r, err := ParseReport(data)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if !strings.Contains(r.RecommendationsNote, tc.want) {
			t.Errorf("%s: recommendations_note %q, want it to hold %q", tc.name, r.RecommendationsNote, tc.want)
		}
	}
}

// sample.read_in_part, absent from a report written before it existed,
// is counted from the sampled runs' warnings once the report is read.
func TestParseReportCountsTheRunsReadInPartOfAnOlderReport(t *testing.T) {
	data := editedReport(t, func(m map[string]any) {
		sample := m["sample"].(map[string]any)
		delete(sample, "read_in_part")
		runs := sample["runs"].([]any)
		for _, i := range []int{0, 2} {
			runs[i].(map[string]any)["warnings"] = []any{"vm.log.md: no terminator"}
		}
	})
	r, err := ParseReport(data)
	if err != nil {
		t.Fatal(err)
	}
	if r.Sample.ReadInPart != 2 {
		t.Errorf("sample.read_in_part %d, want 2", r.Sample.ReadInPart)
	}
}
