package sampler

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/evalcal/evalcal/inspection"
)

// A run directory declares its metadata in its log's front matter, next
// to its system; a nested value is a warning naming the log, line and
// field, and the rest of the run is described as ever.
func TestDescribeReadsMetadataFromTheLogFrontMatter(t *testing.T) {
	files := map[string]string{
		"program.prose": "let plan = session \"write a plan\"\n",
		"state.md": "---\nsystem: triage\nmetadata:\n  task: t17\n  model_family: Claude\n  tokens: 1200\n  ok: True\n" +
			"  gone: ~\n  tags: [a, b]\n  nested:\n    x: 1\n---\n# run:20260101-000000-aaaaaa plan.prose\n1→ plan ✓\n---end 2026-01-01T00:00:00Z\n",
		"bindings/plan.md": "# plan\n\nkind: let\n\n---\n\nThe plan.\n",
	}
	got, err := Describe(writeRun(t, t.TempDir(), "20260101-000000-aaaaaa", files))
	if err != nil {
		t.Fatal(err)
	}
	if got.System != "triage" || !got.Valid {
		t.Errorf("system %q valid %v (%s)", got.System, got.Valid, got.Invalid)
	}
	want := inspection.Metadata{"task": "t17", "model_family": "Claude", "tokens": "1200", "ok": "true"}
	if d := cmp.Diff(want, got.Metadata); d != "" {
		t.Errorf("metadata (-want +got):\n%s", d)
	}
	wantWarn := []string{
		"state.md: line 9: front matter metadata.tags is a list; metadata values are strings, numbers or booleans: skipped",
		"state.md: line 10: front matter metadata.nested is a map; metadata values are strings, numbers or booleans: skipped",
	}
	if d := cmp.Diff(wantWarn, got.Warnings); d != "" {
		t.Errorf("warnings (-want +got):\n%s", d)
	}
}

func TestFrontMatterMetadataThatIsNoMapIsSkipped(t *testing.T) {
	md, warn := frontMatterMetadata([]byte("system: x\nmetadata: 3\n"), 2)
	if md != nil || len(warn) != 1 || warn[0] != "line 3: front matter metadata is not a map: skipped" {
		t.Errorf("%v %q", md, warn)
	}
	if md, warn := frontMatterMetadata([]byte("metadata:\n"), 2); md != nil || warn != nil {
		t.Errorf("empty metadata: %v %q", md, warn)
	}
}
