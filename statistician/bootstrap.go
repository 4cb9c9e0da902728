package statistician

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// MaxBootstrapResamples bounds BootstrapOptions.Resamples so that a
// mistyped option cannot exhaust memory.
const MaxBootstrapResamples = 10_000_000

// BootstrapOptions configures Bootstrap. The zero value means 1000
// resamples, seed 0, level 0.95 and no clusters.
type BootstrapOptions struct {
	Resamples int // 0 means 1000
	Seed      uint64
	Level     float64 // 0 means 0.95
	Clusters  []int   // optional cluster id per item; when non-nil whole clusters are resampled
}

// BootstrapResult is a bootstrap percentile interval for a statistic.
type BootstrapResult struct {
	Estimate  float64  // stat on the original sample
	CI        Interval // percentile interval at Level
	Resamples int      // resamples where stat was defined
	Reason    string   // non-empty when no interval could be formed
}

// Bootstrap draws Resamples resamples of the indices 0..n-1 with
// replacement (or of whole clusters) from a PCG source seeded with Seed
// (math/rand/v2), applies stat to each, and returns the percentile
// interval. stat returns ok=false where undefined; those resamples are
// skipped.
//
// The source is rand.NewPCG(Seed, Seed); the same options and stat give
// the same result on every platform. Without clusters a resample is n
// indices drawn uniformly with replacement. With Clusters (one id per
// item, len n) the G distinct ids are sorted, a resample draws G ids with
// replacement and concatenates the indices of each drawn cluster in
// ascending order, so its length varies (Davison and Hinkley 1997,
// section 3.8). The slice passed to stat is reused between calls; stat
// must not keep it.
//
// The interval is [Q(alpha/2), Q(1-alpha/2)], alpha = 1 - Level, of the
// defined resampled statistics, where Q is the type 7 sample quantile
// (Hyndman and Fan 1996; R's default, numpy.percentile's "linear"):
//
//	h = (m-1) p,  Q(p) = s[floor(h)] + (h - floor(h)) (s[floor(h)+1] - s[floor(h)])
//
// over the m sorted values s. Resamples whose statistic is NaN or infinite
// count as undefined. When stat is undefined on the original sample or
// fewer than 2 resamples are defined, Reason is set and CI is zero
// (Estimate is kept when defined).
//
// It returns an error when n < 1, stat is nil, Resamples is negative or
// above MaxBootstrapResamples, Level is outside (0, 1), or Clusters is
// non-nil with a length other than n.
func Bootstrap(n int, stat func(idx []int) (float64, bool), opts BootstrapOptions) (BootstrapResult, error) {
	return BootstrapContext(context.Background(), n, stat, opts)
}

// bootstrapCheckWork is how many draws (items or cells) a bootstrap makes
// between two looks at ctx: about 10 to 100 microseconds of work.
const bootstrapCheckWork = 4096

// BootstrapContext is Bootstrap that stops with ctx.Err() when ctx is
// done (it looks at least every bootstrapCheckWork draws).
func BootstrapContext(ctx context.Context, n int, stat func(idx []int) (float64, bool), opts BootstrapOptions) (BootstrapResult, error) {
	if n < 1 {
		return BootstrapResult{}, fmt.Errorf("statistician: bootstrap needs at least 1 item, got %d", n)
	}
	if stat == nil {
		return BootstrapResult{}, fmt.Errorf("statistician: bootstrap needs a statistic, got nil")
	}
	opts, err := opts.resolved()
	if err != nil {
		return BootstrapResult{}, err
	}
	if opts.Clusters != nil && len(opts.Clusters) != n {
		return BootstrapResult{}, fmt.Errorf("statistician: bootstrap has %d cluster ids for %d items", len(opts.Clusters), n)
	}

	var res BootstrapResult
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	est, ok := stat(idx)
	if !ok || math.IsNaN(est) || math.IsInf(est, 0) {
		res.Reason = "undefined: the statistic is not defined on the original sample"
		return res, nil
	}
	res.Estimate = est

	rng := rand.New(rand.NewPCG(opts.Seed, opts.Seed))
	draw := drawItems(n, rng)
	if opts.Clusters != nil {
		draw = drawClusters(opts.Clusters, rng)
	}
	values, err := resample(ctx, opts.Resamples, n, func() (float64, bool) {
		idx = draw(idx[:0])
		return stat(idx)
	})
	if err != nil {
		return BootstrapResult{}, err
	}
	return percentileInterval(res, values, opts), nil
}

// resample runs one resample after another, resamples times, each by
// one call of one (its statistic, and whether it is defined), looking at
// ctx at least every bootstrapCheckWork draws (work draws a resample),
// and returns the defined statistics (neither NaN nor infinite).
func resample(ctx context.Context, resamples, work int, one func() (float64, bool)) ([]float64, error) {
	values := make([]float64, 0, resamples)
	done := 0
	for range resamples {
		if done += work; done >= bootstrapCheckWork {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			done = 0
		}
		if v, ok := one(); ok && !math.IsNaN(v) && !math.IsInf(v, 0) {
			values = append(values, v)
		}
	}
	return values, nil
}

// resolved checks the resamples and the level and fills in their
// defaults (1000 and 0.95).
func (opts BootstrapOptions) resolved() (BootstrapOptions, error) {
	if opts.Resamples < 0 || opts.Resamples > MaxBootstrapResamples {
		return opts, fmt.Errorf("statistician: bootstrap resamples %d outside [0, %d]", opts.Resamples, MaxBootstrapResamples)
	}
	if opts.Resamples == 0 {
		opts.Resamples = 1000
	}
	if opts.Level == 0 {
		opts.Level = 0.95
	}
	if !(opts.Level > 0 && opts.Level < 1) {
		return opts, fmt.Errorf("statistician: bootstrap confidence level %v must be in (0, 1)", opts.Level)
	}
	return opts, nil
}

// percentileInterval fills res from the defined resampled values: the
// type 7 percentile interval at opts.Level, or a Reason with fewer than 2.
func percentileInterval(res BootstrapResult, values []float64, opts BootstrapOptions) BootstrapResult {
	res.Resamples = len(values)
	if len(values) < 2 {
		res.Reason = fmt.Sprintf("insufficient data: the statistic was defined on %d of %d resamples, need at least 2", len(values), opts.Resamples)
		return res
	}
	slices.Sort(values)
	alpha := 1 - opts.Level
	res.CI = Interval{Lower: quantileType7(values, alpha/2), Upper: quantileType7(values, 1-alpha/2)}
	return res
}

// BootstrapCounts is Bootstrap for items that fall into cells: counts[j]
// items share cell j (for forecasts, one distinct (forecast, outcome)
// pair), and stat depends on the items only through how many of each cell
// a resample holds. A resample of n = sum(counts) items drawn uniformly
// with replacement holds cell counts
//
//	(X_1, ..., X_k) ~ Multinomial(n; counts[1]/n, ..., counts[k]/n)
//
// so drawing the counts directly gives exactly the distribution of the
// index bootstrap, at O(k) binomial draws per resample instead of O(n)
// index draws. The multinomial is drawn as sequential binomials,
//
//	X_j ~ Binomial(n - X_1 - ... - X_{j-1}, counts[j] / (counts[j] + ... + counts[k]))
//
// with the conditional probabilities as exact integer ratios, from an exact
// binomial sampler (inversion, or BTPE for large means; see
// binomialSampler) on a PCG source seeded with opts.Seed. stat receives
// the resampled counts (a slice reused between calls) and, for the
// estimate, counts itself. The interval is the type 7 percentile interval
// of Bootstrap. Clusters must be nil: a cluster bootstrap resamples
// clusters, not cells.
//
// It returns an error when counts is empty, a count is negative, all are
// zero, stat is nil, or the options are invalid as for Bootstrap.
func BootstrapCounts(counts []int, stat func(counts []int) (float64, bool), opts BootstrapOptions) (BootstrapResult, error) {
	return BootstrapCountsContext(context.Background(), counts, stat, opts)
}

// BootstrapCountsContext is BootstrapCounts that stops with ctx.Err() when
// ctx is done (it looks at least every bootstrapCheckWork draws).
func BootstrapCountsContext(ctx context.Context, counts []int, stat func(counts []int) (float64, bool), opts BootstrapOptions) (BootstrapResult, error) {
	n := 0
	for j, c := range counts {
		if c < 0 {
			return BootstrapResult{}, fmt.Errorf("statistician: bootstrap cell %d has negative count %d", j, c)
		}
		n += c
	}
	switch {
	case len(counts) == 0 || n == 0:
		return BootstrapResult{}, fmt.Errorf("statistician: bootstrap needs at least 1 item, got %d", n)
	case stat == nil:
		return BootstrapResult{}, fmt.Errorf("statistician: bootstrap needs a statistic, got nil")
	case opts.Clusters != nil:
		return BootstrapResult{}, fmt.Errorf("statistician: a cell-count bootstrap cannot resample clusters")
	}
	opts, err := opts.resolved()
	if err != nil {
		return BootstrapResult{}, err
	}
	var res BootstrapResult
	est, ok := stat(counts)
	if !ok || math.IsNaN(est) || math.IsInf(est, 0) {
		res.Reason = "undefined: the statistic is not defined on the original sample"
		return res, nil
	}
	res.Estimate = est

	bin := binomialSampler{rng: rand.New(rand.NewPCG(opts.Seed, opts.Seed))}
	drawn := make([]int, len(counts))
	values, err := resample(ctx, opts.Resamples, len(counts), func() (float64, bool) {
		left, mass := n, n
		for j, c := range counts {
			x := 0
			switch {
			case left == 0 || c == 0:
			case c == mass:
				x = left
			default:
				x = bin.draw(left, float64(c)/float64(mass))
			}
			drawn[j] = x
			left -= x
			mass -= c
		}
		return stat(drawn)
	})
	if err != nil {
		return BootstrapResult{}, err
	}
	return percentileInterval(res, values, opts), nil
}

// drawItems returns a function that appends n indices drawn uniformly with
// replacement from 0..n-1.
func drawItems(n int, rng *rand.Rand) func([]int) []int {
	return func(dst []int) []int {
		for i := 0; i < n; i++ {
			dst = append(dst, rng.IntN(n))
		}
		return dst
	}
}

// drawClusters returns a function that draws as many clusters as there
// are distinct ids, with replacement, and appends the indices of each.
func drawClusters(ids []int, rng *rand.Rand) func([]int) []int {
	members := make(map[int][]int)
	for i, id := range ids {
		members[id] = append(members[id], i)
	}
	keys := make([]int, 0, len(members))
	for id := range members {
		keys = append(keys, id)
	}
	slices.Sort(keys)
	groups := make([][]int, len(keys))
	for g, id := range keys {
		groups[g] = members[id]
	}
	return func(dst []int) []int {
		for range groups {
			dst = append(dst, groups[rng.IntN(len(groups))]...)
		}
		return dst
	}
}

// quantileType7 returns the type 7 quantile (Hyndman and Fan 1996) of the
// sorted, non-empty values s at p in [0, 1]:
//
//	h = (m-1) p,  Q = s[floor(h)] + (h - floor(h)) (s[floor(h)+1] - s[floor(h)])
func quantileType7(s []float64, p float64) float64 {
	h := float64(len(s)-1) * p
	lo := int(math.Floor(h))
	if lo >= len(s)-1 {
		return s[len(s)-1]
	}
	if lo < 0 {
		return s[0]
	}
	frac := h - float64(lo)
	q := s[lo] + frac*(s[lo+1]-s[lo])
	if math.IsInf(q, 0) {
		// s[lo+1]-s[lo] overflowed; the weighted mean form cannot.
		q = (1-frac)*s[lo] + frac*s[lo+1]
	}
	return q
}
