package main

import (
	"context"
	"encoding/json"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/evalcal/evalcal/inspection"
	"github.com/evalcal/evalcal/internal/testutil"
	"github.com/evalcal/evalcal/report/reportio"

	"github.com/evalcal/evalcal/internal/judgeserver"
	"github.com/evalcal/evalcal/programs/builtin"
	"github.com/evalcal/evalcal/report"
	"github.com/evalcal/evalcal/sampler"
)

// plantedKey is an API key no output may ever show.
const plantedKey = "sk-Zq7xV93kLm2Zp0wRt5yUbN8"

// judgeServer starts the bundled judge server and points both providers'
// environment at it with the planted key.
func judgeServer(t *testing.T, opts judgeserver.Options) *judgeserver.Server {
	t.Helper()
	if opts.RetryAfter == 0 {
		opts.RetryAfter = 20 * time.Millisecond
	}
	opts.APIKey = plantedKey
	s, url := testutil.StartJudgeServer(t, opts)
	t.Setenv("OPENAI_BASE_URL", url+"/v1")
	t.Setenv("OPENAI_API_KEY", plantedKey)
	t.Setenv("ANTHROPIC_BASE_URL", url)
	t.Setenv("ANTHROPIC_API_KEY", plantedKey)
	return s
}

func readReport(t *testing.T, path string) *report.Report {
	t.Helper()
	r, err := reportio.ReadReport(path)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// Both SDK paths, priced: the report names each side and what it cost.
func TestRunCalibratesAnOpenAIJudgeAgainstAnAnthropicOne(t *testing.T) {
	t.Chdir(repoRoot(t))
	judgeServer(t, judgeserver.Options{})
	out := filepath.Join(t.TempDir(), "r.yaml")
	_, stderr, code := runCLI(t, "run", "--no-cache", "--quiet", "--sample", "8", "--light", "openai:judge-mini",
		"--deep", "anthropic:judge-large", "--price", "judge-mini=0.15/0.6", "--price", "judge-large=3/15/0.3", "-o", out, "testdata/runs")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	r := readReport(t, out)
	if !strings.HasPrefix(r.Inputs.Light.Identity, "openai:judge-mini@") || !strings.HasPrefix(r.Inputs.Deep.Identity, "anthropic:judge-large@") ||
		r.Inputs.Light.Spec != "openai:judge-mini" {
		t.Errorf("inputs %+v / %+v", r.Inputs.Light, r.Inputs.Deep)
	}
	if r.SampleSize != 8 || len(r.Failures) != 0 {
		t.Fatalf("sample %d failures %v", r.SampleSize, r.Failures)
	}
	c := r.Cost
	if c.Light.Usage.Input == 0 || c.Deep.Usage.Output == 0 || c.Light.USD == nil || c.Deep.PerRun == nil ||
		c.DeepToLightPerRun == nil || *c.DeepToLightPerRun <= 1 {
		t.Errorf("cost %+v", c)
	}
	// Deep's price per token is 20x light's and it reads more: its cost
	// per run is several times light's.
	if *c.DeepToLightPerRun < 5 {
		t.Errorf("deep/light cost per run %v, want well above 5", *c.DeepToLightPerRun)
	}
}

// A 429 with Retry-After is retried and the call succeeds; the retry is
// counted.
func TestRunRetriesARateLimitedJudge(t *testing.T) {
	t.Chdir(repoRoot(t))
	s := judgeServer(t, judgeserver.Options{})
	out := filepath.Join(t.TempDir(), "r.json")
	_, stderr, code := runCLI(t, "run", "--no-cache", "--quiet", "--sample", "4", "--light", "openai:judge-mini+429*1",
		"--deep", "openai:judge-large", "-o", out, "testdata/runs")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	r := readReport(t, out)
	if r.Cost.Light.Retries == 0 || r.Cost.Light.Failed != 0 || s.Requests() < 9 {
		t.Errorf("light cost %+v after %d requests, want retries and no failure", r.Cost.Light, s.Requests())
	}
}

// A misconfiguration stops the run at once with one line naming the side,
// the provider and the cause, exit 2, after a handful of requests.
func TestRunStopsAtOnceOnAFatalJudgeError(t *testing.T) {
	t.Chdir(repoRoot(t))
	for _, tt := range []struct{ light, want string }{
		{"openai:judge-mini+401", "light inspector openai:judge-mini+401"},
		{"openai:judge-mini+quota", "quota"},
		{"openai:no-such-model", "no-such-model"},
		{"anthropic:judge-mini+billing", "credit"},
	} {
		s := judgeServer(t, judgeserver.Options{})
		r := runBinary(t, binOptions{env: os.Environ()}, "run", "--no-cache", "--quiet", "--jobs", "2", "--light", tt.light, "--deep", "openai:judge-large", "testdata/runs")
		out, stderr, code := r.stdout, r.stderr, r.code
		if code != exitUsage || out != "" {
			t.Errorf("%s: exit %d, stdout %d bytes, want 2 and nothing", tt.light, code, len(out))
		}
		if strings.Count(stderr, "\n") > 2 || !strings.Contains(stderr, "run stopped: ") || !strings.Contains(stderr, tt.want) {
			t.Errorf("%s: stderr lacks %q:\n%s", tt.light, tt.want, stderr)
		}
		if n := s.Requests(); n > 6 {
			t.Errorf("%s: %d requests after a fatal error, want a handful", tt.light, n)
		}
		if strings.Contains(stderr, plantedKey[:12]) {
			t.Errorf("%s: the key reached stderr", tt.light)
		}
	}
}

// --max-cost never starts a call that could exceed the budget, writes the
// partial report and exits 4; an unpriced model cannot slip past it.
func TestRunBudgetStopsCallsAndExitsFour(t *testing.T) {
	t.Chdir(repoRoot(t))
	judgeServer(t, judgeserver.Options{})
	out := filepath.Join(t.TempDir(), "r.yaml")
	var stderr strings.Builder
	err := run(context.Background(), []string{"run", "--no-cache", "--quiet", "--jobs", "1", "--light", "openai:judge-mini", "--deep", "openai:judge-large",
		"--price", "judge-mini=1/4", "--price", "judge-large=10/40", "--max-cost", "2", "-o", out, "testdata/runs"}, io.Discard, &stderr)
	if code := exitCode(err); code != exitBudget {
		t.Fatalf("exit %d, want 4: %v %s", code, err, stderr.String())
	}
	r := readReport(t, out)
	spent := *r.Cost.Light.USD + *r.Cost.Deep.USD
	if !r.Cost.BudgetStopped || spent > 2 || r.SampleSize == 0 || len(r.Failures) == 0 {
		t.Errorf("stopped %v spent %v compared %d failures %d", r.Cost.BudgetStopped, spent, r.SampleSize, len(r.Failures))
	}
	if !strings.Contains(err.Error(), "--max-cost budget of $2 stopped the calls") || !strings.Contains(r.Summary.Sentence, "budget") {
		t.Errorf("error %v; summary %q", err, r.Summary.Sentence)
	}
	var errb strings.Builder
	err = run(context.Background(), []string{"run", "--no-cache", "--light", "openai:judge-mini", "--deep", "openai:judge-large",
		"--price", "judge-mini=1/4", "--max-cost", "0.5", "testdata/runs"}, io.Discard, &errb)
	if exitCode(err) != exitUsage || !strings.Contains(err.Error(), "the deep side's model judge-large has none") {
		t.Errorf("unpriced model: %v", err)
	}
}

// No output of a full run shows the key: not stdout, stderr, the report in
// any format, nor the cache.
func TestRunNeverShowsTheAPIKey(t *testing.T) {
	t.Chdir(repoRoot(t))
	judgeServer(t, judgeserver.Options{})
	dir := t.TempDir()
	cache := filepath.Join(dir, "cache")
	var outputs []string
	for _, args := range [][]string{
		{"--light", "openai:judge-mini", "--deep", "anthropic:judge-large+truncated*1", "-o", filepath.Join(dir, "r.yaml")},
		{"--light", "openai:judge-mini", "--deep", "openai:judge-large+refusal*1", "--format", "json"},
		{"--light", "openai:judge-mini", "--deep", "openai:judge-large", "-o", filepath.Join(dir, "r.html")},
		{"--light", "anthropic:judge-mini+401", "--deep", "openai:judge-large"},
	} {
		out, stderr, _ := runCLI(t, append(append([]string{"run", "--cache", cache, "--sample", "5"}, args...), "testdata/runs")...)
		outputs = append(outputs, out, stderr)
	}
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			b, _ := os.ReadFile(p)
			outputs = append(outputs, string(b))
		}
		return nil
	})
	if len(outputs) < 10 {
		t.Fatalf("only %d outputs to check", len(outputs))
	}
	for _, o := range outputs {
		for i := 0; i+8 <= len(plantedKey); i++ {
			if strings.Contains(o, plantedKey[i:i+8]) {
				t.Fatalf("an output holds %q of the key:\n%.300s", plantedKey[i:i+8], o)
			}
		}
	}
}

// A saved deep side holding exactly what builtin's deep depth says gives
// today's report: only the inputs (which name the sides) and the cost
// differ.
func TestRunWithASavedDeepSideEqualsTheSameInspectorReport(t *testing.T) {
	t.Chdir(repoRoot(t))
	runs, err := sampler.Discover([]string{"testdata/runs"})
	if err != nil {
		t.Fatal(err)
	}
	b := builtin.New()
	var lines []string
	for _, r := range runs {
		if !r.Valid {
			continue
		}
		in, err := b.Inspect(context.Background(), r, inspection.Deep)
		if err != nil {
			t.Fatal(err)
		}
		line, _ := json.Marshal(in)
		lines = append(lines, string(line))
	}
	deep := filepath.Join(t.TempDir(), "deep.jsonl")
	if err := os.WriteFile(deep, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	one, stderr, code := runCLI(t, "run", "--no-cache", "--quiet", "--format", "json", "testdata/runs")
	if code != 0 {
		t.Fatal(stderr)
	}
	two, stderr, code := runCLI(t, "run", "--no-cache", "--quiet", "--format", "json", "--light", "builtin", "--deep", "saved:"+deep, "testdata/runs")
	if code != 0 {
		t.Fatal(stderr)
	}
	var a, c map[string]any
	_ = json.Unmarshal([]byte(one), &a)
	_ = json.Unmarshal([]byte(two), &c)
	for _, k := range []string{"inputs", "cost"} {
		delete(a, k)
		delete(c, k)
	}
	ja, _ := json.Marshal(a)
	jc, _ := json.Marshal(c)
	if string(ja) != string(jc) {
		t.Errorf("--deep saved:FILE gives another report than builtin at both depths")
	}
}
