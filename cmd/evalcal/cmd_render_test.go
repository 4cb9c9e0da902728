package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/evalcal/evalcal/report"
)

const syntheticReport = "../../testdata/render/synthetic.yaml"

func TestRenderMarkdownMatchesGolden(t *testing.T) {
	out, errOut, code := runCLI(t, "render", syntheticReport, "--format", "markdown")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	checkGolden(t, "testdata/render/synthetic.md", []byte(out))
}

func TestRenderHTMLMatchesGolden(t *testing.T) {
	out, errOut, code := runCLI(t, "render", "--format=html", syntheticReport)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	checkGolden(t, "testdata/render/synthetic.html", []byte(out))
}

// JSON and YAML round trip: rendering the YAML report as JSON, then the
// JSON as YAML, gives the YAML back byte for byte.
func TestRenderJSONRoundTripsToTheSameYAML(t *testing.T) {
	dir := t.TempDir()
	jsonPath := filepath.Join(dir, "r.json")
	if _, errOut, code := runCLI(t, "render", syntheticReport, "--format", "json", "-o", jsonPath); code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	out, errOut, code := runCLI(t, "render", jsonPath, "--format", "yaml")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	want, err := os.ReadFile(syntheticReport)
	if err != nil {
		t.Fatal(err)
	}
	if out != string(want) {
		t.Error("yaml -> json -> yaml changed the report")
	}
}

func TestRenderWritesFileAtomically(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.md")
	out, errOut, code := runCLI(t, "render", "-o", path, syntheticReport)
	if code != exitOK || out != "" {
		t.Fatalf("exit %d, stdout %q, stderr %s", code, out, errOut)
	}
	b, err := os.ReadFile(path)
	if err != nil || !strings.HasPrefix(string(b), "**Light agrees with deep") {
		t.Fatalf("file: %v %.80q", err, b)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("left %d files behind", len(entries))
	}
}

func TestRenderRefusesNewerSchemaWithExit2(t *testing.T) {
	path := filepath.Join(t.TempDir(), "future.yaml")
	if err := os.WriteFile(path, []byte("schema_version: 7\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _, code := runCLI(t, "render", path)
	err := run(t.Context(), []string{"render", path}, &strings.Builder{}, &strings.Builder{})
	if code != exitUsage || out != "" {
		t.Fatalf("exit %d, stdout %q", code, out)
	}
	for _, want := range []string{"schema_version 7", "reads up to " + strconv.Itoa(report.SchemaVersion), "upgrade evalcal"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message %q lacks %q", err, want)
		}
	}
}

func TestRenderUsageErrors(t *testing.T) {
	for name, args := range map[string][]string{
		"no file":        {"render"},
		"two files":      {"render", syntheticReport, syntheticReport},
		"bad format":     {"render", syntheticReport, "--format", "pdf"},
		"unknown flag":   {"render", "--colour", syntheticReport},
		"missing file":   {"render", "no/such/report.yaml"},
		"not a report":   {"render", "../../go.mod"},
		"flag value gap": {"render", syntheticReport, "--format"},
	} {
		if _, _, code := runCLI(t, args...); code != exitUsage {
			t.Errorf("%s: exit %d, want %d", name, code, exitUsage)
		}
	}
}

// render tells score and calls documents from calibration reports and
// renders them with the same goldens as package report.
func TestRenderScoreAndCallsDocuments(t *testing.T) {
	for _, c := range []struct{ in, format, golden string }{
		{"../../testdata/render/score.yaml", "markdown", "testdata/render/score.md"},
		{"../../testdata/render/score.yaml", "html", "testdata/render/score.html"},
		{"../../testdata/render/calls.yaml", "markdown", "testdata/render/calls.md"},
		{"../../testdata/render/calls.yaml", "html", "testdata/render/calls.html"},
	} {
		out, errOut, code := runCLI(t, "render", c.in, "--format", c.format)
		if code != exitOK {
			t.Fatalf("%s: exit %d: %s", c.in, code, errOut)
		}
		checkGolden(t, c.golden, []byte(out))
	}
}

func TestRenderScoreDocumentAsJSONKeepsItsKeys(t *testing.T) {
	out, errOut, code := runCLI(t, "render", "../../testdata/render/score.yaml", "--format", "json")
	if code != exitOK || !strings.Contains(out, `"groups": [`) || !strings.Contains(out, `"schema_version": 1`) {
		t.Fatalf("exit %d: %s %.200s", code, errOut, out)
	}
}

func TestRenderRefusesNewerScoreSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "score.yaml")
	if err := os.WriteFile(path, []byte("schema_version: 9\noptions: {by: agent}\ngroups: []\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, code := runCLI(t, "render", path); code != exitUsage {
		t.Errorf("exit %d, want %d", code, exitUsage)
	}
}
