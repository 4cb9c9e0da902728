package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalcal/evalcal/report/reportio"
)

// shardVariables are every variable --shard auto reads.
func shardVariables() []string {
	vars := []string{"EVALCAL_SHARD"}
	for _, p := range shardPlatforms {
		vars = append(vars, p.index, p.total)
	}
	return vars
}

// clearShardEnv unsets (sets empty, which autoShard reads as unset) every
// shard variable for the test, so that a test run inside a CI job does
// not see the job's own shard.
func clearShardEnv(t *testing.T) {
	t.Helper()
	for _, v := range shardVariables() {
		t.Setenv(v, "")
	}
}

// --shard i/n and --shard auto read the shard from the flag or from the
// job runner's environment, and say where it came from.
func TestShardFlagResolvesEveryPlatform(t *testing.T) {
	for _, c := range []struct {
		name   string
		flag   string
		env    map[string]string
		want   [2]int
		source string
	}{
		{"explicit flag wins over the environment", "2/5", map[string]string{"EVALCAL_SHARD": "1/3", "CI_NODE_INDEX": "1", "CI_NODE_TOTAL": "3"},
			[2]int{2, 5}, "flag"},
		{"EVALCAL_SHARD", "auto", map[string]string{"EVALCAL_SHARD": "3/8"}, [2]int{3, 8}, "EVALCAL_SHARD"},
		{"EVALCAL_SHARD with a matching auto/N", "auto/8", map[string]string{"EVALCAL_SHARD": "8/8"}, [2]int{8, 8}, "EVALCAL_SHARD"},
		{"GitLab first, 1-based", "auto", map[string]string{"CI_NODE_INDEX": "1", "CI_NODE_TOTAL": "3"}, [2]int{1, 3}, "GitLab CI_NODE_INDEX/CI_NODE_TOTAL"},
		{"GitLab last, 1-based", "auto", map[string]string{"CI_NODE_INDEX": "3", "CI_NODE_TOTAL": "3"}, [2]int{3, 3}, "GitLab CI_NODE_INDEX/CI_NODE_TOTAL"},
		{"CircleCI first, 0-based", "auto", map[string]string{"CIRCLE_NODE_INDEX": "0", "CIRCLE_NODE_TOTAL": "4"}, [2]int{1, 4},
			"CircleCI CIRCLE_NODE_INDEX/CIRCLE_NODE_TOTAL"},
		{"CircleCI last, 0-based", "auto", map[string]string{"CIRCLE_NODE_INDEX": "3", "CIRCLE_NODE_TOTAL": "4"}, [2]int{4, 4},
			"CircleCI CIRCLE_NODE_INDEX/CIRCLE_NODE_TOTAL"},
		{"Buildkite, 0-based", "auto", map[string]string{"BUILDKITE_PARALLEL_JOB": "1", "BUILDKITE_PARALLEL_JOB_COUNT": "2"}, [2]int{2, 2},
			"Buildkite BUILDKITE_PARALLEL_JOB/BUILDKITE_PARALLEL_JOB_COUNT"},
		{"Kubernetes with EVALCAL_SHARD_TOTAL, 0-based", "auto", map[string]string{"JOB_COMPLETION_INDEX": "0", "EVALCAL_SHARD_TOTAL": "3"},
			[2]int{1, 3}, "Kubernetes JOB_COMPLETION_INDEX/EVALCAL_SHARD_TOTAL"},
		{"Kubernetes with auto/N", "auto/10", map[string]string{"JOB_COMPLETION_INDEX": "6"}, [2]int{7, 10},
			"Kubernetes JOB_COMPLETION_INDEX/--shard auto/N"},
		{"Kubernetes with both, agreeing", "auto/3", map[string]string{"JOB_COMPLETION_INDEX": "2", "EVALCAL_SHARD_TOTAL": "3"},
			[2]int{3, 3}, "Kubernetes JOB_COMPLETION_INDEX/EVALCAL_SHARD_TOTAL"},
		// Two platforms: the first in the documented order wins.
		{"EVALCAL_SHARD before GitLab", "auto", map[string]string{"EVALCAL_SHARD": "2/2", "CI_NODE_INDEX": "1", "CI_NODE_TOTAL": "3"},
			[2]int{2, 2}, "EVALCAL_SHARD"},
		{"GitLab before Kubernetes", "auto", map[string]string{"CI_NODE_INDEX": "2", "CI_NODE_TOTAL": "2", "JOB_COMPLETION_INDEX": "0", "EVALCAL_SHARD_TOTAL": "5"},
			[2]int{2, 2}, "GitLab CI_NODE_INDEX/CI_NODE_TOTAL"},
		{"CircleCI before Buildkite", "auto", map[string]string{"CIRCLE_NODE_INDEX": "0", "CIRCLE_NODE_TOTAL": "2",
			"BUILDKITE_PARALLEL_JOB": "3", "BUILDKITE_PARALLEL_JOB_COUNT": "4"}, [2]int{1, 2}, "CircleCI CIRCLE_NODE_INDEX/CIRCLE_NODE_TOTAL"},
	} {
		t.Run(c.name, func(t *testing.T) {
			i, n, source, err := shardFromFlag(c.flag, func(k string) string { return c.env[k] })
			if err != nil || [2]int{i, n} != c.want || source != c.source {
				t.Errorf("--shard %s %v: got %d/%d from %q (error %v); want %d/%d from %q",
					c.flag, c.env, i, n, source, err, c.want[0], c.want[1], c.source)
			}
		})
	}
}

// Every way --shard auto cannot know the shard is an error that names
// what to set: it never runs the whole job silently.
func TestShardAutoRefusesHalfSetAndBadEnvironments(t *testing.T) {
	type env = map[string]string
	cases := []struct {
		name string
		flag string
		env  env
		says []string // the error names all of these
	}{
		{"nothing set", "auto", env{}, shardVariables()},
		{"auto/N with nothing set", "auto/3", env{}, []string{"EVALCAL_SHARD", "JOB_COMPLETION_INDEX"}},
		{"empty means unset", "auto", env{"CI_NODE_INDEX": "", "EVALCAL_SHARD": ""}, []string{"no shard in the environment"}},
		// A variable of a pair without the other, both ways, every platform.
		{"GitLab index alone", "auto", env{"CI_NODE_INDEX": "1"}, []string{"CI_NODE_INDEX is set but CI_NODE_TOTAL is not"}},
		{"GitLab total alone (a job without parallel:)", "auto", env{"CI_NODE_TOTAL": "1"}, []string{"CI_NODE_TOTAL is set but CI_NODE_INDEX is not", "parallel"}},
		{"CircleCI index alone", "auto", env{"CIRCLE_NODE_INDEX": "0"}, []string{"CIRCLE_NODE_INDEX is set but CIRCLE_NODE_TOTAL is not"}},
		{"CircleCI total alone", "auto", env{"CIRCLE_NODE_TOTAL": "2"}, []string{"CIRCLE_NODE_TOTAL is set but CIRCLE_NODE_INDEX is not"}},
		{"Buildkite index alone", "auto", env{"BUILDKITE_PARALLEL_JOB": "0"}, []string{"BUILDKITE_PARALLEL_JOB is set but BUILDKITE_PARALLEL_JOB_COUNT is not"}},
		{"Buildkite count alone", "auto", env{"BUILDKITE_PARALLEL_JOB_COUNT": "2"}, []string{"BUILDKITE_PARALLEL_JOB_COUNT is set but BUILDKITE_PARALLEL_JOB is not"}},
		{"Kubernetes index alone", "auto", env{"JOB_COMPLETION_INDEX": "6"}, []string{"JOB_COMPLETION_INDEX is set but EVALCAL_SHARD_TOTAL is not", "auto/N"}},
		{"Kubernetes total alone", "auto", env{"EVALCAL_SHARD_TOTAL": "3"}, []string{"EVALCAL_SHARD_TOTAL is set but JOB_COMPLETION_INDEX is not"}},
		{"Kubernetes total alone with auto/N", "auto/3", env{"EVALCAL_SHARD_TOTAL": "3"}, []string{"EVALCAL_SHARD_TOTAL is set but JOB_COMPLETION_INDEX is not"}},
		// The first platform with any variable set decides, half set or not.
		{"half-set GitLab before a complete CircleCI", "auto", env{"CI_NODE_TOTAL": "1", "CIRCLE_NODE_INDEX": "0", "CIRCLE_NODE_TOTAL": "2"},
			[]string{"CI_NODE_INDEX"}},
		// Counts that disagree.
		{"Kubernetes total and auto/N differ", "auto/4", env{"JOB_COMPLETION_INDEX": "0", "EVALCAL_SHARD_TOTAL": "3"}, []string{"EVALCAL_SHARD_TOTAL=3", "auto/4"}},
		{"GitLab total and auto/N differ", "auto/4", env{"CI_NODE_INDEX": "1", "CI_NODE_TOTAL": "3"}, []string{"CI_NODE_TOTAL=3", "auto/4"}},
		{"EVALCAL_SHARD and auto/N differ", "auto/4", env{"EVALCAL_SHARD": "1/3"}, []string{"EVALCAL_SHARD=1/3", "auto/4"}},
		// Not numbers.
		{"EVALCAL_SHARD not i/n", "auto", env{"EVALCAL_SHARD": "two"}, []string{`EVALCAL_SHARD="two"`}},
		{"GitLab index not a number", "auto", env{"CI_NODE_INDEX": "x", "CI_NODE_TOTAL": "5"}, []string{`CI_NODE_INDEX="x" is not an integer`}},
		{"CircleCI total not a number", "auto", env{"CIRCLE_NODE_INDEX": "0", "CIRCLE_NODE_TOTAL": "4.0"}, []string{`CIRCLE_NODE_TOTAL="4.0" is not an integer`}},
		{"Buildkite index not a number", "auto", env{"BUILDKITE_PARALLEL_JOB": "1e0", "BUILDKITE_PARALLEL_JOB_COUNT": "4"}, []string{"BUILDKITE_PARALLEL_JOB="}},
		{"Kubernetes total not a number", "auto", env{"JOB_COMPLETION_INDEX": "0", "EVALCAL_SHARD_TOTAL": "three"}, []string{`EVALCAL_SHARD_TOTAL="three"`}},
		{"auto/N not a number", "auto/x", env{"JOB_COMPLETION_INDEX": "0"}, []string{"auto/N", `"x"`}},
		{"auto/ without N", "auto/", env{"JOB_COMPLETION_INDEX": "0"}, []string{"auto/N"}},
		// Out of range.
		{"GitLab index 0 (it is 1-based)", "auto", env{"CI_NODE_INDEX": "0", "CI_NODE_TOTAL": "3"}, []string{"CI_NODE_INDEX=0 is out of range", "[1, 3]"}},
		{"GitLab index past the total", "auto", env{"CI_NODE_INDEX": "4", "CI_NODE_TOTAL": "3"}, []string{"CI_NODE_INDEX=4", "[1, 3]"}},
		{"CircleCI index = total (it is 0-based)", "auto", env{"CIRCLE_NODE_INDEX": "4", "CIRCLE_NODE_TOTAL": "4"}, []string{"CIRCLE_NODE_INDEX=4", "[0, 3]"}},
		{"Buildkite index negative", "auto", env{"BUILDKITE_PARALLEL_JOB": "-1", "BUILDKITE_PARALLEL_JOB_COUNT": "4"}, []string{`BUILDKITE_PARALLEL_JOB="-1" is not an integer`}},
		{"Kubernetes index = total", "auto", env{"JOB_COMPLETION_INDEX": "3", "EVALCAL_SHARD_TOTAL": "3"}, []string{"JOB_COMPLETION_INDEX=3", "[0, 2]"}},
		{"Kubernetes index = auto/N", "auto/3", env{"JOB_COMPLETION_INDEX": "3"}, []string{"JOB_COMPLETION_INDEX=3", "[0, 2]"}},
		{"count 0", "auto", env{"CI_NODE_INDEX": "1", "CI_NODE_TOTAL": "0"}, []string{"CI_NODE_TOTAL=0", "[1, 10000]"}},
		{"count past MaxShards", "auto", env{"CIRCLE_NODE_INDEX": "0", "CIRCLE_NODE_TOTAL": "10001"}, []string{"CIRCLE_NODE_TOTAL=10001"}},
		{"auto/0", "auto/0", env{"JOB_COMPLETION_INDEX": "0"}, []string{"auto/N"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			i, n, source, err := shardFromFlag(c.flag, func(k string) string { return c.env[k] })
			if err == nil {
				t.Fatalf("--shard %s %v: got %d/%d from %q, want an error", c.flag, c.env, i, n, source)
			}
			for _, s := range c.says {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("--shard %s %v: error %q does not say %q", c.flag, c.env, err, s)
				}
			}
		})
	}
}

// Through the command: a bad environment is a usage error (exit 2, no
// report), and the shard's source is recorded in the report.
func TestRunShardAutoRecordsItsSourceAndRefusesBadEnvironments(t *testing.T) {
	t.Chdir(repoRoot(t))
	for _, env := range []map[string]string{
		{},                     // nothing set
		{"CI_NODE_TOTAL": "3"}, // half set
		{"JOB_COMPLETION_INDEX": "1"},
	} {
		clearShardEnv(t)
		for k, v := range env {
			t.Setenv(k, v)
		}
		var out, errb bytes.Buffer
		err := run(context.Background(), []string{"run", "--no-cache", "--shard", "auto", "testdata/runs"}, &out, &errb)
		if code := exitCode(err); code != 2 || out.Len() != 0 || !strings.Contains(fmt.Sprint(err), "run: --shard: auto: ") {
			t.Errorf("--shard auto with %v: exit %d, %d bytes of stdout, error %v; want exit 2, none, the reason", env, code, out.Len(), err)
		}
	}

	dir := t.TempDir()
	var shards []string
	for i, env := range []map[string]string{
		{"JOB_COMPLETION_INDEX": "0", "EVALCAL_SHARD_TOTAL": "2"},
		{"CI_NODE_INDEX": "2", "CI_NODE_TOTAL": "2"},
	} {
		clearShardEnv(t)
		for k, v := range env {
			t.Setenv(k, v)
		}
		p := filepath.Join(dir, filepath.Base(t.Name())+string(rune('1'+i))+".yaml")
		if _, stderr, code := runCLI(t, "run", "--no-cache", "--shard", "auto", "-o", p, "testdata/runs"); code != 0 {
			t.Fatalf("--shard auto with %v: exit %d: %s", env, code, stderr)
		}
		shards = append(shards, p)
	}
	for k, want := range []struct{ shard, source string }{
		{"1/2", "Kubernetes JOB_COMPLETION_INDEX/EVALCAL_SHARD_TOTAL"},
		{"2/2", "GitLab CI_NODE_INDEX/CI_NODE_TOTAL"},
	} {
		data, err := os.ReadFile(shards[k])
		if err != nil {
			t.Fatal(err)
		}
		rep, err := reportio.ParseReport(data)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Inputs.Shard != want.shard || rep.Inputs.ShardSource != want.source ||
			!strings.Contains(string(data), "shard_source: "+want.source+"\n") {
			t.Errorf("report %d: shard %q from %q, want %q from %q", k+1, rep.Inputs.Shard, rep.Inputs.ShardSource, want.shard, want.source)
		}
	}

	// Shards from two sources are one job: they merge, and the merged
	// report (no shard, no source) equals the unsharded one.
	clearShardEnv(t)
	whole, stderr, code := runCLI(t, "run", "--no-cache", "testdata/runs")
	if code != 0 {
		t.Fatalf("unsharded: exit %d: %s", code, stderr)
	}
	merged, stderr, code := runCLI(t, append([]string{"merge"}, shards...)...)
	if code != 0 {
		t.Fatalf("merge: exit %d: %s", code, stderr)
	}
	if merged != whole || strings.Contains(merged, "shard_source") {
		t.Errorf("shards from two sources merged differ from the unsharded report")
	}
}
