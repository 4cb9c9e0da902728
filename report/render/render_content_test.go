package render

import (
	"bytes"
	"context"
	"html"
	"math/rand/v2"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/shlex"

	"github.com/evalcal/evalcal/comparator"
	"github.com/evalcal/evalcal/report"
	"github.com/evalcal/evalcal/report/reporttest"
	"github.com/evalcal/evalcal/statistician/aggregate"
)

// A report over no run shows "n/a" with the reason for every figure that
// is not defined, never a 0 that would read as data.
func TestUndefinedFiguresShowNAWithTheReasonNeverZero(t *testing.T) {
	var st report.Report
	st.SetStatistics(aggregate.Compute(nil, aggregate.DefaultOptions()))
	r := reporttest.OfRuns(nil)
	r.AgreementRate, r.Kappa, r.MeanScoreDelta, r.ScoreCorrelation, r.Forecast = st.AgreementRate, st.Kappa, st.MeanScoreDelta, st.ScoreCorrelation, st.Forecast
	if r.AgreementRate.Percent != nil || r.AgreementRate.Reason == "" {
		t.Fatalf("fixture: agreement over no run is %+v", r.AgreementRate)
	}
	md, err := Markdown(r)
	if err != nil {
		t.Fatal(err)
	}
	h, err := HTML(r)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(md)
	for _, want := range []string{
		"| verdict agreement | n/a (" + mdText(r.AgreementRate.Reason) + ") |",
		"| [linear kappa](#glossary) | n/a",
		"| mean delta (deep - light, points) | n/a",
		"| [Brier score](#glossary) | n/a",
	} {
		if !strings.Contains(doc, want) {
			t.Errorf("markdown lacks %q", want)
		}
	}
	for _, zero := range []string{"| 0.00% |", "| 0.00 |", "| 0 | [", "base rate 0)"} {
		if strings.Contains(doc, zero) {
			t.Errorf("markdown shows an undefined figure as zero: %q", zero)
		}
	}
	if !strings.Contains(html.UnescapeString(string(h)), "n/a ("+r.AgreementRate.Reason+")") {
		t.Error("html lacks the agreement's reason")
	}
}

// An empty reliability bin has no rate: its mean forecast and observed
// rate read n/a, with the bin's reason, never 0.
func TestEmptyReliabilityBinsShowNA(t *testing.T) {
	md, err := Markdown(reporttest.Fixture(0))
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile(`(?m)^\| [0-9.]+–[0-9.]+ \| 0 \| 0 \| (.*) \|$`)
	rows := row.FindAllStringSubmatch(string(md), -1)
	if len(rows) == 0 {
		t.Fatal("the fixture has no empty bin")
	}
	for _, m := range rows {
		if m[1] != "n/a | n/a | n/a (empty bin)" {
			t.Errorf("empty bin row: %q", m[0])
		}
	}
}

// What the YAML lists outside the statistics is in the Markdown and HTML
// too, in words and not YAML paths: runs read only in part, invalid runs,
// failed inspections, light-only runs and warnings.
func TestNothingIsHiddenOutsideTheYAML(t *testing.T) {
	r := reporttest.Fixture(0)
	for i := 0; i < 12; i++ {
		r.Sample.Runs[i].Warnings = []string{"vm.log.md: no terminator; status taken from the front matter"}
	}
	r.Derive() // sample.read_in_part, as calibrate.Fill sets it
	r.Warnings = append(r.Warnings, "12 sampled runs could be read only in part; see sample.runs[].warnings",
		"the --max-cost budget of $1.00 stopped the calls; runs not inspected are listed under failures")
	r.LightOnly = []report.LightOnlyRun{{RunID: "20250101-100000-lll001", System: "alpha", LightVerdict: "pass",
		Light: comparator.Scores{RuntimeFidelity: 80, TaskEffectiveness: 75}}}
	md, err := Markdown(r)
	if err != nil {
		t.Fatal(err)
	}
	h, err := HTML(r)
	if err != nil {
		t.Fatal(err)
	}
	for name, doc := range map[string]string{"markdown": strings.ReplaceAll(string(md), `\_`, "_"), "html": html.UnescapeString(string(h))} {
		for _, want := range []string{
			`12 sampled runs could be read only in part (listed below under "Runs read only in part")`,
			`runs not inspected are listed below under "Failed inspections"`,
			"12 sampled runs read only in part", // the banner
			"1 run set aside as invalid", "20250101-100000-zzz999", "no log",
			"1 failed inspection", "20250101-100000-ddd001", "timeout after 10m0s",
			"1 run inspected at light depth only", "20250101-100000-lll001",
			"vm.log.md: no terminator; status taken from the front matter",
		} {
			if !strings.Contains(doc, want) {
				t.Errorf("%s lacks %q", name, want)
			}
		}
		for _, path := range []string{"sample.runs[]", "sample.invalid", "light_only", "under failures"} {
			if strings.Contains(doc, path) {
				t.Errorf("%s names the YAML path %q", name, path)
			}
		}
	}
}

// The recorded command line is one line a POSIX shell splits back into
// the recorded arguments: checked by /bin/sh itself on awkward arguments,
// and by shlex on many random ones.
func TestCommandLineIsOneCopyPasteableLine(t *testing.T) {
	awkward := []string{"--require", "agreement.lower >= 80", "--inspector", `exec:sh -c 'echo "$1" | jq .' {run}`,
		"", "a b", "it's", `back\slash`, "$HOME", "`id`", "*.yaml", "~", "#x", "--", "-o", "ünïcode", "a;b&c|d", "(x)"}
	line := commandLine("run", awkward)
	if strings.Contains(line, "\n") {
		t.Fatalf("not one line: %q", line)
	}
	if !strings.HasPrefix(line, "evalcal run --require 'agreement.lower >= 80' ") {
		t.Errorf("line starts %q", line)
	}
	if _, err := exec.LookPath("sh"); err == nil {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		// The shell runs the line with "evalcal" bound to a function that
		// prints its arguments NUL-separated.
		out, err := exec.CommandContext(ctx, "sh", "-c", `evalcal() { printf '%s\0' "$@"; }; `+line).Output()
		if err != nil {
			t.Fatal(err)
		}
		got := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
		want := append([]string{"run"}, awkward...)
		if strings.Join(got, "\x01") != strings.Join(want, "\x01") {
			t.Errorf("sh splits the line into\n%q\nwant\n%q", got, want)
		}
	}
	rng := rand.New(rand.NewPCG(3, 4))
	const alphabet = "ab -'\"\\$`*?;&|<>(){}[]#~=%@:,./_\t"
	for i := 0; i < 2000; i++ {
		args := make([]string, 1+rng.IntN(4))
		for k := range args {
			b := make([]byte, rng.IntN(8))
			for j := range b {
				b[j] = alphabet[rng.IntN(len(alphabet))]
			}
			args[k] = string(b)
		}
		words, err := shlex.Split(commandLine("run", args))
		if err != nil {
			t.Fatalf("%q: %v", args, err)
		}
		if strings.Join(words[2:], "\x01") != strings.Join(args, "\x01") {
			t.Fatalf("%q splits back into %q", args, words[2:])
		}
	}
	// A recorded line that names its subcommand keeps it once.
	// run records the program and the subcommand: written once, not twice.
	if got := commandLine("run", []string{"evalcal", "run", "--seed", "1", "runs"}); got != "evalcal run --seed 1 runs" {
		t.Errorf("recorded with the program's name: %q", got)
	}
	if got := commandLine("run", []string{"merge", "a.yaml"}); got != "evalcal merge a.yaml" {
		t.Errorf("got %q", got)
	}
}

// The Markdown and HTML show the command line as a code block to copy.
func TestRenderersShowTheCommandLineToCopy(t *testing.T) {
	r := reporttest.Fixture(0)
	r.Inputs.CommandLine = []string{"--seed", "1", "--require", "agreement.lower >= 80", "runs/"}
	want := "evalcal run --seed 1 --require 'agreement.lower >= 80' runs/"
	md, _ := Markdown(r)
	if !strings.Contains(string(md), "\n```sh\n"+want+"\n```\n") {
		t.Errorf("markdown lacks the code block %q", want)
	}
	h, _ := HTML(r)
	if !bytes.Contains(h, []byte("<pre><code>"+html.EscapeString(want)+"</code></pre>")) {
		t.Errorf("html lacks the code block %q", want)
	}
}
