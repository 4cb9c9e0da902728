package drift

import (
	"math"
	"strings"
	"testing"
)

// nightDoc is a drift document of the sample anchors whose light flips
// have McNemar p.
func nightDoc(p float64) *Document {
	a := sampleAnchors()
	return &Document{SchemaVersion: SchemaVersion, Kind: Kind, Anchors: Ref{Hash: a.Hash},
		Judges: JudgeCheck{Light: SideJudges{Now: a.Light}}, Light: SideResult{Flips: Flips{McNemarP: p, N: 2}}}
}

// TestHistorySpendsAlphaOverNights: night k is held to 0.05/(k(k+1)):
// 0.03 on night 1 would cross 0.025 only on night 1; 0.004 crosses on
// night 3 (threshold 0.05/12 = 0.00417) and the series stays detected.
func TestHistorySpendsAlphaOverNights(t *testing.T) {
	tonight := nightDoc(0.5)
	h, err := history(&HistoryInput{Earlier: []*Document{nightDoc(0.03), nightDoc(0.01), nightDoc(0.004)}, Names: []string{"n1", "n2", "n3"}},
		tonight, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if h.Looks != 4 || !h.Detected || h.FirstDetected != 3 {
		t.Fatalf("looks %d detected %v first %d, want 4, true, 3", h.Looks, h.Detected, h.FirstDetected)
	}
	wantThresholds := []float64{0.025, 0.05 / 6, 0.05 / 12, 0.05 / 20}
	for i, n := range h.Nights {
		if math.Abs(n.Threshold-wantThresholds[i]) > 1e-15 {
			t.Errorf("night %d threshold %v, want %v", i+1, n.Threshold, wantThresholds[i])
		}
		if n.Crossed != (i == 2) || n.Detected != (i >= 2) {
			t.Errorf("night %d crossed %v detected %v", i+1, n.Crossed, n.Detected)
		}
	}
	if h.Nights[3].Source != "tonight" || h.Nights[0].Source != "n1" {
		t.Errorf("sources %q, %q", h.Nights[0].Source, h.Nights[3].Source)
	}
}

// TestHistoryNoCrossing: p = 0.03 on night 2 (threshold 0.0083) does not
// cross, though the fixed test alone would alarm.
func TestHistoryNoCrossing(t *testing.T) {
	h, err := history(&HistoryInput{Earlier: []*Document{nightDoc(0.4)}, Names: []string{"n1"}}, nightDoc(0.03), DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if h.Detected || h.FirstDetected != 0 {
		t.Errorf("detected %v at %d, want none", h.Detected, h.FirstDetected)
	}
}

// TestSameSeriesNeedsTheSameAnchorsAndJudges: another anchor set, another
// light judge tonight, or deep inspected on one night only is another
// series.
func TestSameSeriesNeedsTheSameAnchorsAndJudges(t *testing.T) {
	tonight := nightDoc(1)
	if !SameSeries(nightDoc(0.2), tonight) {
		t.Error("same anchors and judge: not the same series")
	}
	other := nightDoc(1)
	other.Anchors.Hash = strings.Repeat("0", 64)
	judge := nightDoc(1)
	judge.Judges.Light.Now.Identity = "openai:gpt-4o@1234"
	deep := nightDoc(1)
	deep.Judges.Deep, deep.Deep = &SideJudges{}, &SideResult{}
	for name, d := range map[string]*Document{"anchors": other, "judge": judge, "deep": deep} {
		if SameSeries(d, tonight) {
			t.Errorf("%s differs: still the same series", name)
		}
	}
}

// TestDocumentRoundTrip: a built document encodes, reads back and is a
// night of its own series; another kind of document is refused.
func TestDocumentRoundTrip(t *testing.T) {
	a := sampleAnchors()
	now := map[string]Observation{"a": {Verdict: "fail", RuntimeFidelity: 20, TaskEffectiveness: 20}, "b": a.Runs[1].Light}
	doc, err := Build(Input{Anchors: a, AnchorFile: "anchors.yaml", LightNow: now, LightJudge: a.Light, Options: DefaultOptions(),
		History: &HistoryInput{}})
	if err != nil {
		t.Fatal(err)
	}
	data, err := EncodeDocument(doc)
	if err != nil {
		t.Fatal(err)
	}
	back, err := ParseDocument(data, "night.yaml")
	if err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	if !SameSeries(back, doc) || back.Light.Flips.ToNotPass != 1 || back.History.Looks != 1 || !IsDocument(data) {
		t.Errorf("read back %+v", back)
	}
	if _, err := ParseDocument([]byte("kind: evalcal-anchors\nschema_version: 1\n"), "x.yaml"); err == nil || !strings.Contains(err.Error(), `x.yaml: kind: "evalcal-anchors"`) {
		t.Errorf("anchor file read as a drift document: %v", err)
	}
}
