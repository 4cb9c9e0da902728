package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/evalcal/evalcal/calibrate"
)

// Sources of a shard, as recorded in the report's inputs.shard_source.
const (
	shardSourceFlag = "flag"
	shardSourceEnv  = "EVALCAL_SHARD"
)

// shardPlatform is one job runner's pair of shard variables: the index
// (0- or 1-based) and the count.
type shardPlatform struct {
	name         string // as in the source: "GitLab"
	index, total string // the variables
	base         int    // the index of the first shard
	hint         string // what to fix when the pair is half set
	// countFromFlag: the platform sets no count variable of its own, so N
	// of --shard auto/N stands in for an unset total.
	countFromFlag bool
}

// shardPlatforms are the job runners --shard auto reads, in the order it
// reads them (after EVALCAL_SHARD). Kubernetes has no count variable: it
// is EVALCAL_SHARD_TOTAL, which the Job's manifest sets, or N of
// --shard auto/N.
var shardPlatforms = []shardPlatform{
	{name: "GitLab", index: "CI_NODE_INDEX", total: "CI_NODE_TOTAL", base: 1,
		hint: "GitLab sets CI_NODE_INDEX only in a job with parallel: N"},
	{name: "CircleCI", index: "CIRCLE_NODE_INDEX", total: "CIRCLE_NODE_TOTAL", base: 0},
	{name: "Buildkite", index: "BUILDKITE_PARALLEL_JOB", total: "BUILDKITE_PARALLEL_JOB_COUNT", base: 0,
		hint: "Buildkite sets both in a step with parallelism: N"},
	{name: "Kubernetes", index: "JOB_COMPLETION_INDEX", total: "EVALCAL_SHARD_TOTAL", base: 0, countFromFlag: true,
		hint: "a Job with completionMode: Indexed sets JOB_COMPLETION_INDEX; set EVALCAL_SHARD_TOTAL to its completions in the manifest, or give --shard auto/N"},
}

// shardFromFlag reads --shard: "i/n" (the source is "flag"), or "auto"
// to take i and n from the job runner's environment, or "auto/N" to take
// i from it and n = N (see autoShard). getenv reads the environment
// (os.Getenv).
func shardFromFlag(s string, getenv func(string) string) (i, n int, source string, err error) {
	count, withCount := strings.CutPrefix(s, "auto/")
	if s != "auto" && !withCount {
		i, n, err = calibrate.ParseShard(s)
		return i, n, shardSourceFlag, err
	}
	countN := 0
	if withCount {
		if countN, err = calibrate.ParseShardNumber(count); err != nil || countN < 1 || countN > calibrate.MaxShards {
			return 0, 0, "", fmt.Errorf("auto/N: N is the shard count, an integer in [1, %d]; got %q", calibrate.MaxShards, count)
		}
	}
	return autoShard(getenv, countN)
}

// autoShard finds the shard i of n (1-based i) in the environment and
// says where it found it. It reads, in this order, and the first that has any
// of its variables set (not empty) decides, the later ones being ignored:
//
//	EVALCAL_SHARD                  "i/n", 1-based       source "EVALCAL_SHARD"
//	CI_NODE_INDEX, CI_NODE_TOTAL   GitLab, 1-based      "GitLab CI_NODE_INDEX/CI_NODE_TOTAL"
//	CIRCLE_NODE_INDEX, _TOTAL      CircleCI, 0-based    "CircleCI CIRCLE_NODE_INDEX/CIRCLE_NODE_TOTAL"
//	BUILDKITE_PARALLEL_JOB, _COUNT Buildkite, 0-based   "Buildkite BUILDKITE_PARALLEL_JOB/BUILDKITE_PARALLEL_JOB_COUNT"
//	JOB_COMPLETION_INDEX with      Kubernetes Indexed Job, 0-based:
//	  EVALCAL_SHARD_TOTAL                               "Kubernetes JOB_COMPLETION_INDEX/EVALCAL_SHARD_TOTAL"
//	  or count (--shard auto/N)                         "Kubernetes JOB_COMPLETION_INDEX/--shard auto/N"
//
// count, when not 0, is N of --shard auto/N: it stands in for
// EVALCAL_SHARD_TOTAL, and a count the environment gives (whatever the
// source) must equal it. These are errors, naming the variables: a pair
// with one variable set and not the other (never run the whole job
// silently); an index or count that is not an integer; an index out of
// range (0 <= index < count when 0-based, 1 <= index <= count when
// 1-based); a count outside [1, calibrate.MaxShards]; nothing set at all.
// Every index and count is read by calibrate.ParseShardNumber: digits
// only, no sign, spaces or leading zeros.
func autoShard(getenv func(string) string, count int) (i, n int, source string, err error) {
	if v := getenv("EVALCAL_SHARD"); v != "" {
		i, n, err := calibrate.ParseShard(v)
		if err != nil {
			return 0, 0, "", fmt.Errorf("auto: EVALCAL_SHARD=%q: %w", v, err)
		}
		if count != 0 && n != count {
			return 0, 0, "", fmt.Errorf("auto: EVALCAL_SHARD=%s is of %d shards but --shard auto/%d says %d", v, n, count, count)
		}
		return i, n, shardSourceEnv, nil
	}
	for _, p := range shardPlatforms {
		iv, tv := getenv(p.index), getenv(p.total)
		if iv == "" && tv == "" {
			continue
		}
		source := p.name + " " + p.index + "/" + p.total
		if p.countFromFlag && tv == "" && count != 0 {
			tv, source = strconv.Itoa(count), p.name+" "+p.index+"/--shard auto/N"
		}
		if iv == "" || tv == "" {
			set, unset := p.index, p.total
			if iv == "" {
				set, unset = p.total, p.index
			}
			msg := fmt.Sprintf("auto: %s is set but %s is not: %s needs both %s and %s", set, unset, p.name, p.index, p.total)
			if p.hint != "" {
				msg += " (" + p.hint + ")"
			}
			return 0, 0, "", errors.New(msg)
		}
		n, err = shardCount(p.total, tv)
		if err != nil {
			return 0, 0, "", err
		}
		if count != 0 && n != count {
			return 0, 0, "", fmt.Errorf("auto: %s=%d but --shard auto/%d says %d shards", p.total, n, count, count)
		}
		i, err = calibrate.ParseShardNumber(iv)
		if err != nil {
			return 0, 0, "", fmt.Errorf("auto: %s=%q is not an integer in the accepted form (digits only: no sign, spaces or leading zeros)", p.index, iv)
		}
		if i < p.base || i > n-1+p.base {
			return 0, 0, "", fmt.Errorf("auto: %s=%d is out of range: %s counts from %d, so with %s=%d it is in [%d, %d]",
				p.index, i, p.name, p.base, p.total, n, p.base, n-1+p.base)
		}
		return i + 1 - p.base, n, source, nil
	}
	return 0, 0, "", errors.New("auto: no shard in the environment: set EVALCAL_SHARD=i/n, or run as a GitLab job with parallel: N " +
		"(CI_NODE_INDEX, CI_NODE_TOTAL), a CircleCI job with parallelism (CIRCLE_NODE_INDEX, CIRCLE_NODE_TOTAL), a Buildkite step " +
		"with parallelism (BUILDKITE_PARALLEL_JOB, BUILDKITE_PARALLEL_JOB_COUNT) or a Kubernetes Indexed Job (JOB_COMPLETION_INDEX, " +
		"with EVALCAL_SHARD_TOTAL or --shard auto/N)")
}

// shardCount reads the shard count variable name's value v: an integer
// in [1, calibrate.MaxShards] in calibrate.ParseShardNumber's one form.
func shardCount(name, v string) (int, error) {
	n, err := calibrate.ParseShardNumber(v)
	switch {
	case err != nil:
		return 0, fmt.Errorf("auto: %s=%q is not an integer in the accepted form (digits only: no sign, spaces or leading zeros)", name, v)
	case n < 1 || n > calibrate.MaxShards:
		return 0, fmt.Errorf("auto: %s=%d: a shard count is in [1, %d]", name, n, calibrate.MaxShards)
	}
	return n, nil
}

// shardReadsOwnRuns says whether a shard of this run needs no other
// shard's runs, so that its saved inspections bring its own runs only
// (spec.Env.MemberOnly, calibrate.Config.ShardOwnRuns): one file on both
// sides brings the runs (--inspections, no run paths), every valid run is
// sampled (no --sample) and no deep subset or escalation is drawn over
// the whole sample. Each shard then reads another shard's line for its
// run_id only, and merge recomputes the content hash and the composition
// over the union (README "Performance": 64 shards cost about 2x one
// unsharded run instead of 10x).
func (o *runOptions) shardReadsOwnRuns() bool {
	return o.shardCount > 1 && o.Light == o.Deep && len(o.Paths) == 0 && o.Sample == 0 &&
		o.DeepSample == 0 && o.DeepFraction == 0 && o.DeepSubset == "" &&
		o.Escalation.TargetAgreement == 0 && o.Escalation.Escalate == ""
}

// shardMember tells whether a run id belongs to shard i of n (nil when
// n <= 1: every run), so that a saved-inspections file decodes only the
// lines of its shard's runs (saved.LoadShard) and 64 shards do about the
// work of one unsharded run instead of 64 times it.
func shardMember(i, n int) func(runID string) bool {
	if n <= 1 {
		return nil
	}
	return func(id string) bool { return calibrate.ShardOf(id, n) == i }
}
