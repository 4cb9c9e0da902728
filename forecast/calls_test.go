package forecast

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// callJSON is a counted buy with the given overrides; a nil value deletes
// the field.
func callJSON(t testing.TB, over map[string]any) string {
	t.Helper()
	m := map[string]any{
		"id": "c1", "agent": "alpha", "season": "s1", "decider": "llm",
		"action": "buy", "confidence": 0.7, "horizon_hours": 24,
		"reference_price": 100, "decided_at": t0.Format(time.RFC3339),
		"pool": "ETH", "refused": false,
	}
	for k, v := range over {
		if v == nil {
			delete(m, k)
		} else {
			m[k] = v
		}
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func mustParseCall(t *testing.T, line string) Call {
	t.Helper()
	c, err := ParseCall([]byte(line))
	if err != nil {
		t.Fatalf("ParseCall(%s): %v", line, err)
	}
	return c
}

func pricesOf(pts ...any) *Prices {
	p := NewPrices()
	for i := 0; i < len(pts); i += 3 {
		p.Add(pts[i].(string), pts[i+1].(time.Time), pts[i+2].(float64))
	}
	p.Sort()
	return p
}

func TestSealOfMatchesPythonHashlib(t *testing.T) {
	// Reference digests from Python 3 hashlib.sha256("\n".join(fields)).
	tests := []struct {
		fields [7]string
		want   string
	}{
		{[7]string{"c1", "alpha", "2026-01-01T00:00:00Z", "buy", "0.7", "24", "100.0"}, "1ccb75050109f4f585fa8ef705fbe6a389a5ca796a2277e1097526a01f99567e"},
		{[7]string{"c1", "alpha", "2026-01-01T00:00:00Z", "buy", "0.7", "24", "100"}, "8e4770879fa50d41c8d2a8b400f8add10e836a589ff6ecc03d9258ab8a0758a6"},
	}
	for _, tt := range tests {
		f := tt.fields
		if got := SealOf(f[0], f[1], f[2], f[3], f[4], f[5], f[6]); got != tt.want {
			t.Errorf("SealOf(%q) = %s, want %s", f, got, tt.want)
		}
	}
}

func TestParseCallSealUsesNumberLiteralsAsWritten(t *testing.T) {
	const seal100dot0 = "1ccb75050109f4f585fa8ef705fbe6a389a5ca796a2277e1097526a01f99567e"
	const base = `{"id":"c1","agent":"alpha","decided_at":"2026-01-01T00:00:00Z","action":"buy","confidence":0.7,"horizon_hours":24,"decider":"llm","pool":"ETH",`
	tests := []struct {
		name string
		line string
		want SealStatus
	}{
		{"literal 100.0 matches", base + `"reference_price":100.0,"seal":"` + seal100dot0 + `"}`, SealValid},
		{"literal 100 is another seal", base + `"reference_price":100,"seal":"` + seal100dot0 + `"}`, SealTampered},
		{"uppercase hex does not match", base + `"reference_price":100.0,"seal":"` + strings.ToUpper(seal100dot0) + `"}`, SealTampered},
		{"restated confidence", strings.Replace(base, "0.7", "0.9", 1) + `"reference_price":100.0,"seal":"` + seal100dot0 + `"}`, SealTampered},
		{"no seal", base + `"reference_price":100.0}`, Unsealed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := mustParseCall(t, tt.line)
			if c.Seal != tt.want {
				t.Errorf("seal status %v, want %v", c.Seal, tt.want)
			}
		})
	}
}

func TestParseCallRejectsBadFieldsByName(t *testing.T) {
	tests := []struct {
		over  map[string]any
		field string
	}{
		{map[string]any{"id": nil}, "id"},
		{map[string]any{"agent": 3}, "agent"},
		{map[string]any{"decider": "oracle"}, "decider"},
		{map[string]any{"action": "short"}, "action"},
		{map[string]any{"decided_at": "yesterday"}, "decided_at"},
		{map[string]any{"confidence": 1.5}, "confidence"},
		{map[string]any{"confidence": "0.7"}, "confidence"},
		{map[string]any{"horizon_hours": 0}, "horizon_hours"},
		{map[string]any{"reference_price": -1}, "reference_price"},
		{map[string]any{"refused": "no"}, "refused"},
		{map[string]any{"pool": nil}, "pool"},
		{map[string]any{"seal": 12}, "seal"},
	}
	for _, tt := range tests {
		_, err := ParseCall([]byte(callJSON(t, tt.over)))
		if got := BadLineOf("f", 1, err); err == nil || got.Field != tt.field {
			t.Errorf("ParseCall with %v: error %v (field %q), want field %q", tt.over, err, got.Field, tt.field)
		}
	}
	if _, err := ParseCall([]byte(`[1,2]`)); err == nil {
		t.Error("ParseCall accepted a JSON array")
	}
}

func TestResolveCallWindowEdges(t *testing.T) {
	c := mustParseCall(t, callJSON(t, nil)) // buy at 100, due t0+24h
	due := t0.Add(24 * time.Hour)
	asOf := due.Add(30 * 24 * time.Hour)
	tests := []struct {
		name   string
		prices *Prices
		want   Status
		price  float64
	}{
		{"price exactly at due resolves", pricesOf("ETH", due, 101.0), Right, 101},
		{"price just before due is ignored", pricesOf("ETH", due.Add(-time.Nanosecond), 101.0), ClosedWithoutOutcome, 0},
		{"price exactly at due+2h is outside", pricesOf("ETH", due.Add(2*time.Hour), 101.0), ClosedWithoutOutcome, 0},
		{"price just inside due+2h", pricesOf("ETH", due.Add(2*time.Hour-time.Second), 99.0), Wrong, 99},
		{"equal to reference is wrong", pricesOf("ETH", due.Add(time.Minute), 100.0), Wrong, 100},
		{"first price in window wins", pricesOf("ETH", due.Add(time.Hour), 105.0, "ETH", due.Add(time.Minute), 95.0), Wrong, 95},
		{"same time: first recorded wins", pricesOf("ETH", due, 95.0, "ETH", due, 105.0), Wrong, 95},
		{"other pool does not count", pricesOf("BTC", due, 101.0), ClosedWithoutOutcome, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, p := ResolveCall(c, tt.prices, asOf)
			if got != tt.want || p.Price != tt.price {
				t.Errorf("ResolveCall = %v at %v, want %v at %v", got, p.Price, tt.want, tt.price)
			}
		})
	}
}

func TestResolveCallSellIsRightOnlyBelowReference(t *testing.T) {
	c := mustParseCall(t, callJSON(t, map[string]any{"action": "sell"}))
	due := c.Due()
	for price, want := range map[float64]Status{99.99: Right, 100: Wrong, 100.01: Wrong} {
		got, _ := ResolveCall(c, pricesOf("ETH", due, price), due.Add(time.Hour))
		if got != want {
			t.Errorf("sell at 100, price %v: %v, want %v", price, got, want)
		}
	}
}

func TestResolveCallPendingUnresolvedAndSevenDayClose(t *testing.T) {
	c := mustParseCall(t, callJSON(t, map[string]any{"horizon_hours": 1.5}))
	due := t0.Add(90 * time.Minute)
	none := NewPrices()
	tests := []struct {
		asOf time.Time
		want Status
	}{
		{t0, Pending},
		{due.Add(2*time.Hour - time.Nanosecond), Pending},
		{due.Add(2 * time.Hour), Unresolved},
		{due.Add(7*24*time.Hour - time.Nanosecond), Unresolved},
		{due.Add(7 * 24 * time.Hour), ClosedWithoutOutcome},
	}
	for _, tt := range tests {
		if got, _ := ResolveCall(c, none, tt.asOf); got != tt.want {
			t.Errorf("as of due%+v: %v, want %v", tt.asOf.Sub(due), got, tt.want)
		}
	}
	// A price recorded after as-of is not known yet: still pending.
	later := pricesOf("ETH", due.Add(time.Hour), 120.0)
	if got, _ := ResolveCall(c, later, due.Add(30*time.Minute)); got != Pending {
		t.Errorf("price after as-of: %v, want pending", got)
	}
	if got, _ := ResolveCall(c, later, due.Add(time.Hour)); got != Right {
		t.Errorf("price at as-of: %v, want right", got)
	}
}

func resolveLines(t *testing.T, prices *Prices, asOf time.Time, lines ...string) CallReport {
	t.Helper()
	rep, err := ResolveCalls(context.Background(), strings.NewReader(strings.Join(lines, "\n")), prices, CallOptions{AsOf: asOf, File: "calls.jsonl"})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func TestResolveCallsCountsOnlyOwnDirectionalCalls(t *testing.T) {
	due := t0.Add(24 * time.Hour)
	prices := pricesOf("ETH", due, 110.0)
	rep := resolveLines(t, prices, due.Add(3*time.Hour),
		callJSON(t, map[string]any{"id": "llm"}),
		callJSON(t, map[string]any{"id": "det", "decider": "deterministic"}),
		callJSON(t, map[string]any{"id": "refused", "refused": true}),
		callJSON(t, map[string]any{"id": "hold", "action": "hold"}),
		callJSON(t, map[string]any{"id": "protective", "decider": "protective", "action": "sell"}),
		callJSON(t, map[string]any{"id": "system", "decider": "system", "action": "hold"}),
		callJSON(t, map[string]any{"id": "noconf", "confidence": nil}),
		callJSON(t, map[string]any{"id": "nohorizon", "horizon_hours": nil}),
		callJSON(t, map[string]any{"id": "noref", "reference_price": nil}),
	)
	want := []GroupScore{{Agent: "alpha", Season: "s1", Counted: 3, Ignored: 6, Refused: 1,
		Resolved: 3, Right: 3, Unsealed: 3, Reason: "3 resolved calls; calibration needs at least 5"}}
	if diff := cmp.Diff(want, rep.Groups, cmpopts.IgnoreUnexported(GroupScore{}), cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("groups (-want +got):\n%s", diff)
	}
	if rep.Unsealed != 3 || rep.UnsealedIgnored != 6 {
		t.Errorf("unsealed = %d counted, %d other, want 3 and 6", rep.Unsealed, rep.UnsealedIgnored)
	}
	rep = resolveLines(t, prices, due.Add(3*time.Hour), callJSON(t, map[string]any{"pool": "ETHX"}), callJSON(t, map[string]any{"id": "2", "pool": "ETHX"}))
	if diff := cmp.Diff([]string{`pool "ETHX" of 2 counted calls has no prices at all`}, rep.Warnings); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
}

func TestResolveCallsBrierMatchesHandWorkedExample(t *testing.T) {
	// Five calls at 0.70, four right and one wrong:
	// Brier = (4 x 0.09 + 0.49)/5 = 0.17, calibration = (1 - 0.17/0.25) x 100 = 32.
	due := t0.Add(24 * time.Hour)
	prices := pricesOf("ETH", due, 110.0, "BTC", due, 90.0)
	var lines []string
	for i := 0; i < 5; i++ {
		pool := "ETH"
		if i == 4 {
			pool = "BTC"
		}
		lines = append(lines, callJSON(t, map[string]any{"id": fmt.Sprint(i), "pool": pool}))
	}
	rep := resolveLines(t, prices, due.Add(3*time.Hour), lines...)
	brier, cal := 0.17, 32.0
	want := []GroupScore{{Agent: "alpha", Season: "s1", Counted: 5, Resolved: 5, Right: 4, Wrong: 1, Unsealed: 5, Brier: &brier, Calibration: &cal}}
	if diff := cmp.Diff(want, rep.Groups, cmpopts.IgnoreUnexported(GroupScore{}), cmpopts.EquateEmpty(), cmpopts.EquateApprox(0, 1e-12)); diff != "" {
		t.Errorf("groups (-want +got):\n%s", diff)
	}
}

func TestResolveCallsGroupsBySeasonAndPassportSumsSeasons(t *testing.T) {
	due := t0.Add(24 * time.Hour)
	prices := pricesOf("ETH", due, 110.0, "BTC", due, 90.0)
	rep := resolveLines(t, prices, due.Add(3*time.Hour),
		callJSON(t, map[string]any{"id": "1", "agent": "zeta", "season": "s2"}),
		callJSON(t, map[string]any{"id": "2", "agent": "zeta", "season": "s1", "pool": "BTC"}),
		callJSON(t, map[string]any{"id": "3", "agent": "alpha", "season": "s1"}),
		callJSON(t, map[string]any{"id": "4", "agent": "zeta", "season": "s1", "decided_at": due.Add(time.Hour).Format(time.RFC3339)}),
	)
	var keys []string
	for _, g := range rep.Groups {
		keys = append(keys, g.Agent+"/"+g.Season)
	}
	if diff := cmp.Diff([]string{"alpha/s1", "zeta/s1", "zeta/s2"}, keys); diff != "" {
		t.Errorf("group order (-want +got):\n%s", diff)
	}
	want := []Passport{{Agent: "alpha", Resolved: 1, Correct: 1}, {Agent: "zeta", Resolved: 2, Correct: 1}}
	if diff := cmp.Diff(want, rep.Passports); diff != "" {
		t.Errorf("passports (-want +got):\n%s", diff)
	}
}

func TestResolveCallsExcludesTamperedAndReportsBadLines(t *testing.T) {
	due := t0.Add(24 * time.Hour)
	prices := pricesOf("ETH", due, 110.0)
	rep := resolveLines(t, prices, due.Add(3*time.Hour),
		callJSON(t, map[string]any{"id": "ok"}),
		callJSON(t, map[string]any{"id": "forged", "seal": strings.Repeat("ab", 32)}),
		`{"id": "x", "agent": "alpha", "decider": "llm", "action": "buy", "decided_at": "soon"}`,
		``,
		`not json`,
		callJSON(t, map[string]any{"id": "ok", "confidence": 0.99}),
	)
	if diff := cmp.Diff([]CallRef{{ID: "forged", Agent: "alpha", File: "calls.jsonl", Line: 2, SealVersion: "v1"}}, rep.Tampered); diff != "" {
		t.Errorf("tampered (-want +got):\n%s", diff)
	}
	if g := rep.Groups[0]; g.Counted != 1 || g.Right != 1 {
		t.Errorf("group counted %d right %d, want the one good call", g.Counted, g.Right)
	}
	var got []string
	for _, b := range rep.BadLines {
		got = append(got, fmt.Sprintf("%s:%d:%s", b.File, b.Line, b.Field))
	}
	if diff := cmp.Diff([]string{"calls.jsonl:3:decided_at", "calls.jsonl:5:line", "calls.jsonl:6:id"}, got); diff != "" {
		t.Errorf("bad lines (-want +got):\n%s", diff)
	}
}

func TestResolveCallsNeedsAsOf(t *testing.T) {
	if _, err := ResolveCalls(context.Background(), strings.NewReader(""), nil, CallOptions{}); err == nil {
		t.Error("ResolveCalls without as-of: no error")
	}
}

func FuzzParseCalls(f *testing.F) {
	f.Add([]byte(`{"id":"c1","agent":"a","decider":"llm","action":"buy","confidence":0.7,"horizon_hours":24,"reference_price":100.0,"decided_at":"2026-01-01T00:00:00Z","pool":"ETH","seal":"00"}`))
	f.Add([]byte(`{"id":"c1","agent":"a","decider":"system","action":"hold","decided_at":"2026-01-01T00:00:00+02:00","season":3}`))
	f.Add([]byte(`{"confidence":1e400}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, line []byte) {
		c, err := ParseCall(line)
		if err != nil {
			if b := BadLineOf("f", 1, err); b.Field == "" || b.Error == "" {
				t.Fatalf("bad line without field or message: %+v", b)
			}
			return
		}
		if c.HasConfidence && (c.Confidence < 0 || c.Confidence > 1) {
			t.Fatalf("confidence %v accepted", c.Confidence)
		}
		if c.Counts() {
			if c.Pool == "" || !(c.HorizonHours > 0) || !(c.ReferencePrice > 0) {
				t.Fatalf("counted call with bad fields: %+v", c)
			}
			_, _ = ResolveCall(c, NewPrices(), c.Due())
		}
	})
}
