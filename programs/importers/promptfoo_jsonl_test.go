package importers

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/evalcal/evalcal/inspection"
)

// jsonlOf is the JSON fixture's results as promptfoo's JSON Lines output
// writes them: one compact result a line.
func jsonlOf(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out struct {
		Results struct {
			Results []json.RawMessage `json:"results"`
		} `json:"results"`
	}
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, r := range out.Results.Results {
		var b bytes.Buffer
		if err := json.Compact(&b, r); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, b.String())
	}
	return lines
}

// inspectAllSelected is every run's inspection (or error) under assertion.
func inspectAllSelected(t *testing.T, path, assertion string) (map[string]string, []inspection.Run, *Source) {
	t.Helper()
	src, runs, err := LoadPromptfoo(context.Background(), path, assertion)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, r := range runs {
		insp, err := src.Inspect(context.Background(), r, inspection.Deep)
		switch {
		case errors.Is(err, ErrNotCovered):
			got[r.ID] = "not covered"
			continue
		case err != nil:
			// The error names where the result is, which differs.
			msg := err.Error()
			got[r.ID] = "error: " + msg[strings.LastIndex(msg, " prompt ")+1:]
			continue
		}
		got[r.ID] = fmt.Sprintf("%+v", insp)
	}
	return got, runs, src
}

// verdictsOf is each covered run's verdict and score ("pass 95"), or its
// error from the part after "test I prompt J: " ("error: ...").
func verdictsOf(t *testing.T, src *Source, runs []inspection.Run) map[string]string {
	t.Helper()
	got := map[string]string{}
	for _, r := range runs {
		insp, err := src.Inspect(context.Background(), r, inspection.Deep)
		switch {
		case errors.Is(err, ErrNotCovered):
		case err != nil:
			msg := err.Error()
			i := strings.LastIndex(msg, " prompt ")
			got[r.ID] = "error: " + msg[i+strings.Index(msg[i:], ": ")+2:]
		default:
			got[r.ID] = fmt.Sprintf("%s %g", insp.Verdict, insp.TaskEffectiveness)
		}
	}
	return got
}

// A parity test: the JSON Lines output of the same eval reads as the JSON
// output does (the mapping itself is checked against hand-worked values
// by the other tests, the real outputs' below included):
// the same runs, systems, statuses and inspections under every
// selection, whether the file is named .jsonl or recognised by its first
// line.
func TestPromptfooJSONLReadsAsJSON(t *testing.T) {
	lines := jsonlOf(t, twoAssertions)
	if len(lines) != 6 {
		t.Fatalf("%d results in the fixture", len(lines))
	}
	body := strings.Join(lines, "\n") + "\n"
	for _, name := range []string{"results.jsonl", "results.JSONL", "results-named.json"} {
		path := writeFile(t, name, body)
		for _, assertion := range []string{"", "contains", "llm-rubric", "quality"} {
			want, wruns, _ := inspectAllSelected(t, twoAssertions, assertion)
			got, gruns, src := inspectAllSelected(t, path, assertion)
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("%s #%s:\n got %v\nwant %v", name, assertion, got, want)
			}
			if len(gruns) != len(wruns) {
				t.Fatalf("%s: runs %v, want %v", name, gruns, wruns)
			}
			for i := range gruns {
				g, w := gruns[i], wruns[i]
				if g.ID != w.ID || g.System != w.System || g.Status != w.Status || g.Era != w.Era {
					t.Errorf("%s: run %+v, want %+v", name, g, w)
				}
			}
			if len(src.Unattributed()) != 0 {
				t.Errorf("unattributed %v", src.Unattributed())
			}
		}
	}
}

// One bad line loses nothing else: a line that is not JSON, a truncated
// last line and a result without indexes are listed with their line
// numbers; a bad field fails its run alone; two results run together on
// one line (older promptfoo joined its batches without a newline) are
// both read; blank lines and CRLF endings are nothing.
func TestPromptfooJSONLBadLinesFailAlone(t *testing.T) {
	ok := func(test int) string {
		return fmt.Sprintf(`{"testIdx": %d, "promptIdx": 0, "provider": {"id": "echo"}, "success": true, "score": 1}`, test)
	}
	body := strings.Join([]string{
		ok(0),
		`{"testIdx": 1, "promptIdx": 0, "success": "yes", "score": 1}`,
		`not json at all`,
		``,
		ok(2) + ok(3),
		`{"promptIdx": 0, "success": true, "score": 1}`,
		ok(4) + "\r",
		`{"testIdx": 5, "promptIdx": 0, "succ`,
	}, "\n")
	path := writeFile(t, "r.jsonl", body)
	src, runs, err := LoadPromptfoo(context.Background(), path, "")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range runs {
		ids = append(ids, r.ID)
		if r.System != "echo" && r.ID != "test1-prompt0" {
			t.Errorf("%s: system %q", r.ID, r.System)
		}
	}
	if strings.Join(ids, " ") != "test0-prompt0 test1-prompt0 test2-prompt0 test3-prompt0 test4-prompt0" {
		t.Fatalf("runs %v", ids)
	}
	for _, id := range []string{"test0-prompt0", "test2-prompt0", "test3-prompt0", "test4-prompt0"} {
		if insp, err := src.Inspect(context.Background(), inspection.Run{ID: id}, inspection.Deep); err != nil || insp.Verdict != "pass" {
			t.Errorf("%s: %+v %v", id, insp, err)
		}
	}
	_, err = src.Inspect(context.Background(), inspection.Run{ID: "test1-prompt0"}, inspection.Deep)
	if err == nil || !strings.Contains(err.Error(), "r.jsonl:2: test 1 prompt 0: field success: missing or not a boolean") {
		t.Errorf("bad field: %v", err)
	}
	u := src.Unattributed()
	want := []string{"r.jsonl:3: not valid JSON", "r.jsonl:6: field testIdx: missing", "r.jsonl:8: not valid JSON: the line ends inside a JSON value (truncated?)"}
	if len(u) != len(want) {
		t.Fatalf("unattributed %q", u)
	}
	for i, w := range want {
		if !strings.Contains(u[i], w) {
			t.Errorf("unattributed[%d] = %q, want %q", i, u[i], w)
		}
	}
}

// A JSON Lines file is bounded like the JSON output: past lim.file the
// whole file fails; one whose first line is too long to be recognised
// and whose name does not say .jsonl is refused with the way out; a file
// with no result is nothing to import; the end of ctx stops the read.
func TestPromptfooJSONLLimits(t *testing.T) {
	ctx := context.Background()
	line := `{"testIdx": 0, "promptIdx": 0, "success": true, "score": 1}` + "\n"
	t.Run("file", func(t *testing.T) {
		path := writeFile(t, "r.jsonl", strings.Repeat(line, 100))
		lim := defaultLimits
		lim.file = int64(len(line)*50 + 3)
		if _, _, err := loadPromptfoo(ctx, path, "", Options{}, lim); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("longer than %d bytes", lim.file)) {
			t.Errorf("long file: %v", err)
		}
	})
	t.Run("long first line under another name", func(t *testing.T) {
		long := fmt.Sprintf(`{"testIdx": 0, "promptIdx": 0, "response": {"output": %q}, "success": true, "score": 1}`, strings.Repeat("x", 100<<10))
		path := writeFile(t, "r.json", long+"\n"+line)
		if _, _, err := LoadPromptfoo(ctx, path, ""); err == nil || !strings.Contains(err.Error(), "name it .jsonl") {
			t.Errorf("unrecognised JSON Lines: %v", err)
		}
		// Named .jsonl, the same lines are read, the long one too.
		path = writeFile(t, "r.jsonl", long+"\n"+strings.Replace(line, `"testIdx": 0`, `"testIdx": 1`, 1))
		if _, runs, err := LoadPromptfoo(ctx, path, ""); err != nil || len(runs) != 2 {
			t.Errorf("runs %v, %v", runs, err)
		}
	})
	t.Run("nothing", func(t *testing.T) {
		path := writeFile(t, "r.jsonl", "\n\n")
		if _, _, err := LoadPromptfoo(ctx, path, ""); err == nil || !strings.Contains(err.Error(), "no results") {
			t.Errorf("empty: %v", err)
		}
	})
	t.Run("canceled", func(t *testing.T) {
		path := writeFile(t, "r.jsonl", strings.Repeat(line, 10))
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		if _, _, err := LoadPromptfoo(cctx, path, ""); err == nil || !strings.Contains(err.Error(), "context canceled") {
			t.Errorf("canceled: %v", err)
		}
	})
}

// The JSON and JSON Lines outputs of one real promptfoo eval (promptfoo
// 0.123.1, the offline echo provider, testdata/promptfoo/echo) import
// alike under every selection, and as worked by hand: the echo
// provider's output is the prompt ("Answer briefly: Q" for prompt 0,
// "You are terse. Q" for prompt 1), so test 0 (Q "What is 2+2?")
// contains "2+2" under both prompts and "terse" (metric style) under
// prompt 1 only; test 1 (the capital of France) never contains "Paris"
// and its javascript assertion scores 0.8 (its output is over 10
// characters); test 2 matches the regex "report" under both.
func TestPromptfooRealEchoOutputs(t *testing.T) {
	const dir = "testdata/promptfoo/echo/"
	cases := map[string]map[string]string{
		// The overall score is the mean of a result's component scores.
		"": {"test0-prompt0": "fail 50", "test0-prompt1": "pass 100", "test1-prompt0": "fail 40", "test1-prompt1": "fail 40",
			"test2-prompt0": "pass 100", "test2-prompt1": "pass 100"},
		"contains": {"test0-prompt0": "pass 100", "test0-prompt1": "pass 100", "test1-prompt0": "fail 0", "test1-prompt1": "fail 0"},
		"style":    {"test0-prompt0": "fail 0", "test0-prompt1": "pass 100", "test1-prompt0": "pass 80", "test1-prompt1": "pass 80"},
		"regex":    {"test2-prompt0": "pass 100", "test2-prompt1": "pass 100"},
	}
	for assertion, want := range cases {
		fromJSON, jruns, _ := inspectAllSelected(t, dir+"out.json", assertion)
		fromJSONL, lruns, src := inspectAllSelected(t, dir+"out.jsonl", assertion)
		if fmt.Sprint(fromJSON) != fmt.Sprint(fromJSONL) {
			t.Errorf("#%s:\n JSON %v\nJSONL %v", assertion, fromJSON, fromJSONL)
		}
		if len(jruns) != 6 || len(lruns) != 6 || len(src.Unattributed()) != 0 {
			t.Fatalf("#%s: runs %d and %d, unattributed %v", assertion, len(jruns), len(lruns), src.Unattributed())
		}
		for i := range lruns {
			if lruns[i].ID != jruns[i].ID || lruns[i].System != "echo-labelled" || jruns[i].System != "echo-labelled" {
				t.Errorf("run %+v, JSON's %+v", lruns[i], jruns[i])
			}
		}
		if got := verdictsOf(t, src, lruns); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("#%s:\n got %v\nwant %v (worked by hand)", assertion, got, want)
		}
	}
}

// A real promptfoo eval whose llm-rubric assertions were graded over HTTP
// (testdata/promptfoo/rubric: promptfoo 0.123.1, the echo provider, and
// grader.py answering as a grader model: pass 0.9 when the output names
// Paris, fail 0.2 when not, and no JSON at all for the report), in both
// output formats: test 0's output names Paris, test 1's (metric
// "capital") does not, test 2's grader answer cannot be read, which
// promptfoo records as a grader error; the contains assertions of tests 0
// and 1 pass. The overall score is promptfoo's mean of the components.
func TestPromptfooRealRubricOutputs(t *testing.T) {
	const dir = "testdata/promptfoo/rubric/"
	cases := map[string]map[string]string{
		"": {"test0-prompt0": "pass 95", "test1-prompt0": "fail 60", "test2-prompt0": "fail 0"},
		"llm-rubric": {"test0-prompt0": "pass 90", "test1-prompt0": "fail 20",
			"test2-prompt0": "error: field gradingResult.componentResults[0]: the grader failed, so there is no verdict: Could not extract JSON from llm-rubric response"},
		"capital":  {"test1-prompt0": "fail 20"},
		"contains": {"test0-prompt0": "pass 100", "test1-prompt0": "pass 100"},
	}
	for assertion, want := range cases {
		fromJSON, _, _ := inspectAllSelected(t, dir+"out.json", assertion)
		fromJSONL, runs, src := inspectAllSelected(t, dir+"out.jsonl", assertion)
		if fmt.Sprint(fromJSON) != fmt.Sprint(fromJSONL) {
			t.Errorf("#%s:\n JSON %v\nJSONL %v", assertion, fromJSON, fromJSONL)
		}
		if got := verdictsOf(t, src, runs); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("#%s:\n got %v\nwant %v (worked by hand)", assertion, got, want)
		}
	}
}

// A line over the line limit is listed, unread, and the lines after it
// are read.
func TestPromptfooJSONLLongLine(t *testing.T) {
	line := func(test int) string {
		return fmt.Sprintf(`{"testIdx": %d, "promptIdx": 0, "success": true, "score": 1}`, test)
	}
	long := fmt.Sprintf(`{"testIdx": 1, "promptIdx": 0, "response": {"output": %q}, "success": true, "score": 1}`, strings.Repeat("x", 5000))
	path := writeFile(t, "r.jsonl", line(0)+"\n"+long+"\n"+line(2)+"\n")
	lim := defaultLimits
	lim.line = 1000
	src, runs, err := loadPromptfoo(context.Background(), path, "", Options{}, lim)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 2 || runs[0].ID != "test0-prompt0" || runs[1].ID != "test2-prompt0" {
		t.Errorf("runs %v", runs)
	}
	if u := src.Unattributed(); len(u) != 1 || !strings.Contains(u[0], "r.jsonl:2: line longer than 1000 bytes") {
		t.Errorf("unattributed %q", u)
	}
}

// Issue 27 (9): a byte-order mark at the start of a later line (two files
// joined with cat) is named as such; the file's own first one is read.
func TestPromptfooJSONLByteOrderMarkInsideTheFile(t *testing.T) {
	ok := func(test int) string {
		return fmt.Sprintf(`{"testIdx": %d, "promptIdx": 0, "provider": {"id": "echo"}, "success": true, "score": 1}`, test)
	}
	body := "\uFEFF" + ok(0) + "\n\uFEFF" + ok(1) + "\n" + ok(2) + "\n"
	src, runs, err := LoadPromptfoo(context.Background(), writeFile(t, "r.jsonl", body), "")
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 2 || runs[0].ID != "test0-prompt0" || runs[1].ID != "test2-prompt0" {
		t.Errorf("runs %v", runs)
	}
	u := src.Unattributed()
	if len(u) != 1 || !strings.Contains(u[0], "r.jsonl:2: a UTF-8 byte-order mark (EF BB BF) at byte 1") {
		t.Errorf("unattributed %q", u)
	}
}
