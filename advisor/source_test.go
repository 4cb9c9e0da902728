package advisor

import (
	"strings"
	"testing"
)

// builtinWords are phrases written for the builtin inspector's structural
// checks; they must never reach an LLM judge or an imported scorer.
var builtinWords = []string{"structural", "planted defects", "truncated logs", "score caps", "near the 40 and 70"}

// lenientOptimistic is a sample where deep finds a recurring flag light
// misses, light scores higher and passes runs deep does not.
func lenientOptimistic() []run {
	var runs []run
	for i := 0; i < 6; i++ {
		runs = append(runs, run{light: "pass", deep: "partial", deepFlags: []string{"placeholder-output"}, drop: 30})
	}
	for i := 0; i < 14; i++ {
		runs = append(runs, run{light: "pass", deep: "pass"})
	}
	return runs
}

func TestAdviceForJudgesAndImportedScorersHasNoBuiltinWords(t *testing.T) {
	all := [][]run{lenientOptimistic()}
	var agree []run
	for i := 0; i < 12; i++ {
		agree = append(agree, run{light: "pass", deep: "pass"})
	}
	all = append(all, agree)
	for _, spec := range []string{"openai:judge-mini", "anthropic:claude", "inspect:logs/x.eval#match", "promptfoo:r.json#contains"} {
		for _, runs := range all {
			cs, st := build(runs)
			recs := Advise(Input{Comparisons: cs, Stats: st, LightSpec: spec, DeepSpec: "openai:judge-large"})
			if len(recs) == 0 {
				t.Fatalf("%s: no advice", spec)
			}
			for _, r := range recs {
				for _, w := range builtinWords {
					if strings.Contains(r.ProposedChange, w) {
						t.Errorf("%s: rule %s says %q: %s", spec, r.Rule, w, r.ProposedChange)
					}
				}
			}
		}
	}
	// The same sample for the builtin inspector keeps its own words: the
	// test above can fail.
	cs, st := build(lenientOptimistic())
	recs := Advise(Input{Comparisons: cs, Stats: st, LightSpec: "builtin", DeepSpec: "builtin"})
	if !strings.Contains(recs[0].ProposedChange+recs[len(recs)-1].ProposedChange, "structural") {
		t.Errorf("builtin advice lost its structural check: %+v", recs)
	}
}

func TestJudgeAdviceNamesThePromptAndImportedAdviceTheScorer(t *testing.T) {
	cs, st := build(lenientOptimistic())
	judge := findRule(Advise(Input{Comparisons: cs, Stats: st, LightSpec: "openai:judge-mini"}), "cluster")
	if judge == nil || !strings.Contains(judge.ProposedChange, "judge prompt") || !strings.Contains(judge.ProposedChange, "openai:judge-mini") {
		t.Errorf("judge cluster advice = %+v, want a criterion in light's judge prompt", judge)
	}
	imp := findRule(Advise(Input{Comparisons: cs, Stats: st, LightSpec: "inspect:x.eval#match"}), "cluster")
	if imp == nil || !strings.Contains(imp.ProposedChange, "light's scorer (inspect:x.eval#match)") {
		t.Errorf("imported cluster advice = %+v, want the scorer named", imp)
	}
}

func TestSourceOfEachSpecKind(t *testing.T) {
	for spec, want := range map[string]Source{
		"builtin": SourceBuiltin, "exec:./judge.sh": SourceScript, "openai:gpt": SourceJudge,
		"anthropic:claude": SourceJudge, "inspect:a.eval#match": SourceImported, "promptfoo:r.json": SourceImported,
		"saved:labels.jsonl": SourceSaved, "": SourceUnknown, "nosuch:x": SourceUnknown,
	} {
		if got := SourceOf(spec); got != want {
			t.Errorf("SourceOf(%q) = %q, want %q", spec, got, want)
		}
	}
}

func TestWithThresholdsWritesTheCutsIntoTheSpec(t *testing.T) {
	c := Cuts{FailBelow: 35, PassAt: 62.5}
	for _, tt := range []struct {
		spec string
		cuts Cuts
		want string
	}{
		{"inspect:x.eval", c, "inspect:x.eval#?pass=0.625,fail=0.35"},
		{"inspect:x.eval#match", c, "inspect:x.eval#match?pass=0.625,fail=0.35"},
		{"inspect:x.eval#match?P=0,pass=0.9", c, "inspect:x.eval#match?P=0,pass=0.625,fail=0.35"},
		{"inspect:x.eval#polite??", c, "inspect:x.eval#polite??pass=0.625,fail=0.35"},
		{"promptfoo:r.json#contains", Cuts{FailBelow: 50, PassAt: 50}, "promptfoo:r.json#contains?pass=0.5"},
		{"promptfoo:r.json#contains", Cuts{FailBelow: 0, PassAt: 100}, "promptfoo:r.json#contains?pass=1,fail=0"},
	} {
		if got := withThresholds(tt.spec, tt.cuts); got != tt.want {
			t.Errorf("withThresholds(%q, %+v) = %q, want %q", tt.spec, tt.cuts, got, tt.want)
		}
	}
}
