package sampler

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"

	"github.com/evalcal/evalcal/inspection"
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
	// Part says the runs are one shard's part of a job that samples every
	// valid run (run --shard, reading its own runs only): the checks on
	// the whole sample (at least MinRuns valid runs, more than one system)
	// are merge's, which sees it whole (Compose).
	Part bool
}

// Sample is the outcome of Select.
type Sample struct {
	// Runs are the sampled valid runs, sorted by ID then path (when every
	// valid run is sampled, possibly the very array Select was given).
	Runs []inspection.Run `yaml:"runs" json:"runs"`
	// Invalid are the runs that were not valid, with their reasons.
	Invalid     []inspection.Run `yaml:"invalid" json:"invalid"`
	Composition Composition      `yaml:"composition" json:"composition"`
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
// so it does not depend on the order of picking. The picking costs
// O(N log N + K x G log N) for K picks, G the number of (status,
// tercile, era) combinations present (see pickDiverse).
//
// Errors: two runs with one ID wrap ErrDuplicateRunID (naming both
// paths); fewer than MinRuns valid runs, or 0 < N < MinRuns, wraps
// ErrInsufficientRuns with the counts; valid runs all from one system
// wrap ErrHomogeneousSample unless opts.AllowHomogeneous; N < 0 is an
// error.
func Select(runs []inspection.Run, opts SelectOptions) (Sample, error) {
	valid, invalid := splitValid(runs)
	s := Sample{Runs: []inspection.Run{}, Invalid: invalid}
	all := valid
	if len(invalid) > 0 {
		all = append(append(make([]inspection.Run, 0, len(runs)), valid...), invalid...)
		sortRuns(all)
	}
	if err := duplicateIDs(all); err != nil {
		return s, err
	}
	switch {
	case opts.N < 0:
		return s, fmt.Errorf("sampler: sample size %d is negative", opts.N)
	case len(valid) < MinRuns && !opts.Part:
		return s, fmt.Errorf("sampler: %d valid runs of %d found (%d invalid), need at least %d: %w",
			len(valid), len(runs), len(invalid), MinRuns, ErrInsufficientRuns)
	case opts.N > 0 && opts.N < MinRuns:
		return s, fmt.Errorf("sampler: sample size %d is below the minimum of %d runs: %w", opts.N, MinRuns, ErrInsufficientRuns)
	}
	systems := map[string]int{}
	for _, r := range valid {
		systems[r.System]++
	}
	if len(systems) == 1 && !opts.AllowHomogeneous && !opts.Part {
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
	if len(picked) == len(valid) {
		s.Runs = valid // every valid run, in order: no copy of a million runs
	} else {
		s.Runs = make([]inspection.Run, 0, len(picked))
		for _, i := range picked {
			s.Runs = append(s.Runs, valid[i])
		}
	}
	s.Composition = compose(s.Runs, picked, terc, len(runs), len(valid), len(invalid))
	return s, nil
}

// splitValid returns the valid and the invalid runs, each sorted by ID
// then path. When every run is valid and runs is sorted already (saved
// inspections come sorted), valid is runs itself, not a copy: Select only
// reads it, and a million runs are 336 MB a copy.
func splitValid(runs []inspection.Run) (valid, invalid []inspection.Run) {
	invalid = []inspection.Run{}
	if !slices.ContainsFunc(runs, func(r inspection.Run) bool { return !r.Valid }) && slices.IsSortedFunc(runs, byIDPath) {
		return runs, invalid
	}
	valid = make([]inspection.Run, 0, len(runs)) // allocated once: at a million runs growing it took a third of a shard's CPU
	for _, r := range runs {
		if r.Valid {
			valid = append(valid, r)
		} else {
			invalid = append(invalid, r)
		}
	}
	sortRuns(valid)
	sortRuns(invalid)
	return valid, invalid
}

// byIDPath orders runs by ID, then path.
func byIDPath(a, b inspection.Run) int {
	return cmp.Or(cmp.Compare(a.ID, b.ID), cmp.Compare(a.Path, b.Path))
}

func sortRuns(rs []inspection.Run) {
	if slices.IsSortedFunc(rs, byIDPath) { // saved inspections come sorted: one pass
		return
	}
	slices.SortStableFunc(rs, byIDPath)
}

// sizeTerciles gives each run (by index) its tercile 0..2 by its rank in
// (SizeBytes, ID, index) order.
func sizeTerciles(rs []inspection.Run) []int {
	idx := make([]int, len(rs))
	for i := range idx {
		idx[i] = i
	}
	// Select has refused duplicate ids by now, so (size, id) orders the
	// runs totally and an unstable sort gives the stable one's order, in
	// less time (a shard draws the whole sample: README "Performance").
	slices.SortFunc(idx, func(a, b int) int {
		ra, rb := &rs[a], &rs[b]
		return cmp.Or(cmp.Compare(ra.SizeBytes, rb.SizeBytes), cmp.Compare(ra.ID, rb.ID))
	})
	t := make([]int, len(rs))
	for rank, i := range idx {
		t[i] = 3 * rank / len(rs)
	}
	return t
}

// pickDiverse runs the greedy choice of Select's doc comment; it returns
// indexes into rs in the order picked.
//
// It finds the same picks as rescanning every run for every pick (the
// O(N x K) definition, kept in the tests) in O(N log N + K x G log N),
// G the number of (status, tercile, era) combinations present (at most
// 3 x statuses x eras, 36 for the eras and statuses we know). Every key
// component is a count over a part of the run's class (system, status,
// tercile, era), so within a class the run with the smallest tie-break
// rank is the best, and classes are grouped by G = (status, tercile,
// era): within a group, components (3), (5) and (6) are equal, so the
// group's best class is the minimum of (1, 2, 4, tie), kept in a heap
// per group. A pick changes (1), (2) and (4) only for classes of the
// picked system (at most G of them, re-placed in their heaps) and (3),
// (5), (6) only per group, compared when the G group minima are.
// (long: the heaps, the per-group minima and the pick loop share their
// state; the O(N x K) definition in the tests is the readable version.)
func pickDiverse(rs []inspection.Run, terc []int, opts SelectOptions) []int {
	rng := rand.New(rand.NewPCG(uint64(opts.Seed), 0x65766c63616c)) // "evlcal"
	tie := rng.Perm(len(rs))

	// Intern systems, statuses and eras; a group is (status, tercile,
	// era), a class (system, group).
	sysOf, stOf, eraOf := map[string]int{}, map[inspection.Status]int{}, map[inspection.Era]int{}
	intern := func(m map[string]int, k string) int {
		id, ok := m[k]
		if !ok {
			id = len(m)
			m[k] = id
		}
		return id
	}
	type groupKey struct{ st, terc, era int }
	groupOf := map[groupKey]int{}
	var groups []groupKey
	type classKey struct{ sys, group int }
	classOf := map[classKey]int{}
	var classes []diverseClass
	var classesOfSystem [][]int
	for i, r := range rs {
		sys := intern(sysOf, r.System)
		st, ok := stOf[r.Status]
		if !ok {
			st = len(stOf)
			stOf[r.Status] = st
		}
		era, ok := eraOf[r.Era]
		if !ok {
			era = len(eraOf)
			eraOf[r.Era] = era
		}
		gk := groupKey{st, terc[i], era}
		g, ok := groupOf[gk]
		if !ok {
			g = len(groups)
			groupOf[gk] = g
			groups = append(groups, gk)
		}
		ck := classKey{sys, g}
		c, ok := classOf[ck]
		if !ok {
			c = len(classes)
			classOf[ck] = c
			classes = append(classes, diverseClass{sys: sys, st: st, terc: terc[i], group: g})
			for len(classesOfSystem) <= sys {
				classesOfSystem = append(classesOfSystem, nil)
			}
			classesOfSystem[sys] = append(classesOfSystem[sys], c)
		}
		classes[c].members = append(classes[c].members, i)
	}
	nSt := len(stOf)
	h := diverseHeaps{
		classes: classes, tie: tie,
		bySystem:     make([]int, len(sysOf)),
		bySysStatus:  make([]int, len(sysOf)*nSt),
		bySysTercile: make([]int, len(sysOf)*3),
		nStatus:      nSt,
		heaps:        make([][]int, len(groups)),
	}
	for c := range h.classes {
		m := h.classes[c].members
		sort.Slice(m, func(a, b int) bool { return tie[m[a]] < tie[m[b]] })
		h.push(c)
	}
	byStatus, byEra := make([]int, nSt), make([]int, len(eraOf))
	var byTercile [3]int

	picked := make([]int, 0, opts.N)
	for len(picked) < opts.N {
		best := -1
		var bestKey [7]int
		for g, gk := range groups {
			if len(h.heaps[g]) == 0 {
				continue
			}
			c := &h.classes[h.heaps[g][0]]
			key := [7]int{h.bySystem[c.sys], h.bySysStatus[c.sys*nSt+c.st], byStatus[gk.st],
				h.bySysTercile[c.sys*3+c.terc], byTercile[gk.terc], byEra[gk.era], tie[c.members[c.next]]}
			if best < 0 || lessKey(key, bestKey) {
				best, bestKey = h.heaps[g][0], key
			}
		}
		if best < 0 {
			break
		}
		c := &h.classes[best]
		picked = append(picked, c.members[c.next])
		c.next++
		h.bySystem[c.sys]++
		h.bySysStatus[c.sys*nSt+c.st]++
		h.bySysTercile[c.sys*3+c.terc]++
		byStatus[c.st]++
		byTercile[c.terc]++
		byEra[groups[c.group].era]++
		if c.next == len(c.members) {
			h.remove(best)
		}
		for _, other := range classesOfSystem[c.sys] {
			if h.classes[other].pos >= 0 {
				h.fix(other)
			}
		}
	}
	return picked
}

// diverseClass is the runs of one (system, status, tercile, era), sorted
// by tie-break rank; members[next] is the best one not yet taken.
type diverseClass struct {
	sys, st, terc, group int
	members              []int
	next                 int
	pos                  int // index in its group's heap, -1 when out
}

// diverseHeaps holds one binary min-heap of classes per group, ordered
// by (bySystem, bySysStatus, bySysTercile, tie of the next member).
type diverseHeaps struct {
	classes                             []diverseClass
	tie                                 []int
	bySystem, bySysStatus, bySysTercile []int
	nStatus                             int
	heaps                               [][]int
}

func (h *diverseHeaps) less(a, b int) bool {
	ca, cb := &h.classes[a], &h.classes[b]
	if x, y := h.bySystem[ca.sys], h.bySystem[cb.sys]; x != y {
		return x < y
	}
	if x, y := h.bySysStatus[ca.sys*h.nStatus+ca.st], h.bySysStatus[cb.sys*h.nStatus+cb.st]; x != y {
		return x < y
	}
	if x, y := h.bySysTercile[ca.sys*3+ca.terc], h.bySysTercile[cb.sys*3+cb.terc]; x != y {
		return x < y
	}
	return h.tie[ca.members[ca.next]] < h.tie[cb.members[cb.next]]
}

func (h *diverseHeaps) swap(heap []int, i, j int) {
	heap[i], heap[j] = heap[j], heap[i]
	h.classes[heap[i]].pos = i
	h.classes[heap[j]].pos = j
}

func (h *diverseHeaps) up(heap []int, i int) {
	for i > 0 {
		parent := (i - 1) / 2
		if !h.less(heap[i], heap[parent]) {
			return
		}
		h.swap(heap, i, parent)
		i = parent
	}
}

func (h *diverseHeaps) down(heap []int, i int) {
	for {
		l := 2*i + 1
		if l >= len(heap) {
			return
		}
		m := l
		if r := l + 1; r < len(heap) && h.less(heap[r], heap[l]) {
			m = r
		}
		if !h.less(heap[m], heap[i]) {
			return
		}
		h.swap(heap, i, m)
		i = m
	}
}

func (h *diverseHeaps) push(c int) {
	g := h.classes[c].group
	h.heaps[g] = append(h.heaps[g], c)
	h.classes[c].pos = len(h.heaps[g]) - 1
	h.up(h.heaps[g], h.classes[c].pos)
}

func (h *diverseHeaps) remove(c int) {
	g, i := h.classes[c].group, h.classes[c].pos
	heap := h.heaps[g]
	last := len(heap) - 1
	h.swap(heap, i, last)
	h.heaps[g] = heap[:last]
	h.classes[c].pos = -1
	if i < last {
		h.fix(h.heaps[g][i])
	}
}

// fix restores the heap order around class c after its key changed.
func (h *diverseHeaps) fix(c int) {
	heap := h.heaps[h.classes[c].group]
	i := h.classes[c].pos
	h.down(heap, i)
	h.up(heap, h.classes[c].pos)
}

func lessKey(a, b [7]int) bool {
	for i := range a {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}

// Compose is the Composition Select gives a sample of every valid run
// (N = 0): valid are those runs, in any order, discovered and invalid the
// counts of runs found and set aside. Merge recomputes the composition of
// shards that each described their own runs with it.
func Compose(valid []inspection.Run, discovered, invalid int) Composition {
	picked := make([]int, len(valid))
	for i := range picked {
		picked[i] = i
	}
	return compose(valid, picked, sizeTerciles(valid), discovered, len(valid), invalid)
}

func compose(sampled []inspection.Run, picked, terc []int, discovered, valid, invalid int) Composition {
	c := Composition{
		Discovered: discovered, Valid: valid, Invalid: invalid, Sampled: len(sampled),
		Systems: map[string]int{}, Eras: map[string]int{},
		Statuses:     map[string]int{string(inspection.StatusCompleted): 0, string(inspection.StatusFailed): 0, string(inspection.StatusIncomplete): 0},
		SizeTerciles: map[string]int{tercileNames[0]: 0, tercileNames[1]: 0, tercileNames[2]: 0},
	}
	var sizes, services []float64
	for k, r := range sampled {
		c.Systems[r.System]++
		c.Eras[string(r.Era)]++
		c.Statuses[string(r.Status)]++
		c.SizeTerciles[tercileNames[terc[picked[k]]]]++
		switch r.Status {
		case inspection.StatusCompleted:
			c.SuccessFailure.Success++
		case inspection.StatusFailed, inspection.StatusIncomplete:
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
