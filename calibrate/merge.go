package calibrate

import (
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"

	"github.com/evalcal/evalcal/comparator"
	"github.com/evalcal/evalcal/inspection"
	"github.com/evalcal/evalcal/internal/english"
	"github.com/evalcal/evalcal/report"
	"github.com/evalcal/evalcal/runner"
)

// MaxShards bounds n in --shard i/n: a job split further than this is a
// mistake, and merge must not allocate by a number read from a file.
const MaxShards = 10000

// ParseShard reads "i/n" with 1 <= i <= n <= MaxShards.
func ParseShard(s string) (int, int, error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := ParseShardNumber(a)
	n, err2 := ParseShardNumber(b)
	switch {
	case !ok || err1 != nil || err2 != nil || n < 1 || i < 1 || i > n:
		return 0, 0, fmt.Errorf("want i/n with 1 <= i <= n, got %q", s)
	case n > MaxShards:
		return 0, 0, fmt.Errorf("%q: at most %d shards", s, MaxShards)
	}
	return i, n, nil
}

// ParseShardNumber reads a shard index or count, the one form every
// shard input accepts (--shard, EVALCAL_SHARD, the job runners'
// variables): decimal digits, no sign, no spaces, no leading zero ("0"
// itself is a number), at most 18 digits (no overflow; callers bound the value). "1/3 ", " 3", "+1", "01" and "-0"
// are refused alike.
func ParseShardNumber(s string) (int, error) {
	if s == "" || len(s) > 18 || (len(s) > 1 && s[0] == '0') {
		return 0, fmt.Errorf("%q is not a shard number (decimal digits, no sign, spaces or leading zeros)", s)
	}
	n := 0
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("%q is not a shard number (decimal digits, no sign, spaces or leading zeros)", s)
		}
		n = n*10 + int(c-'0')
	}
	return n, nil
}

// ShardOf is the shard (1..n) run id belongs to: the first 8 bytes of
// SHA-256(id) modulo n, plus one. Membership depends on the run alone, so
// a run stays in its shard when other runs are added.
func ShardOf(id string, n int) int {
	if n <= 1 {
		return 1
	}
	sum := sha256.Sum256([]byte(id))
	return int(binary.BigEndian.Uint64(sum[:8])%uint64(n)) + 1
}

// Merge combines the reports of all shards of one calibration into the
// report one unsharded run would have written: it takes the union of the
// per-run results and recomputes every statistic from them (no statistic
// is averaged across shards). names label the reports in errors.
//
// It checks before combining: every report is a shard i/n of the same n
// (read and bounded before anything is allocated by it), each shard is
// given once and none is missing; the shards are of one job (same
// inspectors, seed, sample, bins, repeats, deep subset and content; the
// first field that differs is named; inputs.shard_source, where a shard's
// index came from, may differ); and each shard accounts for exactly its
// own runs: every sampled run that belongs to it has a comparison, a
// light-only inspection or a failure, and nothing else is there; the
// shards' own sampled runs together are the sample inputs.content_hash
// names; and no comparison contradicts itself (see contradiction). The merged report
// has neither inputs.shard nor inputs.shard_source. fin completes it
// (trend, gates, summary) as Run completes an unsharded one.
//
// Shards that read their own runs only (inputs.shard_scope "own", all of
// them) each hash and describe their own sample: each one's runs must be
// what its content_hash names, and the merged content hash and
// sample.composition are recomputed over the union (sampler.Compose), as
// is the check that the sample has at least sampler.MinRuns runs.
func Merge(shards []*report.Report, names []string, fin Finish) (*report.Report, error) {
	if len(shards) == 0 {
		return nil, fmt.Errorf("merge: no shard report given")
	}
	first := shards[0]
	_, n, err := ParseShard(first.Inputs.Shard)
	if err != nil {
		return nil, fmt.Errorf("merge: %s is not a shard report (inputs.shard %q: %v)", names[0], first.Inputs.Shard, err)
	}
	m := &merging{first: first, names: names, n: n, seen: make([]string, n+1),
		own: first.Inputs.ShardScope == report.ShardScopeOwn}
	// Sized once: appending a million 300-byte comparisons shard by shard
	// copied them over and over (a tenth of a merge's CPU).
	var runs, compared int
	for _, r := range shards {
		runs, compared = runs+len(r.Sample.Runs), compared+len(r.Comparisons)
	}
	m.sample, m.data.Comparisons = make([]report.SampleRun, 0, runs), make([]comparator.Comparison, 0, compared)
	for k, r := range shards {
		if err := m.take(k, r); err != nil {
			return nil, err
		}
	}
	seen, data, sample, own, whole := m.seen, m.data, m.sample, m.own, &m.whole
	for i := 1; i <= n; i++ {
		if seen[i] == "" {
			return nil, fmt.Errorf("merge: shard %d/%d is missing", i, n)
		}
	}
	sample = sortedByID(sample, m.sampleEnds, func(s *report.SampleRun) string { return s.ID })
	if own {
		if err := whole.check(sample); err != nil {
			return nil, err
		}
	} else if h := reportSampleHash(sample); h != first.Inputs.ContentHash {
		return nil, fmt.Errorf("merge: the shards' sampled runs (%d) are not the sample their inputs.content_hash names: a shard report lists runs of another job or was edited", len(sample))
	}
	data.Comparisons = sortedByID(data.Comparisons, m.comparisonEnds, func(c *comparator.Comparison) string { return c.RunID })
	slices.SortStableFunc(data.Failures, func(a, b inspection.Failure) int {
		return cmp.Or(cmp.Compare(a.RunID, b.RunID), cmp.Compare(depthRank(a.Depth), depthRank(b.Depth)), cmp.Compare(a.Repeat, b.Repeat))
	})
	slices.SortStableFunc(data.LightOnly, func(a, b report.LightOnlyRun) int { return cmp.Compare(a.RunID, b.RunID) })
	slices.SortStableFunc(data.Inclusion, func(a, b report.Inclusion) int { return cmp.Compare(a.RunID, b.RunID) })
	slices.SortStableFunc(data.Repeats, func(a, b report.RunRepeats) int { return cmp.Compare(a.RunID, b.RunID) })
	if data.LightOnly == nil && first.LightOnly == nil {
		data.LightOnly = nil
	}
	merged := &report.Report{SchemaVersion: first.SchemaVersion, GeneratedBy: first.GeneratedBy,
		Inputs: first.Inputs, Sample: first.Sample}
	merged.Sample.Runs = nonNil(sample)
	merged.Inputs.Shard, merged.Inputs.ShardSource = "", "" // shards may come from different sources
	if own {
		merged.Inputs.ShardScope = ""
		merged.Inputs.ContentHash = reportSampleHash(sample)
		merged.Sample.Composition = whole.composition(sample)
		merged.Sample.Invalid = nonNil(whole.invalid)
	}
	Fill(merged, data)
	fin.apply(merged)
	return merged, nil
}

// merging is what Merge has gathered from the shards taken so far.
type merging struct {
	first  *report.Report
	names  []string
	n      int
	seen   []string // the file of each shard index taken
	data   Data
	sample []report.SampleRun
	own    bool // the shards read their own runs only
	whole  ownScope
	// sampleEnds and comparisonEnds are where each shard's part of sample
	// and data.Comparisons ends.
	sampleEnds, comparisonEnds []int
}

// take checks shard report r, the k-th given, against the first and the
// shards taken before it (its index, job, accounting, own content hash,
// comparisons, and the runs no other shard holds), and adds its per-run
// results.
func (m *merging) take(k int, r *report.Report) error {
	names, n := m.names, m.n
	i, count, err := ParseShard(r.Inputs.Shard)
	switch {
	case err != nil:
		return fmt.Errorf("merge: %s is not a shard report (inputs.shard %q)", names[k], r.Inputs.Shard)
	case count != n:
		return fmt.Errorf("merge: %s is shard %s but %s is of %d shards", names[k], r.Inputs.Shard, names[0], n)
	case m.seen[i] != "":
		return fmt.Errorf("merge: shard %d/%d given twice (%s and %s)", i, n, m.seen[i], names[k])
	}
	m.seen[i] = names[k]
	if d := differs(m.first, r); d != "" {
		return fmt.Errorf("merge: %s and %s are not shards of one job: %s differs", names[0], names[k], d)
	}
	mine := ownRuns(r, i, n)
	if err := accounted(r, mine, i, n, names[k]); err != nil {
		return err
	}
	if m.own {
		if err := m.whole.add(r, mine, names[k]); err != nil {
			return err
		}
	}
	m.sample = append(m.sample, mine...)
	m.sampleEnds = append(m.sampleEnds, len(m.sample))
	for _, c := range r.Comparisons {
		if why := contradiction(c); why != "" {
			return fmt.Errorf("merge: %s: run %s: the comparison contradicts itself (edited by hand?): %s", names[k], c.RunID, why)
		}
	}
	// No run is in two shards: accounted lets a shard hold results for
	// its own runs only, which calibrate.ShardOf gives to one shard.
	d := &m.data
	d.Comparisons = append(d.Comparisons, r.Comparisons...)
	m.comparisonEnds = append(m.comparisonEnds, len(d.Comparisons))
	d.Failures = append(d.Failures, r.Failures...)
	d.LightOnly = append(d.LightOnly, r.LightOnly...)
	d.Inclusion = append(d.Inclusion, r.Inclusion...)
	d.Repeats = append(d.Repeats, r.Repeats...)
	d.Cost = addCost(d.Cost, r.Cost, k == 0)
	return nil
}

// sortedByID returns s stably sorted by id, s being the concatenation of
// parts (one a shard) that end at ends: s itself when already sorted; a
// merge of the parts when each is sorted, as a shard's lists are (64
// parts of a million comparisons take 6 comparisons of ids an element);
// else through a permutation of indices, so that large elements (a
// comparison is some 300 bytes) are moved once, not at every step of
// the sort.
func sortedByID[T any](s []T, ends []int, id func(*T) string) []T {
	byID := func(a, b T) int { return cmp.Compare(id(&a), id(&b)) }
	if slices.IsSortedFunc(s, byID) {
		return s
	}
	parts := make([][]T, 0, len(ends))
	from := 0
	for _, end := range ends {
		parts = append(parts, s[from:end])
		from = end
	}
	if from == len(s) && !slices.ContainsFunc(parts, func(p []T) bool { return !slices.IsSortedFunc(p, byID) }) {
		return mergeParts(parts, len(s), id)
	}
	perm := make([]int32, len(s))
	for i := range perm {
		perm[i] = int32(i)
	}
	slices.SortStableFunc(perm, func(a, b int32) int { return cmp.Compare(id(&s[a]), id(&s[b])) })
	out := make([]T, len(s))
	for i, p := range perm {
		out[i] = s[p]
	}
	return out
}

// mergeParts merges n elements in sorted parts into one sorted slice; of
// equal ids, the earlier part's comes first (a stable sort of the parts
// concatenated gives the same order).
func mergeParts[T any](parts [][]T, n int, id func(*T) string) []T {
	out := make([]T, 0, n)
	h := make([]int, 0, len(parts)) // a min-heap of part indices by their next id, then index
	less := func(a, b int) bool {
		ia, ib := id(&parts[a][0]), id(&parts[b][0])
		return ia < ib || ia == ib && a < b
	}
	down := func(i int) {
		for {
			l, small := 2*i+1, i
			if l < len(h) && less(h[l], h[small]) {
				small = l
			}
			if r := l + 1; r < len(h) && less(h[r], h[small]) {
				small = r
			}
			if small == i {
				return
			}
			h[i], h[small] = h[small], h[i]
			i = small
		}
	}
	for k, p := range parts {
		if len(p) > 0 {
			h = append(h, k)
		}
	}
	for i := len(h)/2 - 1; i >= 0; i-- {
		down(i)
	}
	for len(h) > 0 {
		k := h[0]
		out = append(out, parts[k][0])
		if parts[k] = parts[k][1:]; len(parts[k]) == 0 {
			h[0] = h[len(h)-1]
			h = h[:len(h)-1]
		}
		down(0)
	}
	return out
}

func depthRank(d inspection.Depth) int {
	if d == inspection.Light {
		return 0
	}
	return 1
}

// ownRuns are the sampled runs shard i of n lists that are its own: all
// of them in a report of this version, which lists only those; the
// reports of earlier versions listed the whole sample in every shard.
func ownRuns(r *report.Report, i, n int) []report.SampleRun {
	mine := make([]report.SampleRun, 0, len(r.Sample.Runs))
	for _, s := range r.Sample.Runs {
		if ShardOf(s.ID, n) == i {
			mine = append(mine, s)
		}
	}
	return mine
}

// accounted checks that shard i of n accounts for exactly its own sampled
// runs, own.
func accounted(r *report.Report, own []report.SampleRun, i, n int, name string) error {
	mine := make(map[string]bool, len(own))
	for _, s := range own {
		mine[s.ID] = true
	}
	found := map[string]bool{}
	note := func(id, what string) error {
		if !mine[id] {
			return fmt.Errorf("merge: %s (shard %d/%d) has a %s for run %s, which is not one of its sampled runs", name, i, n, what, id)
		}
		found[id] = true
		return nil
	}
	for _, c := range r.Comparisons {
		if err := note(c.RunID, "comparison"); err != nil {
			return err
		}
	}
	for _, l := range r.LightOnly {
		if err := note(l.RunID, "light-only inspection"); err != nil {
			return err
		}
	}
	for _, f := range r.Failures {
		if err := note(f.RunID, "failure"); err != nil {
			return err
		}
	}
	var missing []string
	for id := range mine {
		if !found[id] {
			missing = append(missing, id)
		}
	}
	if len(missing) > 0 {
		slices.Sort(missing)
		more := ""
		if len(missing) > 3 {
			more = fmt.Sprintf(" and %d more", len(missing)-3)
			missing = missing[:3]
		}
		return fmt.Errorf("merge: %s (shard %d/%d) has no result for its %s %s%s: an interrupted or edited shard report",
			name, i, n, english.Noun(len(missing), "run", "runs"), strings.Join(missing, ", "), more)
	}
	return nil
}

// differs names the first input that differs between two shard reports in
// a way that can change results, or returns "". The recorded command line
// may differ (a default spelled out, another --format).
func differs(a, b *report.Report) string {
	ai, bi := a.Inputs, b.Inputs
	own := ai.ShardScope == report.ShardScopeOwn // each shard hashes and describes its own runs
	checks := []struct {
		field string
		same  bool
	}{
		{"schema_version", a.SchemaVersion == b.SchemaVersion},
		{"generated_by", a.GeneratedBy == b.GeneratedBy},
		{"inputs.inspections", ai.Inspections == bi.Inspections},
		{"inputs.light.identity", ai.Light.Identity == bi.Light.Identity},
		{"inputs.deep.identity", ai.Deep.Identity == bi.Deep.Identity},
		{"inputs.inspector", ai.Inspector == bi.Inspector},
		{"inputs.seed", ai.Seed == bi.Seed},
		{"inputs.sample_limit", ai.SampleLimit == bi.SampleLimit},
		{"inputs.bins", ai.Bins == bi.Bins},
		{"inputs.repeat", ai.Repeat == bi.Repeat},
		{"inputs.by", reflect.DeepEqual(ai.By, bi.By)},
		{"inputs.deep_subset", reflect.DeepEqual(ai.DeepSubset, bi.DeepSubset)},
		{"inputs.cluster", ai.Cluster == bi.Cluster},
		{"inputs.families", reflect.DeepEqual(ai.Families, bi.Families)},
		{"inputs.judge_family", ai.JudgeFamily == bi.JudgeFamily},
		{"inputs.shard_scope", ai.ShardScope == bi.ShardScope},
		{"inputs.content_hash", own || ai.ContentHash == bi.ContentHash},
		{"sample.composition", own || reflect.DeepEqual(a.Sample.Composition, b.Sample.Composition)},
		{"sample.invalid", own || reflect.DeepEqual(a.Sample.Invalid, b.Sample.Invalid)},
		{"sample.rejected", reflect.DeepEqual(a.Sample.Rejected, b.Sample.Rejected)},
		{"cost.budget_usd", reflect.DeepEqual(a.Cost.BudgetUSD, b.Cost.BudgetUSD)},
	}
	for _, c := range checks {
		if !c.same {
			return c.field
		}
	}
	return ""
}

// addCost adds shard cost c to the running total t (t is ignored for the
// first shard).
func addCost(t, c report.Cost, first bool) report.Cost {
	if first {
		return c
	}
	t.Light = addSide(t.Light, c.Light)
	t.Deep = addSide(t.Deep, c.Deep)
	t.BudgetStopped = t.BudgetStopped || c.BudgetStopped
	return t
}

func addSide(t, c report.SideCost) report.SideCost {
	t.Inspections += c.Inspections
	t.Calls += c.Calls
	t.CacheHits += c.CacheHits
	t.Retries += c.Retries
	t.Failed += c.Failed
	t.Usage = t.Usage.Add(c.Usage)
	t.Tokens += c.Tokens
	t.Seconds = runner.AddSeconds(t.Seconds, c.Seconds) // exact: the runner's integer sum
	if t.USD == nil || c.USD == nil {
		t.USD = nil
	} else {
		v := runner.AddUSD(*t.USD, *c.USD)
		t.USD = &v
	}
	return t
}

// contradiction says how comparison c's fields contradict each other, or
// "" when they agree: every field merge's statistics read that the
// comparator derives from others (comparator.Compare) is derived again
// and compared exactly (reports keep every figure exact): the verdicts
// are verdicts, verdict_match is their equality, each delta is deep minus
// light of scores in 0..100, a verdict split is the disagreement type
// exactly when the verdicts differ, and minor_noise is matching verdicts
// with both deltas under comparator.MinorNoisePoints. A shard edited by
// hand would otherwise merge into a report whose agreement counts one
// verdict and whose kappa another.
func contradiction(c comparator.Comparison) string {
	for _, v := range []struct{ name, verdict string }{{"light_verdict", c.LightVerdict}, {"deep_verdict", c.DeepVerdict}} {
		switch v.verdict {
		case inspection.VerdictFail, inspection.VerdictPartial, inspection.VerdictPass:
		default:
			return fmt.Sprintf("%s %q is not fail, partial or pass", v.name, v.verdict)
		}
	}
	match := c.LightVerdict == c.DeepVerdict
	if c.VerdictMatch != match {
		return fmt.Sprintf("verdict_match is %v but light_verdict is %s and deep_verdict %s", c.VerdictMatch, c.LightVerdict, c.DeepVerdict)
	}
	for _, sc := range []struct {
		name string
		x    float64
	}{{"light_scores.runtime_fidelity", c.Light.RuntimeFidelity}, {"light_scores.task_effectiveness", c.Light.TaskEffectiveness},
		{"deep_scores.runtime_fidelity", c.Deep.RuntimeFidelity}, {"deep_scores.task_effectiveness", c.Deep.TaskEffectiveness}} {
		if !(sc.x >= 0 && sc.x <= 100) {
			return fmt.Sprintf("%s %v is outside 0..100", sc.name, sc.x)
		}
	}
	rf, te := c.Deep.RuntimeFidelity-c.Light.RuntimeFidelity, c.Deep.TaskEffectiveness-c.Light.TaskEffectiveness
	switch {
	case c.RuntimeFidelityDelta != rf:
		return fmt.Sprintf("runtime_fidelity_delta is %v but the scores give %v", c.RuntimeFidelityDelta, rf)
	case c.TaskEffectivenessDelta != te:
		return fmt.Sprintf("task_effectiveness_delta is %v but the scores give %v", c.TaskEffectivenessDelta, te)
	}
	dt := "null"
	if c.DisagreementType != nil {
		dt = string(*c.DisagreementType)
	}
	if split := dt == string(comparator.VerdictSplit); split == match {
		return fmt.Sprintf("disagreement_type is %s but verdict_match is %v", dt, c.VerdictMatch)
	}
	noise := match && math.Abs(rf) < comparator.MinorNoisePoints && math.Abs(te) < comparator.MinorNoisePoints
	if c.MinorNoise != noise {
		return fmt.Sprintf("minor_noise is %v but the verdicts and deltas give %v", c.MinorNoise, noise)
	}
	return ""
}
