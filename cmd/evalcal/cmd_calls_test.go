package main

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"gopkg.in/yaml.v3"
)

var callsExampleArgs = []string{"calls",
	"--calls", "../../testdata/calls/calls.jsonl", "--prices", "../../testdata/calls/prices.csv",
	"--as-of", "2026-03-10T00:00:00Z"}

func TestCallsExampleMatchesHandWorkedValues(t *testing.T) {
	out, stderr, code := runCLI(t, append(callsExampleArgs,
		"--weights", "calibration=0.10,returns=0.50,drawdown=0.40", "--terms", "../../testdata/calls/terms.yaml")...)
	if code != 0 {
		t.Fatalf("exit %d, stderr %s", code, stderr)
	}
	var doc struct {
		AsOf   string `yaml:"as_of"`
		Groups []struct {
			Agent, Season                                     string
			Counted, Ignored, Refused, Resolved, Right, Wrong int
			Pending, Unresolved                               int
			Closed                                            int `yaml:"closed_without_outcome"`
			Brier                                             *float64
		}
		Composite []struct {
			Agent, Season string
			Score         *float64
		}
		Tampered []struct{ ID string }
		Unsealed int
		BadLines []struct {
			File  string
			Line  int
			Field string
		} `yaml:"bad_lines"`
	}
	if err := yaml.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("output is not YAML: %v\n%s", err, out)
	}
	// Hand-worked from testdata/calls/make_examples.py and prices.csv:
	// atlas resolves a1 (0.8 right), a2 (0.7 right), a4 (0.6, price equal
	// to reference: wrong), a5 (0.75 refused, right), a6 (0.85 wrong), a7
	// (0.55 right): Brier = (0.04+0.09+0.36+0.0625+0.7225+0.2025)/6 =
	// 0.24625, calibration = (1 - 0.24625/0.25) x 100 = 1.5.
	type group struct {
		Agent, Season                                                                  string
		Counted, Ignored, Refused, Resolved, Right, Wrong, Pending, Unresolved, Closed int
		Brier                                                                          *float64
	}
	var got []group
	for _, g := range doc.Groups {
		got = append(got, group{g.Agent, g.Season, g.Counted, g.Ignored, g.Refused, g.Resolved, g.Right, g.Wrong, g.Pending, g.Unresolved, g.Closed, g.Brier})
	}
	brier := 0.24625
	want := []group{
		{"atlas", "2026-q1", 9, 2, 1, 6, 4, 2, 1, 1, 1, &brier},
		{"birch", "2026-q1", 3, 0, 0, 3, 2, 1, 0, 0, 0, nil},
		{"birch", "2026-q2", 1, 0, 0, 0, 0, 0, 1, 0, 0, nil},
	}
	if diff := cmp.Diff(want, got, cmpopts.EquateApprox(0, 1e-12)); diff != "" {
		t.Errorf("groups (-want +got):\n%s", diff)
	}
	// Composite: atlas 0.1 x 1.5 + 0.5 x 62 + 0.4 x 80 = 63.15; birch has
	// only returns measured, which takes all the weight: 48.
	var scores []float64
	for _, c := range doc.Composite {
		scores = append(scores, *c.Score)
	}
	if diff := cmp.Diff([]float64{63.15, 48, 48}, scores, cmpopts.EquateApprox(0, 1e-9)); diff != "" {
		t.Errorf("composite (-want +got):\n%s", diff)
	}
	if doc.AsOf != "2026-03-10T00:00:00Z" || len(doc.Tampered) != 1 || doc.Tampered[0].ID != "a12" || doc.Unsealed != 4 {
		t.Errorf("as_of %q, tampered %v, unsealed %d", doc.AsOf, doc.Tampered, doc.Unsealed)
	}
	if len(doc.BadLines) != 2 || doc.BadLines[0].Field != "price" || doc.BadLines[1].Line != 17 || doc.BadLines[1].Field != "confidence" {
		t.Errorf("bad lines %+v", doc.BadLines)
	}
}

func TestCallsGolden(t *testing.T) {
	for _, tt := range []struct {
		golden string
		extra  []string
	}{
		{"testdata/calls/example.golden.yaml", nil},
		{"testdata/calls/example.golden.json", []string{"--format", "json"}},
		{"testdata/calls/composite.golden.yaml", []string{"--weights", "calibration=0.10,returns=0.50,drawdown=0.40", "--terms", "../../testdata/calls/terms.yaml"}},
	} {
		out, stderr, code := runCLI(t, append(append([]string{}, callsExampleArgs...), tt.extra...)...)
		if code != 0 {
			t.Fatalf("%s: exit %d, stderr %s", tt.golden, code, stderr)
		}
		checkGolden(t, tt.golden, []byte(out))
	}
}

func TestCallsRequireSealsExitsThreeAfterWritingTheDocument(t *testing.T) {
	out, _, code := runCLI(t, append(callsExampleArgs, "--require-seals")...)
	if code != exitGate {
		t.Errorf("exit %d, want %d", code, exitGate)
	}
	if !strings.HasPrefix(out, "schema_version: 1\n") || !strings.Contains(out, "\nas_of:") {
		t.Errorf("document not written:\n%s", out)
	}
}

func TestCallsRequireSealsPassesWhenAllCountedCallsAreSealed(t *testing.T) {
	// Only atlas's sealed calls, without the tampered one.
	dir := t.TempDir()
	lines := strings.Split(strings.TrimSpace(readRepoFile(t, "testdata/calls/calls.jsonl")), "\n")
	path := writeTempFile(t, dir, "sealed.jsonl", strings.Join(lines[:11], "\n"))
	_, stderr, code := runCLI(t, "calls", "--calls", path, "--prices", "../../testdata/calls/prices.csv", "--as-of", "2026-03-10T00:00:00Z", "--require-seals")
	if code != 0 {
		t.Errorf("exit %d, stderr %s", code, stderr)
	}
}

func TestCallsUsageAndInputErrors(t *testing.T) {
	prices := "../../testdata/calls/prices.csv"
	calls := "../../testdata/calls/calls.jsonl"
	for _, tt := range []struct {
		args []string
		code int
	}{
		{[]string{"calls"}, exitUsage},
		{[]string{"calls", "--calls", calls}, exitUsage},
		{[]string{"calls", "--calls", calls, "--prices", prices, "--as-of", "tomorrow"}, exitUsage},
		{[]string{"calls", "--calls", calls, "--prices", prices, "--weights", "calibration=-1"}, exitUsage},
		{[]string{"calls", "--calls", calls, "--prices", prices, "--terms", "../../testdata/calls/terms.yaml"}, exitUsage},
		{[]string{"calls", "--calls", calls, "--prices", prices, "--format", "xml"}, exitUsage},
		{[]string{"calls", "--calls", "missing.jsonl", "--prices", prices}, exitUsage},
		{[]string{"calls", "--calls", calls, "--prices", calls}, 0}, // calls read as JSONL prices: all lines bad, still a document
		{[]string{"calls", "--calls", calls, "--prices", "../../testdata/calls/terms.yaml"}, exitUsage},
		{[]string{"calls", "--calls", calls, "--prices", prices, "extra"}, exitUsage},
	} {
		_, stderr, code := runCLI(t, tt.args...)
		if code != tt.code {
			t.Errorf("%v: exit %d, want %d (stderr %s)", tt.args, code, tt.code, stderr)
		}
	}
}

func TestCallsGatesAndFormats(t *testing.T) {
	out, stderr, code := runCLI(t, append(callsExampleArgs, "--require", "resolved >= 0")...)
	if code != 0 || !strings.Contains(out, "\ngates:\n") {
		t.Errorf("resolved >= 0: exit %d (%s), gates recorded: %v", code, stderr, strings.Contains(out, "\ngates:\n"))
	}
	if _, stderr, code := runCLI(t, append(callsExampleArgs, "--require", "calibration >= 101")...); code != exitGate || !strings.Contains(stderr, "gate failed") {
		t.Errorf("calibration >= 101: exit %d, stderr %s", code, stderr)
	}
	if _, _, code := runCLI(t, append(callsExampleArgs, "--require", "calibrashun >= 1")...); code != exitUsage {
		t.Errorf("unknown gate field: exit %d, want %d", code, exitUsage)
	}
	md, _, code := runCLI(t, append(callsExampleArgs, "--format", "markdown")...)
	if code != 0 || !strings.Contains(md, "# ") {
		t.Errorf("markdown: exit %d", code)
	}
	html, _, code := runCLI(t, append(callsExampleArgs, "--format", "html")...)
	if code != 0 || !strings.Contains(html, "<html") {
		t.Errorf("html: exit %d", code)
	}
}

func TestCallsMarkdownShowsTheComposite(t *testing.T) {
	md, _, code := runCLI(t, append(callsExampleArgs, "--format", "markdown", "--weights", "calibration=0.10,returns=0.50,drawdown=0.40",
		"--terms", "../../testdata/calls/terms.yaml")...)
	if code != 0 || !strings.Contains(md, "## Composite score") || !strings.Contains(md, "unmeasured (weight 0.1 spread)") {
		t.Errorf("exit %d; markdown lacks the composite section", code)
	}
}
