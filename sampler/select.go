package sampler

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strconv"
)

// MinRuns is the fewest valid runs a calibration can use.
const MinRuns = 3

// SelectOptions configure Select.
type SelectOptions struct {
	// N is how many runs to sample; 0 takes every valid run.
	N int
	// Seed makes the choice among equally diverse runs reproducible.
	Seed int64
	// AllowHomogeneous accepts valid runs that are all from one system.
	AllowHomogeneous bool
}

// Sample is the outcome of Select.
type Sample struct {
	// Runs are the sampled valid runs, sorted by ID then path.
	Runs []Run `yaml:"runs" json:"runs"`
	// Invalid are the runs that were not valid, with their reasons.
	Invalid     []Run       `yaml:"invalid" json:"invalid"`
	Composition Composition `yaml:"composition" json:"composition"`
}

// Composition describes a sample for the report's `sample` section. Map
// keys are emitted sorted by both YAML and JSON encoders.
type Composition struct {
	Discovered int `yaml:"discovered" json:"discovered"`
	Valid      int `yaml:"valid" json:"valid"`
	Invalid    int `yaml:"invalid" json:"invalid"`
	Sampled    int `yaml:"sampled" json:"sampled"`
	// Systems counts sampled runs by system name.
	Systems map[string]int `yaml:"systems" json:"systems"`
	// Eras counts sampled runs by era.
	Eras map[string]int `yaml:"eras" json:"eras"`
	// Statuses counts sampled runs by status; all three are present.
	Statuses       map[string]int `yaml:"statuses" json:"statuses"`
	SuccessFailure SuccessFailure `yaml:"success_failure" json:"success_failure"`
	// SizeTerciles counts sampled runs by the size tercile (small, medium,
	// large) they fall in among all valid runs.
	SizeTerciles map[string]int `yaml:"size_terciles" json:"size_terciles"`
	// SizeBytes and ServicesDeclared spread over the sampled runs.
	SizeBytes        Spread `yaml:"size_bytes" json:"size_bytes"`
	ServicesDeclared Spread `yaml:"services_declared" json:"services_declared"`
}

// SuccessFailure is completed runs against the rest (failed or
// incomplete; runs of unknown status, known only from saved inspections,
// are in neither); SuccessPercent = 100 * Success / (Success + Failure),
// 0 when both are 0.
type SuccessFailure struct {
	Success        int     `yaml:"success" json:"success"`
	Failure        int     `yaml:"failure" json:"failure"`
	SuccessPercent float64 `yaml:"success_percent" json:"success_percent"`
}

// Spread is the minimum, median and maximum of a quantity; the median of
// an even count is the mean of the two middle values; all zero when empty.
type Spread struct {
	Min    float64 `yaml:"min" json:"min"`
	Median float64 `yaml:"median" json:"median"`
	Max    float64 `yaml:"max" json:"max"`
}

var tercileNames = [3]string{"small", "medium", "large"}

// Select keeps the valid runs and picks a diverse subset of opts.N.
//
// Algorithm (deterministic for a seed): valid runs are sorted by ID and
// path; each gets a size tercile by its rank in (SizeBytes, ID) order,
// tercile = floor(3*rank/n), and a tie-break rank from a permutation
// drawn with a PCG generator seeded by opts.Seed. Then, N times, the
// remaining run is taken that minimises, in lexicographic order, how many
// already-taken runs share (1) its system, (2) its system and status,
// (3) its status, (4) its system and size tercile, (5) its size tercile,
// (6) its era, and then (7) its tie-break rank. Systems are thus spread
// first (round-robin while every system has runs left), then outcomes
// within each system and overall, then sizes. The result is sorted by ID,
// so it does not depend on the order of picking.
//
// Errors: fewer than MinRuns valid runs, or 0 < N < MinRuns, wraps
// ErrInsufficientRuns with the counts; valid runs all from one system
// wrap ErrHomogeneousSample unless opts.AllowHomogeneous; N < 0 is an
// error.
func Select(runs []Run, opts SelectOptions) (Sample, error) {
	var valid []Run
	invalid := []Run{}
	for _, r := range runs {
		if r.Valid {
			valid = append(valid, r)
		} else {
			invalid = append(invalid, r)
		}
	}
	sortRuns(valid)
	sortRuns(invalid)
	s := Sample{Runs: []Run{}, Invalid: invalid}
	switch {
	case opts.N < 0:
		return s, fmt.Errorf("sampler: sample size %d is negative", opts.N)
	case len(valid) < MinRuns:
		return s, fmt.Errorf("sampler: %d valid runs of %d found (%d invalid), need at least %d: %w",
			len(valid), len(runs), len(invalid), MinRuns, ErrInsufficientRuns)
	case opts.N > 0 && opts.N < MinRuns:
		return s, fmt.Errorf("sampler: sample size %d is below the minimum of %d runs: %w", opts.N, MinRuns, ErrInsufficientRuns)
	}
	systems := map[string]int{}
	for _, r := range valid {
		systems[r.System]++
	}
	if len(systems) == 1 && !opts.AllowHomogeneous {
		return s, fmt.Errorf("sampler: all %d valid runs are from system %q: %w", len(valid), valid[0].System, ErrHomogeneousSample)
	}

	terc := sizeTerciles(valid)
	var picked []int
	if opts.N == 0 || opts.N >= len(valid) {
		for i := range valid {
			picked = append(picked, i)
		}
	} else {
		picked = pickDiverse(valid, terc, opts)
	}
	sort.Ints(picked)
	for _, i := range picked {
		s.Runs = append(s.Runs, valid[i])
	}
	s.Composition = compose(s.Runs, picked, terc, len(runs), len(valid), len(invalid))
	return s, nil
}

func sortRuns(rs []Run) {
	sort.SliceStable(rs, func(i, j int) bool {
		if rs[i].ID != rs[j].ID {
			return rs[i].ID < rs[j].ID
		}
		return rs[i].Path < rs[j].Path
	})
}

// sizeTerciles gives each run (by index) its tercile 0..2 by its rank in
// (SizeBytes, ID, index) order.
func sizeTerciles(rs []Run) []int {
	idx := make([]int, len(rs))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool {
		ra, rb := rs[idx[a]], rs[idx[b]]
		if ra.SizeBytes != rb.SizeBytes {
			return ra.SizeBytes < rb.SizeBytes
		}
		return ra.ID < rb.ID
	})
	t := make([]int, len(rs))
	for rank, i := range idx {
		t[i] = 3 * rank / len(rs)
	}
	return t
}

// pickDiverse runs the greedy choice of Select's doc comment; it returns
// indexes into rs.
func pickDiverse(rs []Run, terc []int, opts SelectOptions) []int {
	rng := rand.New(rand.NewPCG(uint64(opts.Seed), 0x65766c63616c)) // "evlcal"
	tie := rng.Perm(len(rs))
	bySystem, byStatus, byEra := map[string]int{}, map[Status]int{}, map[Era]int{}
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

func lessKey(a, b [7]int) bool {
	for i := range a {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}

func compose(sampled []Run, picked, terc []int, discovered, valid, invalid int) Composition {
	c := Composition{
		Discovered: discovered, Valid: valid, Invalid: invalid, Sampled: len(sampled),
		Systems: map[string]int{}, Eras: map[string]int{},
		Statuses:     map[string]int{string(StatusCompleted): 0, string(StatusFailed): 0, string(StatusIncomplete): 0},
		SizeTerciles: map[string]int{tercileNames[0]: 0, tercileNames[1]: 0, tercileNames[2]: 0},
	}
	var sizes, services []float64
	for k, r := range sampled {
		c.Systems[r.System]++
		c.Eras[string(r.Era)]++
		c.Statuses[string(r.Status)]++
		c.SizeTerciles[tercileNames[terc[picked[k]]]]++
		switch r.Status {
		case StatusCompleted:
			c.SuccessFailure.Success++
		case StatusFailed, StatusIncomplete:
			c.SuccessFailure.Failure++
		}
		sizes = append(sizes, float64(r.SizeBytes))
		services = append(services, float64(len(r.ServicesDeclared)))
	}
	if n := c.SuccessFailure.Success + c.SuccessFailure.Failure; n > 0 {
		c.SuccessFailure.SuccessPercent = 100 * float64(c.SuccessFailure.Success) / float64(n)
	}
	c.SizeBytes = spreadOf(sizes)
	c.ServicesDeclared = spreadOf(services)
	return c
}

// spreadOf is the Spread of xs (which it sorts).
func spreadOf(xs []float64) Spread {
	if len(xs) == 0 {
		return Spread{}
	}
	sort.Float64s(xs)
	n := len(xs)
	med := xs[n/2]
	if n%2 == 0 {
		med = (xs[n/2-1] + xs[n/2]) / 2
	}
	return Spread{Min: xs[0], Median: med, Max: xs[n-1]}
}
