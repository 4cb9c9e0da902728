package main

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/evalcal/evalcal/report"
	"github.com/evalcal/evalcal/report/reportio"
)

func TestRunCorpusGolden(t *testing.T) {
	root := repoRoot(t)
	t.Chdir(root)
	out, stderr, code := runCLI(t, "run", "--no-cache", "--seed", "1", "testdata/runs")
	if code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
	checkGolden(t, "testdata/run/corpus.golden", []byte(out))
}

func TestRunSavedInspectionsGolden(t *testing.T) {
	t.Chdir(repoRoot(t))
	out, stderr, code := runCLI(t, "run", "--no-cache", "--inspections", "testdata/inspections/twelve.jsonl")
	if code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
	checkGolden(t, "testdata/run/twelve.golden", []byte(out))
}

func TestRunReportIsByteIdenticalAcrossJobsAndCache(t *testing.T) {
	t.Chdir(repoRoot(t))
	cache := t.TempDir()
	var reports []string
	for _, args := range [][]string{
		{"--jobs", "1", "--no-cache"},
		{"--jobs", "8", "--no-cache"},
		{"--jobs=3", "--cache", cache},
		{"--jobs", "8", "--cache", cache}, // warm
	} {
		out, stderr, code := runCLI(t, append(append([]string{"run"}, args...), "testdata/runs")...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		reports = append(reports, out)
		if args[len(args)-2] == "--cache" && len(reports) == 4 && !strings.Contains(stderr, " 0 inspector calls") {
			t.Errorf("warm cache rerun made inspector calls: %s", stderr)
		}
	}
	// Byte-identical whatever --jobs is; a cached rerun differs only in
	// its cost section, which counts this execution's calls and cache hits.
	for i := 1; i < len(reports); i++ {
		if i < 2 && reports[i] != reports[0] {
			t.Errorf("report %d differs from report 0", i)
		}
		if withoutCost(t, reports[i]) != withoutCost(t, reports[0]) {
			t.Errorf("report %d differs from report 0 outside its cost section", i)
		}
	}
	if reports[3] != reports[2] && strings.Contains(reports[3], "cache_hits: 0\n") {
		t.Errorf("the warm rerun's cost section does not count its cache hits")
	}
}

// withoutCost is a YAML report with its cost section removed.
func withoutCost(t *testing.T, doc string) string {
	t.Helper()
	start := strings.Index(doc, "\ncost:\n")
	if start < 0 {
		t.Fatalf("report has no cost section")
	}
	end := strings.Index(doc[start+1:], "\nrecommendations:")
	if end < 0 {
		t.Fatalf("report has no recommendations after cost")
	}
	return doc[:start] + doc[start+1+end:]
}

func TestRunReportHasEveryTopLevelKeyInOrder(t *testing.T) {
	t.Chdir(repoRoot(t))
	out, stderr, code := runCLI(t, "run", "--no-cache", "--inspections", "testdata/inspections/twelve.jsonl")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	var keys []string
	m := doc.Content[0]
	for i := 0; i < len(m.Content); i += 2 {
		keys = append(keys, m.Content[i].Value)
	}
	// The answer first, statistics and recommendations next, the per-run
	// listings last (schema version 2, issue 10).
	want := []string{"schema_version", "generated_by", "summary", "inputs", "sample_size", "agreement_rate",
		"agreement_clustered", "agreement_by_system", "kappa", "leniency", "confusion", "confidence", "preliminary",
		"bias_direction", "score_correlation", "mean_score_delta", "disagreement_breakdown", "forecast", "cost",
		"recommendations", "warnings", "partial", "disagreements", "comparisons", "failures", "sample"}
	j := 0
	for _, k := range keys {
		if j < len(want) && k == want[j] {
			j++
		}
	}
	if j != len(want) {
		t.Errorf("top-level keys %v do not hold %v in order (stopped at %q)", keys, want, want[j])
	}
}

func TestRunSavedInspectionsNumbers(t *testing.T) {
	// twelve.jsonl (testdata/inspections/make_fixtures.py): 8 of 12 verdicts
	// match; the splits are b2c3d4 (pass/partial), e5f6a7 (pass/partial),
	// b8c9d0 (pass/fail) and c9d0e1 (partial/pass); f2a3b4 is a false
	// negative (deep-only flag) and f6a7b8 a severity mismatch.
	t.Chdir(repoRoot(t))
	out, _, code := runCLI(t, "run", "--no-cache", "--format", "json", "--inspections", "testdata/inspections/twelve.jsonl")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	var r report.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("json output does not parse: %v", err)
	}
	if r.AgreementRate.Matches != 8 || r.AgreementRate.N != 12 {
		t.Errorf("agreement = %+v, want 8/12", r.AgreementRate)
	}
	if got := r.Confusion.LightPassDeepFail; len(got) != 1 || got[0] != "20261103-111500-b8c9d0" {
		t.Errorf("light pass / deep fail = %v", got)
	}
	b := r.DisagreementBreakdown
	if b.VerdictSplit != 4 || b.FalseNegative != 1 || b.SeverityMismatch != 1 || b.FalsePositive != 0 || r.Confidence != "low" || r.Partial {
		t.Errorf("breakdown %+v confidence %s partial %v", r.DisagreementBreakdown, r.Confidence, r.Partial)
	}
	if len(r.Recommendations) == 0 || r.Recommendations[0].Priority != 1 {
		t.Errorf("recommendations = %+v", r.Recommendations)
	}
}

func TestRunWithAMissingDeepInspectionIsPartial(t *testing.T) {
	t.Chdir(repoRoot(t))
	out, stderr, code := runCLI(t, "run", "--no-cache", "--format", "json", "--inspections", "testdata/inspections/missing-deep.jsonl")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var r report.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if !r.Partial || len(r.Failures) != 1 || r.Failures[0].RunID != "20261103-111500-b8c9d0" || r.SampleSize != 11 {
		t.Errorf("partial %v, failures %+v, sample size %d; want one recorded failure and 11 runs", r.Partial, r.Failures, r.SampleSize)
	}
}

func TestRunExitCodes(t *testing.T) {
	t.Chdir(repoRoot(t))
	tests := []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"no paths", []string{"run"}, 2, "no run PATH"},
		{"unknown flag", []string{"run", "--bogus", "testdata/runs"}, 2, "bogus"},
		{"jobs zero", []string{"run", "--jobs", "0", "testdata/runs"}, 2, "-jobs must be at least 1"},
		{"negative seed", []string{"run", "--seed", "-4", "testdata/runs"}, 2, "-seed must be 0 or more"},
		{"bad format", []string{"run", "--format", "xml", "testdata/runs"}, 2, "-format"},
		{"bad inspector", []string{"run", "--inspector", "magic", "testdata/runs"}, 2, "-inspector"},
		{"paths and inspections", []string{"run", "--inspections", "x.jsonl", "testdata/runs"}, 2, "not both"},
		{"missing path", []string{"run", "--no-cache", "testdata/no-such-dir"}, 2, "no-such-dir"},
		{"missing inspections file", []string{"run", "--no-cache", "--inspections", "testdata/none.jsonl"}, 2, "none.jsonl"},
		{"insufficient runs", []string{"run", "--no-cache", "--inspections", "testdata/inspections/two.jsonl"}, 2, "insufficient-runs"},
		{"homogeneous", []string{"run", "--no-cache", "--inspections", "testdata/inspections/homogeneous.jsonl"}, 2, "homogeneous-sample"},
		{"homogeneous allowed", []string{"run", "--no-cache", "--allow-homogeneous", "--inspections", "testdata/inspections/homogeneous.jsonl"}, 0, ""},
		{"sample below minimum", []string{"run", "--no-cache", "--sample", "2", "testdata/runs"}, 2, "insufficient-runs"},
		{"unknown command", []string{"frobnicate"}, 2, "unknown command"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			err := run(context.Background(), tt.args, &out, &errb)
			if got := exitCode(err); got != tt.code {
				t.Fatalf("exit %d, want %d (err %v, stderr %s)", got, tt.code, err, errb.String())
			}
			if tt.msg != "" && (err == nil || !strings.Contains(err.Error()+errb.String(), tt.msg)) {
				t.Errorf("error %v / stderr %q does not mention %q", err, errb.String(), tt.msg)
			}
			if tt.code != 0 && out.Len() != 0 {
				t.Errorf("stdout must stay empty on error, got %q", out.String())
			}
		})
	}
}

func TestRunInterruptedExits130(t *testing.T) {
	t.Chdir(repoRoot(t))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out, errb bytes.Buffer
	err := run(ctx, []string{"run", "--no-cache", "testdata/runs"}, &out, &errb)
	if code := exitCode(err); code != 130 {
		t.Fatalf("exit %d, want 130 (err %v)", code, err)
	}
}

func TestRunSurvivesBrokenExecInspectors(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("shell scripts")
	}
	root := repoRoot(t)
	t.Chdir(root)
	// Three runs per broken inspector: every call fails (the runner still
	// tries deep after light failed, so 6 failures), each is recorded with
	// its reason, and the command fails (no pairs) without a crash and
	// with the report still written.
	for _, script := range []string{"crash.sh", "garbage.sh", "out_of_range.sh", "bad_verdict.sh", "hang.sh"} {
		t.Run(script, func(t *testing.T) {
			outFile := filepath.Join(t.TempDir(), "r.yaml")
			cmd := "exec:sh " + filepath.Join(root, "testdata/inspectors", script) + " {run} {depth}"
			_, stderr, code := runCLI(t, "run", "--no-cache", "--timeout", "300ms", "--retries", "0", "--sample", "3",
				"--inspector", cmd, "-o", outFile, "testdata/runs")
			if code != 1 {
				t.Fatalf("exit %d, want 1 (no run got both inspections); stderr %s", code, stderr)
			}
			data, err := os.ReadFile(outFile)
			if err != nil {
				t.Fatalf("report not written: %v", err)
			}
			r, err := reportio.ParseReport(data)
			if err != nil {
				t.Fatal(err)
			}
			if !r.Partial || len(r.Failures) != 6 {
				t.Errorf("partial %v with %d failures, want 6 (3 runs x 2 depths)", r.Partial, len(r.Failures))
			}
			for _, f := range r.Failures {
				if f.Reason == "" {
					t.Errorf("failure without a reason: %+v", f)
				}
			}
		})
	}
}

func TestRunGoodExecInspectorWithWarmCacheCallsNothing(t *testing.T) {
	root := repoRoot(t)
	t.Chdir(root)
	cache := t.TempDir()
	cmd := "exec:sh " + filepath.Join(root, "testdata/inspectors/good.sh") + " {run} {depth}"
	args := []string{"run", "--cache", cache, "--sample", "6", "--inspector", cmd, "testdata/runs"}
	first, stderr, code := runCLI(t, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, " 12 inspector calls") {
		t.Errorf("first run: %s", stderr)
	}
	second, stderr, _ := runCLI(t, args...)
	if !strings.Contains(stderr, " 0 inspector calls, 12 from cache") {
		t.Errorf("warm rerun made calls: %s", stderr)
	}
	if withoutCost(t, first) != withoutCost(t, second) {
		t.Errorf("cached rerun gives another report")
	}
}

func TestRunWritesReportAtomicallyAndLeavesNoTemp(t *testing.T) {
	t.Chdir(repoRoot(t))
	dir := t.TempDir()
	target := filepath.Join(dir, "report.yaml")
	if err := os.WriteFile(target, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _, code := runCLI(t, "run", "--no-cache", "-o", target, "--inspections", "testdata/inspections/twelve.jsonl")
	if code != 0 || out != "" {
		t.Fatalf("exit %d, stdout %q (stdout must be empty with -o)", code, out)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("directory holds %d entries, want only the report", len(entries))
	}
	data, _ := os.ReadFile(target)
	if !bytes.HasPrefix(data, []byte("schema_version: "+strconv.Itoa(report.SchemaVersion))) {
		t.Errorf("report not replaced: %q", data[:20])
	}
}

func TestRecordedCommandLineDropsVolatileFlags(t *testing.T) {
	// Arguments as runIO leaves them: single-dash long flags rewritten.
	got := recordedArgs([]string{"--jobs", "8", "--seed", "3", "--jobs=2", "--cache", "/c", "--no-cache", "-o", "r.yaml",
		"--quiet", "--output=a.json", "-ob.md", "-o=c.html", "--output", "d.yaml", "--shard", "1/2", "x", "--", "--jobs"})
	want := []string{"evalcal", "run", "--seed", "3", "x", "--", "--jobs"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("recordedArgs = %v, want %v", got, want)
	}
}

func TestRunCorpusMarkdownAndHTMLGolden(t *testing.T) {
	t.Chdir(repoRoot(t))
	for _, f := range []struct{ format, golden string }{
		{"markdown", "testdata/run/corpus.md.golden"},
		{"html", "testdata/run/corpus.html.golden"},
	} {
		out, stderr, code := runCLI(t, "run", "--no-cache", "--format", f.format, "testdata/runs")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", f.format, code, stderr)
		}
		checkGolden(t, f.golden, []byte(out))
	}
}

func TestRunWithBadSavedLinesRecordsThemAndGoesOn(t *testing.T) {
	t.Chdir(repoRoot(t))
	good, err := os.ReadFile("testdata/inspections/twelve.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(good), "\n")
	// Line 2 (the first run's deep inspection) gets an impossible score;
	// a line with no run_id is appended.
	lines[1] = strings.Replace(lines[1], `"runtime_fidelity": 82`, `"runtime_fidelity": 182`, 1)
	path := filepath.Join(t.TempDir(), "bad.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "")+`{"depth": "light"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, stderr, code := runCLI(t, "run", "--no-cache", "--format", "json", "--inspections", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var r report.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if r.SampleSize != 11 || !r.Partial || len(r.Failures) != 1 ||
		!strings.Contains(r.Failures[0].Reason, "bad.jsonl:2: field runtime_fidelity: 182 is outside 0..100") {
		t.Errorf("sample %d, partial %v, failures %+v", r.SampleSize, r.Partial, r.Failures)
	}
	if w := strings.Join(r.Warnings, "\n"); !strings.Contains(w, "bad.jsonl:25:") {
		t.Errorf("the unattributable line 25 is not in the warnings: %q", w)
	}
}

func TestRunSampleLargerThanTheValidRunsSaysSo(t *testing.T) {
	t.Chdir(repoRoot(t))
	out, _, code := runCLI(t, "run", "--no-cache", "--sample", "100", "--inspections", "testdata/inspections/twelve.jsonl")
	if code != 0 || !strings.Contains(out, "--sample 100 asked for more runs than the 12 valid ones") {
		t.Errorf("exit %d; no warning about the short sample", code)
	}
}

// --repeat K measures each side's repeatability: flip.sh's light side
// fails repeat 1 of the runs whose id ends in 0-7, and its deep side never
// changes its mind.
func TestRunRepeatMeasuresAKnownFlipRate(t *testing.T) {
	t.Chdir(repoRoot(t))
	out, stderr, code := runCLI(t, "run", "--no-cache", "--quiet", "--repeat", "3", "--sample", "12", "--allow-homogeneous",
		"--inspector", "exec:sh testdata/inspectors/flip.sh", "--format", "json", "testdata/runs")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rep report.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	flips := 0
	for _, r := range rep.Sample.Runs {
		if c := r.ID[len(r.ID)-1]; c >= '0' && c <= '7' {
			flips++
		}
	}
	n := float64(len(rep.Sample.Runs))
	rp := rep.Repeatability
	if rp == nil || rp.K != 3 || rp.Light.Runs != len(rep.Sample.Runs) {
		t.Fatalf("repeatability %+v", rp)
	}
	// Statistics are written to 6 significant digits.
	if got, want := *rp.Light.FlipRate, float64(flips)/n; math.Abs(got-want) > 5e-6*want || flips == 0 {
		t.Errorf("light flip rate %v, want %d/%v", got, flips, n)
	}
	if got, want := *rp.Light.PassAllK, 1-float64(flips)/n; math.Abs(got-want) > 5e-6*want {
		t.Errorf("light pass^3 %v, want %v", got, want)
	}
	if *rp.Deep.FlipRate != 0 || *rp.Deep.PassAllK != 0 {
		t.Errorf("deep flip rate %v pass^3 %v, want 0 and 0", *rp.Deep.FlipRate, *rp.Deep.PassAllK)
	}
	// Paired statistics use the majority verdict (2 passes of 3) and the
	// mean score: (80 + 30 + 80) / 3 on a flipping run.
	for _, c := range rep.Comparisons {
		if c.LightVerdict != "pass" {
			t.Errorf("run %s: light %s, want the majority pass", c.RunID, c.LightVerdict)
		}
	}
	if len(rep.Repeats) != len(rep.Sample.Runs) || len(rep.Repeats[0].Light) != 3 {
		t.Errorf("repeats listing %d runs", len(rep.Repeats))
	}
}

// The demo report answers first: summary.trust within its first 30 lines
// (issue 10), as `make demo` writes it.
func TestDemoReportHasTheVerdictOnTop(t *testing.T) {
	t.Chdir(repoRoot(t))
	dir := t.TempDir()
	out := filepath.Join(dir, "demo-report.yaml")
	if _, stderr, code := runCLI(t, "run", "--seed", "1", "--cache", filepath.Join(dir, "cache"), "-o", out, "testdata/runs"); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	for i, l := range lines[:min(30, len(lines))] {
		if strings.HasPrefix(l, "  trust: ") && strings.TrimSpace(lines[i-1]) == "summary:" {
			return
		}
	}
	t.Errorf("summary.trust is not in the first 30 lines:\n%s", strings.Join(lines[:min(30, len(lines))], "\n"))
}
