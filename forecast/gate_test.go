package forecast

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/evalcal/evalcal/statistician"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// outcomes turns "m9h" style specs into a hit sequence: runs of a count
// and h (hit) or m (miss), e.g. "1m9h" is one miss then nine hits.
func outcomes(t *testing.T, spec string) []bool {
	t.Helper()
	var out []bool
	n := 0
	for _, r := range spec {
		switch {
		case r >= '0' && r <= '9':
			n = n*10 + int(r-'0')
		case r == 'h' || r == 'm':
			for i := 0; i < n; i++ {
				out = append(out, r == 'h')
			}
			n = 0
		default:
			t.Fatalf("bad spec %q", spec)
		}
	}
	return out
}

// gateCase is one candidate "c" in layer task with the given state and
// outcomes (seq 1, 2, ...), plus extra shadow candidates in the same
// layer so that k = 1 + extra.
func gateCase(t *testing.T, state, spec string, extra int) GateDecision {
	t.Helper()
	in := GateInput{Candidates: []GateCandidate{{Candidate: "c", Layer: "task", Evidence: "none", State: state}}}
	for i := 0; i < extra; i++ {
		in.Candidates = append(in.Candidates, GateCandidate{Candidate: fmt.Sprintf("other%02d", i), Layer: "task", Evidence: "none", State: "shadow"})
	}
	for i, hit := range outcomes(t, spec) {
		in.Events = append(in.Events, GateEvent{Candidate: "c", Layer: "task", Seq: int64(i + 1), Hit: hit})
	}
	rep, err := DecideGate(in, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range rep.Decisions {
		if d.Candidate == "c" {
			return d
		}
	}
	t.Fatal("no decision for c")
	return GateDecision{}
}

func TestDecideGateReferenceCasesAtBaselineHalf(t *testing.T) {
	// Decisions from issue 4. Wilson bounds from statsmodels 0.13.5
	// proportion_confint(hits, n, alpha, method="wilson") with alpha chosen
	// so that z = 1.96 (k = 1) or z = BonferroniZ(1.96, 20) = 3.023367.
	ip := func(i int) *int { return &i }
	fp := func(x float64) *float64 { return &x }
	iv := func(lo, hi float64) *statistician.Interval { return &statistician.Interval{Lower: lo, Upper: hi} }
	def := Baseline{Rate: 0.5, Source: "default"}
	tests := []struct {
		name  string
		state string
		spec  string
		extra int
		want  GateDecision
	}{
		{"1 miss then 9 hits injects at k=1", "shadow", "1m9h", 0, GateDecision{
			Decision: "inject", NewState: "injected", N: 10, Hits: 9, K: 1, Z: 1.96,
			Wilson: iv(0.5958436145024282, 0.9821242504842789), RecentHits: ip(8), RecentLower: fp(0.6755843804891233)}},
		{"1 miss then 9 hits stays shadow at k=20", "shadow", "1m9h", 19, GateDecision{
			Decision: "shadow", NewState: "shadow", N: 10, Hits: 9, K: 20, Z: 3.023366917005903,
			Wilson: iv(0.4270754337861254, 0.9908810746415171), RecentHits: ip(8), RecentLower: fp(0.6755843804891233)}},
		{"injected with 20 hits then 8 misses is demoted, not retired", "injected", "20h8m", 0, GateDecision{
			Decision: "demote", NewState: "shadow", N: 28, Hits: 20, K: 1, Z: 1.96,
			Wilson: iv(0.529403642629825, 0.8474618415167001), RecentHits: ip(0), RecentLower: fp(0)}},
		{"shadow with 20 hits then 8 misses stays shadow", "shadow", "20h8m", 0, GateDecision{
			Decision: "shadow", NewState: "shadow", N: 28, Hits: 20, K: 1, Z: 1.96,
			Wilson: iv(0.529403642629825, 0.8474618415167001), RecentHits: ip(0), RecentLower: fp(0)}},
		{"1 hit and 16 misses retires", "shadow", "1h16m", 0, GateDecision{
			Decision: "retire", NewState: "retired", N: 17, Hits: 1, K: 1, Z: 1.96,
			Wilson: iv(0.01046013064516424, 0.2698254520356279), RecentHits: ip(0), RecentLower: fp(0)}},
		{"6 of 10 stays shadow", "shadow", "6h4m", 0, GateDecision{
			Decision: "shadow", NewState: "shadow", N: 10, Hits: 6, K: 1, Z: 1.96,
			Wilson: iv(0.3126695474501864, 0.8318224187964902), RecentHits: ip(4), RecentLower: fp(0.21521252682444197)}},
		{"3 of 4 stays shadow", "shadow", "3h1m", 0, GateDecision{
			Decision: "shadow", NewState: "shadow", N: 4, Hits: 3, K: 1, Z: 1.96,
			Wilson: iv(0.30063605244263675, 0.9544139373553637)}},
		{"injected kept when last 8 hold 7 hits", "injected", "20h1m7h", 0, GateDecision{
			Decision: "inject", NewState: "injected", N: 28, Hits: 27, K: 1, Z: 1.96,
			Wilson: iv(0.8228742388150133, 0.993667643502458), RecentHits: ip(7), RecentLower: fp(0.5291051942301387)}},
		{"injected demoted when last 8 hold 6 hits", "injected", "20h2m6h", 0, GateDecision{
			Decision: "demote", NewState: "shadow", N: 28, Hits: 26, K: 1, Z: 1.96,
			Wilson: iv(0.7735426157408215, 0.9801883525522291), RecentHits: ip(6), RecentLower: fp(0.4092698791025894)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := gateCase(t, tt.state, tt.spec, tt.extra)
			want := tt.want
			want.Candidate, want.Layer, want.Evidence, want.State, want.Baseline = "c", "task", "none", tt.state, def
			opt := cmpopts.IgnoreFields(GateDecision{}, "Reason")
			if diff := cmp.Diff(want, got, opt, cmpopts.EquateApprox(0, 1e-12)); diff != "" {
				t.Errorf("decision (-want +got):\n%s", diff)
			}
			if got.Reason == "" {
				t.Error("no reason given")
			}
		})
	}
}

func TestDecideGateAdoptsToolRecordAndAuditEvidence(t *testing.T) {
	in := GateInput{
		Candidates: []GateCandidate{
			{Candidate: "a", Layer: "task", Evidence: "tool_record", State: "shadow"},
			{Candidate: "b", Layer: "task", Evidence: "audit", State: "shadow"},
			{Candidate: "c", Layer: "task", Evidence: "none", State: "shadow"},
			{Candidate: "d", Layer: "conversation", Evidence: "none", State: "shadow"},
		},
		Events: []GateEvent{{Candidate: "a", Layer: "task", Seq: 1, Hit: false}},
	}
	rep, err := DecideGate(in, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range rep.Decisions {
		got = append(got, fmt.Sprintf("%s/%s %s k=%d", d.Layer, d.Candidate, d.Decision, d.K))
	}
	// Adopted lessons are not decided by the statistics, so they do not
	// count in k; k is per layer.
	want := []string{"conversation/d shadow k=1", "task/a adopt k=0", "task/b adopt k=0", "task/c shadow k=1"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("decisions (-want +got):\n%s", diff)
	}
}

func TestDecideGateCountsOnlyEventsAfterBirthInSeqOrder(t *testing.T) {
	in := GateInput{Candidates: []GateCandidate{{Candidate: "c", Layer: "task", Evidence: "none", State: "injected", BornSeq: 100}}}
	// Ten misses at or before birth do not count. After birth: 20 hits,
	// then 8 misses, written to the file in reverse so that only seq
	// order puts the misses last.
	for i := 0; i < 10; i++ {
		in.Events = append(in.Events, GateEvent{Candidate: "c", Layer: "task", Seq: int64(91 + i), Hit: false})
	}
	for i := 28; i >= 1; i-- {
		in.Events = append(in.Events, GateEvent{Candidate: "c", Layer: "task", Seq: int64(100 + i), Hit: i <= 20})
	}
	in.Events = append(in.Events, GateEvent{Candidate: "ghost", Layer: "task", Seq: 1, Hit: true})
	rep, err := DecideGate(in, nil)
	if err != nil {
		t.Fatal(err)
	}
	d := rep.Decisions[0]
	if d.N != 28 || d.Hits != 20 || d.Decision != "demote" {
		t.Errorf("n=%d hits=%d decision=%s, want 28, 20, demote", d.N, d.Hits, d.Decision)
	}
	if diff := cmp.Diff([]string{"1 event names no candidate of their layer and were ignored"}, rep.Warnings); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
}

func TestLayerBaselineNeedsEightHistoryRecords(t *testing.T) {
	var hist []GateHistory
	for i := 0; i < 7; i++ {
		hist = append(hist, GateHistory{Layer: "task", HighRisk: i < 2})
	}
	hist = append(hist, GateHistory{Layer: "conversation", HighRisk: true})
	if got, want := LayerBaseline(hist, "task"), (Baseline{Rate: 0.5, Source: "default", Records: 7, HighRisk: 2}); got != want {
		t.Errorf("7 records: %+v, want %+v", got, want)
	}
	hist = append(hist, GateHistory{Layer: "task", HighRisk: false})
	if got, want := LayerBaseline(hist, "task"), (Baseline{Rate: 0.25, Source: "history", Records: 8, HighRisk: 2}); got != want {
		t.Errorf("8 records: %+v, want %+v", got, want)
	}
}

func TestDecideGateUsesHistoryBaseline(t *testing.T) {
	// 6 of 10 at baseline 0.25 (2 of 8 history records): Wilson lower
	// 0.3127 > 0.25, so the last 8 decide (bounds from statsmodels).
	// "6h4m": last 8 hold 4 hits, lower 0.2152 <= 0.25 -> shadow.
	// "4m6h": last 8 hold 6 hits, lower 0.4093 > 0.25 -> inject.
	var hist []GateHistory
	for i := 0; i < 8; i++ {
		hist = append(hist, GateHistory{Layer: "task", HighRisk: i < 2})
	}
	for spec, want := range map[string]string{"6h4m": "shadow", "4m6h": "inject"} {
		in := GateInput{Candidates: []GateCandidate{{Candidate: "c", Layer: "task", Evidence: "none", State: "shadow"}}}
		for i, hit := range outcomes(t, spec) {
			in.Events = append(in.Events, GateEvent{Candidate: "c", Layer: "task", Seq: int64(i + 1), Hit: hit})
		}
		rep, err := DecideGate(in, hist)
		if err != nil {
			t.Fatal(err)
		}
		if d := rep.Decisions[0]; d.Decision != want || d.Baseline.Rate != 0.25 {
			t.Errorf("%s at baseline 0.25: %s (baseline %v), want %s", spec, d.Decision, d.Baseline.Rate, want)
		}
	}
}

func TestReadGateEventsReportsBadLinesByField(t *testing.T) {
	src := strings.Join([]string{
		`{"type":"candidate","candidate":"c","layer":"task","born_seq":3,"evidence":"none","state":"injected"}`,
		`{"candidate":"c","layer":"task","seq":4,"hit":true}`,
		`{"type":"candidate","candidate":"c","layer":"task","born_seq":3,"evidence":"none"}`,
		`{"type":"candidate","candidate":"d","layer":"task","evidence":"none"}`,
		`{"type":"candidate","candidate":"e","layer":"task","evidence":"hunch","born_seq":1}`,
		`{"candidate":"c","layer":"chat","seq":5,"hit":true}`,
		`{"candidate":"c","layer":"task","seq":5.5,"hit":true}`,
		`{"candidate":"c","layer":"task","seq":6}`,
		`{"type":"note","candidate":"c","layer":"task"}`,
		`{"type":"candidate","candidate":"f","layer":"task","evidence":"audit"}`,
		`oops`,
	}, "\n")
	in, bad, err := ReadGateEvents(context.Background(), strings.NewReader(src), "events.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, b := range bad {
		got = append(got, fmt.Sprintf("%d:%s", b.Line, b.Field))
	}
	want := []string{"3:candidate", "4:born_seq", "5:evidence", "6:layer", "7:seq", "8:hit", "9:type", "11:line"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("bad lines (-want +got):\n%s", diff)
	}
	if len(in.Candidates) != 2 || len(in.Events) != 1 || in.Candidates[0].State != "injected" || in.Candidates[1].State != "shadow" {
		t.Errorf("input = %+v", in)
	}
}

func TestReadGateHistory(t *testing.T) {
	hs, bad, err := ReadGateHistory(context.Background(), strings.NewReader(`{"layer":"task","high_risk":true}
{"layer":"task"}
{"layer":"conversation","high_risk":false}
`), "h")
	if err != nil {
		t.Fatal(err)
	}
	if len(hs) != 2 || len(bad) != 1 || bad[0].Field != "high_risk" || bad[0].Line != 2 {
		t.Errorf("history %+v, bad %+v", hs, bad)
	}
}

func FuzzParseEvents(f *testing.F) {
	f.Add([]byte(`{"type":"candidate","candidate":"c","layer":"task","born_seq":3,"evidence":"none","state":"shadow"}`))
	f.Add([]byte(`{"candidate":"c","layer":"conversation","seq":4,"hit":true}`))
	f.Add([]byte(`{"candidate":"c","layer":"task","seq":99999999999999999999,"hit":1}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		c, e, err := ParseGateLine(line)
		if err != nil {
			if b := BadLineOf("f", 1, err); b.Field == "" || b.Error == "" {
				t.Fatalf("bad line without field or message: %+v", b)
			}
			return
		}
		if (c == nil) == (e == nil) {
			t.Fatalf("want exactly one of candidate and event, got %v %v", c, e)
		}
		in := GateInput{}
		if c != nil {
			in.Candidates = append(in.Candidates, *c)
		} else {
			in.Events = append(in.Events, *e)
		}
		if _, err := DecideGate(in, nil); err != nil {
			t.Fatal(err)
		}
	})
}
