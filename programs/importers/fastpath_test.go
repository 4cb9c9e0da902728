package importers

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/evalcal/evalcal/inspection"
	"github.com/google/go-cmp/cmp"
)

// referenceScores is sampleScores done the plain way, every score decoded
// by encoding/json (what the fast path must match): the reference of
// TestScoresMatchEncodingJSON and FuzzScores.
func referenceScores(scores json.RawMessage) (map[string]inspectScore, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(scores, &raw); err != nil {
		return nil, &inspection.FieldError{Field: "scores", Err: errors.New("not an object of scorer name to score")}
	}
	out := map[string]inspectScore{}
	for name, r := range raw {
		var w scoreWire
		sc := inspectScore{}
		if err := json.Unmarshal(r, &w); err != nil {
			sc.err = &inspection.FieldError{Field: "scores." + name, Err: errors.New("not a Score object")}
		} else if w.Value == nil {
			sc.err = &inspection.FieldError{Field: "scores." + name + ".value", Err: errors.New("missing")}
		}
		sc.value = w.Value
		if w.Answer != nil {
			sc.answer = truncate(oneLine(*w.Answer), SummaryRunes)
		}
		if w.Explanation != nil {
			sc.explanation = truncate(oneLine(*w.Explanation), SummaryRunes)
		}
		out[name] = sc
	}
	return out, nil
}

// asMap is a scoreSet as a map; a name twice is an error.
func asMap(t testing.TB, ss scoreSet) map[string]inspectScore {
	t.Helper()
	out := map[string]inspectScore{}
	for _, n := range ss {
		if _, dup := out[n.name]; dup {
			t.Fatalf("scorer %q twice", n.name)
		}
		out[n.name] = n.score
	}
	return out
}

// scoresDiff compares two score maps, errors by their text.
func scoresDiff(want, got map[string]inspectScore) string {
	type flat struct{ Value, Answer, Explanation, Err string }
	f := func(m map[string]inspectScore) map[string]flat {
		out := map[string]flat{}
		for k, s := range m {
			e := ""
			if s.err != nil {
				e = s.err.Error()
			}
			v := string(s.value)
			if s.value == nil {
				v = "<nil>"
			}
			out[k] = flat{v, s.answer, s.explanation, e}
		}
		return out
	}
	return cmp.Diff(f(want), f(got))
}

var scoreCases = []string{
	`{}`,
	`{"a": {"value": "C"}, "b": {"value": 0.25, "answer": "x", "explanation": "why"}}`,
	`{"a": {"value": "C", "answer": null, "explanation": null, "metadata": {"k": [1, {"value": 2}]}}}`,
	`{"a": {"value": {"x": 1, "y": "P"}}, "b": {"value": [1, 2]}, "c": {"value": null}, "d": {"value": true}}`,
	`{"a": {"answer": "no value"}, "b": null, "c": "C", "d": 1, "e": [], "f": {"value": -1.5e3}}`,
	`{"a": {"value": "C", "answer": 3}, "b": {"value": "C", "explanation": {"x": 1}}, "c": {"value": "I", "answer": true}}`,
	`{"a": {"Value": "C"}, "b": {"value": "I", "ANSWER": "x"}, "c": {"value": "C", "Explanation": "y"}}`,
	`{"a": {"value": "C", "value": "I"}, "a": {"value": "P", "answer": "later"}}`,
	`{"a\u00e9": {"value": "C", "answer": "tab\there \"quoted\" \u263a", "explanation": "line\nbreak  and   spaces"}}`,
	"{\"a\": {\"value\": \"C\", \"answer\": \"bad \xff utf-8\", \"explanation\": \"ok \xe2\x98\xba\"}, \"k\xfe\": {\"value\": 1}}",
	`{"a": {"value": "` + strings.Repeat("long ", 200) + `", "explanation": "` + strings.Repeat("é", 600) + `"}}`,
	`{ "a" : { "value" : 1 , "answer" : "x" } , "b" : { "value" :"C"} }`,
	`[]`, `"C"`, `3`,
}

// The fast path of a sample's scores gives what encoding/json gives,
// values, answers, explanations and errors, on plain and unusual Scores.
func TestScoresMatchEncodingJSON(t *testing.T) {
	for _, c := range scoreCases {
		if !json.Valid([]byte(c)) {
			t.Fatalf("case is not JSON: %s", c)
		}
		want, wantErr := referenceScores(json.RawMessage(c))
		got, err := sampleScores(json.RawMessage(c), nil)
		if (wantErr == nil) != (err == nil) || wantErr != nil && wantErr.Error() != err.Error() {
			t.Errorf("%s: error %v, want %v", c, err, wantErr)
			continue
		}
		if d := scoresDiff(want, asMap(t, got)); d != "" {
			t.Errorf("%s: (-encoding/json +sampleScores):\n%s", c, d)
		}
	}
}

// The values kept are copies: the sample they were read from may be
// overwritten.
func TestScoresKeepNoPartOfTheSample(t *testing.T) {
	raw := []byte(`{"a": {"value": "C", "answer": "x"}, "b": {"value": 0.5}}`)
	set, err := sampleScores(raw, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := asMap(t, set)
	for i := range raw {
		raw[i] = ' '
	}
	if string(got["a"].value) != `"C"` || string(got["b"].value) != `0.5` || got["a"].answer != "x" {
		t.Errorf("scores changed with the sample: %+v", got)
	}
}

func FuzzScores(f *testing.F) {
	for _, c := range scoreCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if !json.Valid(data) || isNull(data) {
			return // sampleScores gets valid JSON from the stream
		}
		want, wantErr := referenceScores(data)
		got, err := sampleScores(data, nil)
		if (wantErr == nil) != (err == nil) || wantErr != nil && wantErr.Error() != err.Error() {
			t.Fatalf("%q: error %v, want %v", data, err, wantErr)
		}
		if d := scoresDiff(want, asMap(t, got)); d != "" {
			t.Fatalf("%q: (-encoding/json +sampleScores):\n%s", data, d)
		}
	})
}

// A component of the wrong type is named by its index, whether the
// grading decodes in one pass or not.
func TestPromptfooComponentTypeErrorIsNamed(t *testing.T) {
	path := writeFile(t, "r.json", pfFile("3",
		pfResult(0, 0, `"success": true, "score": 1, "gradingResult": {"pass": true, "score": 1, "reason": "r", "componentResults": [`+
			`{"pass": true, "score": 1, "reason": "a", "assertion": {"type": "contains"}}, `+
			`{"pass": true, "score": "high", "reason": "b", "assertion": {"type": "contains"}}]}`),
		pfResult(1, 0, `"success": true, "score": 1, "gradingResult": {"pass": true, "score": 1, "reason": "r", "componentResults": [`+
			`{"pass": true, "score": 1, "reason": "a", "assertion": {"type": "contains", "weight": 2}}, `+
			`{"pass": false, "score": 0.5, "reason": "b", "assertion": {"type": "contains"}}]}`)))
	src, runs, err := LoadPromptfoo(context.Background(), path, "contains")
	if err != nil {
		t.Fatal(err)
	}
	_, err = src.Inspect(context.Background(), runs[0], inspection.Deep)
	if err == nil || !strings.Contains(err.Error(), "field gradingResult.componentResults[1].score: ") {
		t.Errorf("test 0: %v, want the error to name gradingResult.componentResults[1].score", err)
	}
	// (2 x 1 + 0.5) / 3, a fail as one component failed: read in one pass.
	insp, err := src.Inspect(context.Background(), runs[1], inspection.Deep)
	if err != nil || insp.Verdict != inspection.VerdictFail || math.Abs(insp.RuntimeFidelity-250.0/3) > 1e-9 {
		t.Errorf("test 1: %+v %v, want a fail at 250/3", insp, err)
	}
}

// A JSON Lines result is what a decoder reads of its line: the value
// without the white space around it, which its size and content hash
// count.
func TestPromptfooJSONLLineWhiteSpace(t *testing.T) {
	result := `{"testIdx": 0, "promptIdx": 0, "success": true, "score": 1, "provider": {"id": "p"}}`
	path := writeFile(t, "r.jsonl", " \t"+result+"  \r\n"+strings.Replace(result, `"testIdx": 0`, `"testIdx": 1`, 1)+"\n")
	_, runs, err := LoadPromptfoo(context.Background(), path, "")
	if err != nil || len(runs) != 2 {
		t.Fatalf("%d runs, %v", len(runs), err)
	}
	sum := sha256.Sum256([]byte(result))
	if runs[0].SizeBytes != int64(len(result)) || runs[0].ContentHash != hex.EncodeToString(sum[:]) {
		t.Errorf("run %s: %d bytes, hash %s; want %d, %x", runs[0].ID, runs[0].SizeBytes, runs[0].ContentHash, len(result), sum)
	}
}

// sortRuns orders runs by id as a sort of the runs themselves does,
// whatever order they come in.
func TestSortRuns(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 2, 10, 1000} {
		runs := make([]inspection.Run, n)
		for i := range runs {
			runs[i] = inspection.Run{ID: fmt.Sprintf("test%d-prompt%d", r.IntN(10*n+1), i), SizeBytes: int64(i)}
		}
		want := slices.Clone(runs)
		slices.SortFunc(want, func(a, b inspection.Run) int { return strings.Compare(a.ID, b.ID) })
		if d := cmp.Diff(want, sortRuns(runs)); d != "" {
			t.Errorf("%d runs (-slices.SortFunc +sortRuns):\n%s", n, d)
		}
		if d := cmp.Diff(want, sortRuns(want)); d != "" {
			t.Errorf("%d sorted runs (-want +sortRuns):\n%s", n, d)
		}
	}
}

// A scoreSet keeps one score a name: set replaces, remove removes.
func TestScoreSet(t *testing.T) {
	var ss scoreSet
	ss.set("a", inspectScore{answer: "1"})
	ss.set("b", inspectScore{answer: "2"})
	ss.set("a", inspectScore{answer: "3"})
	if got := asMap(t, ss); len(got) != 2 || got["a"].answer != "3" || got["b"].answer != "2" {
		t.Errorf("after set: %+v", got)
	}
	ss.remove("a")
	if _, ok := ss.get("a"); ok || len(ss) != 1 {
		t.Errorf("after remove: %+v", ss)
	}
	if sc, ok := ss.get("b"); !ok || sc.answer != "2" {
		t.Errorf("get b: %+v %v", sc, ok)
	}
}
