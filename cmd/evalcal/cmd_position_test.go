package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalcal/evalcal/pairwise"
)

// positionFixture is a file of pairwise/testdata.
func positionFixture(t *testing.T, name string) string {
	t.Helper()
	return filepath.Join(repoRoot(t), "pairwise", "testdata", name)
}

// TestPositionCommand runs evalcal position on the hand-made fixtures (see
// pairwise/position_test.go for the counts worked by hand): the document
// in each format, the bad line on stderr, byte-identical reruns.
func TestPositionCommand(t *testing.T) {
	judge, deep := positionFixture(t, "judge.jsonl"), positionFixture(t, "deep.jsonl")
	out, stderr, code := runCLI(t, "position", "--judge", judge, "--deep", deep)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "judge.jsonl:25: winner:") {
		t.Errorf("stderr does not name the bad line: %s", stderr)
	}
	again, _, _ := runCLI(t, "position", "--judge", judge, "--deep", deep)
	if again != out {
		t.Error("a rerun writes a different document")
	}
	if !strings.Contains(out, "consistency:\n      count: 7\n      \"n\": 11\n") || !strings.Contains(out, "p: 5.03e-01") {
		t.Errorf("YAML document lacks the consistency 7/11 or the first-slot p:\n%s", out)
	}
	js, _, code := runCLI(t, "position", "--judge", judge, "--deep", deep, "--format", "json")
	var doc struct {
		Judges []struct {
			Judge     string `json:"judge"`
			FirstSlot struct {
				Count int `json:"count"`
				N     int `json:"n"`
			} `json:"first_slot"`
			Trust string `json:"trust"`
		} `json:"judges"`
		BadLines struct {
			Count int `json:"count"`
		} `json:"bad_lines"`
	}
	if err := json.Unmarshal([]byte(js), &doc); err != nil || code != 0 {
		t.Fatalf("json (exit %d): %v\n%s", code, err, js)
	}
	if len(doc.Judges) != 1 || doc.Judges[0].FirstSlot.Count != 12 || doc.Judges[0].FirstSlot.N != 20 || doc.BadLines.Count != 1 {
		t.Errorf("json document: %+v", doc)
	}
	md, _, code := runCLI(t, "position", "--judge", judge, "--deep", deep, "--format", "markdown")
	for _, want := range []string{
		"| Consistency across the two orders | 7/11 | 63.64% | [35.38%, 84.83%] |",
		"| Accuracy, order-consistent pairs only | 6/7 | 85.71% |",
		"| Accuracy, an inconsistent pair abstained | 6/11 | 54.55% |",
		"**Trust: insufficient_evidence.**",
	} {
		if code != 0 || !strings.Contains(md, want) {
			t.Errorf("markdown (exit %d) lacks %q:\n%s", code, want, md)
		}
	}
}

// TestPositionExitCodes: usage and input errors exit 2, nothing read
// exits 1 with the document written.
func TestPositionExitCodes(t *testing.T) {
	empty := filepath.Join(t.TempDir(), "empty.jsonl")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		code int
	}{
		{[]string{"position"}, 2},
		{[]string{"position", "--judge", "alpacaeval:"}, 2},
		{[]string{"position", "--judge", filepath.Join(t.TempDir(), "missing.jsonl")}, 2},
		{[]string{"position", "--judge", "comp-res:" + t.TempDir()}, 2},
		{[]string{"position", "--judge", empty, "--format", "html"}, 2},
		{[]string{"position", "--judge", empty}, 1},
	} {
		out, stderr, code := runCLI(t, c.args...)
		if code != c.code {
			t.Errorf("%v: exit %d, want %d: %s", c.args, code, c.code, stderr)
		}
		if c.code == 1 && !strings.Contains(out, "schema_version: 1") {
			t.Errorf("%v: no document written: %q", c.args, out)
		}
	}
}

// TestMajorityDeep: the winner most verdicts name, a tie on a split.
func TestMajorityDeep(t *testing.T) {
	v := func(id, w string) pairwise.Verdict { return pairwise.Verdict{PairID: id, Winner: w} }
	got := majorityDeep([]pairwise.Verdict{
		v("p1", "a"), v("p1", "a"), v("p1", "b"),
		v("p2", "a"), v("p2", "b"),
		v("p3", "b"), v("p3", "tie"), v("p3", "b"),
		v("p4", "tie"),
	})
	want := pairwise.Deep{"p1": "a", "p2": "tie", "p3": "b", "p4": "tie"}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for id, w := range want {
		if got[id] != w {
			t.Errorf("%s: %q, want %q", id, got[id], w)
		}
	}
}
