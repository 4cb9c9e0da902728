package forecast

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestSealV2OfMatchesPythonHashlib(t *testing.T) {
	// Reference seals from testdata/calls/seal_reference.py (Python 3.11
	// hashlib.sha256 over name "=" len ":" value "\n" per field; run
	// `python3 seal_reference.py` in testdata/calls).
	tests := []struct {
		f    SealFields
		want string
	}{
		{SealFields{ID: "c1", Agent: "alpha", Season: "s1", Decider: "llm", Action: "buy", Pool: "ETH",
			DecidedAt: "2026-01-01T00:00:00Z", Confidence: "0.7", HorizonHours: "24", ReferencePrice: "100", Refused: "false"},
			"v2:1eb6539124779e1f10a2242b12ad7e37134f9f0239c2e186784c2f4bb49795f8"},
		{SealFields{ID: "c1", Agent: "alpha", Season: "s1", Decider: "protective", Action: "buy", Pool: "ETH",
			DecidedAt: "2026-01-01T00:00:00Z", Confidence: "0.7", HorizonHours: "24", ReferencePrice: "100", Refused: "false"},
			"v2:916549f8cad830c20e53ef7c219948156be038a4cc6e71b18378277047bf76df"},
		{SealFields{ID: "c\n2", Agent: "\u00e9quipe", Decider: "system", Action: "hold", DecidedAt: "2026-01-01T00:00:00Z"},
			"v2:855acd256e7faf1b6b1bcb960784f8f14c62c2018683c801daf760d9047b4b80"},
	}
	for _, tt := range tests {
		if got := SealV2Of(tt.f); got != tt.want {
			t.Errorf("SealV2Of(%+v) = %s, want %s", tt.f, got, tt.want)
		}
	}
}

func TestParseCallChecksV2SealOverEveryDecidingField(t *testing.T) {
	// The seal of callJSON's default call, as sealed by the engine.
	seal := SealV2Of(SealFields{ID: "c1", Agent: "alpha", Season: "s1", Decider: "llm", Action: "buy", Pool: "ETH",
		DecidedAt: t0.Format(time.RFC3339), Confidence: "0.7", HorizonHours: "24", ReferencePrice: "100", Refused: "false"})
	tests := []struct {
		name string
		over map[string]any
		want SealStatus
	}{
		{"as sealed", nil, SealValid},
		{"decider relabelled", map[string]any{"decider": "protective"}, SealTampered},
		{"pool changed", map[string]any{"pool": "BTC"}, SealTampered},
		{"season changed", map[string]any{"season": "s2"}, SealTampered},
		{"refused flipped", map[string]any{"refused": true}, SealTampered},
		{"refused dropped", map[string]any{"refused": nil}, SealTampered},
		{"confidence restated", map[string]any{"confidence": 0.9}, SealTampered},
		{"unsealed field added", map[string]any{"note": "anything"}, SealValid},
		{"unknown seal version", map[string]any{"seal": "v3:" + strings.Repeat("0", 64)}, SealTampered},
	}
	for _, tt := range tests {
		over := map[string]any{"seal": seal}
		for k, v := range tt.over {
			over[k] = v
		}
		c := mustParseCall(t, callJSON(t, over))
		if c.Seal != tt.want {
			t.Errorf("%s: seal %v, want %v", tt.name, c.Seal, tt.want)
		}
		wantVersion := 2
		if strings.HasPrefix(over["seal"].(string), "v3:") {
			wantVersion = -1
		}
		if c.SealVersion != wantVersion {
			t.Errorf("%s: seal version %d, want %d", tt.name, c.SealVersion, wantVersion)
		}
	}
}

func TestRelabelledCallsAreCaughtByV2SealsOnly(t *testing.T) {
	// testdata/calls/relabel.jsonl (make_examples.py): six losing buys
	// of agent cora edited after sealing. r1 (version 1, relabelled
	// protective) still matches its seal, so it is silently ignored: only
	// CheckSeals (calls --require-seals) rejects it for its version.
	// r2-r5 (version 2; decider, pool, season, refused edited) are
	// tampered; r6 is untouched and counts (a wrong call).
	rep, err := ResolveCallsFile(context.Background(), "../testdata/calls/relabel.jsonl", mustReadPrices(t, "../testdata/calls/prices.csv"),
		CallOptions{AsOf: time.Date(2026, 3, 10, 0, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	var tampered []string
	for _, r := range rep.Tampered {
		tampered = append(tampered, r.ID+" "+r.SealVersion)
	}
	if diff := cmp.Diff([]string{"r2 v2", "r3 v2", "r4 v2", "r5 v2"}, tampered); diff != "" {
		t.Errorf("tampered (-want +got):\n%s", diff)
	}
	want := []GroupScore{{Agent: "cora", Season: "2026-q1", Counted: 1, Ignored: 1, Resolved: 1, Wrong: 1, SealedV2: 1,
		Reason: "1 resolved call; calibration needs at least 5"}}
	if diff := cmp.Diff(want, rep.Groups, cmpopts.IgnoreUnexported(GroupScore{})); diff != "" {
		t.Errorf("groups (-want +got):\n%s", diff)
	}
	if rep.SealedV1 != 1 || rep.SealedV2 != 1 {
		t.Errorf("sealed v1 %d v2 %d, want 1 and 1", rep.SealedV1, rep.SealedV2)
	}
	if err := rep.CheckSeals(); !errors.Is(err, ErrSealsRequired) || !strings.Contains(err.Error(), "1 with a version 1 seal") {
		t.Errorf("CheckSeals: %v", err)
	}
}

func TestExampleCallsVerifyWithBothSealVersions(t *testing.T) {
	// calls.jsonl carries version 2 seals and calls_v1.jsonl the same
	// calls with version 1 seals (as before version 2, a8 and a9
	// unsealed): the counts are the same, the seal versions differ, and
	// the tampered a12 is caught by both.
	prices := mustReadPrices(t, "../testdata/calls/prices.csv")
	asOf := time.Date(2026, 3, 10, 0, 0, 0, 0, time.UTC)
	v2, err := ResolveCallsFile(context.Background(), "../testdata/calls/calls.jsonl", prices, CallOptions{AsOf: asOf})
	if err != nil {
		t.Fatal(err)
	}
	v1, err := ResolveCallsFile(context.Background(), "../testdata/calls/calls_v1.jsonl", prices, CallOptions{AsOf: asOf})
	if err != nil {
		t.Fatal(err)
	}
	ignoreSeals := cmpopts.IgnoreFields(GroupScore{}, "SealedV1", "SealedV2", "Unsealed")
	if diff := cmp.Diff(v1.Groups, v2.Groups, ignoreSeals, cmpopts.IgnoreUnexported(GroupScore{})); diff != "" {
		t.Errorf("groups differ between seal versions (-v1 +v2):\n%s", diff)
	}
	atlas := func(r CallReport) [3]int { g := r.Groups[0]; return [3]int{g.SealedV2, g.SealedV1, g.Unsealed} }
	if got := atlas(v2); got != [3]int{9, 0, 0} {
		t.Errorf("atlas v2 file: sealed v2, v1, unsealed = %v, want 9 0 0", got)
	}
	if got := atlas(v1); got != [3]int{0, 9, 0} {
		t.Errorf("atlas v1 file: sealed v2, v1, unsealed = %v, want 0 9 0", got)
	}
	if len(v2.Tampered) != 1 || v2.Tampered[0].SealVersion != "v2" || len(v1.Tampered) != 1 || v1.Tampered[0].SealVersion != "v1" {
		t.Errorf("tampered %+v and %+v, want a12 in each", v2.Tampered, v1.Tampered)
	}
	if v2.SealedV2 != 11 || v2.UnsealedIgnored != 0 || v1.SealedV1 != 9 || v1.UnsealedIgnored != 2 {
		t.Errorf("v2 file: %d v2 seals, %d unsealed ignored; v1 file: %d v1 seals, %d unsealed ignored; want 11, 0, 9, 2",
			v2.SealedV2, v2.UnsealedIgnored, v1.SealedV1, v1.UnsealedIgnored)
	}
	// The first eleven calls of the version 2 file (atlas, without the
	// tampered a12) pass CheckSeals; those of the version 1 file do not.
	for file, wantOK := range map[string]bool{"../testdata/calls/calls.jsonl": true, "../testdata/calls/calls_v1.jsonl": false} {
		lines := strings.SplitAfter(readFile(t, file), "\n")[:11]
		rep, err := ResolveCalls(context.Background(), strings.NewReader(strings.Join(lines, "")), prices, CallOptions{AsOf: asOf})
		if err != nil {
			t.Fatal(err)
		}
		if err := rep.CheckSeals(); (err == nil) != wantOK {
			t.Errorf("%s, first 11 calls: CheckSeals = %v", file, err)
		}
	}
}
