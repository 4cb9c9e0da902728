package calibrate

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/evalcal/evalcal/comparator"
	"github.com/evalcal/evalcal/inspection"
	"github.com/evalcal/evalcal/report"
)

// corpusIDs are the run ids of the bundled corpus (its directory names).
func corpusIDs(t *testing.T) []string {
	t.Helper()
	entries, err := os.ReadDir(corpus)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, e := range entries {
		if e.IsDir() {
			ids = append(ids, e.Name())
		}
	}
	if len(ids) < 40 {
		t.Fatalf("%d run directories in %s, want the bundled corpus", len(ids), corpus)
	}
	return ids
}

// membership is which shard of n each run of runs is in, as the pipeline
// splits the sample (shardRuns), shard by shard.
func membership(t *testing.T, ids []string, n int) map[string]int {
	t.Helper()
	runs := make([]inspection.Run, len(ids))
	for k, id := range ids {
		runs[k] = inspection.Run{ID: id}
	}
	in := map[string]int{}
	for i := 1; i <= n; i++ {
		for _, r := range shardRuns(runs, i, n) {
			if prev, dup := in[r.ID]; dup {
				t.Fatalf("n=%d: run %s is in shards %d and %d", n, r.ID, prev, i)
			}
			in[r.ID] = i
		}
	}
	if len(in) != len(ids) {
		t.Fatalf("n=%d: %d of %d runs are in a shard", n, len(in), len(ids))
	}
	return in
}

// Membership is by hash of the run id alone: adding a run to the corpus,
// wherever it sorts, gives it a shard and moves no other run.
func TestAddingARunMovesOnlyThatRun(t *testing.T) {
	ids := corpusIDs(t)
	for _, n := range []int{3, 7} {
		before := membership(t, ids, n)
		used := map[int]bool{}
		for _, s := range before {
			used[s] = true
		}
		if len(used) != n {
			t.Errorf("n=%d: the corpus fills %d shards only", n, len(used))
		}
		// New ids sorting first, in the middle and last.
		for _, added := range []string{"20200101-000000-aaaaaa", "20260115-120000-0f0f0f", "20991231-235959-zzzzzz"} {
			grown := slices.Insert(slices.Clone(ids), 0, added)
			slices.Sort(grown)
			after := membership(t, grown, n)
			for _, id := range ids {
				if after[id] != before[id] {
					t.Errorf("n=%d: adding %s moved %s from shard %d to %d", n, added, id, before[id], after[id])
				}
			}
			if s := after[added]; s < 1 || s > n || s != ShardOf(added, n) {
				t.Errorf("n=%d: the added run %s is in shard %d, want ShardOf's %d", n, added, s, ShardOf(added, n))
			}
		}
	}
}

// perRun is what one shard report says of each run.
type perRun struct {
	comparisons map[string]comparator.Comparison
	failures    map[string][]inspection.Failure
}

func perRunOf(rep *report.Report) perRun {
	p := perRun{comparisons: map[string]comparator.Comparison{}, failures: map[string][]inspection.Failure{}}
	for _, c := range rep.Comparisons {
		p.comparisons[c.RunID] = c
	}
	for _, f := range rep.Failures {
		p.failures[f.RunID] = append(p.failures[f.RunID], f)
	}
	return p
}

// Through the pipeline: shard i/3 of a corpus directory, then the same
// shard after one run directory is added. Every old run's per-run result
// stays in its shard, unchanged, and the new run is in its shard only.
func TestAddingARunDirectoryKeepsEveryShardsOldRuns(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "runs")
	if err := os.CopyFS(dir, os.DirFS(corpus)); err != nil {
		t.Fatal(err)
	}
	const n = 3
	shards := func() []perRun {
		var out []perRun
		for i := 1; i <= n; i++ {
			cfg := builtinConfig()
			cfg.Paths = []string{dir}
			cfg.ShardIndex, cfg.ShardCount = i, n
			out = append(out, perRunOf(mustRun(t, cfg)))
		}
		return out
	}
	before := shards()
	// A copy of a run under a new name is a new run (its id is its
	// directory's name).
	const added = "20260401-120000-c0ffee"
	ids := corpusIDs(t)
	if err := os.CopyFS(filepath.Join(dir, added), os.DirFS(filepath.Join(corpus, ids[0]))); err != nil {
		t.Fatal(err)
	}
	after := shards()
	home := ShardOf(added, n)
	for i := range n {
		if len(before[i].comparisons) == 0 {
			t.Fatalf("shard %d/%d compared no run", i+1, n)
		}
		for id, c := range before[i].comparisons {
			if d := cmp.Diff(c, after[i].comparisons[id]); d != "" {
				t.Errorf("shard %d/%d: run %s changed when %s was added (-before +after):\n%s", i+1, n, id, added, d)
			}
		}
		if d := cmp.Diff(before[i].failures, after[i].failures); d != "" {
			t.Errorf("shard %d/%d: failures changed (-before +after):\n%s", i+1, n, d)
		}
		_, has := after[i].comparisons[added]
		want := len(before[i].comparisons)
		if i+1 == home {
			want++
		}
		if has != (i+1 == home) || len(after[i].comparisons) != want {
			t.Errorf("shard %d/%d: has the added run %v, %d runs after (%d before); the added run's shard is %d",
				i+1, n, has, len(after[i].comparisons), len(before[i].comparisons), home)
		}
	}
}

// Where each shard's index came from is recorded, and is no input of the
// job: shards from different sources merge, to a report with neither a
// shard nor a source.
func TestMergeAcceptsShardsFromDifferentSources(t *testing.T) {
	var shards []*report.Report
	for i, source := range []string{"flag", "GitLab CI_NODE_INDEX/CI_NODE_TOTAL"} {
		cfg := builtinConfig()
		cfg.ShardIndex, cfg.ShardCount, cfg.ShardSource = i+1, 2, source
		rep := mustRun(t, cfg)
		if rep.Inputs.ShardSource != source {
			t.Fatalf("shard %d: shard_source %q, want %q", i+1, rep.Inputs.ShardSource, source)
		}
		shards = append(shards, rep)
	}
	merged, err := Merge(shards, []string{"a.yaml", "b.yaml"}, Finish{})
	if err != nil {
		t.Fatal(err)
	}
	if merged.Inputs.Shard != "" || merged.Inputs.ShardSource != "" {
		t.Errorf("merged inputs: shard %q, shard_source %q; want neither", merged.Inputs.Shard, merged.Inputs.ShardSource)
	}
	whole := builtinConfig()
	whole.ShardSource = "flag" // no shard: nothing recorded
	if rep := mustRun(t, whole); rep.Inputs.ShardSource != "" {
		t.Errorf("unsharded report records shard_source %q", rep.Inputs.ShardSource)
	}
}

// ShardOf against Python's hashlib (python3 -c "int.from_bytes(
// hashlib.sha256(id.encode()).digest()[:8], 'big') % n + 1"), so that a
// shard is the same whatever computes it.
func TestShardOfMatchesHashlib(t *testing.T) {
	want := map[string][4]int{ // n = 2, 3, 7, 10,000
		"20200101-000000-aaaaaa": {2, 1, 1, 9356},
		"20260115-120000-0f0f0f": {1, 2, 5, 3917},
		"20991231-235959-zzzzzz": {1, 1, 1, 1721},
		"run-001":                {1, 3, 7, 6751},
	}
	for id, w := range want {
		for j, n := range []int{2, 3, 7, 10_000} {
			if got := ShardOf(id, n); got != w[j] {
				t.Errorf("ShardOf(%q, %d) = %d, hashlib %d", id, n, got, w[j])
			}
		}
		if got := ShardOf(id, 1); got != 1 {
			t.Errorf("ShardOf(%q, 1) = %d", id, got)
		}
	}
}

// A shard report lists its own sampled runs only (issue 26: not the whole
// sample in each of 64 shards); merge takes their union, and refuses
// shards whose runs together are not the sample inputs.content_hash names
// (a run dropped from a shard's list with its result, or one added).
func TestShardsListTheirOwnRunsAndMergeChecksTheUnion(t *testing.T) {
	whole := mustRun(t, builtinConfig())
	var shards []*report.Report
	for i := 1; i <= 3; i++ {
		cfg := builtinConfig()
		cfg.ShardIndex, cfg.ShardCount = i, 3
		rep := mustRun(t, cfg)
		for _, r := range rep.Sample.Runs {
			if ShardOf(r.ID, 3) != i {
				t.Fatalf("shard %d/3 lists run %s of shard %d", i, r.ID, ShardOf(r.ID, 3))
			}
		}
		if len(rep.Sample.Runs) == 0 || len(rep.Sample.Runs) >= len(whole.Sample.Runs) {
			t.Fatalf("shard %d/3 lists %d runs of %d", i, len(rep.Sample.Runs), len(whole.Sample.Runs))
		}
		shards = append(shards, rep)
	}
	names := []string{"a", "b", "c"}
	merged, err := Merge(shards, names, Finish{})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(whole.Sample, merged.Sample); d != "" {
		t.Fatalf("merged sample differs from the unsharded one (-whole +merged):\n%s", d)
	}
	// Shard 1 loses its first run, with its result: every run it still
	// lists is accounted for, but the union is not the sample.
	cut := *shards[0]
	gone := cut.Sample.Runs[0].ID
	cut.Sample.Runs = cut.Sample.Runs[1:]
	cut.Comparisons = slices.DeleteFunc(slices.Clone(cut.Comparisons), func(c comparator.Comparison) bool { return c.RunID == gone })
	cut.Failures = slices.DeleteFunc(slices.Clone(cut.Failures), func(f inspection.Failure) bool { return f.RunID == gone })
	if _, err := Merge([]*report.Report{&cut, shards[1], shards[2]}, names, Finish{}); err == nil || !strings.Contains(err.Error(), "content_hash") {
		t.Errorf("merge of a shard without its run %s: %v, want a content_hash error", gone, err)
	}
	// Reports of earlier versions listed the whole sample in every shard:
	// they still merge to the same report.
	var old []*report.Report
	for _, s := range shards {
		c := *s
		c.Sample.Runs = whole.Sample.Runs
		old = append(old, &c)
	}
	again, err := Merge(old, names, Finish{})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(merged, again); d != "" {
		t.Errorf("shards listing the whole sample merge differently (-new +old):\n%s", d)
	}
}
