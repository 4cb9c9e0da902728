package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"testing"
)

// Issue 27 (7): --deep-fraction 0 is outside 0 < F <= 1, a usage error,
// not the unset default (deep on every run).
func TestDeepFractionZeroIsAUsageError(t *testing.T) {
	err := run(context.Background(), []string{"run", "--no-cache", "--quiet", "--deep-fraction", "0", "--inspections", twelve}, io.Discard, io.Discard)
	if exitCode(err) != exitUsage || !strings.Contains(fmt.Sprint(err), "--deep-fraction must be in (0, 1], got 0") {
		t.Errorf("exit %d: %v", exitCode(err), err)
	}
}

// Issue 27 (11): every shard input is read by one strict parser: digits,
// no sign, spaces or leading zeros, whichever variable holds it.
func TestShardVariablesAreParsedAlike(t *testing.T) {
	env := func(kv ...string) func(string) string {
		m := map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return func(k string) string { return m[k] }
	}
	bad := []struct {
		flag string
		env  func(string) string
	}{
		{"auto", env("EVALCAL_SHARD", "1/3 ")},
		{"auto", env("EVALCAL_SHARD", "+1/+3")},
		{"auto", env("EVALCAL_SHARD", "01/03")},
		{"auto", env("CI_NODE_INDEX", "1", "CI_NODE_TOTAL", " 3")},
		{"auto", env("CI_NODE_INDEX", "+1", "CI_NODE_TOTAL", "3")},
		{"auto", env("CI_NODE_INDEX", "1", "CI_NODE_TOTAL", "03")},
		{"auto", env("CIRCLE_NODE_INDEX", "-0", "CIRCLE_NODE_TOTAL", "3")},
		{"auto", env("BUILDKITE_PARALLEL_JOB", "0 ", "BUILDKITE_PARALLEL_JOB_COUNT", "3")},
		{"auto/+3", env("JOB_COMPLETION_INDEX", "0")},
		{"auto/ 3", env("JOB_COMPLETION_INDEX", "0")},
		{"+1/3", env()},
		{" 1/3", env()},
		{"1/03", env()},
	}
	for k, b := range bad {
		if i, n, _, err := shardFromFlag(b.flag, b.env); err == nil {
			t.Errorf("bad case %d: --shard %q accepted as %d/%d", k, b.flag, i, n)
		}
	}
	good := []struct {
		flag string
		env  func(string) string
		i, n int
	}{
		{"auto", env("EVALCAL_SHARD", "1/3"), 1, 3},
		{"auto", env("CI_NODE_INDEX", "3", "CI_NODE_TOTAL", "3"), 3, 3},
		{"auto", env("CIRCLE_NODE_INDEX", "0", "CIRCLE_NODE_TOTAL", "10"), 1, 10},
		{"auto/3", env("JOB_COMPLETION_INDEX", "2"), 3, 3},
		{"2/3", env(), 2, 3},
	}
	for _, g := range good {
		i, n, _, err := shardFromFlag(g.flag, g.env)
		if err != nil || i != g.i || n != g.n {
			t.Errorf("--shard %q: %d/%d %v, want %d/%d", g.flag, i, n, err, g.i, g.n)
		}
	}
}

// Issue 27 (14): an unknown command followed by a flag is named as the
// unknown command, not as "evalcal: evalcal: unknown flag".
func TestUnknownCommandBeforeAFlagIsNamed(t *testing.T) {
	err := run(context.Background(), []string{"nosuchverb", "--no-cache"}, io.Discard, io.Discard)
	if exitCode(err) != exitUsage || !strings.Contains(fmt.Sprint(err), `unknown command "nosuchverb"`) || strings.Contains(fmt.Sprint(err), "unknown flag") {
		t.Errorf("exit %d: %v", exitCode(err), err)
	}
}

// Issue 27 (5): a shard whose comparison was edited by hand (one
// light_verdict changed, verdict_match left) is refused, exit 2, naming
// the shard file and the run; the unedited shards still merge.
func TestMergeRefusesAShardThatContradictsItself(t *testing.T) {
	t.Chdir(repoRoot(t))
	paths := shardReports(t, 2)
	data, err := os.ReadFile(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	start := bytes.Index(data, []byte("\ncomparisons:\n"))
	m := regexp.MustCompile(`(?m)^(\s*- run_id: (\S+)\n(?:\s+\w+: .*\n)*?\s+light_verdict: )(\w+)`).FindSubmatchIndex(data[max(start, 0):])
	if start < 0 || m == nil {
		t.Fatal("no comparison in the shard")
	}
	for k := range m {
		m[k] += start
	}
	runID, verdict := string(data[m[4]:m[5]]), string(data[m[6]:m[7]])
	other := map[string]string{"pass": "fail", "fail": "pass", "partial": "pass"}[verdict]
	edited := append(append(append([]byte{}, data[:m[6]]...), other...), data[m[7]:]...)
	if err := os.WriteFile(paths[0], edited, 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	err = run(context.Background(), []string{"merge", paths[0], paths[1]}, &out, io.Discard)
	if exitCode(err) != exitUsage || out.Len() != 0 || !strings.Contains(fmt.Sprint(err), paths[0]) ||
		!strings.Contains(fmt.Sprint(err), "run "+runID) || !strings.Contains(fmt.Sprint(err), "verdict_match") {
		t.Errorf("exit %d, %d bytes out: %v", exitCode(err), out.Len(), err)
	}
}
