package forecast

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// The seal covers the sealed fields as written: reference_price 100.0
// and 100 give different seals.
func ExampleSealOf() {
	fmt.Println(SealOf("c1", "alpha", "2026-01-01T00:00:00Z", "buy", "0.7", "24", "100.0"))
	fmt.Println(SealOf("c1", "alpha", "2026-01-01T00:00:00Z", "buy", "0.7", "24", "100"))
	// Output:
	// 1ccb75050109f4f585fa8ef705fbe6a389a5ca796a2277e1097526a01f99567e
	// 8e4770879fa50d41c8d2a8b400f8add10e836a589ff6ecc03d9258ab8a0758a6
}

// A buy resolved by the first price in [due, due + 2h): 101 at exactly
// due is above the reference 100, so the call is right.
func ExampleResolveCalls() {
	prices, _, _ := ReadPrices(context.Background(), strings.NewReader("pool,ts,price\nETH,2026-01-02T00:00:00Z,101\n"), "prices.csv")
	calls := `{"id":"c1","agent":"alpha","season":"s1","decider":"llm","action":"buy","confidence":0.7,"horizon_hours":24,"reference_price":100,"decided_at":"2026-01-01T00:00:00Z","pool":"ETH"}`
	rep, _ := ResolveCalls(context.Background(), strings.NewReader(calls), prices,
		CallOptions{AsOf: time.Date(2026, 1, 3, 0, 0, 0, 0, time.UTC), File: "calls.jsonl"})
	g := rep.Groups[0]
	fmt.Println(g.Agent, g.Counted, g.Right, g.Reason)
	// Output:
	// alpha 1 1 1 resolved call; calibration needs at least 5
}
