package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/evalcal/evalcal/internal/judgeserver"
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

// Issue 27 (14): a key revoked mid-run (401 after some good calls) stops
// the run with exit 2 as before, and writes the report of what finished,
// as the budget stop does.
func TestAuthFailureMidRunWritesThePartialReport(t *testing.T) {
	t.Chdir(repoRoot(t))
	srv, err := judgeserver.New(judgeserver.Options{APIKey: plantedKey})
	if err != nil {
		t.Fatal(err)
	}
	var requests atomic.Int64
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if requests.Add(1) > 8 {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			io.WriteString(w, `{"error": {"message": "Incorrect API key provided", "type": "invalid_request_error", "code": "invalid_api_key"}}`)
			return
		}
		srv.ServeHTTP(w, r)
	}))
	defer ts.Close()
	t.Setenv("OPENAI_BASE_URL", ts.URL+"/v1")
	t.Setenv("OPENAI_API_KEY", plantedKey)
	out := filepath.Join(t.TempDir(), "r.yaml")
	var stderr strings.Builder
	err = run(context.Background(), []string{"run", "--no-cache", "--quiet", "--jobs", "1", "--light", "openai:judge-mini",
		"--deep", "openai:judge-large", "-o", out, "testdata/runs"}, io.Discard, &stderr)
	if exitCode(err) != exitUsage || !strings.Contains(fmt.Sprint(err), "authentication failed") {
		t.Fatalf("exit %d: %v", exitCode(err), err)
	}
	r := readReport(t, out)
	if r.SampleSize == 0 || r.SampleSize >= len(r.Sample.Runs) || !r.Partial {
		t.Errorf("report of %d comparisons of %d runs, partial %v", r.SampleSize, len(r.Sample.Runs), r.Partial)
	}
	if !slices.ContainsFunc(r.Warnings, func(w string) bool { return strings.Contains(w, "the run stopped") }) {
		t.Errorf("warnings %q", r.Warnings)
	}
	data, _ := os.ReadFile(out)
	if strings.Contains(string(data)+stderr.String(), plantedKey[:12]) {
		t.Error("the key reached the report or stderr")
	}
}

// Issue 27 (2): SIGTERM while evalcal parses a hostile judge answer
// (`{"a":` 200,000 times, 1 MB) ends the run with exit 130 within moments,
// not after the parse.
func TestSigtermDuringAnswerParsingExitsPromptly(t *testing.T) {
	skipShort(t)
	bin := buildEvalcal(t)
	var requests atomic.Int64
	bomb := strings.Repeat(`{"a":`, 200_000)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id": "c", "object": "chat.completion", "created": 1, "model": "m", "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": %q}}], "usage": {"prompt_tokens": 10, "completion_tokens": 10}}`, bomb)
	}))
	defer ts.Close()
	cmd := exec.Command(bin, "run", "--no-cache", "--quiet", "--jobs", "1", "--timeout", "10m", "--light", "openai:m", "--deep", "openai:m", "testdata/runs")
	cmd.Dir = repoRoot(t)
	cmd.Env = append(os.Environ(), "OPENAI_BASE_URL="+ts.URL+"/v1", "OPENAI_API_KEY="+plantedKey)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	for deadline := time.Now().Add(30 * time.Second); requests.Load() == 0 && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond) // the answer is being read
	start := time.Now()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 130 {
			t.Errorf("exit %v, want 130; stderr:\n%s", err, stderr.String())
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("took %v after SIGTERM", d)
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("still running 20 s after SIGTERM (%d requests)", requests.Load())
	}
}

// Issue 27 (4): a hostile judge that plants the key in its valid answers
// (summary, flag description and evidence, a service), and in its errors,
// leaves no piece of it in any output: stdout, stderr, every report
// format, the cache.
func TestPlantedKeyInAnswersReachesNoOutput(t *testing.T) {
	t.Chdir(repoRoot(t))
	var requests atomic.Int64
	answer := `{"runtime_fidelity": 40, "task_effectiveness": 90, "services": [{"name": "api", "status": "ok ` + plantedKey + `"}],
		"flags": [{"id": "leak", "severity": "warning", "description": "Bearer ` + plantedKey + `", "evidence": "Authorization: Bearer ` + plantedKey + `"}],
		"verdict": "partial", "summary": "the log shows Bearer ` + plantedKey + `"}`
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if requests.Add(1)%7 == 0 {
			w.WriteHeader(http.StatusInternalServerError)
			fmt.Fprintf(w, `{"error": {"message": "bad key %s", "type": "server_error"}}`, plantedKey)
			return
		}
		fmt.Fprintf(w, `{"id": "c", "object": "chat.completion", "created": 1, "model": "m", "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": %q}}], "usage": {"prompt_tokens": 10, "completion_tokens": 10}}`, answer)
	}))
	defer ts.Close()
	t.Setenv("OPENAI_BASE_URL", ts.URL+"/v1")
	t.Setenv("OPENAI_API_KEY", plantedKey)
	dir := t.TempDir()
	cache := filepath.Join(dir, "cache")
	var outputs []string
	for _, args := range [][]string{
		{"-o", filepath.Join(dir, "r.yaml")},
		{"--format", "json"},
		{"-o", filepath.Join(dir, "r.html")},
		{"-o", filepath.Join(dir, "r.md")},
	} {
		out, stderr, _ := runCLI(t, append(append([]string{"run", "--cache", cache, "--sample", "6", "--retries", "1",
			"--light", "openai:judge-mini", "--deep", "openai:judge-large"}, args...), "testdata/runs")...)
		outputs = append(outputs, out, stderr)
	}
	files := 0
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			b, _ := os.ReadFile(p)
			outputs = append(outputs, string(b))
			files++
		}
		return nil
	})
	if files < 6 || requests.Load() < 12 {
		t.Fatalf("%d files, %d requests: too little to check", files, requests.Load())
	}
	for _, o := range outputs {
		for i := 0; i+8 <= len(plantedKey); i++ {
			if strings.Contains(o, plantedKey[i:i+8]) {
				t.Fatalf("an output holds %q of the key:\n%.300s", plantedKey[i:i+8], o)
			}
		}
	}
}
