package importers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/evalcal/evalcal/inspection"
	"github.com/google/go-cmp/cmp"
)

// twoAssertions is a promptfoo results file with two assertions per test
// (contains, and llm-rubric with metric "quality") over two providers,
// with a failed assertion, an error result without a gradingResult and a
// grader error; see testdata/promptfoo/README.md for its provenance.
const twoAssertions = "testdata/promptfoo/two-assertions.json"

// outcome is what one run's inspection must say.
type outcome struct {
	verdict string
	score   float64
	flag    string
	err     string
}

// The fixture's six results under each selection. The figures are
// worked by hand from the fixture: the overall score is the mean of the
// two component scores (promptfoo's weighted mean with weights 1), the
// verdict promptfoo's own success or pass.
func TestPromptfooSelections(t *testing.T) {
	errFlag := outcome{"fail", 0, FlagRunError, ""}
	cases := []struct {
		assertion string
		want      map[string]outcome
	}{
		{"", map[string]outcome{
			"test0-prompt0": {"pass", 95, "", ""}, "test0-prompt1": {"fail", 65, "", ""},
			"test1-prompt0": {"fail", 40, "", ""}, "test1-prompt1": errFlag,
			"test2-prompt0": {"pass", 100, "", ""}, "test2-prompt1": {"fail", 0, "", ""}}},
		{"contains", map[string]outcome{
			"test0-prompt0": {"pass", 100, "", ""}, "test0-prompt1": {"pass", 100, "", ""},
			"test1-prompt0": {"fail", 0, "", ""}, "test1-prompt1": errFlag,
			"test2-prompt0": {"pass", 100, "", ""}, "test2-prompt1": {"fail", 0, "", ""}}},
		{"llm-rubric", map[string]outcome{
			"test0-prompt0": {"pass", 90, "", ""}, "test0-prompt1": {"fail", 30, "", ""},
			"test1-prompt0": {"pass", 80, "", ""}, "test1-prompt1": errFlag,
			"test2-prompt0": {"pass", 100, "", ""},
			"test2-prompt1": {err: "gradingResult.componentResults[1]: the grader failed, so there is no verdict: Could not extract JSON"}}},
	}
	cases = append(cases, struct {
		assertion string
		want      map[string]outcome
	}{"quality", cases[2].want})
	for _, c := range cases {
		t.Run("#"+c.assertion, func(t *testing.T) {
			src, runs, err := LoadPromptfoo(context.Background(), twoAssertions, c.assertion)
			if err != nil {
				t.Fatal(err)
			}
			if len(runs) != 6 {
				t.Fatalf("runs %v", runs)
			}
			got := map[string]outcome{}
			for _, r := range runs {
				insp, err := src.Inspect(context.Background(), r, inspection.Light)
				if err != nil {
					if !inspection.IsPermanent(err) {
						t.Errorf("%s: not permanent: %v", r.ID, err)
					}
					got[r.ID] = outcome{err: err.Error()}
					continue
				}
				if err := inspection.CheckInspection(insp); err != nil || insp.RunID != r.ID || insp.System != r.System {
					t.Errorf("%s: %+v %v", r.ID, insp, err)
				}
				if insp.RuntimeFidelity != insp.TaskEffectiveness {
					t.Errorf("%s: scores differ", r.ID)
				}
				o := outcome{verdict: insp.Verdict, score: insp.TaskEffectiveness}
				if len(insp.Flags) > 0 {
					o.flag = insp.Flags[0].ID
				}
				got[r.ID] = o
			}
			for id, w := range c.want {
				g := got[id]
				if w.err != "" {
					if !strings.Contains(g.err, w.err) || !strings.Contains(g.err, "two-assertions.json:") {
						t.Errorf("%s: error %q, want %q", id, g.err, w.err)
					}
					continue
				}
				if diff := cmp.Diff(w, g, cmp.AllowUnexported(outcome{})); diff != "" {
					t.Errorf("%s (-want +got):\n%s", id, diff)
				}
			}
		})
	}
}

// The overall verdict is the file's own success, read here from the
// fixture with the standard library only.
func TestPromptfooOverallIsTheFilesSuccess(t *testing.T) {
	data, err := os.ReadFile(twoAssertions)
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Results struct {
			Results []struct {
				TestIdx, PromptIdx int
				Success            bool
				Score              float64
				Provider           struct{ ID, Label string }
			}
		}
	}
	if err := json.Unmarshal(data, &file); err != nil {
		t.Fatal(err)
	}
	src, runs, err := LoadPromptfoo(context.Background(), twoAssertions, "")
	if err != nil {
		t.Fatal(err)
	}
	got := inspectAll(t, src, runs)
	systems := map[string]string{}
	for _, r := range runs {
		systems[r.ID] = r.System
	}
	for _, r := range file.Results.Results {
		id := fmt.Sprintf("test%d-prompt%d", r.TestIdx, r.PromptIdx)
		want := "fail"
		if r.Success {
			want = "pass"
		}
		if got[id].Verdict != want || got[id].TaskEffectiveness != 100*r.Score {
			t.Errorf("%s: %s %v, file says success=%v score=%v", id, got[id].Verdict, got[id].TaskEffectiveness, r.Success, r.Score)
		}
		wantSystem := r.Provider.Label
		if wantSystem == "" {
			wantSystem = r.Provider.ID
		}
		if systems[id] != wantSystem {
			t.Errorf("%s: system %q, want %q", id, systems[id], wantSystem)
		}
	}
}

// The error result without a gradingResult is a failed run with a
// critical flag; its status is failed; runs carry the result's hash.
func TestPromptfooRuns(t *testing.T) {
	src, runs, err := LoadPromptfoo(context.Background(), twoAssertions, "contains")
	if err != nil {
		t.Fatal(err)
	}
	var errRun inspection.Run
	for _, r := range runs {
		if r.Era != EraPromptfoo || !r.Valid || len(r.ContentHash) != 64 {
			t.Errorf("run %+v", r)
		}
		if r.ID == "test1-prompt1" {
			errRun = r
		}
	}
	if errRun.Status != inspection.StatusFailed || len(errRun.Warnings) != 1 || !strings.Contains(errRun.Warnings[0], "500 Internal Server Error") {
		t.Errorf("error run %+v", errRun)
	}
	insp, err := src.Inspect(context.Background(), errRun, inspection.Deep)
	if err != nil || insp.Flags[0].Severity != inspection.SeverityCritical || !strings.Contains(insp.Flags[0].Evidence, "model runner crashed") {
		t.Errorf("%+v %v", insp, err)
	}
	if !strings.HasPrefix(src.Identity(), "promptfoo:") || !strings.HasSuffix(src.Identity(), "#contains") {
		t.Errorf("identity %q", src.Identity())
	}
	rubric, _, _ := LoadPromptfoo(context.Background(), twoAssertions, "llm-rubric")
	if insp, _ := rubric.Inspect(context.Background(), inspection.Run{ID: "test0-prompt0"}, inspection.Deep); insp.Cost.Tokens != 212 ||
		!strings.HasPrefix(insp.Summary, "llm-rubric: pass, score 0.9: The answer is correct") {
		t.Errorf("rubric inspection %+v", insp)
	}
}

// An assertion no component has is an error listing the types and
// metrics there are.
func TestPromptfooUnknownAssertion(t *testing.T) {
	_, _, err := LoadPromptfoo(context.Background(), twoAssertions, "equals")
	if !errors.Is(err, ErrUnknownSelector) || !strings.Contains(err.Error(), "types: contains, llm-rubric; metrics: quality") {
		t.Errorf("%v", err)
	}
}

// pfFile builds a results file around results given as JSON text.
func pfFile(version string, results ...string) string {
	return fmt.Sprintf(`{
  "evalId": "e",
  "results": {
    "version": %s,
    "timestamp": "2025-01-01T00:00:00.000Z",
    "prompts": [],
    "results": [
%s
    ],
    "stats": {"successes": 0, "failures": 0, "errors": 0}
  },
  "config": {},
  "shareableUrl": null
}
`, version, strings.Join(results, ",\n"))
}

func pfResult(test, prompt int, rest string) string {
	return fmt.Sprintf(`      {"testIdx": %d, "promptIdx": %d, "provider": {"id": "p"}, %s}`, test, prompt, rest)
}

// One malformed result fails only itself, naming file, line and field; a
// result without indexes is unattributed; a score outside [0, 1] fails
// its run; two results with one id both fail.
func TestPromptfooMalformedResultsFailAlone(t *testing.T) {
	file := pfFile("3",
		pfResult(0, 0, `"success": true, "score": 1, "gradingResult": null`),
		pfResult(1, 0, `"success": "yes", "score": 1`),
		`      {"promptIdx": 0, "success": true, "score": 1}`,
		pfResult(3, 0, `"success": true, "score": 4`),
		pfResult(4, 0, `"success": true, "score": 1, "gradingResult": {"pass": true, "score": 1, "reason": "ok", "componentResults": [{"pass": true, "reason": "x"}]}`),
		pfResult(5, 0, `"success": false, "score": 0`),
		pfResult(5, 0, `"success": true, "score": 1`))
	path := writeFile(t, "r.json", file)
	src, runs, err := LoadPromptfoo(context.Background(), path, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 5 {
		t.Fatalf("runs %v", runs)
	}
	errs := map[string]string{}
	for _, r := range runs {
		if _, err := src.Inspect(context.Background(), r, inspection.Deep); err != nil {
			errs[r.ID] = err.Error()
		}
	}
	want := map[string]string{
		"test1-prompt0": "r.json:9: results.results[1] test 1 prompt 0: field success: missing or not a boolean",
		"test3-prompt0": "r.json:11: results.results[3] test 3 prompt 0: field score: 4 is outside [0, 1]",
		"test4-prompt0": "r.json:12: results.results[4] test 4 prompt 0: field gradingResult.componentResults[0].score: missing",
		"test5-prompt0": "r.json:14: results.results[6] test 5 prompt 0: test 5 prompt 0 is also at " + path + ":13",
	}
	for id, w := range want {
		if !strings.Contains(errs[id], w) {
			t.Errorf("%s: %q, want %q", id, errs[id], w)
		}
	}
	if len(errs) != len(want) {
		t.Errorf("errors %v", errs)
	}
	if u := src.Unattributed(); len(u) != 1 || !strings.Contains(u[0], "r.json:10: results.results[2] field testIdx: missing") {
		t.Errorf("unattributed %q", u)
	}
}

// Versions other than 2 and 3, and files without one, are refused; an
// empty results list is nothing to import.
func TestPromptfooVersions(t *testing.T) {
	ok := pfResult(0, 0, `"success": true, "score": 1`)
	for _, v := range []string{"2", "3"} {
		if _, _, err := LoadPromptfoo(context.Background(), writeFile(t, "r.json", pfFile(v, ok)), ""); err != nil {
			t.Errorf("version %s: %v", v, err)
		}
	}
	if _, _, err := LoadPromptfoo(context.Background(), writeFile(t, "r.json", pfFile("4", ok)), ""); err == nil ||
		!strings.Contains(err.Error(), "results.version 4; evalcal reads versions 2 and 3") {
		t.Errorf("version 4: %v", err)
	}
	noVersion := strings.Replace(pfFile("3", ok), `"version": 3,`, ``, 1)
	if _, _, err := LoadPromptfoo(context.Background(), writeFile(t, "r.json", noVersion), ""); err == nil ||
		!strings.Contains(err.Error(), "no results.version") {
		t.Errorf("no version: %v", err)
	}
	if _, _, err := LoadPromptfoo(context.Background(), writeFile(t, "r.json", pfFile("3")), ""); !errors.Is(err, ErrNothingToImport) {
		t.Errorf("empty: %v", err)
	}
}

// Two components of one type are combined as promptfoo combines a test's
// assertions: pass when all pass, the weighted mean of their scores.
func TestPromptfooCombinesComponentsOfOneType(t *testing.T) {
	comp := func(pass bool, score, weight float64) string {
		return fmt.Sprintf(`{"pass": %v, "score": %v, "reason": "r", "assertion": {"type": "contains", "value": "x", "weight": %v}}`, pass, score, weight)
	}
	file := pfFile("3",
		pfResult(0, 0, `"success": false, "score": 0.25, "gradingResult": {"pass": false, "score": 0.25, "reason": "r", "componentResults": [`+
			comp(true, 1, 1)+`, `+comp(false, 0, 3)+`]}`),
		pfResult(1, 0, `"success": true, "score": 1, "gradingResult": {"pass": true, "score": 1, "reason": "r", "componentResults": [`+
			comp(true, 0.6, 0)+`, `+comp(true, 1, 0)+`]}`))
	src, _, err := LoadPromptfoo(context.Background(), writeFile(t, "r.json", file), "contains")
	if err != nil {
		t.Fatal(err)
	}
	// (1*1 + 3*0) / 4 = 0.25.
	if g, err := src.Inspect(context.Background(), inspection.Run{ID: "test0-prompt0"}, inspection.Deep); err != nil || g.Verdict != "fail" || g.TaskEffectiveness != 25 {
		t.Errorf("weighted: %+v %v", g, err)
	}
	// Weights summing to 0 have no weighted mean: an error naming them
	// (issue 27, 9), not a plain mean promptfoo never gave.
	_, err = src.Inspect(context.Background(), inspection.Run{ID: "test1-prompt0"}, inspection.Deep)
	if err == nil || !strings.Contains(err.Error(), "weights of the 2 \"contains\" assertions sum to 0") ||
		!strings.Contains(err.Error(), "gradingResult.componentResults[0], gradingResult.componentResults[1] assertion.weight") {
		t.Errorf("weights 0: %v", err)
	}
}

// Issue 27 (9): a negative weight is named as such, not reported as a
// score out of range.
func TestPromptfooNegativeWeightIsNamed(t *testing.T) {
	comp := func(score, weight float64) string {
		return fmt.Sprintf(`{"pass": true, "score": %v, "reason": "r", "assertion": {"type": "contains", "value": "x", "weight": %v}}`, score, weight)
	}
	file := pfFile("3", pfResult(0, 0, `"success": true, "score": 1, "gradingResult": {"pass": true, "score": 1, "reason": "r", "componentResults": [`+
		comp(1, 2)+`, `+comp(0, -1)+`]}`))
	src, _, err := LoadPromptfoo(context.Background(), writeFile(t, "r.json", file), "contains")
	if err != nil {
		t.Fatal(err)
	}
	_, err = src.Inspect(context.Background(), inspection.Run{ID: "test0-prompt0"}, inspection.Deep)
	if err == nil || !strings.Contains(err.Error(), "field gradingResult.componentResults[1].assertion.weight: negative weight -1") {
		t.Errorf("negative weight: %v", err)
	}
}

// A result without the selected assertion is not covered.
func TestPromptfooAssertionMissingOnSomeTests(t *testing.T) {
	file := pfFile("3",
		pfResult(0, 0, `"success": true, "score": 1, "gradingResult": {"pass": true, "score": 1, "reason": "ok", "componentResults": [{"pass": true, "score": 1, "reason": "ok", "assertion": {"type": "equals"}}]}`),
		pfResult(1, 0, `"success": true, "score": 1, "gradingResult": {"pass": true, "score": 1, "reason": "No assertions"}`),
		pfResult(2, 0, `"success": true, "score": 1`))
	src, runs, err := LoadPromptfoo(context.Background(), writeFile(t, "r.json", file), "equals")
	if err != nil || len(runs) != 3 {
		t.Fatalf("%v %v", runs, err)
	}
	for id, want := range map[string]bool{"test0-prompt0": true, "test1-prompt0": false, "test2-prompt0": false} {
		if src.Covers(id, inspection.Deep) != want {
			t.Errorf("Covers(%s) = %v", id, !want)
		}
	}
	if _, err := src.Inspect(context.Background(), inspection.Run{ID: "test2-prompt0"}, inspection.Deep); !errors.Is(err, ErrNotCovered) {
		t.Errorf("%v", err)
	}
}

// A file past the size limit, or cut short, fails whole.
func TestPromptfooLimitsAndTruncation(t *testing.T) {
	data, err := os.ReadFile(twoAssertions)
	if err != nil {
		t.Fatal(err)
	}
	lim := defaultLimits
	lim.file = int64(len(data)) - 1
	if _, _, err := loadPromptfoo(context.Background(), twoAssertions, "", Options{}, lim); err == nil ||
		!strings.Contains(err.Error(), fmt.Sprintf("longer than %d bytes", lim.file)) {
		t.Errorf("limit: %v", err)
	}
	cut := writeFile(t, "cut.json", string(data[:len(data)/2]))
	if _, _, err := LoadPromptfoo(context.Background(), cut, ""); err == nil || !strings.Contains(err.Error(), "ends early") {
		t.Errorf("cut: %v", err)
	}
}
