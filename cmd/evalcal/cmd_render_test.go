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
	if err != nil || !strings.HasPrefix(string(b), "**NO VERDICT** · ") || !strings.Contains(string(b), "\n# evalcal calibration report\n") {
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

// nightlyDir writes three nightly reports with evalcal run: the second
// with a gate that fails (exit 3, report written), the third as JSON.
func nightlyDir(t *testing.T) string {
	t.Helper()
	t.Chdir(repoRoot(t))
	dir := t.TempDir()
	for _, night := range []struct {
		name string
		args []string
		code int
	}{
		{"2026-03-01.yaml", []string{"--inspections", "testdata/inspections/twelve.jsonl"}, exitOK},
		{"2026-03-02.yaml", []string{"--inspections", "testdata/inspections/twelve.jsonl", "--require", "agreement.lower >= 80"}, exitGate},
		{"2026-03-03.json", []string{"--inspections", "testdata/inspections/agree.jsonl"}, exitOK},
	} {
		args := append([]string{"run", "--no-cache", "--quiet", "-o", filepath.Join(dir, night.name)}, night.args...)
		if _, errOut, code := runCLI(t, args...); code != night.code {
			t.Fatalf("%s: exit %d, want %d: %s", night.name, code, night.code, errOut)
		}
	}
	return dir
}

func TestRenderHistoryOfThreeNightsMarksTheFailedGate(t *testing.T) {
	dir := nightlyDir(t)
	out, errOut, code := runCLI(t, "render", "--history", dir)
	if code != exitOK || errOut != "" {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	head, table, ok := strings.Cut(out, "\n# evalcal nightly history\n")
	if !ok || !strings.HasPrefix(head, "**3 reports, 2026-03-01 to 2026-03-03 · gates failed on 1 of them**") ||
		!strings.Contains(head, "- 2026-03-02: agreement.lower >= 80") {
		t.Errorf("banner:\n%s", head)
	}
	var rows []string
	for _, line := range strings.Split(table, "\n") {
		if strings.HasPrefix(line, "| 2026-") {
			rows = append(rows, line)
		}
	}
	if len(rows) != 3 || !strings.Contains(rows[1], "| FAILED 1 of 1: agreement.lower >= 80 |") ||
		!strings.Contains(rows[0], "| none requested |") || !strings.HasPrefix(rows[2], "| 2026-03-03 |") {
		t.Errorf("rows:\n%s", strings.Join(rows, "\n"))
	}
	// Twelve runs, 8 agree: 66.67% with Wilson 95% [39.06%, 86.19%]
	// (hand-worked, z = 1.96).
	if !strings.Contains(rows[0], "| 12 | 66.67% | [39.06%, 86.19%] |") {
		t.Errorf("night 1: %s", rows[0])
	}

	// HTML, explicit files in the order given.
	page := filepath.Join(t.TempDir(), "history.html")
	_, errOut, code = runCLI(t, "render", "--history", filepath.Join(dir, "2026-03-02.yaml"), filepath.Join(dir, "2026-03-01.yaml"), "-o", page)
	if code != exitOK {
		t.Fatalf("html: exit %d: %s", code, errOut)
	}
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	h := string(b)
	if strings.Count(h, "<svg") != 2 || strings.Count(h, `style="fill:#B42318"`) != 2 || !strings.Contains(h, "2 reports, 2026-03-02 to 2026-03-01") {
		t.Errorf("html: %d charts, %d failed-night markers", strings.Count(h, "<svg"), strings.Count(h, `style="fill:#B42318"`))
	}
}

// A file of the series that cannot be read is listed on stderr and in the
// document, and the rest go on; nothing readable is exit 2.
func TestRenderHistoryListsUnreadReportsAndGoesOn(t *testing.T) {
	dir := nightlyDir(t)
	if err := os.WriteFile(filepath.Join(dir, "2026-03-04.yaml"), []byte("schema_version: 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runCLI(t, "render", "--history", dir)
	if code != exitOK || !strings.Contains(errOut, "evalcal: 1 unread report:") || !strings.Contains(errOut, "2026-03-04.yaml") ||
		!strings.Contains(out, "## Reports not read") || !strings.Contains(out, "1 report not read") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
	empty := t.TempDir()
	if err := os.WriteFile(filepath.Join(empty, "bad.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code = runCLI(t, "render", "--history", empty)
	if code != exitUsage || out != "" || !strings.Contains(errOut, "bad.json: report: read") {
		t.Errorf("nothing readable: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	err := run(t.Context(), []string{"render", "--history", empty}, &strings.Builder{}, &strings.Builder{})
	if err == nil || !strings.Contains(err.Error(), "no calibration report could be read") {
		t.Errorf("nothing readable: %v", err)
	}
}

func TestRenderHistoryUsageErrors(t *testing.T) {
	dir := t.TempDir()
	for name, args := range map[string][]string{
		"no report":  {"render", "--history"},
		"json":       {"render", "--history", dir, "--format", "json"},
		"yaml file":  {"render", "--history", dir, "-o", filepath.Join(dir, "h.yaml")},
		"stdin":      {"render", "--history", "-"},
		"two w/o":    {"render", syntheticReport, syntheticReport},
		"dir w/o":    {"render", dir},
		"bad format": {"render", "--history", dir, "--format", "pdf"},
	} {
		if _, _, code := runCLI(t, args...); code != exitUsage {
			t.Errorf("%s: exit %d, want %d", name, code, exitUsage)
		}
	}
}
