package main

import (
	"bytes"
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalcal/evalcal/drift"
	"github.com/evalcal/evalcal/internal/judgeserver"
)

// anchorCorpus copies the first n runs of the bundled corpus into a
// temporary runs/ directory and returns the directory holding it and the
// run ids copied.
func anchorCorpus(t *testing.T, n int) (string, []string) {
	t.Helper()
	src := filepath.Join(repoRoot(t), "testdata", "runs")
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var ids []string
	for _, e := range entries {
		if len(ids) == n {
			break
		}
		if err := os.CopyFS(filepath.Join(dir, "runs", e.Name()), os.DirFS(filepath.Join(src, e.Name()))); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, e.Name())
	}
	return dir, ids
}

// judgeServerEnv starts the bundled judge server and returns it, its test
// server and the environment that points an OpenAI judge at it.
func judgeServerEnv(t *testing.T) (*judgeserver.Server, *httptest.Server, []string) {
	t.Helper()
	srv, err := judgeserver.New(judgeserver.Options{APIKey: plantedKey})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	return srv, ts, []string{"OPENAI_API_KEY=" + plantedKey, "OPENAI_BASE_URL=" + ts.URL + "/v1"}
}

// freezeAnchors runs anchor freeze in dir with args and fails the test
// unless it exits 0.
func freezeAnchors(t *testing.T, dir string, args ...string) {
	t.Helper()
	r := runBinary(t, binOptions{dir: dir}, append([]string{"anchor", "freeze", "--quiet", "--no-cache", "-o", "anchors.yaml"}, args...)...)
	if r.code != 0 {
		t.Fatalf("anchor freeze: exit %d\n%s", r.code, r.stderr)
	}
}

// TestBinaryDriftRefusesAChangedAnchorRun: a file of an anchor run edited
// after the freeze stops the check with exit 2, naming the run and both
// hashes' beginnings; nothing is written.
func TestBinaryDriftRefusesAChangedAnchorRun(t *testing.T) {
	skipShort(t)
	dir, ids := anchorCorpus(t, 6)
	freezeAnchors(t, dir, "runs")
	f := filepath.Join(dir, "runs", ids[2], "state.md")
	data, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f, append(data, "\nedited after the freeze\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runBinary(t, binOptions{dir: dir}, "drift", "--quiet", "anchors.yaml", "-o", "night.yaml")
	expect(t, "changed run", r, 2, nil, []string{"1 anchor run changed since the freeze: " + ids[2] + " (", "evalcal anchor freeze"})
	if _, err := os.Stat(filepath.Join(dir, "night.yaml")); err == nil {
		t.Error("a drift document was written")
	}
}

// TestBinaryDriftRefusesAMissingAnchorRun: an anchor run no longer found
// stops the check with exit 2 naming it.
func TestBinaryDriftRefusesAMissingAnchorRun(t *testing.T) {
	skipShort(t)
	dir, ids := anchorCorpus(t, 6)
	freezeAnchors(t, dir, "runs")
	if err := os.RemoveAll(filepath.Join(dir, "runs", ids[4])); err != nil {
		t.Fatal(err)
	}
	r := runBinary(t, binOptions{dir: dir}, "drift", "--quiet", "anchors.yaml")
	expect(t, "missing run", r, 2, nil, []string{"1 anchor run is missing: " + ids[4]})
	if r.stdout != "" {
		t.Errorf("stdout %q, want nothing", r.stdout)
	}
}

// TestBinaryDriftNamesWhatChangedInTheJudge: frozen with an OpenAI judge
// (the bundled judge server) at temperature 0, checked with the same model
// at temperature 0.5 and another base URL: the document and stderr name
// both changes; with the same judge nothing is named and nothing drifts.
func TestBinaryDriftNamesWhatChangedInTheJudge(t *testing.T) {
	skipShort(t)
	srv, ts, env := judgeServerEnv(t)
	dir, _ := anchorCorpus(t, 5)
	r := runBinary(t, binOptions{dir: dir, env: env}, "anchor", "freeze", "--quiet", "--no-cache", "--light", "openai:judge-mini",
		"--deep", "builtin", "-o", "anchors.yaml", "runs")
	if r.code != 0 {
		t.Fatalf("freeze: exit %d\n%s", r.code, r.stderr)
	}
	data, err := os.ReadFile(filepath.Join(dir, "anchors.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	a, err := drift.ParseAnchors(data, "anchors.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if a.Light.Model != "judge-mini" || a.Light.Provider != "openai" || a.Light.BaseURL != ts.URL+"/v1" ||
		a.Light.Parameters["temperature"] != "0" || len(a.Light.PromptSHA256) != 64 || a.Deep == nil || a.Deep.Identity != "builtin/1" {
		t.Fatalf("frozen judges %+v / %+v", a.Light, a.Deep)
	}

	same := runBinary(t, binOptions{dir: dir, env: env}, "drift", "--quiet", "--light", "openai:judge-mini", "anchors.yaml", "-o", "same.yaml")
	if same.code != 0 || strings.Contains(same.stderr, "judge changed") {
		t.Fatalf("same judge: exit %d\n%s", same.code, same.stderr)
	}

	other := httptest.NewServer(srv)
	t.Cleanup(other.Close)
	r = runBinary(t, binOptions{dir: dir, env: env}, "drift", "--quiet", "--light", "openai:judge-mini", "--temperature", "0.5",
		"--base-url", other.URL+"/v1", "anchors.yaml", "-o", "night.yaml")
	if r.code != 0 && r.code != 3 {
		t.Fatalf("changed judge: exit %d\n%s", r.code, r.stderr)
	}
	want := []string{"base_url: " + ts.URL + "/v1 → " + other.URL + "/v1", "parameters.temperature: 0 → 0.5"}
	for _, w := range want {
		if !strings.Contains(r.stderr, w) {
			t.Errorf("stderr does not name %q:\n%s", w, r.stderr)
		}
	}
	data, err = os.ReadFile(filepath.Join(dir, "night.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := drift.ParseDocument(data, "night.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(doc.Judges.Light.Changed, "; "); got != strings.Join(want, "; ") {
		t.Errorf("judges.light.changed %q, want %q", got, want)
	}
}

// TestBinaryRunBaselineNamesWhatChangedInTheJudge: a report of an OpenAI
// judge at temperature 0 as the baseline of one at temperature 0.7 with
// another prompt: the trend and the warnings name both changes, and the
// Markdown's trend section lists them; the same judge names none.
func TestBinaryRunBaselineNamesWhatChangedInTheJudge(t *testing.T) {
	skipShort(t)
	_, _, env := judgeServerEnv(t)
	dir, _ := anchorCorpus(t, 6)
	prompt := filepath.Join(repoRoot(t), "programs", "llm", "prompts", "light.tmpl")
	if _, err := os.Stat(prompt); err != nil {
		t.Skipf("no built-in light prompt file to edit: %v", err)
	}
	data, err := os.ReadFile(prompt)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "edited.tmpl"), append(data, "\nBe brief.\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(out string, extra ...string) binResult {
		args := append([]string{"run", "--no-cache", "--quiet", "--allow-homogeneous", "--light", "openai:judge-mini", "--deep", "builtin", "-o", out}, extra...)
		r := runBinary(t, binOptions{dir: dir, env: env}, append(args, "runs")...)
		if r.code != 0 {
			t.Fatalf("run %v: exit %d\n%s", extra, r.code, r.stderr)
		}
		return r
	}
	run("before.yaml")
	run("same.yaml", "--baseline", "before.yaml")
	if same, err := readReportFile(filepath.Join(dir, "same.yaml")); err != nil || same.Trend == nil || len(same.Trend.Judges) != 0 {
		t.Fatalf("same judge: %v, trend %+v", err, same.Trend)
	}
	r := run("after.md", "--baseline", "before.yaml", "--temperature", "0.7", "--light-prompt", "edited.tmpl")
	if !strings.Contains(r.stderr, "the judge changed since the baseline") || !strings.Contains(r.stderr, "light: parameters.temperature: 0 → 0.7") {
		t.Errorf("stderr does not name the change:\n%s", r.stderr)
	}
	md, err := os.ReadFile(filepath.Join(dir, "after.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"The judge changed since the baseline", "light: parameters.temperature: 0 → 0.7", "light: prompt_sha256: "} {
		if !strings.Contains(string(md), want) {
			t.Errorf("the Markdown report does not say %q:\n%s", want, md)
		}
	}
}

// runCLIPrinted runs the CLI in-process as runCLI does and returns
// stderr as the process would print it: with the error message main
// prints.
func runCLIPrinted(t *testing.T, args ...string) (stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	err := run(context.Background(), args, &out, &errb)
	printError(&errb, err)
	return errb.String(), exitCode(err)
}

// TestDriftFlagsAreCheckedBeforeAnyWork: bad values, a file that is not an
// anchor file, --deep against anchors without deep labels and run's own
// checks (named as drift's) are usage errors, exit 2.
func TestDriftFlagsAreCheckedBeforeAnyWork(t *testing.T) {
	t.Chdir(repoRoot(t))
	dir := t.TempDir()
	anchors := filepath.Join(dir, "anchors.yaml")
	if stderr, code := runCLIPrinted(t, "anchor", "freeze", "--quiet", "--no-cache", "--light", "saved:testdata/inspections/twelve.jsonl",
		"--deep", "builtin", "-o", anchors); code != 2 || !strings.Contains(stderr, "anchor freeze: no run PATH given") {
		t.Errorf("freeze without runs: exit %d: %s", code, stderr)
	}
	if stderr, code := runCLIPrinted(t, "anchor", "freeze", "--quiet", "--no-cache", "--light", "saved:testdata/inspections/twelve.jsonl", "-o", anchors); code != 2 {
		t.Errorf("light saved, deep builtin, no PATH: exit %d: %s", code, stderr)
	}
	lightOnly := filepath.Join(dir, "light.jsonl")
	data, err := os.ReadFile("testdata/inspections/twelve.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, l := range strings.Split(string(data), "\n") {
		if strings.Contains(l, `"depth": "light"`) {
			lines = append(lines, l)
		}
	}
	if err := os.WriteFile(lightOnly, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if stderr, code := runCLIPrinted(t, "anchor", "freeze", "--quiet", "--no-cache", "--light", "saved:"+lightOnly, "--deep", "saved:"+lightOnly, "-o", anchors); code != 0 {
		t.Fatalf("freeze light only: exit %d: %s", code, stderr)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--alpha", "1", anchors}, "drift: --alpha must be in (0, 1), got 1"},
		{[]string{"--max-drop", "-1", anchors}, "drift: --max-drop must be in [0, 100) points"},
		{[]string{"--jobs", "0", "--light", "saved:" + lightOnly, anchors}, "drift: --jobs must be at least 1"},
		{[]string{"--deep", "builtin", "--light", "saved:" + lightOnly, anchors}, "anchors.yaml hold no deep labels"},
		{[]string{"testdata/run/corpus.golden"}, `kind: "", want "evalcal-anchors"`},
		{[]string{filepath.Join(dir, "absent.yaml")}, "absent.yaml"},
		{[]string{"--history", filepath.Join(dir, "absent"), anchors}, "--history"},
		{nil, "no ANCHORS file given"},
	} {
		stderr, code := runCLIPrinted(t, append([]string{"drift", "--quiet"}, c.args...)...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("drift %v: exit %d, stderr %q; want 2 and %q", c.args, code, stderr, c.want)
		}
	}
}
