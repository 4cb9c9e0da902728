package drift

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

// pairsFrom builds pairs from verdict letters (f, p, P = fail, partial,
// pass), then and now, each with scores 50 then and 50+shift now.
func pairsFrom(then, now string, shift float64) []Pair {
	v := map[byte]string{'f': "fail", 'p': "partial", 'P': "pass"}
	var out []Pair
	for i := range then {
		out = append(out, Pair{RunID: fmt.Sprintf("r%02d", i),
			Then: Observation{Verdict: v[then[i]], RuntimeFidelity: 50, TaskEffectiveness: 50},
			Now:  Observation{Verdict: v[now[i]], RuntimeFidelity: 50 + shift, TaskEffectiveness: 50}})
	}
	return out
}

// TestCompareSideHandWorked: 10 runs, 3 fails turned to passes and one
// partial to fail. Worked by hand: flips 3/10; to pass 3, to not pass 0;
// McNemar p = 2 * 0.5^3 = 0.25; 4 verdict changes; a constant score shift
// of +2 has SD 0 and the interval [2, 2].
func TestCompareSideHandWorked(t *testing.T) {
	r, err := CompareSide(pairsFrom("fffpPPPPpp", "PPPfPPPPpp", 2), DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	f := r.Flips
	if f.Count != 3 || f.ToPass != 3 || f.ToNotPass != 0 || f.VerdictChanges != 4 || f.N != 10 {
		t.Errorf("flips %+v, want 3 of 10, 3 to pass, 0 to not pass, 4 verdict changes", f)
	}
	if f.Rate != 0.3 || f.McNemarP != 0.25 || f.Direction != "more lenient now" {
		t.Errorf("rate %v, p %v, direction %q; want 0.3, 0.25, more lenient now", f.Rate, f.McNemarP, f.Direction)
	}
	if rf := r.ScoreShift.RuntimeFidelity; rf.Mean != 2 || rf.CI.Lower != 2 || rf.CI.Upper != 2 {
		t.Errorf("runtime fidelity shift %+v, want 2 [2, 2]", rf)
	}
	if r.Detected || len(r.Reasons) != 0 {
		t.Errorf("detected %v (%v), want not at p = 0.25", r.Detected, r.Reasons)
	}
	if r.AgreementWithDeep != nil {
		t.Errorf("agreement with deep without deep labels: %+v", r.AgreementWithDeep)
	}
}

// TestCompareSideDetectsSignificantFlips: 8 fails turned to passes of 40
// give p = 2 * 0.5^8 = 0.0078 < 0.05, and the reason says so.
func TestCompareSideDetectsSignificantFlips(t *testing.T) {
	then := strings.Repeat("f", 8) + strings.Repeat("P", 32)
	now := strings.Repeat("P", 40)
	r, err := CompareSide(pairsFrom(then, now, 0), DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if want := 2 * math.Pow(0.5, 8); r.Flips.McNemarP != want || !r.Detected {
		t.Fatalf("p %v detected %v, want %v and detected", r.Flips.McNemarP, r.Detected, want)
	}
	if len(r.Reasons) != 1 || !strings.Contains(r.Reasons[0], "8 to pass, 0 to not pass (McNemar p = 0.00781 < 0.05)") {
		t.Errorf("reasons %q", r.Reasons)
	}
}

// TestCompareSideAgreementDropIsBoundBased: light agreed with deep on all
// 100 runs, now on 70. The drop of 30 points is detected at --max-drop 5
// (the interval's upper bound is far below -5 points) but not at a
// tolerated drop of 90 points; flips are balanced so McNemar says nothing.
func TestCompareSideAgreementDropIsBoundBased(t *testing.T) {
	then := strings.Repeat("P", 50) + strings.Repeat("f", 50)
	now := strings.Repeat("P", 35) + strings.Repeat("f", 15) + strings.Repeat("P", 15) + strings.Repeat("f", 35)
	pairs := pairsFrom(then, now, 0)
	for i := range pairs {
		d := pairs[i].Then
		pairs[i].Deep = &d
	}
	for _, c := range []struct {
		maxDrop float64
		want    bool
	}{{0.05, true}, {0.9, false}} {
		r, err := CompareSide(pairs, Options{Alpha: 0.05, MaxDrop: c.maxDrop})
		if err != nil {
			t.Fatal(err)
		}
		a := r.AgreementWithDeep
		if a == nil || a.Then != 1 || a.Now != 0.7 || a.Table.FirstOnly != 30 || a.Table.Both != 70 {
			t.Fatalf("agreement %+v, want 1 → 0.7 with 70 both and 30 then only", a)
		}
		if a.Fell != c.want || r.Detected != c.want {
			t.Errorf("max drop %v: fell %v detected %v, want %v (interval %+v)", c.maxDrop, a.Fell, r.Detected, c.want, a.Change.CI)
		}
		if r.Flips.McNemarP != 1 {
			t.Errorf("balanced flips: p %v, want 1", r.Flips.McNemarP)
		}
	}
}

// TestCompareSideRefusesBadOptions: alpha outside (0, 1), a tolerated drop
// outside [0, 1) and no pair are errors.
func TestCompareSideRefusesBadOptions(t *testing.T) {
	pairs := pairsFrom("P", "P", 0)
	for _, o := range []Options{{Alpha: 0, MaxDrop: 0.05}, {Alpha: 1, MaxDrop: 0.05}, {Alpha: math.NaN()}, {Alpha: 0.05, MaxDrop: -0.1}, {Alpha: 0.05, MaxDrop: 1}} {
		if _, err := CompareSide(pairs, o); err == nil {
			t.Errorf("options %+v accepted", o)
		}
	}
	if _, err := CompareSide(nil, DefaultOptions()); err == nil {
		t.Error("no pair accepted")
	}
}

// TestBuildTestsEachSideAtHalfAlphaWithTwoSides: with deep inspected
// again, each side is held to alpha/2 (Bonferroni): 6 flips one way give
// p = 2 * 0.5^6 = 0.03125, detected with light alone and not with two
// sides.
func TestBuildTestsEachSideAtHalfAlphaWithTwoSides(t *testing.T) {
	a := &Anchors{Light: Judge{Identity: "l"}, Deep: &Judge{Identity: "d"}}
	light, deep := map[string]Observation{}, map[string]Observation{}
	for i := range 30 {
		then := Observation{Verdict: "pass"}
		if i < 6 {
			then.Verdict = "fail"
		}
		id := fmt.Sprintf("r%02d", i)
		d := Observation{Verdict: "pass"}
		a.Runs = append(a.Runs, AnchorRun{ID: id, ContentHash: "h", Light: then, Deep: &d})
		light[id], deep[id] = Observation{Verdict: "pass"}, d
	}
	a.Hash = AnchorsHash(a.Runs)
	one, err := Build(Input{Anchors: a, LightNow: light, LightJudge: a.Light, Options: Options{Alpha: 0.05, MaxDrop: 0.9}})
	if err != nil {
		t.Fatal(err)
	}
	two, err := Build(Input{Anchors: a, LightNow: light, DeepNow: deep, LightJudge: a.Light, DeepJudge: a.Deep, Options: Options{Alpha: 0.05, MaxDrop: 0.9}})
	if err != nil {
		t.Fatal(err)
	}
	if !one.Detected || two.Detected {
		t.Errorf("detected with light alone %v, with two sides %v; want true, false (p = 0.03125 against 0.05 and 0.025)", one.Detected, two.Detected)
	}
	if !strings.HasPrefix(one.Sentence, "Drift detected: light flipped 6 of 30 runs") {
		t.Errorf("sentence %q", one.Sentence)
	}
}

// TestJudgeChangesNameWhatChanged: a model update, a new base URL, a
// temperature and a prompt edit are each named; an identity alone changes
// only when nothing else explains it.
func TestJudgeChangesNameWhatChanged(t *testing.T) {
	then := Judge{Spec: "openai:gpt-4o", Identity: "openai:gpt-4o@1111", Provider: "openai", BaseURL: "https://api.openai.com/v1",
		Model: "gpt-4o", Parameters: map[string]string{"temperature": "0", "seed": "(none)"}, PromptSHA256: strings.Repeat("a", 64)}
	now := then
	now.Identity, now.BaseURL, now.Parameters = "openai:gpt-4o@2222", "http://localhost:8000/v1", map[string]string{"temperature": "0.7", "seed": "(none)"}
	now.PromptSHA256 = strings.Repeat("b", 64)
	got := strings.Join(then.Changes(now), "; ")
	want := "base_url: https://api.openai.com/v1 → http://localhost:8000/v1; parameters.temperature: 0 → 0.7; prompt_sha256: aaaaaaaaaaaaaaaa → bbbbbbbbbbbbbbbb"
	if got != want {
		t.Errorf("changes:\n got %s\nwant %s", got, want)
	}
	exec := Judge{Spec: "exec:judge.sh", Identity: "exec:aaaa"}
	if got := exec.Changes(Judge{Spec: "exec:judge.sh", Identity: "exec:bbbb"}); len(got) != 1 || got[0] != "identity: exec:aaaa → exec:bbbb" {
		t.Errorf("exec identity change: %q", got)
	}
	if got := then.Changes(then); len(got) != 0 {
		t.Errorf("no change listed %q", got)
	}
}
