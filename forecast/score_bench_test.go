package forecast

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"
)

// benchDistributions are the value distributions of issue 12's benchmark:
// confidences written to 2 decimals, to 4, and as the shortest repr of a
// float64 (a model's probabilities).
var benchDistributions = []struct {
	name     string
	decimals int // -1: full float64
}{{"2dp", 2}, {"4dp", 4}, {"float64", -1}}

// benchJSONL writes n binary forecast lines for the given number of agents:
// Beta(2, 2) confidences (the median of three uniforms) rounded to decimals
// places (-1: not rounded), outcomes from a per-agent distortion of the
// forecast, as testdata/bench/score/gen.py writes them. Deterministic.
func benchJSONL(n, agents, decimals int, seed uint64) []byte {
	rng := rand.New(rand.NewPCG(seed, seed))
	var b bytes.Buffer
	b.Grow(n * 112)
	for i := range n {
		a := rng.IntN(agents)
		u := [3]float64{rng.Float64(), rng.Float64(), rng.Float64()}
		p := max(min(u[0], u[1]), min(max(u[0], u[1]), u[2]))
		if decimals >= 0 {
			p, _ = strconv.ParseFloat(strconv.FormatFloat(p, 'f', decimals, 64), 64)
		}
		skill := -0.3 + 1.3*float64(a)/float64(max(agents-1, 1))
		truth := min(max(0.5+skill*(p-0.5), 0), 1)
		y := 0
		if rng.Float64() < truth {
			y = 1
		}
		fmt.Fprintf(&b, `{"id": "f%d", "agent": "agent-%02d", "confidence": %s, "outcome": %d, "at": "2026-11-%02dT%02d:00:00Z"}`+"\n",
			i, a, strconv.FormatFloat(p, 'g', -1, 64), y, 1+i%28, i%24)
	}
	return b.Bytes()
}

// scoreJSONL is evalcal score's path without the document encoding: read
// the lines on every core, score every group.
func scoreJSONL(ctx context.Context, in []byte, opts ScoreOptions) (ScoreReport, error) {
	s, err := NewScorer(opts)
	if err != nil {
		return ScoreReport{}, err
	}
	if _, err := ReadJSONL(ctx, bytes.NewReader(in), "bench.jsonl", JSONLOptions{Fields: []string{}}, s.Add); err != nil {
		return ScoreReport{}, err
	}
	return s.ScoreReport()
}

// BenchmarkScoreJSONL is `evalcal score` end to end (without encoding) on
// 200,000 lines of 8 agents, for each value distribution: reading,
// parsing, the statistics and the label's bootstrap.
func BenchmarkScoreJSONL(b *testing.B) {
	const n = 200_000
	for _, d := range benchDistributions {
		b.Run(d.name, func(b *testing.B) {
			in := benchJSONL(n, 8, d.decimals, 1)
			b.SetBytes(int64(len(in)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := scoreJSONL(context.Background(), in, DefaultScoreOptions()); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/forecast")
		})
	}
}
