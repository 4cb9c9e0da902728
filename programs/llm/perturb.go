package llm

import (
	"context"
	"encoding/binary"
	"hash/fnv"
	"math/rand/v2"
	"strconv"

	"github.com/evalcal/evalcal/inspection"
)

// ShuffledFiles returns j under the order perturbation of evalcal run
// --perturb order (README.md, "Perturbation tests"): each run's files are
// listed and shown in a shuffled order instead of path order, the
// permutation drawn from a PCG source seeded with seed and the FNV-1a hash
// of the run's content hash (the same run gets the same order on every
// run, two runs independent ones). Its identity is j's with
// "/perturb=order@SEED", so its calls are cached apart; its capabilities
// (Billed, RunBound) are j's.
func ShuffledFiles(j *Judge, seed uint64) inspection.Inspector {
	return &shuffled{j: j, seed: seed}
}

type shuffled struct {
	j    *Judge
	seed uint64
}

func (s *shuffled) Identity() string {
	return s.j.Identity() + "/perturb=order@" + strconv.FormatUint(s.seed, 10)
}

// Unwrap gives the judge's capabilities (inspection.As).
func (s *shuffled) Unwrap() inspection.Inspector { return s.j }

func (s *shuffled) Inspect(ctx context.Context, run inspection.Run, depth inspection.Depth) (inspection.Inspection, error) {
	h := fnv.New64a()
	h.Write([]byte(run.ContentHash))
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], s.seed)
	h.Write(b[:])
	rng := rand.New(rand.NewPCG(s.seed, h.Sum64()))
	return s.j.inspect(ctx, run, depth, func(es []*entry) {
		rng.Shuffle(len(es), func(a, b int) { es[a], es[b] = es[b], es[a] })
	})
}
