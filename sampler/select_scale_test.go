package sampler

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/evalcal/evalcal/inspection"
	"github.com/google/go-cmp/cmp"
)

// pickDiverseByRescan is pickDiverse as it was before the heaps (commit
// 4f47090), kept verbatim as the definition: N times, rescan every run
// and take the one with the smallest key. O(N x K).
func pickDiverseByRescan(rs []inspection.Run, terc []int, opts SelectOptions) []int {
	rng := rand.New(rand.NewPCG(uint64(opts.Seed), 0x65766c63616c)) // "evlcal"
	tie := rng.Perm(len(rs))
	bySystem, byStatus, byEra := map[string]int{}, map[inspection.Status]int{}, map[inspection.Era]int{}
	bySysStatus, bySysTercile := map[string]int{}, map[string]int{}
	var byTercile [3]int
	sysStatus := func(i int) string { return rs[i].System + "\x00" + string(rs[i].Status) }
	sysTercile := func(i int) string { return rs[i].System + "\x00" + strconv.Itoa(terc[i]) }
	taken := make([]bool, len(rs))
	picked := make([]int, 0, opts.N)
	for len(picked) < opts.N {
		best := -1
		var bestKey [7]int
		for i, r := range rs {
			if taken[i] {
				continue
			}
			key := [7]int{bySystem[r.System], bySysStatus[sysStatus(i)], byStatus[r.Status],
				bySysTercile[sysTercile(i)], byTercile[terc[i]], byEra[r.Era], tie[i]}
			if best < 0 || lessKey(key, bestKey) {
				best, bestKey = i, key
			}
		}
		if best < 0 {
			break
		}
		taken[best] = true
		picked = append(picked, best)
		r := rs[best]
		bySystem[r.System]++
		bySysStatus[sysStatus(best)]++
		byStatus[r.Status]++
		bySysTercile[sysTercile(best)]++
		byTercile[terc[best]]++
		byEra[r.Era]++
	}
	return picked
}

// randomRuns draws n valid runs over the given numbers of systems,
// statuses and eras, with sizes that often tie.
func randomRuns(rng *rand.Rand, n, systems, statuses, eras int) []inspection.Run {
	sts := []inspection.Status{inspection.StatusCompleted, inspection.StatusFailed, inspection.StatusIncomplete, inspection.StatusUnknown}
	ers := []inspection.Era{inspection.EraStateMDv1, inspection.EraStateMDv2, inspection.EraVMLogForme, inspection.EraReactor, inspection.EraUnknown, inspection.EraSaved}
	rs := make([]inspection.Run, n)
	for i := range rs {
		rs[i] = inspection.Run{
			ID:        fmt.Sprintf("r%06d-%d", rng.IntN(1_000_000), i),
			System:    "sys" + strconv.Itoa(rng.IntN(systems)),
			Status:    sts[rng.IntN(statuses)],
			Era:       ers[rng.IntN(eras)],
			SizeBytes: int64(rng.IntN(4 * n)),
			Valid:     true,
		}
	}
	sortRuns(rs)
	return rs
}

// The heaps pick exactly what the rescan picks, in the same order, for
// every K, on corpora from one system to one system per run.
func TestPickDiverseEqualsTheRescanDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(2026, 13))
	cases := 0
	for trial := range 300 {
		n := 1 + rng.IntN(120)
		systems := 1 + rng.IntN(min(n, 12))
		if trial%10 == 0 {
			systems = n // every run its own system
		}
		rs := randomRuns(rng, n, systems, 1+rng.IntN(4), 1+rng.IntN(6))
		terc := sizeTerciles(rs)
		seed := rng.Int64N(1 << 40)
		for _, k := range []int{1, 2, n / 3, n / 2, n - 1, n} {
			if k < 1 {
				continue
			}
			opts := SelectOptions{N: k, Seed: seed}
			want := pickDiverseByRescan(rs, terc, opts)
			got := pickDiverse(rs, terc, opts)
			if d := cmp.Diff(want, got); d != "" {
				t.Fatalf("trial %d (n=%d systems=%d k=%d seed=%d): picks differ (-rescan +heaps):\n%s", trial, n, systems, k, seed, d)
			}
			cases++
		}
	}
	if cases < 1000 {
		t.Errorf("only %d cases compared", cases)
	}
}

func TestPickDiverseEqualsTheRescanOnTheBundledCorpus(t *testing.T) {
	root, _ := loadCorpus(t)
	runs, err := Discover([]string{root})
	if err != nil {
		t.Fatal(err)
	}
	var valid []inspection.Run
	for _, r := range runs {
		if r.Valid {
			valid = append(valid, r)
		}
	}
	terc := sizeTerciles(valid)
	for seed := int64(0); seed < 5; seed++ {
		for k := 1; k <= len(valid); k++ {
			opts := SelectOptions{N: k, Seed: seed}
			if d := cmp.Diff(pickDiverseByRescan(valid, terc, opts), pickDiverse(valid, terc, opts)); d != "" {
				t.Fatalf("seed %d k %d (-rescan +heaps):\n%s", seed, k, d)
			}
		}
	}
}

// 16,000 of 20,000 runs took about 70 s with the rescan on this
// machine; the heaps take milliseconds. The bound leaves room for -race
// and a loaded machine while failing the quadratic version.
func TestSelectSixteenThousandOfTwentyThousandIsFast(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	rs := randomRuns(rng, 20_000, 6, 3, 4)
	start := time.Now()
	s, err := Select(rs, SelectOptions{N: 16_000, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Errorf("Select 16,000 of 20,000 took %v, want well under 5 s", el)
	}
	if len(s.Runs) != 16_000 {
		t.Errorf("sampled %d runs", len(s.Runs))
	}
}

func BenchmarkSelect20k(b *testing.B) {
	rng := rand.New(rand.NewPCG(7, 7))
	rs := randomRuns(rng, 20_000, 6, 3, 4)
	for _, k := range []int{1_000, 16_000} {
		b.Run(fmt.Sprintf("K=%d", k), func(b *testing.B) {
			for b.Loop() {
				if _, err := Select(rs, SelectOptions{N: k, Seed: 1}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
