package sampler

import (
	"math/rand/v2"
	"testing"
)

// A run's size tercile is 3 x (the number of runs smaller than it, or as
// large with a smaller id) / n: the definition, counted pair by pair,
// which sizeTerciles must equal on runs with many equal sizes.
func TestSizeTercilesEqualTheRankDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 26))
	for trial := range 200 {
		n := 1 + rng.IntN(90)
		rs := randomRuns(rng, n, 3, 2, 2)
		rng.Shuffle(len(rs), func(i, j int) { rs[i], rs[j] = rs[j], rs[i] })
		for i := range rs {
			rs[i].SizeBytes %= int64(1 + trial%5) // ties in size, broken by id
		}
		got := sizeTerciles(rs)
		for i, r := range rs {
			rank := 0
			for _, o := range rs {
				if o.SizeBytes < r.SizeBytes || o.SizeBytes == r.SizeBytes && o.ID < r.ID {
					rank++
				}
			}
			if want := 3 * rank / n; got[i] != want {
				t.Fatalf("trial %d: run %s (size %d) in tercile %d, want %d", trial, r.ID, r.SizeBytes, got[i], want)
			}
		}
	}
}
