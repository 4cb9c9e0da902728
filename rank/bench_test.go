package rank

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkRank10x10000 ranks 10 candidates on 10,000 runs (the size of
// 10 candidates over 10,000 saved runs). Memory grows with runs x
// candidates: each candidate's outcomes are copied once and sorted.
func BenchmarkRank10x10000(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	const runs, cands = 10000, 10
	deep := make([]int8, runs)
	for i := range deep {
		deep[i] = int8(rng.IntN(3))
	}
	in := make([]Input, cands)
	for c := range in {
		in[c].Name = fmt.Sprintf("c%02d", c)
		usd := float64(c + 1)
		in[c].USDPer1k = &usd
		for i := 0; i < runs; i++ {
			v := deep[i]
			if rng.Float64() < 0.1+0.02*float64(c) {
				v = int8(rng.IntN(3))
			}
			in[c].Outcomes = append(in[c].Outcomes, Outcome{RunID: fmt.Sprintf("run-%06d", i), Light: v, Deep: deep[i]})
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := Rank(in); err != nil {
			b.Fatal(err)
		}
	}
}
