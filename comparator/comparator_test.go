package comparator

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/evalcal/evalcal/inspection"
	"github.com/evalcal/evalcal/runner"
)

func insp(verdict string, rf, te float64, flags ...inspection.Flag) inspection.Inspection {
	return inspection.Inspection{RunID: "r1", System: "sys", Verdict: verdict, RuntimeFidelity: rf, TaskEffectiveness: te, Flags: flags}
}

func flag(id, sev, desc string) inspection.Flag {
	return inspection.Flag{ID: id, Severity: sev, Description: desc}
}

func typeOf(c Comparison) string {
	if c.DisagreementType == nil {
		return ""
	}
	return string(*c.DisagreementType)
}

func TestDisagreementTypePrecedence(t *testing.T) {
	tests := []struct {
		name        string
		light, deep inspection.Inspection
		want        string
	}{
		{"identical is agreement", insp("pass", 80, 75), insp("pass", 82, 74), ""},
		{"verdict split wins over flags",
			insp("pass", 80, 75), insp("fail", 30, 20, flag("x", "critical", "bad")), "verdict_split"},
		{"deep-only flag is a false negative even with a light-only flag",
			insp("partial", 60, 60, flag("a", "warning", "A")),
			insp("partial", 60, 60, flag("b", "warning", "B")), "false_negative"},
		{"same flag other severity",
			insp("partial", 60, 60, flag("a", "warning", "A")),
			insp("partial", 60, 60, flag("a", "critical", "A")), "severity_mismatch"},
		{"light-only flag is a false positive",
			insp("partial", 60, 60, flag("a", "warning", "A")),
			insp("partial", 60, 60), "false_positive"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Compare([]runner.Pair{{Light: tt.light, Deep: tt.deep}})[0]
			if got := typeOf(c); got != tt.want {
				t.Errorf("disagreement type = %q, want %q (notes %q)", got, tt.want, c.Notes)
			}
		})
	}
}

func TestFlagsMatchByIDThenByFoldedDescription(t *testing.T) {
	light := []inspection.Flag{
		flag("missing-binding", "warning", "one thing"),
		flag("", "info", "Output  Looks   EMPTY"),
		flag("only-light", "info", "x"),
	}
	deep := []inspection.Flag{
		flag("missing-binding", "critical", "another wording"),
		flag("empty-output", "info", "output looks empty"),
		flag("only-deep", "warning", "y"),
	}
	got := overlap(light, deep)
	want := FlagOverlap{
		Both:               []string{"missing-binding", "output looks empty"},
		LightOnly:          []string{"only-light"},
		DeepOnly:           []string{"only-deep"},
		SeverityMismatches: []string{"missing-binding: light warning, deep critical"},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("overlap (-want +got):\n%s", d)
	}
}

func TestDifferentIDsNeverMatchOnDescription(t *testing.T) {
	got := overlap([]inspection.Flag{flag("a", "info", "same")}, []inspection.Flag{flag("b", "info", "same")})
	if len(got.Both) != 0 || len(got.LightOnly) != 1 || len(got.DeepOnly) != 1 {
		t.Errorf("flags with different ids matched: %+v", got)
	}
}

func TestDeltasAreDeepMinusLightAndNoiseNeedsBothUnderTen(t *testing.T) {
	c := Compare([]runner.Pair{{Light: insp("pass", 85, 80), Deep: insp("pass", 76, 71)}})[0]
	if c.RuntimeFidelityDelta != -9 || c.TaskEffectivenessDelta != -9 {
		t.Fatalf("deltas = %v, %v; want -9, -9", c.RuntimeFidelityDelta, c.TaskEffectivenessDelta)
	}
	if !c.MinorNoise {
		t.Errorf("9-point deltas with matching verdicts should be minor noise")
	}
	c = Compare([]runner.Pair{{Light: insp("pass", 85, 80), Deep: insp("pass", 75, 79)}})[0]
	if c.MinorNoise {
		t.Errorf("a 10-point delta is not minor noise")
	}
	c = Compare([]runner.Pair{{Light: insp("pass", 85, 80), Deep: insp("partial", 84, 80)}})[0]
	if c.MinorNoise || typeOf(c) != "verdict_split" {
		t.Errorf("a verdict split is a disagreement regardless of score proximity: %+v", c)
	}
}

func TestCompareSortsByRunID(t *testing.T) {
	a, b := insp("pass", 80, 80), insp("pass", 80, 80)
	a.RunID, b.RunID = "b", "a"
	got := Compare([]runner.Pair{{Light: a, Deep: a}, {Light: b, Deep: b}})
	if got[0].RunID != "a" || got[1].RunID != "b" {
		t.Errorf("order = %s, %s", got[0].RunID, got[1].RunID)
	}
}

// The comparison keeps its run's metadata, so that slices can be
// recomputed from the comparisons alone (merge).
func TestCompareKeepsTheRunsMetadata(t *testing.T) {
	a, b := insp("pass", 80, 80), insp("fail", 20, 20)
	a.RunID, b.RunID = "a", "b"
	md := inspection.Run{ID: "a", Metadata: inspection.Metadata{"task": "t1"}}
	got := Compare([]runner.Pair{{Run: md, Light: a, Deep: a}, {Light: b, Deep: b}})
	if got[0].Metadata["task"] != "t1" || got[1].Metadata != nil {
		t.Errorf("metadata %v, %v", got[0].Metadata, got[1].Metadata)
	}
}

// A prompt cut at one depth only is about the judge's input, not the run:
// no false negative.
func TestCompareIgnoresTheInputTruncatedFlag(t *testing.T) {
	light := inspection.Inspection{RunID: "r", Verdict: inspection.VerdictPass, RuntimeFidelity: 80, TaskEffectiveness: 80}
	deep := light
	deep.Flags = []inspection.Flag{{ID: inspection.FlagInputTruncated, Severity: inspection.SeverityInfo, Description: "cut"}}
	c := Compare([]runner.Pair{{Light: light, Deep: deep}})[0]
	if c.DisagreementType != nil || len(c.FlagOverlap.DeepOnly) != 0 {
		t.Errorf("disagreement %v, deep only %v", c.DisagreementType, c.FlagOverlap.DeepOnly)
	}
}
