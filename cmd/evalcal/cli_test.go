package main

// End-to-end tests of the command line (issue 11 and the command-level
// items of issue 13), run against the built binary: exit code, stdout and
// stderr of each.

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/evalcal/evalcal/report"
)

// expect checks a result's exit code, and that stdout and stderr contain
// each of their substrings; an empty want list for stdout means stdout
// must be empty.
func expect(t *testing.T, what string, r binResult, code int, stdout, stderr []string) {
	t.Helper()
	if r.code != code {
		t.Errorf("%s: exit %d, want %d\nstdout: %.300s\nstderr: %s", what, r.code, code, r.stdout, r.stderr)
	}
	if stdout == nil && r.stdout != "" {
		t.Errorf("%s: stdout must be empty, got %.300q", what, r.stdout)
	}
	for _, s := range stdout {
		if !strings.Contains(r.stdout, s) {
			t.Errorf("%s: stdout lacks %q:\n%.600s", what, s, r.stdout)
		}
	}
	for _, s := range stderr {
		if !strings.Contains(r.stderr, s) {
			t.Errorf("%s: stderr lacks %q:\n%s", what, s, r.stderr)
		}
	}
}

const twelve = "testdata/inspections/twelve.jsonl"

// reportHead is how a calibration report in YAML begins.
var reportHead = fmt.Sprintf("schema_version: %d\n", report.SchemaVersion)

func TestBinaryTakesFlagsAfterPaths(t *testing.T) {
	skipShort(t)
	dir := t.TempDir()
	r := runBinary(t, binOptions{}, "run", "testdata/runs", "-o", filepath.Join(dir, "r.yaml"), "--no-cache", "--sample", "6")
	expect(t, "run PATH -o", r, 0, nil, []string{"report written to " + filepath.Join(dir, "r.yaml")})
	if data, err := os.ReadFile(filepath.Join(dir, "r.yaml")); err != nil || !strings.HasPrefix(string(data), reportHead) {
		t.Errorf("report not written: %v", err)
	}
	for i, s := range []string{"1/2", "2/2"} {
		out := filepath.Join(dir, []string{"s1.yaml", "s2.yaml"}[i])
		r = runBinary(t, binOptions{}, "run", "--inspections", twelve, "--no-cache", "--shard", s, "-o", out)
		expect(t, "shard "+s, r, 0, nil, nil)
	}
	r = runBinary(t, binOptions{}, "merge", filepath.Join(dir, "s1.yaml"), filepath.Join(dir, "s2.yaml"), "--format", "json", "-o", filepath.Join(dir, "m.json"))
	expect(t, "merge SHARDS --format -o", r, 0, nil, []string{"merged 2 shards"})
	r = runBinary(t, binOptions{}, "score", "testdata/score/worked.jsonl", "--format", "json", "--by", "team")
	expect(t, "score FILE --format", r, 0, []string{`"by": "team"`}, nil)
	r = runBinary(t, binOptions{}, "render", filepath.Join(dir, "m.json"), "--format", "markdown")
	expect(t, "render DOC --format", r, 0, []string{"# evalcal calibration report"}, nil)
	r = runBinary(t, binOptions{}, "gate", "--events", "testdata/gate/events.jsonl", "--format=json")
	expect(t, "gate --format=json", r, 0, []string{`"decisions": [`}, nil)
}

// Every help form prints the same text on stdout with exit 0, in the one
// layout every command shares; a deprecated -help prints it too.
func TestBinaryHelpForms(t *testing.T) {
	skipShort(t)
	root := runBinary(t, binOptions{}, "--help")
	expect(t, "--help", root, 0, []string{"evalcal: can we trust the cheap eval?\n\nUsage:\n  evalcal COMMAND [flags] [args]\n",
		"\nCommands:\n", "  completion  ", "\nFlags:\n", "-v, --version", "Exit codes: 0 ok"}, nil)
	if root.stderr != "" {
		t.Errorf("--help wrote on stderr: %q", root.stderr)
	}
	for _, args := range [][]string{{"-h"}, {"help"}} {
		if r := runBinary(t, binOptions{}, args...); r.code != 0 || r.stdout != root.stdout || r.stderr != "" {
			t.Errorf("%v: exit %d, stderr %q, stdout differs from --help: %v", args, r.code, r.stderr, r.stdout != root.stdout)
		}
	}
	for _, name := range []string{"run", "merge", "score", "calls", "gate", "render", "version", "completion"} {
		help := runBinary(t, binOptions{}, "help", name)
		expect(t, "help "+name, help, 0, []string{"evalcal " + name + ": ", "\n\nUsage:\n  evalcal " + name, "\nFlags:\n", "-h, --help"}, nil)
		if help.stderr != "" {
			t.Errorf("help %s wrote on stderr: %q", name, help.stderr)
		}
		// One layout: the sections come in this order.
		last := -1
		for _, section := range []string{"Usage:\n", "Examples:\n", "Flags:\n", "Exit codes: "} {
			i := strings.Index(help.stdout, section)
			if i < 0 || i < last {
				t.Errorf("help %s: section %q missing or out of order", name, section)
			}
			last = i
		}
		for _, args := range [][]string{{name, "--help"}, {name, "-h"}} {
			r := runBinary(t, binOptions{}, args...)
			if r.code != 0 || r.stdout != help.stdout || r.stderr != "" {
				t.Errorf("%v: exit %d, stderr %q, stdout equal to 'help %s': %v", args, r.code, r.stderr, name, r.stdout == help.stdout)
			}
		}
		legacy := runBinary(t, binOptions{}, name, "-help")
		if legacy.code != 0 || legacy.stdout != help.stdout || !strings.Contains(legacy.stderr, "--help instead of -help") {
			t.Errorf("%s -help: exit %d, stderr %q", name, legacy.code, legacy.stderr)
		}
	}
	r := runBinary(t, binOptions{}, "help", "nosuch")
	expect(t, "help nosuch", r, 2, nil, []string{`unknown command "nosuch"`})
	r = runBinary(t, binOptions{})
	expect(t, "no command", r, 2, nil, []string{"Usage:", "evalcal: no command given"})
}

func TestBinaryVersion(t *testing.T) {
	skipShort(t)
	line := regexp.MustCompile(`^evalcal (0\.2\.0|v\S+)( \(commit [0-9a-f]{1,12}(, modified)?\))?\n$`)
	v := runBinary(t, binOptions{}, "--version")
	if v.code != 0 || !line.MatchString(v.stdout) || v.stderr != "" {
		t.Fatalf("--version: exit %d, stdout %q, stderr %q", v.code, v.stdout, v.stderr)
	}
	for _, args := range [][]string{{"-v"}, {"version"}} {
		if r := runBinary(t, binOptions{}, args...); r.code != 0 || r.stdout != v.stdout || r.stderr != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want %q", args, r.code, r.stdout, r.stderr, v.stdout)
		}
	}
	expect(t, "version extra", runBinary(t, binOptions{}, "version", "extra"), 2, nil, []string{`unexpected argument "extra"`})
}

func TestBinaryTyposGetSuggestions(t *testing.T) {
	skipShort(t)
	for _, tt := range []struct {
		args   []string
		stderr string
	}{
		{[]string{"rn", "testdata/runs"}, `unknown command "rn" (did you mean "run" or "rank"?)`},
		{[]string{"socre", "x.jsonl"}, `unknown command "socre" (did you mean "score"?)`},
		{[]string{"help", "rnu"}, `unknown command "rnu" (did you mean "rank" or "run"?)`},
		{[]string{"run", "--formt", "json", "testdata/runs"}, "run: unknown flag --formt (did you mean --format?)"},
		{[]string{"run", "-fromat", "json", "testdata/runs"}, "run: unknown flag -fromat (did you mean --format?)"},
		{[]string{"run", "--insp", "x", "testdata/runs"}, "(did you mean --inspector or --inspections?)"},
		{[]string{"score", "--bye", "team", "x.jsonl"}, "score: unknown flag --bye (did you mean --by?)"},
		{[]string{"calls", "--require-seal"}, "calls: unknown flag --require-seal (did you mean --require-seals?)"},
		{[]string{"gate", "--zzz"}, "gate: unknown flag --zzz\n"},
		{[]string{"gate", "--events"}, "gate: flag needs an argument: --events"},
	} {
		r := runBinary(t, binOptions{}, tt.args...)
		expect(t, strings.Join(tt.args, " "), r, 2, nil, []string{tt.stderr, "evalcal: Run 'evalcal "})
	}
}

func TestBinaryAcceptsSingleDashLongFlagsWithANote(t *testing.T) {
	skipShort(t)
	want := runBinary(t, binOptions{}, "run", "--inspections", twelve, "--format", "json", "--no-cache", "--quiet")
	got := runBinary(t, binOptions{}, "run", "-inspections", twelve, "-format", "json", "-no-cache", "-quiet")
	expect(t, "run -inspections", got, 0, []string{fmt.Sprintf(`"schema_version": %d`, report.SchemaVersion)}, nil)
	if got.stdout != want.stdout {
		t.Error("the report of single-dash flags differs from the --flag one")
	}
	note := "evalcal: single-dash long flags are deprecated: write --inspections instead of -inspections, " +
		"--format instead of -format, --no-cache instead of -no-cache, --quiet instead of -quiet\n"
	if strings.Count(got.stderr, "deprecated") != 1 || !strings.HasPrefix(got.stderr, note) {
		t.Errorf("want one deprecation line %q, stderr:\n%s", note, got.stderr)
	}
	// -seed=3 inline, and a value that starts with a dash is a value.
	r := runBinary(t, binOptions{}, "score", "-seed=3", "-baseline-rate", "-0.5", "testdata/score/worked.jsonl")
	expect(t, "score -baseline-rate -0.5", r, 2, nil, []string{`--baseline-rate must be a number in (0, 1), got "-0.5"`})
	// --o was Go's long form of -o.
	dir := t.TempDir()
	r = runBinary(t, binOptions{}, "render", "testdata/run/twelve.golden", "--o", filepath.Join(dir, "r.md"))
	expect(t, "render --o", r, 0, nil, []string{"write -o instead of --o"})
	if data, err := os.ReadFile(filepath.Join(dir, "r.md")); err != nil || !strings.Contains(string(data), "# evalcal calibration report") {
		t.Errorf("render --o wrote no markdown: %v", err)
	}
}

func TestBinaryCompletionScripts(t *testing.T) {
	skipShort(t)
	for shell, marker := range map[string]string{
		"bash":       "# bash completion V2 for evalcal",
		"zsh":        "#compdef evalcal",
		"fish":       "complete -c evalcal",
		"powershell": "Register-ArgumentCompleter",
	} {
		r := runBinary(t, binOptions{}, "completion", shell)
		expect(t, "completion "+shell, r, 0, []string{marker, "__complete"}, nil)
		if r.stderr != "" {
			t.Errorf("completion %s wrote on stderr: %q", shell, r.stderr)
		}
	}
	expect(t, "completion tcsh", runBinary(t, binOptions{}, "completion", "tcsh"), 2, nil, []string{`unknown shell "tcsh"`})
	expect(t, "completion", runBinary(t, binOptions{}, "completion"), 2, nil, []string{"want one SHELL"})
	// What the scripts ask the binary.
	r := runBinary(t, binOptions{}, "__complete", "r")
	expect(t, "__complete r", r, 0, []string{"render\t", "run\t"}, nil)
	r = runBinary(t, binOptions{}, "__complete", "run", "--form")
	expect(t, "__complete run --form", r, 0, []string{"--format\t"}, nil)
	r = runBinary(t, binOptions{}, "__complete", "gate", "--format", "")
	expect(t, "__complete gate --format", r, 0, []string{"yaml\n", "json\n"}, nil)
	if strings.Contains(r.stdout, "markdown") {
		t.Errorf("gate's --format completes to markdown, which gate does not write:\n%s", r.stdout)
	}
	r = runBinary(t, binOptions{}, "__complete", "run", "--inspector", "")
	expect(t, "__complete run --inspector", r, 0, []string{"builtin\n", "exec:\n", "saved:\n"}, nil)
}

func TestBinaryNothingScoredExitsOne(t *testing.T) {
	skipShort(t)
	dir := t.TempDir()
	empty := writeTempFile(t, dir, "empty.jsonl", "")
	bad := writeTempFile(t, dir, "bad.jsonl", "{\"x\": 1}\nnot json\n")
	for _, tt := range []struct {
		name   string
		args   []string
		stdin  string
		stdout string
		stderr []string
	}{
		{"score empty", []string{"score", empty}, "", "groups: []", []string{"score: nothing scored from " + empty + ": no forecast line (the input is empty or blank)"}},
		{"score stdin empty", []string{"score", "-"}, "", "groups: []", []string{"score: nothing scored from stdin"}},
		{"score all bad", []string{"score", bad}, "", "count: 2", []string{"every line is bad (2)", "evalcal: 2 bad lines:\n",
			"evalcal:   " + bad + ":1: confidence: missing", "evalcal:   " + bad + ":2: line: not JSON"}},
		{"score --by missing", []string{"score", "--by", "nosuch", "testdata/score/worked.jsonl"}, "", "by: nosuch",
			[]string{`no forecast has the --by field "nosuch"`}},
		{"calls empty", []string{"calls", "--calls", empty, "--prices", "testdata/calls/prices.csv", "--as-of", "2026-03-10T00:00:00Z"},
			"", "groups: []", []string{"calls: nothing scored from " + empty + ": no counted call"}},
		{"gate empty", []string{"gate", "--events", empty}, "", "decisions: []", []string{"gate: nothing scored from " + empty + ": no candidate lesson"}},
	} {
		r := runBinary(t, binOptions{stdin: strings.NewReader(tt.stdin)}, tt.args...)
		expect(t, tt.name, r, 1, []string{tt.stdout}, tt.stderr)
	}
	// Bad lines among good ones: exit 0, the first 5 listed on stderr.
	r := runBinary(t, binOptions{}, "score", "testdata/score/bad_lines.jsonl")
	expect(t, "score bad_lines", r, 0, []string{"bad_lines:"}, []string{
		"evalcal: 8 bad lines (the first 5; the document lists them under bad_lines):\n",
		"evalcal:   testdata/score/bad_lines.jsonl:3: confidence: must be a number in [0, 1], got 1.5\n",
		"evalcal: 2 warnings:\n"})
	if n := strings.Count(r.stderr, "evalcal:   testdata/score/bad_lines.jsonl:"); n != 5 {
		t.Errorf("%d bad lines listed on stderr, want 5", n)
	}
	// A run where every inspection fails: exit 1, failures summarised, no
	// "agreement 0.0%".
	r = runBinary(t, binOptions{}, "run", "--no-cache", "--retries", "0", "--sample", "3",
		"--inspector", "exec:sh testdata/inspectors/crash.sh {run} {depth}", "-o", filepath.Join(dir, "r.yaml"), "testdata/runs")
	expect(t, "run, all inspections fail", r, 1, nil, []string{"evalcal: 6 failed inspections (the first 5; the document lists them under failures):",
		"insufficient_evidence: These runs do not yet tell whether light can stand in for deep (insufficient_evidence): no run has both verdicts",
		"no run got both inspections"})
	if strings.Contains(r.stderr, "agreement 0.0% [") {
		t.Errorf("stderr shows a 0%% agreement for no runs:\n%s", r.stderr)
	}
}

func TestBinaryOutputFormatFromExtension(t *testing.T) {
	skipShort(t)
	dir := t.TempDir()
	out := func(name string) string { return filepath.Join(dir, name) }
	read := func(name string) string {
		data, err := os.ReadFile(out(name))
		if err != nil {
			t.Errorf("%s not written: %v", name, err)
		}
		return string(data)
	}
	for name, prefix := range map[string]string{
		"r.json": "{\n", "r.yaml": reportHead, "r.yml": reportHead,
		"r.md": "**INSUFFICIENT EVIDENCE** ·", "r.html": "<!DOCTYPE html>", "r.txt": reportHead,
	} {
		r := runBinary(t, binOptions{}, "run", "--no-cache", "--quiet", "--inspections", twelve, "-o", out(name))
		expect(t, "run -o "+name, r, 0, nil, nil)
		if got := read(name); !strings.HasPrefix(got, prefix) {
			t.Errorf("-o %s: starts %.40q, want %q", name, got, prefix)
		}
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(read("r.json")), &doc); err != nil {
		t.Errorf("-o r.json is not JSON: %v", err)
	}
	r := runBinary(t, binOptions{}, "score", "testdata/score/worked.jsonl", "-o", out("s.json"))
	expect(t, "score -o s.json", r, 0, nil, nil)
	if err := json.Unmarshal([]byte(read("s.json")), &doc); err != nil {
		t.Errorf("score -o s.json is not JSON: %v", err)
	}
	r = runBinary(t, binOptions{}, "render", "testdata/run/twelve.golden", "--output", out("x.html"))
	expect(t, "render -o x.html", r, 0, nil, nil)
	if !strings.HasPrefix(read("x.html"), "<!DOCTYPE html>") {
		t.Error("render -o x.html did not write HTML")
	}
	r = runBinary(t, binOptions{}, "render", "testdata/run/twelve.golden", "--format", "md", "-o", out("agree.md"))
	expect(t, "render --format md -o agree.md", r, 0, nil, nil)
	// Clashes and impossible formats: usage errors, nothing written.
	for _, tt := range []struct {
		args   []string
		stderr string
	}{
		{[]string{"run", "--no-cache", "--inspections", twelve, "--format", "json", "-o", out("clash.yaml")}, "--format json contradicts -o " + out("clash.yaml")},
		{[]string{"score", "testdata/score/worked.jsonl", "--format", "html", "-o", out("clash.md")}, "--format html contradicts"},
		{[]string{"gate", "--events", "testdata/gate/events.jsonl", "-o", out("clash.md")}, "names a markdown file, but gate writes yaml or json"},
	} {
		r := runBinary(t, binOptions{}, tt.args...)
		expect(t, strings.Join(tt.args, " "), r, 2, nil, []string{tt.stderr})
	}
	for _, name := range []string{"clash.yaml", "clash.md"} {
		if _, err := os.Stat(out(name)); err == nil {
			t.Errorf("%s written despite the usage error", name)
		}
	}
}

// A bad -o is found before any inspection: the slow inspector would take
// 5 s a call.
func TestBinaryOutputCheckedBeforeAnyWork(t *testing.T) {
	skipShort(t)
	dir := t.TempDir()
	file := writeTempFile(t, dir, "file", "x")
	slow := []string{"run", "--no-cache", "--sample", "3", "--inspector", "exec:sh testdata/inspectors/slow.sh {run} {depth}"}
	for _, tt := range []struct {
		out, stderr string
	}{
		{filepath.Join(dir, "missing", "dir", "r.yaml"), "directory " + filepath.Join(dir, "missing", "dir") + " does not exist"},
		{dir, "is a directory; name a file"},
		{filepath.Join(file, "r.yaml"), file + " is not a directory"},
		{"/proc/self/r.yaml", "directory /proc/self is not writable"},
	} {
		start := time.Now()
		r := runBinary(t, binOptions{env: []string{"EVALCAL_TEST_DELAY=5"}}, append(slow, "-o", tt.out, "testdata/runs")...)
		expect(t, "-o "+tt.out, r, 2, nil, []string{tt.stderr})
		if d := time.Since(start); d > 3*time.Second || strings.Contains(r.stderr, "progress") || strings.Contains(r.stderr, "inspector calls") {
			t.Errorf("-o %s: took %s and inspected (stderr %q)", tt.out, d, r.stderr)
		}
	}
}

// -o naming an input is refused however it is spelt; the input is intact.
func TestBinaryOutputMustNotBeAnInput(t *testing.T) {
	skipShort(t)
	dir := t.TempDir()
	worked, err := os.ReadFile(filepath.Join(repoRoot(t), "testdata/score/worked.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	in := writeTempFile(t, dir, "f.jsonl", string(worked))
	if err := os.Symlink(in, filepath.Join(dir, "link.jsonl")); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(in, filepath.Join(dir, "hard.jsonl")); err != nil {
		t.Fatal(err)
	}
	for _, o := range []string{in, filepath.Join(dir, ".", "f.jsonl"), filepath.Join(dir, "link.jsonl"), filepath.Join(dir, "hard.jsonl")} {
		r := runBinary(t, binOptions{}, "score", "--format", "yaml", "-o", o, in)
		expect(t, "score -o "+o, r, 2, nil, []string{"-o " + o + " is the input " + in})
	}
	if data, _ := os.ReadFile(in); string(data) != string(worked) {
		t.Error("the input was changed")
	}
	prices := filepath.Join(repoRoot(t), "testdata/calls/prices.csv")
	r := runBinary(t, binOptions{}, "calls", "--calls", "testdata/calls/calls.jsonl", "--prices", prices, "-o", "testdata/calls/../calls/prices.csv")
	expect(t, "calls -o PRICES", r, 2, nil, []string{"is the input " + prices})
	r = runBinary(t, binOptions{}, "run", "--no-cache", "--inspections", twelve, "-o", "./"+twelve)
	expect(t, "run -o INSPECTIONS", r, 2, nil, []string{"is the input " + twelve})
}

// Stdout opened read-write on /dev/null (Python's subprocess.DEVNULL,
// Node's stdio 'ignore') is a place to write, not a closed stdout: every
// command exits 0 (issue 27, 12). The runtime's /dev/null behind >&- looks
// the same, so it is not taken as closed either (README: Exit codes).
func TestBinaryStdoutOnDevNullReadWriteSucceeds(t *testing.T) {
	skipShort(t)
	bin := buildEvalcal(t)
	for _, redirect := range []string{"1<>/dev/null", ">/dev/null", ">&-"} {
		for _, args := range [][]string{
			{"run", "--no-cache", "--quiet", "--inspections", twelve},
			{"score", "testdata/score/worked.jsonl"},
			{"render", "testdata/run/twelve.golden"},
			{"gate", "--events", "testdata/gate/events.jsonl"},
			{"version"},
			{"completion", "bash"},
		} {
			r := runCommand(t, binOptions{}, "sh", append([]string{"-c", `exec "$@" ` + redirect, "sh", bin}, args...)...)
			expect(t, strings.Join(args, " ")+" "+redirect, r, 0, nil, nil)
		}
	}
	r := runCommand(t, binOptions{}, "sh", "-c", `exec "$@" >&-`, "sh", bin, "run", "--no-cache", "--quiet", "--inspections", twelve, "-o", filepath.Join(t.TempDir(), "r.yaml"))
	expect(t, "run -o FILE >&-", r, 0, nil, []string{"report written to"})
}

func TestBinaryReadsDocumentsFromStdin(t *testing.T) {
	skipShort(t)
	golden, err := os.ReadFile(filepath.Join(repoRoot(t), "testdata/run/twelve.golden"))
	if err != nil {
		t.Fatal(err)
	}
	fromFile := runBinary(t, binOptions{}, "render", "testdata/run/twelve.golden", "--format", "html")
	fromStdin := runBinary(t, binOptions{stdin: strings.NewReader(string(golden))}, "render", "-", "--format", "html")
	expect(t, "render -", fromStdin, 0, []string{"<!DOCTYPE html>"}, nil)
	if fromStdin.stdout != fromFile.stdout {
		t.Error("render - differs from render FILE")
	}
	dir := t.TempDir()
	var shards []string
	for _, s := range []string{"1/2", "2/2"} {
		p := filepath.Join(dir, strings.Replace(s, "/", "-of-", 1)+".yaml")
		expect(t, "shard", runBinary(t, binOptions{}, "run", "--no-cache", "--quiet", "--inspections", twelve, "--shard", s, "-o", p), 0, nil, nil)
		shards = append(shards, p)
	}
	first, err := os.ReadFile(shards[0])
	if err != nil {
		t.Fatal(err)
	}
	want := runBinary(t, binOptions{}, "merge", shards[0], shards[1])
	got := runBinary(t, binOptions{stdin: strings.NewReader(string(first))}, "merge", "-", shards[1])
	expect(t, "merge - SHARD", got, 0, []string{reportHead}, []string{"merged 2 shards"})
	if got.stdout != want.stdout {
		t.Error("merge - differs from merge FILE")
	}
	expect(t, "merge - -", runBinary(t, binOptions{}, "merge", "-", "-"), 2, nil, []string{"stdin (-) given 2 times"})
	scoreFile := runBinary(t, binOptions{}, "score", "testdata/score/worked.jsonl")
	worked, _ := os.ReadFile(filepath.Join(repoRoot(t), "testdata/score/worked.jsonl"))
	scoreStdin := runBinary(t, binOptions{stdin: strings.NewReader(string(worked))}, "score", "-")
	expect(t, "score -", scoreStdin, 0, []string{"path: '-'"}, nil)
	if strings.Replace(scoreStdin.stdout, "path: '-'", "path: testdata/score/worked.jsonl", 1) !=
		strings.Replace(scoreFile.stdout, "  - testdata/score/worked.jsonl\n", "  - '-'\n", 1) {
		t.Error("score - differs from score FILE beyond the input's name")
	}
}

// Bounds are checked before anything is allocated (issue 13 items 5, 6, 25).
func TestBinaryBoundsAndClearErrors(t *testing.T) {
	skipShort(t)
	dir := t.TempDir()
	for _, tt := range []struct {
		args   []string
		stderr string
	}{
		{[]string{"run", "--shard", "1/2000000000", "testdata/runs"}, "at most 10000 shards"},
		{[]string{"run", "--shard", "1/10001", "testdata/runs"}, "at most 10000 shards"},
		{[]string{"run", "--shard", "1/99999999999999999999999", "testdata/runs"}, "--shard: want i/n"},
		{[]string{"run", "--bins", "1001", "testdata/runs"}, "--bins must be in [1, 1000], got 1001"},
		{[]string{"run", "--bins", "2000000000", "testdata/runs"}, "--bins must be in [1, 1000]"},
		{[]string{"score", "--trend", "2000000000", "testdata/score/worked.jsonl"}, "--trend must be 0 (off) or in [2, 1000000]"},
		{[]string{"score", "--window", "2000000000", "--sqlite", "testdata/sqlite/prediction.db"}, "--window must be in [1, 100000000]"},
		{[]string{"calls", "--calls", "testdata/calls/calls.jsonl", "--prices", "testdata/calls/prices.csv", "--as-of", "0001-01-01T00:00:00Z"},
			"--as-of 0001-01-01T00:00:00Z is before 1970-01-01T00:00:00Z"},
	} {
		start := time.Now()
		r := runBinary(t, binOptions{}, tt.args...)
		expect(t, strings.Join(tt.args, " "), r, 2, nil, []string{tt.stderr})
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%v took %s", tt.args, d)
		}
	}
	// A shard report that claims 2,000,000,000 shards: refused, no panic,
	// no allocation by that count.
	s := filepath.Join(dir, "s.yaml")
	expect(t, "shard", runBinary(t, binOptions{}, "run", "--no-cache", "--quiet", "--inspections", twelve, "--shard", "1/2", "-o", s), 0, nil, nil)
	data, err := os.ReadFile(s)
	if err != nil {
		t.Fatal(err)
	}
	for _, shard := range []string{"1/2000000000", "3000000000/4000000000", "1/0"} {
		hostile := writeTempFile(t, dir, "hostile.yaml", strings.Replace(string(data), "shard: 1/2", "shard: "+shard, 1))
		r := runBinary(t, binOptions{}, "merge", hostile)
		expect(t, "merge shard "+shard, r, 2, nil, []string{"is not a shard report"})
		if strings.Contains(r.stderr, "panic") {
			t.Errorf("merge panicked: %s", r.stderr)
		}
	}
}

// One rule for a cache that cannot be used: one warning, the run goes on
// uncached (issue 13 item 24).
func TestBinaryUnusableCacheWarnsOnceAndGoesOn(t *testing.T) {
	skipShort(t)
	dir := t.TempDir()
	file := writeTempFile(t, dir, "file", "x")
	base := []string{"run", "--quiet", "--inspections", twelve, "-o", filepath.Join(dir, "r.yaml")}
	for _, tt := range []struct {
		name  string
		extra []string
		env   []string
	}{
		{"uncreatable --cache", []string{"--cache", filepath.Join(file, "cache")}, nil},
		{"unwritable --cache", []string{"--cache", "/proc/self"}, nil},
		{"uncreatable default", nil, []string{"XDG_CACHE_HOME=" + file}},
		{"no user cache dir", nil, []string{"XDG_CACHE_HOME=", "HOME="}},
	} {
		r := runBinary(t, binOptions{env: tt.env}, append(append([]string{}, base...), tt.extra...)...)
		expect(t, tt.name, r, 0, nil, []string{"going on without a cache", "24 inspector calls, 0 from cache"})
		if n := strings.Count(r.stderr, "warning:"); n != 1 {
			t.Errorf("%s: %d warnings, want 1:\n%s", tt.name, n, r.stderr)
		}
	}
}

// Plain progress lines on a non-terminal stderr, checked with a slow exec
// inspector: at each tenth, counts rising, an ETA, and a final line.
func TestBinaryPrintsPlainProgressOffATerminal(t *testing.T) {
	skipShort(t)
	cache := t.TempDir()
	args := []string{"run", "--cache", cache, "--jobs", "2", "--sample", "6",
		"--inspector", "exec:sh testdata/inspectors/slow.sh {run} {depth}", "testdata/runs"}
	env := []string{"EVALCAL_TEST_DELAY=0.05"}
	line := regexp.MustCompile(`(?m)^evalcal: progress (\d+)/12 inspections \((\d+)%\), (\d+) failed, (\d+) from cache, (\d+)s elapsed(, ETA \d+s)?$`)

	r := runBinary(t, binOptions{env: env}, args...)
	expect(t, "slow run", r, 0, []string{reportHead}, nil)
	ms := line.FindAllStringSubmatch(r.stderr, -1)
	if len(ms) < 5 || len(ms) > 11 {
		t.Fatalf("%d progress lines, want one a tenth (5 to 11 for 12 inspections):\n%s", len(ms), r.stderr)
	}
	prev := 0
	for i, m := range ms {
		done := atoi(t, m[1])
		final := i == len(ms)-1
		if done <= prev || atoi(t, m[2]) != 100*done/12 || (m[6] == "") != final {
			t.Errorf("line %q: done %d after %d, percent, or ETA only before the final line", m[0], done, prev)
		}
		prev = done
	}
	if last := ms[len(ms)-1]; last[1] != "12" || last[3] != "0" || last[4] != "0" {
		t.Errorf("final line %q, want 12/12, 0 failed, 0 from cache", last[0])
	}
	// The rerun is served from the cache; the final line says so.
	r = runBinary(t, binOptions{env: env}, args...)
	if !strings.Contains(r.stderr, "evalcal: progress 12/12 inspections (100%), 0 failed, 12 from cache, ") {
		t.Errorf("cached rerun: no final line with 12 from cache:\n%s", r.stderr)
	}
	// Failures are counted; --quiet silences the lines, not the summary.
	r = runBinary(t, binOptions{}, "run", "--no-cache", "--retries", "0", "--sample", "3",
		"--inspector", "exec:sh testdata/inspectors/crash.sh {run} {depth}", "testdata/runs")
	if !strings.Contains(r.stderr, "evalcal: progress 6/6 inspections (100%), 6 failed, 0 from cache, ") {
		t.Errorf("no final line with 6 failed:\n%s", r.stderr)
	}
	r = runBinary(t, binOptions{env: env}, append([]string{"run", "--quiet"}, args[1:]...)...)
	if strings.Contains(r.stderr, "progress") || !strings.Contains(r.stderr, "inspector calls") {
		t.Errorf("--quiet: stderr %q", r.stderr)
	}
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n := 0
	for _, c := range s {
		if c < '0' || c > '9' {
			t.Fatalf("not a number: %q", s)
		}
		n = 10*n + int(c-'0')
	}
	return n
}

// A byte-order mark at the start of an input: the command layer passes it
// through to the readers (issue 11 item 4). Reports read by render work
// today; the other readers belong to other branches.
func TestBinaryByteOrderMark(t *testing.T) {
	skipShort(t)
	golden, err := os.ReadFile(filepath.Join(repoRoot(t), "testdata/run/twelve.golden"))
	if err != nil {
		t.Fatal(err)
	}
	bom := writeTempFile(t, t.TempDir(), "bom.yaml", "\ufeff"+string(golden))
	want := runBinary(t, binOptions{}, "render", "testdata/run/twelve.golden")
	got := runBinary(t, binOptions{}, "render", bom)
	expect(t, "render BOM", got, 0, []string{"# evalcal calibration report"}, nil)
	if got.stdout != want.stdout {
		t.Error("a BOM changes render's output")
	}
	var doc map[string]any
	if err := yaml.Unmarshal([]byte(runBinary(t, binOptions{stdin: strings.NewReader("\ufeff" + string(golden))}, "render", "-", "--format", "yaml").stdout), &doc); err != nil || doc["schema_version"] == nil {
		t.Errorf("render - of a BOM document: %v", err)
	}
	// Every other input: the document with a BOM at the start of the file is
	// the document without one (inputs name files and hash their bytes,
	// so they are left out).
	root := repoRoot(t)
	dir := t.TempDir()
	withBOM := func(rel string) string {
		data, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			t.Fatal(err)
		}
		return writeTempFile(t, dir, filepath.Base(rel), "\ufeff"+string(data))
	}
	withoutVolatile := func(doc string) string {
		// File names differ: the BOM copies live in dir.
		doc = strings.ReplaceAll(doc, dir+"/", "")
		for _, d := range []string{"testdata/score/", "testdata/calls/", "testdata/gate/", "testdata/inspections/"} {
			doc = strings.ReplaceAll(doc, d, "")
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(doc), &m); err != nil {
			t.Fatalf("not JSON: %v\n%.300s", err, doc)
		}
		for _, k := range []string{"inputs", "command_line", "events", "calls", "prices", "source", "sources"} {
			delete(m, k)
		}
		b, _ := json.Marshal(m)
		return string(b)
	}
	for _, c := range []struct {
		name      string
		plain, bm []string
	}{
		{"score jsonl", []string{"score", "testdata/score/worked.jsonl"}, []string{"score", withBOM("testdata/score/worked.jsonl")}},
		{"calls jsonl and prices csv",
			[]string{"calls", "--calls", "testdata/calls/calls.jsonl", "--prices", "testdata/calls/prices.csv", "--as-of", "2026-03-10T00:00:00Z"},
			[]string{"calls", "--calls", withBOM("testdata/calls/calls.jsonl"), "--prices", withBOM("testdata/calls/prices.csv"), "--as-of", "2026-03-10T00:00:00Z"}},
		{"gate jsonl", []string{"gate", "--events", "testdata/gate/events.jsonl", "--history", "testdata/gate/history.jsonl"},
			[]string{"gate", "--events", withBOM("testdata/gate/events.jsonl"), "--history", withBOM("testdata/gate/history.jsonl")}},
		{"saved inspections", []string{"run", "--no-cache", "--quiet", "--inspections", "testdata/inspections/twelve.jsonl"},
			[]string{"run", "--no-cache", "--quiet", "--inspections", withBOM("testdata/inspections/twelve.jsonl")}},
	} {
		want := runBinary(t, binOptions{dir: root}, append(c.plain, "--format", "json")...)
		got := runBinary(t, binOptions{dir: root}, append(c.bm, "--format", "json")...)
		expect(t, c.name+" with a BOM", got, want.code, []string{"{"}, nil)
		if strings.Contains(got.stderr, "byte-order mark") {
			t.Errorf("%s: a leading BOM was reported:\n%s", c.name, got.stderr)
		}
		if withoutVolatile(got.stdout) != withoutVolatile(want.stdout) {
			t.Errorf("%s: a leading BOM changes the document", c.name)
		}
	}
}
