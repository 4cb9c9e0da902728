package main

import "testing"

// --shard auto reads the shard from the job runner's environment.
func TestAutoShardReadsTheJobRunnersEnvironment(t *testing.T) {
	for _, c := range []struct {
		env   map[string]string
		count string
		want  string
		bad   bool
	}{
		{env: map[string]string{"EVALCAL_SHARD": "3/8"}, want: "3/8"},
		{env: map[string]string{"CI_NODE_INDEX": "2", "CI_NODE_TOTAL": "5"}, want: "2/5"},         // GitLab, 1-based
		{env: map[string]string{"CIRCLE_NODE_INDEX": "0", "CIRCLE_NODE_TOTAL": "4"}, want: "1/4"}, // CircleCI, 0-based
		{env: map[string]string{"BUILDKITE_PARALLEL_JOB": "3", "BUILDKITE_PARALLEL_JOB_COUNT": "4"}, want: "4/4"},
		{env: map[string]string{"JOB_COMPLETION_INDEX": "6"}, count: "10", want: "7/10"}, // Kubernetes: auto/N
		{env: map[string]string{"JOB_COMPLETION_INDEX": "6"}, bad: true},                 // no count
		{env: map[string]string{"CI_NODE_INDEX": "x", "CI_NODE_TOTAL": "5"}, bad: true},
		{env: map[string]string{}, bad: true},
	} {
		got, err := autoShard(func(k string) string { return c.env[k] }, c.count)
		if c.bad != (err != nil) || got != c.want {
			t.Errorf("%v %q: got %q, %v; want %q (error %v)", c.env, c.count, got, err, c.want, c.bad)
		}
	}
}
