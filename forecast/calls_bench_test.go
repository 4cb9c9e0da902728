package forecast

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"
)

// lineReader streams generated lines without holding the whole input.
type lineReader struct {
	n, i int
	line func(i int, buf []byte) []byte
	buf  []byte
	off  int
}

func (r *lineReader) Read(p []byte) (int, error) {
	total := 0
	for len(p) > 0 {
		if r.off == len(r.buf) {
			if r.i == r.n {
				if total == 0 {
					return 0, io.EOF
				}
				return total, nil
			}
			r.buf = r.line(r.i, r.buf[:0])
			r.off = 0
			r.i++
		}
		k := copy(p, r.buf[r.off:])
		r.off += k
		p = p[k:]
		total += k
	}
	return total, nil
}

// benchPrices streams n CSV prices over pools pools, one a minute per
// pool, in time order.
func benchPrices(n, pools int) io.Reader {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	rng := rand.New(rand.NewPCG(1, 2))
	return &lineReader{n: n + 1, line: func(i int, b []byte) []byte {
		if i == 0 {
			return append(b, "pool,ts,price\n"...)
		}
		i--
		b = append(b, 'P')
		b = strconv.AppendInt(b, int64(i%pools), 10)
		b = append(b, ',')
		b = start.Add(time.Duration(i/pools)*time.Minute).AppendFormat(b, time.RFC3339)
		b = append(b, ',')
		b = strconv.AppendFloat(b, 90+20*rng.Float64(), 'f', 4, 64)
		return append(b, '\n')
	}}
}

// benchCalls streams n counted calls on random pools, decided within
// the span the prices cover.
func benchCalls(n, pools int, span time.Duration) io.Reader {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	rng := rand.New(rand.NewPCG(3, 4))
	return &lineReader{n: n, line: func(i int, b []byte) []byte {
		at := start.Add(time.Duration(rng.Int64N(int64(span))))
		return fmt.Appendf(b, `{"id":"c%d","agent":"a%d","season":"s1","decider":"llm","action":"buy","confidence":0.%d,"horizon_hours":%d,"reference_price":100,"decided_at":"%s","pool":"P%d"}`+"\n",
			i, i%10, 5+rng.IntN(5), 1+rng.IntN(48), at.Format(time.RFC3339), rng.IntN(pools))
	}}
}

// BenchmarkResolveCalls1Mx10M reads 10 million CSV prices (1,000 pools,
// one a minute) and streams 1 million calls against them: the scale issue
// 4 asks for, with the calls parsed on one worker and on every core
// (issue 12 item 3). Skipped with -short. Run with -benchtime=1x.
func BenchmarkResolveCalls1Mx10M(b *testing.B) {
	if testing.Short() {
		b.Skip("1M calls x 10M prices; skipped with -short")
	}
	const nPrices, nCalls, pools = 10_000_000, 1_000_000, 1000
	span := time.Duration(nPrices/pools) * time.Minute
	ctx := context.Background()
	t0 := time.Now()
	prices, bad, err := ReadPrices(ctx, benchPrices(nPrices, pools), "prices.csv")
	if err != nil || len(bad) > 0 || prices.Len() != nPrices {
		b.Fatalf("prices: %v, %d bad, %d read", err, len(bad), prices.Len())
	}
	b.Logf("10M prices read in %v", time.Since(t0).Round(time.Millisecond))
	for _, workers := range []int{1, 0} {
		name := "workers=all"
		if workers == 1 {
			name = "workers=1"
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				rep, err := ResolveCalls(ctx, benchCalls(nCalls, pools, span), prices,
					CallOptions{AsOf: time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC), File: "calls.jsonl", Workers: workers})
				if err != nil || len(rep.BadLines) > 0 {
					b.Fatalf("calls: %v, %d bad", err, len(rep.BadLines))
				}
			}
		})
	}
}

// BenchmarkResolveCall is the cost of resolving one call (binary search
// in a pool of 10,000 prices), without parsing.
func BenchmarkResolveCall(b *testing.B) {
	prices, _, err := ReadPrices(context.Background(), benchPrices(100_000, 10), "p")
	if err != nil {
		b.Fatal(err)
	}
	c := Call{Action: "buy", Decider: "llm", Pool: "P3", HorizonHours: 5, ReferencePrice: 100,
		DecidedAt: time.Date(2026, 1, 3, 0, 0, 0, 0, time.UTC), HasConfidence: true, HasHorizon: true, HasReferencePrice: true}
	asOf := time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)
	for b.Loop() {
		if s, _ := ResolveCall(c, prices, asOf); s != Right && s != Wrong {
			b.Fatal(s)
		}
	}
}
