package forecast

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// checkTimestampAgainstTimeParse fails when parseTimestamp's fast path
// disagrees with time.Parse(time.RFC3339) plus the year range.
func checkTimestampAgainstTimeParse(t *testing.T, s string) {
	t.Helper()
	ref, refErr := time.Parse(time.RFC3339, s)
	if refErr == nil && (ref.Before(minTimestamp) || !ref.Before(maxTimestamp)) {
		refErr = fmt.Errorf("out of range")
	}
	got, err := parseTimestamp("ts", s)
	gotB, errB := parseTimestampBytes("ts", []byte(s))
	if (err == nil) != (refErr == nil) || (errB == nil) != (refErr == nil) {
		t.Fatalf("%q: parseTimestamp error %v, bytes %v; time.Parse %v", s, err, errB, refErr)
	}
	if err == nil && (!got.Equal(ref) || !gotB.Equal(ref) || got.Location() != time.UTC) {
		t.Fatalf("%q: got %v and %v, time.Parse %v", s, got, gotB, ref)
	}
	if fast, ok := parseUTCSeconds(s); ok && (refErr != nil || !fast.Equal(ref)) {
		t.Fatalf("%q: fast path %v, time.Parse %v (%v)", s, fast, ref, refErr)
	}
}

func TestParseTimestampFastPathMatchesTimeParse(t *testing.T) {
	edges := []string{
		"2026-01-01T00:00:00Z", "2024-02-29T23:59:59Z", "2023-02-29T00:00:00Z", "2026-04-31T00:00:00Z",
		"2026-13-01T00:00:00Z", "2026-00-10T00:00:00Z", "2026-01-00T00:00:00Z", "2026-01-01T24:00:00Z",
		"2026-01-01T23:60:00Z", "2026-01-01T23:59:60Z", "1700-01-01T00:00:00Z", "1699-12-31T23:59:59Z",
		"2199-12-31T23:59:59Z", "2200-01-01T00:00:00Z", "2026-01-01t00:00:00Z", "2026-01-01T00:00:00z",
		"2026-01-01T00:00:00+00:00", "2026-01-01T00:00:00.5Z", "2026-1-01T00:00:00Z", "+026-01-01T00:00:00Z",
		"2026-01-01T0a:00:00Z", "1900-02-29T00:00:00Z", "2000-02-29T00:00:00Z", "2026-01-01 00:00:00Z",
	}
	for _, s := range edges {
		checkTimestampAgainstTimeParse(t, s)
	}
	rng := rand.New(rand.NewPCG(11, 12))
	for range 200000 {
		b := []byte(fmt.Sprintf("%04d-%02d-%02dT%02d:%02d:%02dZ", 1650+rng.IntN(600), rng.IntN(14), rng.IntN(33), rng.IntN(26), rng.IntN(62), rng.IntN(62)))
		if rng.IntN(10) == 0 {
			b[rng.IntN(len(b))] = byte(rng.IntN(128))
		}
		checkTimestampAgainstTimeParse(t, string(b))
	}
}

func FuzzParseTimestamp(f *testing.F) {
	f.Add("2026-01-01T00:00:00Z")
	f.Add("2024-02-29T23:59:59Z")
	f.Add("2026-01-01T00:00:00+02:00")
	f.Fuzz(func(t *testing.T, s string) {
		checkTimestampAgainstTimeParse(t, s)
	})
}
