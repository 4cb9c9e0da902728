package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/evalcal/evalcal/rank"
)

// rankJudge is the exec spec of testdata/inspectors/rank_judge.sh as NAME,
// logging its calls to log.
func rankJudge(root, log, name string) string {
	return "exec:sh " + filepath.Join(root, "testdata/inspectors/rank_judge.sh") + " " + log + " " + name + " {depth}"
}

// callsIn counts the calls logged by rank_judge.sh, by "NAME DEPTH".
func callsIn(t *testing.T, log string) map[string]int {
	t.Helper()
	data, err := os.ReadFile(log)
	if os.IsNotExist(err) {
		return map[string]int{}
	}
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		f := strings.Fields(line)
		out[f[0]+" "+f[1]]++
	}
	return out
}

func rankDoc(t *testing.T, stdout string) rank.Document {
	t.Helper()
	var doc rank.Document
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatalf("%v: %s", err, stdout)
	}
	return doc
}

// TestRankCallsEachJudgeOncePerRunAndReusesRunsCache: a run calibrated
// first fills the cache; rank then calls only the candidates not yet
// calibrated, each once per run, deep not at all; a second rank calls
// nothing.
func TestRankCallsEachJudgeOncePerRunAndReusesRunsCache(t *testing.T) {
	root := repoRoot(t)
	t.Chdir(root)
	cache, log := t.TempDir(), filepath.Join(t.TempDir(), "calls.log")
	deep, oracle := rankJudge(root, log, "deep"), rankJudge(root, log, "oracle")
	if _, stderr, code := runCLI(t, "run", "--cache", cache, "--light", oracle, "--deep", deep, "--quiet",
		"-o", filepath.Join(t.TempDir(), "r.yaml"), "testdata/runs"); code != 0 {
		t.Fatalf("run: exit %d: %s", code, stderr)
	}
	const runs = 46 // the valid runs of testdata/runs
	if got := callsIn(t, log); got["deep deep"] != runs || got["oracle light"] != runs {
		t.Fatalf("run's calls %v", got)
	}
	os.Remove(log)
	args := []string{"rank", "--cache", cache, "--deep", deep, "--format", "json", "--quiet",
		"--light", "oracle=" + oracle, "--light", "lax=" + rankJudge(root, log, "lax"), "--light", "strict=" + rankJudge(root, log, "strict"),
		"testdata/runs"}
	stdout, stderr, code := runCLI(t, args...)
	if code != 0 {
		t.Fatalf("rank: exit %d: %s", code, stderr)
	}
	want := map[string]int{"lax light": runs, "strict light": runs}
	if got := callsIn(t, log); !mapsEqual(got, want) {
		t.Errorf("rank's calls %v, want %v (deep and oracle from run's cache)", got, want)
	}
	if !strings.Contains(stderr, " 92 inspector calls") {
		t.Errorf("stderr: %s", stderr)
	}
	doc := rankDoc(t, stdout)
	if doc.Summary.Use != "oracle" || doc.Candidates[0].Name != "oracle" || *doc.Candidates[0].Agree.Percent != 100 {
		t.Errorf("summary %+v, first %+v", doc.Summary, doc.Candidates[0])
	}
	for _, c := range doc.Candidates {
		if c.Agree.N != runs || c.Cost.SecondsPer1k == nil || *c.Cost.SecondsPer1k != 250 {
			t.Errorf("%s: n %d, seconds/1k %v (want 46 and 250, cached runs included)", c.Name, c.Agree.N, c.Cost.SecondsPer1k)
		}
	}
	os.Remove(log)
	again, stderr, _ := runCLI(t, args...)
	if got := callsIn(t, log); len(got) != 0 || !strings.Contains(stderr, " 0 inspector calls") {
		t.Errorf("warm rank made calls: %v %s", got, stderr)
	}
	if again != stdout {
		t.Errorf("warm rank gives another document")
	}
}

// TestRankPanelOfKnownMembers: a panel of lax, strict and oracle follows
// the oracle by majority (the other two split), so it agrees with deep on
// every run; its members are inspected once each, in their own
// calibration, and the panel itself calls nothing more.
func TestRankPanelOfKnownMembers(t *testing.T) {
	root := repoRoot(t)
	t.Chdir(root)
	log := filepath.Join(t.TempDir(), "calls.log")
	jury := "panel:[" + rankJudge(root, log, "lax") + "],[" + rankJudge(root, log, "strict") + "],[" + rankJudge(root, log, "oracle") + "]"
	stdout, stderr, code := runCLI(t, "rank", "--no-cache", "--sample", "8", "--deep", rankJudge(root, log, "deep"), "--format", "json", "--quiet",
		"--light", "lax="+rankJudge(root, log, "lax"), "--light", "jury="+jury, "--light", "abstaining=panel:["+rankJudge(root, log, "fails")+"],["+rankJudge(root, log, "oracle")+"]?agg=median",
		"testdata/runs")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	got := callsIn(t, log)
	// lax is a candidate and a member: one memo for the member, so the
	// candidate's own calibration and the member's call it twice (8 + 8);
	// the failing member is retried (runner.DefaultRetries).
	if got["deep deep"] != 8 || got["strict light"] != 8 || got["oracle light"] != 8 {
		t.Errorf("calls %v", got)
	}
	doc := rankDoc(t, stdout)
	byName := map[string]rank.Candidate{}
	for _, c := range doc.Candidates {
		byName[c.Name] = c
	}
	j := byName["jury"]
	if j.Agree.Matches != 8 || j.Panel == nil || len(j.Panel.Members) != 3 {
		t.Fatalf("jury %+v", j)
	}
	if j.Panel.Cost.USDPer1k == nil || *j.Panel.Cost.USDPer1k != 7 || *j.Cost.USDPer1k != 7 {
		t.Errorf("panel cost %v, want $1 + $2 + $4 = $7 per 1k runs", j.Panel.Cost.USDPer1k)
	}
	var agree []int
	for _, m := range j.Panel.Members {
		agree = append(agree, m.Agreement.Matches)
	}
	// lax agrees on deep's passes, strict on its fails, oracle on all.
	if agree[0]+agree[1] != 8 || agree[2] != 8 {
		t.Errorf("members' agreement %v", agree)
	}
	a := byName["abstaining"]
	if a.Agree.Matches != 8 || a.Panel.Members[0].Abstained != 8 || a.Panel.Members[0].Agreement.N != 0 {
		t.Errorf("abstaining panel %+v %+v", a.Agree, a.Panel.Members[0])
	}
	if !slices.Contains(doc.Groups[0].Members, "jury") {
		t.Errorf("groups %+v", doc.Groups)
	}
}

func mapsEqual(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func TestRankUsageErrors(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"rank", "--light", "a=builtin", "--light", "b=builtin", "testdata/runs"}, "--deep SPEC is required"},
		{[]string{"rank", "--deep", "builtin", "--light", "a=builtin", "testdata/runs"}, "at least two"},
		{[]string{"rank", "--deep", "builtin", "--light", "a=builtin", "--light", "a=builtin", "testdata/runs"}, "given twice"},
		{[]string{"rank", "--deep", "builtin", "--light", "builtin", "--light", "b=builtin", "testdata/runs"}, "NAME=SPEC"},
		{[]string{"rank", "--deep", "builtin", "--light", "a b=builtin", "--light", "b=builtin", "testdata/runs"}, "NAME=SPEC"},
		{[]string{"rank", "--deep", "builtin", "--light", "a=nope", "--light", "b=builtin", "testdata/runs"}, "must be builtin"},
		{[]string{"rank", "--deep", "builtin", "--light", "a=panel:builtin", "--light", "b=builtin", "testdata/runs"}, "2 to 32 members"},
		{[]string{"rank", "--deep", "builtin", "--light", "a=panel:builtin,[panel:builtin,builtin]", "--light", "b=builtin", "testdata/runs"}, "cannot be a panel"},
		{[]string{"rank", "--deep", "builtin", "--light", "a=builtin", "--light", "b=builtin", "--shard", "1/2", "testdata/runs"}, "unknown flag"},
		{[]string{"rank", "--deep", "builtin", "--light", "a=builtin", "--light", "b=builtin"}, "no run PATH"},
	}
	for _, c := range cases {
		var out, errb bytes.Buffer
		err := run(context.Background(), c.args, &out, &errb)
		printError(&errb, err)
		code, stderr := exitCode(err), errb.String()
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%q: exit %d, stderr %q; want 2 and %q", c.args, code, stderr, c.want)
		}
	}
}

// TestRunTakesAPanel: panel: is a spec kind of run too; a panel of lax,
// strict and oracle (the majority is the oracle's) agrees with deep on
// every run.
func TestRunTakesAPanel(t *testing.T) {
	root := repoRoot(t)
	t.Chdir(root)
	log := filepath.Join(t.TempDir(), "calls.log")
	jury := "panel:[" + rankJudge(root, log, "lax") + "],[" + rankJudge(root, log, "strict") + "],[" + rankJudge(root, log, "oracle") + "]"
	stdout, stderr, code := runCLI(t, "run", "--no-cache", "--sample", "6", "--quiet", "--format", "json",
		"--light", jury, "--deep", rankJudge(root, log, "deep"), "testdata/runs")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rep struct {
		AgreementRate struct{ Matches, N int } `json:"agreement_rate"`
		Inputs        struct {
			Light struct{ Identity string } `json:"light"`
		} `json:"inputs"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.AgreementRate.N != 6 || rep.AgreementRate.Matches != 6 || !strings.HasPrefix(rep.Inputs.Light.Identity, "panel/1:majority:") {
		t.Errorf("report %+v", rep)
	}
	if got := callsIn(t, log); got["lax light"] != 6 || got["strict light"] != 6 || got["oracle light"] != 6 {
		t.Errorf("calls %v", got)
	}
}

// TestRankIsByteIdenticalAcrossJobs: the same candidates give the same
// ranking whatever --jobs is.
func TestRankIsByteIdenticalAcrossJobs(t *testing.T) {
	root := repoRoot(t)
	t.Chdir(root)
	log := filepath.Join(t.TempDir(), "calls.log")
	var docs []string
	for _, jobs := range []string{"1", "4"} {
		stdout, stderr, code := runCLI(t, "rank", "--no-cache", "--quiet", "--jobs", jobs, "--deep", rankJudge(root, log, "deep"),
			"--light", "lax="+rankJudge(root, log, "lax"), "--light", "oracle="+rankJudge(root, log, "oracle"),
			"--light", "jury=panel:["+rankJudge(root, log, "lax")+"],["+rankJudge(root, log, "strict")+"]?agg=median", "testdata/runs")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		docs = append(docs, stdout)
	}
	if docs[0] != docs[1] {
		t.Error("--jobs 1 and --jobs 4 give different rankings")
	}
}
