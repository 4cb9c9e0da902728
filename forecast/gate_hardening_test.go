package forecast

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestGateRepeatedOutcomeLinesCountOnce(t *testing.T) {
	// Issue 13 item 14: seven hits written four times over must not reach
	// n = 28 and inject. An outcome is (layer, candidate, seq): each
	// repeat is a bad line naming the line it repeats, and n stays 7
	// (under the 8 needed), so the candidate stays in shadow.
	lines := []string{`{"type":"candidate","candidate":"c","layer":"task","born_seq":0,"evidence":"none"}`}
	for range 4 {
		for seq := 1; seq <= 7; seq++ {
			lines = append(lines, fmt.Sprintf(`{"candidate":"c","layer":"task","seq":%d,"hit":true}`, seq))
		}
	}
	in, bad, err := ReadGateEvents(context.Background(), strings.NewReader(strings.Join(lines, "\n")), "events.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if len(bad) != 21 || len(in.Events) != 7 {
		t.Fatalf("%d bad lines, %d events; want 21 and 7", len(bad), len(in.Events))
	}
	// Line 9 is the second seq 1 (first on line 2); line 29 the fourth seq 7 (first on line 8).
	for _, b := range []BadLine{bad[0], bad[20]} {
		if b.Field != "seq" || !strings.Contains(b.Error, "already given on line") {
			t.Errorf("bad line %+v", b)
		}
	}
	if bad[0].Line != 9 || !strings.HasSuffix(bad[0].Error, "line 2") || bad[20].Line != 29 || !strings.HasSuffix(bad[20].Error, "line 8") {
		t.Errorf("first and last repeats: %+v, %+v", bad[0], bad[20])
	}
	rep, err := DecideGate(in, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d := rep.Decisions[0]; d.N != 7 || d.Decision != DecisionShadow {
		t.Errorf("n = %d, decision %s; want 7, shadow", d.N, d.Decision)
	}
}

func TestDecideGateIgnoresRepeatedOutcomes(t *testing.T) {
	// Library callers building GateInput by hand get the same rule.
	in := GateInput{Candidates: []GateCandidate{{Candidate: "c", Layer: "task", Evidence: "none", State: "shadow"}}}
	for range 4 {
		for seq := int64(1); seq <= 7; seq++ {
			in.Events = append(in.Events, GateEvent{Candidate: "c", Layer: "task", Seq: seq, Hit: true})
		}
	}
	rep, err := DecideGate(in, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d := rep.Decisions[0]; d.N != 7 || d.Decision != DecisionShadow {
		t.Errorf("n = %d, decision %s; want 7, shadow", d.N, d.Decision)
	}
	want := []string{"21 events repeat the layer, candidate and seq of an earlier one and were ignored"}
	if diff := cmp.Diff(want, rep.Warnings); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
}
