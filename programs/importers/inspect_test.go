package importers

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalcal/evalcal/inspection"
	"github.com/google/go-cmp/cmp"
)

// sharedSamples is the folder of real inspect_ai logs (see its README),
// relative to this package; tests skip when it is absent.
const sharedSamples = "../../../shared/inspect-samples"

func sharedLog(t *testing.T, name string) string {
	t.Helper()
	p := filepath.Join(sharedSamples, name)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("shared inspect samples absent: %v", err)
	}
	return p
}

// handSample is a sample as the test reads it from the log, with the
// standard library only, independently of the importer.
type handSample struct {
	ID     any
	Epoch  int
	Scores map[string]struct {
		Value any `json:"value"`
	}
	Error any
}

// readHand reads the samples of a shared log, .json or .eval.
func readHand(t *testing.T, path string) []handSample {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasSuffix(path, ".json") {
		var log struct{ Samples []handSample }
		if err := json.Unmarshal(data, &log); err != nil {
			t.Fatal(err)
		}
		return log.Samples
	}
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	var out []handSample
	for _, f := range zr.File {
		if !strings.HasPrefix(f.Name, "samples/") {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		var s handSample
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}

// handVerdict is the mapping of the package documentation for the
// categorical values the shared logs use.
var handVerdict = map[string]struct {
	verdict string
	score   float64
}{"C": {"pass", 100}, "P": {"partial", 50}, "I": {"fail", 0}, "N": {"fail", 0}}

// Every shared log with scores: each sample's value, read by the test
// from the JSON itself, maps to the verdict and scores of the table; the
// counts of C and I are the ones the log holds.
func TestInspectSharedLogsMapAsReadByHand(t *testing.T) {
	cases := []struct {
		file, scorer string
		wantC, wantI int // counted by reading the files (see readHand)
	}{
		{"2025-05-12T20-28-13-04-00_popularity.json", "match", 2, 1},
		{"log_formats.json", "match", 0, 1},
		{"custom.eval", "model_graded_fact", 1, 0},
		{"log_formats.eval", "match", 0, 1},
		{"log_read_sample.eval", "match", 1, 0},
		{"mmlu-summary-choices.eval", "choice", 0, 1},
	}
	ctx := context.Background()
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			path := sharedLog(t, c.file)
			hand := readHand(t, path)
			counts := map[string]int{}
			for _, s := range hand {
				v, _ := s.Scores[c.scorer].Value.(string)
				counts[v]++
			}
			if counts["C"] != c.wantC || counts["I"] != c.wantI {
				t.Fatalf("the log holds C=%d I=%d, the table says C=%d I=%d", counts["C"], counts["I"], c.wantC, c.wantI)
			}
			// The log's only scorer is taken without naming it, and by name.
			for _, scorer := range []string{"", c.scorer} {
				src, runs, err := LoadInspect(ctx, path, scorer)
				if err != nil {
					t.Fatal(err)
				}
				if src.Selector() != c.scorer || !strings.HasSuffix(src.Identity(), "#"+c.scorer) {
					t.Errorf("selector %q identity %q", src.Selector(), src.Identity())
				}
				if len(runs) != len(hand) {
					t.Fatalf("%d runs, %d samples", len(runs), len(hand))
				}
				got := map[string]int{}
				for _, s := range hand {
					id := fmt.Sprint(s.ID)
					want := handVerdict[s.Scores[c.scorer].Value.(string)]
					insp, err := src.Inspect(ctx, inspection.Run{ID: id}, inspection.Light)
					if err != nil {
						t.Fatalf("sample %s: %v", id, err)
					}
					if insp.Verdict != want.verdict || insp.RuntimeFidelity != want.score || insp.TaskEffectiveness != want.score {
						t.Errorf("sample %s: %s %v/%v, want %s %v", id, insp.Verdict, insp.RuntimeFidelity, insp.TaskEffectiveness, want.verdict, want.score)
					}
					if insp.RunID != id || insp.Depth != inspection.Light || inspection.CheckInspection(insp) != nil {
						t.Errorf("sample %s: run %q depth %q check %v", id, insp.RunID, insp.Depth, inspection.CheckInspection(insp))
					}
					got[insp.Verdict]++
				}
				if got["pass"] != c.wantC || got["fail"] != c.wantI {
					t.Errorf("verdicts %v, want %d pass and %d fail", got, c.wantC, c.wantI)
				}
				for _, r := range runs {
					if r.Era != EraInspect || !r.Valid || len(r.ContentHash) != 64 || r.System == "" || !src.Covers(r.ID, inspection.Deep) {
						t.Errorf("run %+v", r)
					}
				}
			}
		})
	}
}

// The task name is the system; the content hash is the SHA-256 of the
// sample's JSON as stored (a .eval member's bytes).
func TestInspectRunDescribesTheSample(t *testing.T) {
	path := sharedLog(t, "mmlu-summary-choices.eval")
	_, runs, err := LoadInspect(context.Background(), path, "")
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	zr, _ := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	var member []byte
	for _, f := range zr.File {
		if f.Name == "samples/1_epoch_1.json" {
			rc, _ := f.Open()
			member, _ = io.ReadAll(rc)
			rc.Close()
		}
	}
	// The sample's metadata, read with the standard library: all strings.
	var hand struct{ Metadata map[string]string }
	if err := json.Unmarshal(member, &hand); err != nil || len(hand.Metadata) == 0 {
		t.Fatalf("sample metadata %v: %v", hand.Metadata, err)
	}
	want := inspection.Run{ID: "1", Era: EraInspect, System: "inspect_evals/mmlu_0_shot", Status: inspection.StatusCompleted,
		Metadata: hand.Metadata, Valid: true, SizeBytes: int64(len(member)), Files: 1, ContentHash: sha256Hex(member)}
	if diff := cmp.Diff([]inspection.Run{want}, runs); diff != "" {
		t.Errorf("runs (-want +got):\n%s", diff)
	}
}

// The tool-call-error log scores no sample: without a scorer there is
// nothing to import, and the scorer its results name is found on no
// sample.
func TestInspectToolCallErrorLogHasNoScores(t *testing.T) {
	path := sharedLog(t, "log_tool_call_error.json")
	_, _, err := LoadInspect(context.Background(), path, "")
	if !errors.Is(err, ErrNothingToImport) || !strings.Contains(err.Error(), "no sample has a score") {
		t.Errorf("no scorer: %v", err)
	}
	_, _, err = LoadInspect(context.Background(), path, "includes")
	if !errors.Is(err, ErrUnknownSelector) || !strings.Contains(err.Error(), `"includes"`) || !strings.Contains(err.Error(), "scorers: none") {
		t.Errorf("#includes: %v", err)
	}
}

// A truncated .eval archive is refused whole, with a clear reason.
func TestInspectTruncatedEvalIsRefused(t *testing.T) {
	data, err := os.ReadFile(sharedLog(t, "custom.eval"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "cut.eval")
	if err := os.WriteFile(path, data[:len(data)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err = LoadInspect(context.Background(), path, "")
	if err == nil || !strings.Contains(err.Error(), "not a zip archive, or a truncated one") || !strings.Contains(err.Error(), "cut.eval") {
		t.Errorf("truncated: %v", err)
	}
}

// logJSON builds a .json log: a header and the samples given (JSON text).
func logJSON(task string, epochs int, samples ...string) string {
	e := "null"
	if epochs > 0 {
		e = fmt.Sprint(epochs)
	}
	return fmt.Sprintf(`{
  "version": 2,
  "status": "success",
  "eval": {"task": %q, "model": "m", "config": {"epochs": %s}, "dataset": {}},
  "samples": [
%s
  ]
}
`, task, e, strings.Join(samples, ",\n"))
}

func sample(id string, epoch int, scores string) string {
	return fmt.Sprintf(`    {"id": %s, "epoch": %d, "input": "q", "target": "t", "scores": %s}`, id, epoch, scores)
}

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func inspectAll(t *testing.T, src *Source, runs []inspection.Run) map[string]inspection.Inspection {
	t.Helper()
	out := map[string]inspection.Inspection{}
	for _, r := range runs {
		insp, err := src.Inspect(context.Background(), r, inspection.Deep)
		if err == nil {
			out[r.ID] = insp
		}
	}
	return out
}

// Epochs: with more than one, a run is a sample at one epoch, named
// "id#epoch"; with one, the id alone.
func TestInspectEpochsNameRuns(t *testing.T) {
	two := logJSON("t", 2,
		sample("1", 1, `{"m": {"value": "C"}}`), sample("1", 2, `{"m": {"value": "I"}}`),
		sample(`"b"`, 1, `{"m": {"value": 1}}`), sample(`"b"`, 2, `{"m": {"value": 0.5}}`))
	src, runs, err := LoadInspect(context.Background(), writeFile(t, "two.json", two), "m")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range runs {
		ids = append(ids, r.ID)
	}
	if diff := cmp.Diff([]string{"1#1", "1#2", "b#1", "b#2"}, ids); diff != "" {
		t.Errorf("ids (-want +got):\n%s", diff)
	}
	got := inspectAll(t, src, runs)
	for id, want := range map[string]string{"1#1": "pass", "1#2": "fail", "b#1": "pass", "b#2": "partial"} {
		if got[id].Verdict != want {
			t.Errorf("%s: %s, want %s", id, got[id].Verdict, want)
		}
	}
	// epochs null in the config, but a sample at epoch 2: still suffixed.
	implicit := logJSON("t", 0, sample("1", 1, `{"m": {"value": "C"}}`), sample("1", 2, `{"m": {"value": "C"}}`))
	_, runs, err = LoadInspect(context.Background(), writeFile(t, "implicit.json", implicit), "m")
	if err != nil || len(runs) != 2 || runs[0].ID != "1#1" || runs[1].ID != "1#2" {
		t.Errorf("implicit epochs: %v %v", runs, err)
	}
	one := logJSON("t", 1, sample("1", 1, `{"m": {"value": "C"}}`))
	_, runs, err = LoadInspect(context.Background(), writeFile(t, "one.json", one), "m")
	if err != nil || len(runs) != 1 || runs[0].ID != "1" {
		t.Errorf("one epoch: %v %v", runs, err)
	}
}

// A scorer missing on some samples leaves those runs uncovered: they are
// still runs, Covers is false and Inspect says so, permanently.
func TestInspectMissingScorerLeavesRunsUncovered(t *testing.T) {
	log := logJSON("t", 1,
		sample("1", 1, `{"cheap": {"value": "C"}, "judge": {"value": "C"}}`),
		sample("2", 1, `{"cheap": {"value": "I"}}`),
		sample("3", 1, `null`))
	src, runs, err := LoadInspect(context.Background(), writeFile(t, "l.json", log), "judge")
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 3 {
		t.Fatalf("runs %v", runs)
	}
	for id, want := range map[string]bool{"1": true, "2": false, "3": false} {
		if src.Covers(id, inspection.Deep) != want {
			t.Errorf("Covers(%s) = %v", id, !want)
		}
	}
	_, err = src.Inspect(context.Background(), inspection.Run{ID: "2"}, inspection.Deep)
	if !errors.Is(err, ErrNotCovered) || !inspection.IsPermanent(err) || !strings.Contains(err.Error(), "judge") {
		t.Errorf("uncovered run: %v", err)
	}
}

// Several scorers and none named is a usage error listing them; a name
// the log does not hold lists them too.
func TestInspectSeveralScorersNeedAName(t *testing.T) {
	path := writeFile(t, "l.json", logJSON("t", 1, sample("1", 1, `{"b": {"value": "C"}, "a": {"value": "I"}}`)))
	_, _, err := LoadInspect(context.Background(), path, "")
	if !errors.Is(err, ErrChooseScorer) || !strings.Contains(err.Error(), "2 scorers (a, b)") || !strings.Contains(err.Error(), "#SCORER") {
		t.Errorf("no name: %v", err)
	}
	_, _, err = LoadInspect(context.Background(), path, "c")
	if !errors.Is(err, ErrUnknownSelector) || !strings.Contains(err.Error(), "scorers: a, b") {
		t.Errorf("unknown name: %v", err)
	}
	src, _, err := LoadInspect(context.Background(), path, "a")
	if err != nil || src.Identity()[:8] != "inspect:" || !strings.HasSuffix(src.Identity(), "#a") {
		t.Errorf("named: %v %v", src, err)
	}
}

// The value mapping of the package documentation, value by value: an
// exact table of what each value gives, and values that fail their run.
func TestInspectValueMapping(t *testing.T) {
	cases := []struct {
		value   string
		key     string
		verdict string
		score   float64
		flag    string
		err     string
	}{
		{value: `"C"`, verdict: "pass", score: 100},
		{value: `"P"`, verdict: "partial", score: 50},
		{value: `"I"`, verdict: "fail", score: 0},
		{value: `"N"`, verdict: "fail", score: 0, flag: FlagNoAnswer},
		{value: `"c"`, err: `"c" is not C, P, I, N`},
		{value: `"Yes"`, verdict: "pass", score: 100},
		{value: `"TRUE"`, verdict: "pass", score: 100},
		{value: `"no"`, verdict: "fail", score: 0},
		{value: `"false"`, verdict: "fail", score: 0},
		{value: `" 0.5 "`, verdict: "partial", score: 50},
		{value: `"maybe"`, err: `"maybe" is not C, P, I, N`},
		{value: `"2"`, err: "2 is outside [0, 1]"},
		{value: `true`, verdict: "pass", score: 100},
		{value: `false`, verdict: "fail", score: 0},
		{value: `1`, verdict: "pass", score: 100},
		{value: `0`, verdict: "fail", score: 0},
		{value: `0.7`, verdict: "pass", score: 70},
		{value: `0.69`, verdict: "partial", score: 69},
		{value: `0.4`, verdict: "partial", score: 40},
		{value: `0.39`, verdict: "fail", score: 39},
		{value: `1.5`, err: "1.5 is outside [0, 1]"},
		{value: `-0.1`, err: "-0.1 is outside [0, 1]"},
		{value: `7`, err: "7 is outside [0, 1]"},
		{value: `[1, 0]`, err: "a list"},
		{value: `{"acc": "C", "f1": 0.2}`, err: "a dict of acc, f1: name one entry with #SCORER.KEY"},
		{value: `{"acc": "C", "f1": 0.2}`, key: "f1", verdict: "fail", score: 20},
		{value: `{"acc": "C", "f1": 0.2}`, key: "acc", verdict: "pass", score: 100},
		{value: `{"acc": [1]}`, key: "acc", err: `entry "acc" is not a single value`},
		{value: `"C"`, key: "acc", err: `is not a dict, so it has no entry "acc"`},
		{value: `null`, err: "null or NaN: the scorer could not render a verdict"},
		{value: `NaN`, err: "null or NaN: the scorer could not render a verdict"},
		{value: `Infinity`, err: "null or NaN"},
		{value: `-Infinity`, err: "null or NaN"},
	}
	for _, c := range cases {
		name := c.value + "#" + c.key
		t.Run(name, func(t *testing.T) {
			log := logJSON("t", 1, sample("1", 1, `{"s": {"value": `+c.value+`, "answer": "A", "explanation": "because"}}`))
			scorer, field := "s", "scores.s.value"
			if c.key != "" {
				scorer += "." + c.key
				field += "." + c.key
			}
			src, _, err := LoadInspect(context.Background(), writeFile(t, "l.json", log), scorer)
			if err != nil {
				t.Fatal(err)
			}
			insp, err := src.Inspect(context.Background(), inspection.Run{ID: "1"}, inspection.Deep)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) || !inspection.IsPermanent(err) ||
					!strings.Contains(err.Error(), "l.json:6: samples[0] sample 1 epoch 1: field "+field) {
					t.Errorf("error %v, want %q", err, c.err)
				}
				if !src.Covers("1", inspection.Deep) {
					t.Error("a value that cannot be mapped must cover the run (its inspection fails)")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if insp.Verdict != c.verdict || insp.RuntimeFidelity != c.score || insp.TaskEffectiveness != c.score {
				t.Errorf("%s %v/%v, want %s %v", insp.Verdict, insp.RuntimeFidelity, insp.TaskEffectiveness, c.verdict, c.score)
			}
			var flags []string
			for _, f := range insp.Flags {
				flags = append(flags, f.ID)
			}
			if (c.flag == "") != (len(flags) == 0) || c.flag != "" && flags[0] != c.flag {
				t.Errorf("flags %v, want %q", flags, c.flag)
			}
			if !strings.HasPrefix(insp.Summary, scorer+" = ") || !strings.HasSuffix(insp.Summary, ": because") {
				t.Errorf("summary %q", insp.Summary)
			}
			if err := inspection.CheckInspection(insp); err != nil {
				t.Error(err)
			}
		})
	}
}

// A sample with an error fails, with a critical flag, whether or not the
// scorer scored it; it is covered either way. A sample halted by a limit
// keeps its score, with a warning flag. An invalidated sample is left
// out and listed.
func TestInspectErrorsLimitsAndInvalidation(t *testing.T) {
	log := logJSON("t", 1,
		`    {"id": 1, "epoch": 1, "error": {"message": "sandbox died\nbadly", "traceback": "tb", "traceback_ansi": "tb"}}`,
		`    {"id": 2, "epoch": 1, "scores": {"s": {"value": "C"}}, "error": {"message": "late error", "traceback": "", "traceback_ansi": ""}}`,
		`    {"id": 3, "epoch": 1, "scores": {"s": {"value": 0.8}}, "limit": {"type": "message", "limit": 50}}`,
		`    {"id": 4, "epoch": 1, "scores": {"s": {"value": "C"}}, "invalidation": {"author": "a", "reason": "broken env"}}`,
		`    {"id": 5, "epoch": 1, "scores": {"s": {"value": "I"}}}`)
	src, runs, err := LoadInspect(context.Background(), writeFile(t, "l.json", log), "s")
	if err != nil {
		t.Fatal(err)
	}
	status := map[string]inspection.Status{}
	for _, r := range runs {
		status[r.ID] = r.Status
	}
	wantStatus := map[string]inspection.Status{"1": inspection.StatusFailed, "2": inspection.StatusFailed, "3": inspection.StatusIncomplete, "5": inspection.StatusCompleted}
	if diff := cmp.Diff(wantStatus, status); diff != "" {
		t.Errorf("statuses (-want +got):\n%s", diff)
	}
	got := inspectAll(t, src, runs)
	for id, want := range map[string]struct {
		verdict string
		score   float64
		flag    string
	}{"1": {"fail", 0, FlagRunError}, "2": {"fail", 100, FlagRunError}, "3": {"pass", 80, FlagLimit}, "5": {"fail", 0, ""}} {
		insp := got[id]
		var flag string
		if len(insp.Flags) > 0 {
			flag = insp.Flags[0].ID
		}
		if insp.Verdict != want.verdict || insp.TaskEffectiveness != want.score || flag != want.flag {
			t.Errorf("run %s: %s %v %q, want %+v", id, insp.Verdict, insp.TaskEffectiveness, flag, want)
		}
	}
	if f := got["1"].Flags[0]; f.Severity != inspection.SeverityCritical || f.Evidence != "sandbox died badly" {
		t.Errorf("error flag %+v", f)
	}
	if u := src.Unattributed(); len(u) != 1 || !strings.Contains(u[0], "sample 4 epoch 1: invalidated in the log; left out") {
		t.Errorf("unattributed %q", u)
	}
}

// One malformed sample fails only itself, naming the file, its line and
// the field; a sample without a readable id is listed as unattributed.
func TestInspectMalformedSampleFailsAlone(t *testing.T) {
	log := logJSON("t", 1,
		sample("1", 1, `{"s": {"value": "C"}}`),
		sample("2", 1, `"oops"`),
		`    {"id": {"x": 1}, "epoch": 1}`,
		`    {"id": 4, "epoch": "two"}`,
		sample("5", 1, `{"s": "C"}`),
		sample("6", 1, `{"s": {"value": "I"}}`))
	path := writeFile(t, "l.json", log)
	src, runs, err := LoadInspect(context.Background(), path, "s")
	if err != nil {
		t.Fatal(err)
	}
	got := inspectAll(t, src, runs)
	if got["1"].Verdict != "pass" || got["6"].Verdict != "fail" || len(got) != 2 {
		t.Errorf("good samples: %v", got)
	}
	_, err = src.Inspect(context.Background(), inspection.Run{ID: "2"}, inspection.Deep)
	if err == nil || !strings.Contains(err.Error(), "l.json:7: samples[1] sample 2 epoch 1: field scores: not an object") {
		t.Errorf("sample 2: %v", err)
	}
	_, err = src.Inspect(context.Background(), inspection.Run{ID: "5"}, inspection.Deep)
	if err == nil || !strings.Contains(err.Error(), "l.json:10: samples[4] sample 5 epoch 1: field scores.s: not a Score object") {
		t.Errorf("sample 5: %v", err)
	}
	u := src.Unattributed()
	if len(u) != 2 || !strings.Contains(u[0], "l.json:8: samples[2] field id:") || !strings.Contains(u[1], "l.json:9: samples[3] field epoch: \"two\" is not a number") {
		t.Errorf("unattributed %q", u)
	}
}

// A document that is not JSON, or ends early, fails whole, naming the
// line reached.
func TestInspectBrokenJSONFailsWhole(t *testing.T) {
	good := logJSON("t", 1, sample("1", 1, `{"s": {"value": "C"}}`), sample("2", 1, `{"s": {"value": "C"}}`))
	broken := strings.Replace(good, `"id": 2,`, `"id": 2 x`, 1)
	_, _, err := LoadInspect(context.Background(), writeFile(t, "b.json", broken), "s")
	if err == nil || !strings.Contains(err.Error(), "b.json: not valid JSON after line 6: in samples[1]: invalid character 'x'") {
		t.Errorf("syntax: %v", err)
	}
	_, _, err = LoadInspect(context.Background(), writeFile(t, "c.json", good[:len(good)/2]), "s")
	if err == nil || !strings.Contains(err.Error(), "c.json") {
		t.Errorf("cut: %v", err)
	}
	_, _, err = LoadInspect(context.Background(), writeFile(t, "d.json", good+"{}"), "s")
	if err == nil || !strings.Contains(err.Error(), "data after the end") {
		t.Errorf("trailing: %v", err)
	}
	_, _, err = LoadInspect(context.Background(), writeFile(t, "e.json", `[1, 2]`), "s")
	if err == nil || !strings.Contains(err.Error(), `want "{"`) {
		t.Errorf("array: %v", err)
	}
}

// A UTF-8 byte-order mark at the start of a .json log is read past.
func TestInspectByteOrderMark(t *testing.T) {
	log := "\uFEFF" + logJSON("t", 1, sample("1", 1, `{"s": {"value": "C"}}`))
	_, runs, err := LoadInspect(context.Background(), writeFile(t, "bom.json", log), "")
	if err != nil || len(runs) != 1 {
		t.Errorf("%v %v", runs, err)
	}
}

// Samples of old logs hold a single `score`: it is the log's first
// scorer, as inspect_ai renames it.
func TestInspectLegacyScore(t *testing.T) {
	log := `{"version": 1, "eval": {"task": "t", "config": {}}, "results": {"scorer": {"name": "match", "params": {}}},
	  "samples": [{"id": 1, "epoch": 1, "score": {"value": "C"}}]}`
	src, runs, err := LoadInspect(context.Background(), writeFile(t, "old.json", log), "")
	if err != nil || src.Selector() != "match" {
		t.Fatalf("%v %v", src, err)
	}
	if got := inspectAll(t, src, runs); got["1"].Verdict != "pass" {
		t.Errorf("%v", got)
	}
}

// Two samples with one run id: both fail, neither wins.
func TestInspectDuplicateSample(t *testing.T) {
	log := logJSON("t", 1, sample("1", 1, `{"s": {"value": "C"}}`), sample(`"1"`, 1, `{"s": {"value": "I"}}`))
	src, runs, err := LoadInspect(context.Background(), writeFile(t, "d.json", log), "s")
	if err != nil || len(runs) != 1 {
		t.Fatalf("%v %v", runs, err)
	}
	_, err = src.Inspect(context.Background(), runs[0], inspection.Light)
	if err == nil || !strings.Contains(err.Error(), "is also at") {
		t.Errorf("duplicate: %v", err)
	}
}

// Files that are not a log: a directory without logs, nothing at all, a
// log with no samples, a file past the size limit.
func TestInspectRefusesWhatIsNoLog(t *testing.T) {
	ctx := context.Background()
	if _, _, err := LoadInspect(ctx, t.TempDir(), ""); !errors.Is(err, ErrNothingToImport) || !strings.Contains(err.Error(), "in the directory") {
		t.Errorf("directory: %v", err)
	}
	if _, _, err := LoadInspect(ctx, filepath.Join(t.TempDir(), "none.json"), ""); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing: %v", err)
	}
	noSamples := `{"version": 2, "eval": {"task": "t", "config": {}}, "samples": []}`
	if _, _, err := LoadInspect(ctx, writeFile(t, "n.json", noSamples), ""); !errors.Is(err, ErrNothingToImport) {
		t.Errorf("no samples: %v", err)
	}
	log := logJSON("t", 1, sample("1", 1, `{"s": {"value": "C"}}`))
	path := writeFile(t, "l.json", log)
	lim := defaultLimits
	lim.file = int64(len(log))
	if _, _, err := loadInspect(ctx, path, "", Options{}, lim); err != nil {
		t.Errorf("at the limit: %v", err)
	}
	lim.file--
	if _, _, err := loadInspect(ctx, path, "", Options{}, lim); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("longer than %d bytes", lim.file)) {
		t.Errorf("one byte over: %v", err)
	}
}

// A cancelled context stops the load with its error.
func TestInspectHonoursContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	path := writeFile(t, "l.json", logJSON("t", 1, sample("1", 1, `{"s": {"value": "C"}}`)))
	if _, _, err := LoadInspect(ctx, path, ""); !errors.Is(err, context.Canceled) {
		t.Errorf("json: %v", err)
	}
	evalPath := writeEval(t, []member{{name: "header.json", data: evalHeader}, {name: "samples/1_epoch_1.json", data: `{"id": 1, "epoch": 1, "scores": {"s": {"value": "C"}}}`}})
	if _, _, err := LoadInspect(ctx, evalPath, ""); !errors.Is(err, context.Canceled) {
		t.Errorf("eval: %v", err)
	}
}

// The file hash is part of the identity: another file, another identity.
func TestInspectIdentityFollowsTheFile(t *testing.T) {
	a := writeFile(t, "a.json", logJSON("t", 1, sample("1", 1, `{"s": {"value": "C"}}`)))
	b := writeFile(t, "b.json", logJSON("t", 1, sample("1", 1, `{"s": {"value": "I"}}`)))
	sa, _, err1 := LoadInspect(context.Background(), a, "s")
	sb, _, err2 := LoadInspect(context.Background(), b, "s")
	if err1 != nil || err2 != nil || sa.Identity() == sb.Identity() || len(sa.Identity()) != len("inspect:0123456789abcdef#s") {
		t.Errorf("%q %q %v %v", sa.Identity(), sb.Identity(), err1, err2)
	}
	data, _ := os.ReadFile(a)
	if want := "inspect:" + sha256Hex(data)[:16] + "#s"; sa.Identity() != want {
		t.Errorf("identity %q, want %q", sa.Identity(), want)
	}
}

func TestSplitSpec(t *testing.T) {
	for _, c := range []struct{ in, path, sel string }{
		{"logs/x.eval#match", "logs/x.eval", "match"},
		{"logs/x.eval", "logs/x.eval", ""},
		{"a#b.eval#", "a#b.eval", ""},
		{"r.json#llm-rubric", "r.json", "llm-rubric"},
		{"r.json#s.key", "r.json", "s.key"},
	} {
		if p, s := SplitSpec(c.in); p != c.path || s != c.sel {
			t.Errorf("SplitSpec(%q) = %q, %q", c.in, p, s)
		}
	}
}

func TestSourceIsCoverageAndInspector(t *testing.T) {
	var _ interface {
		inspection.Inspector
		Covers(string, inspection.Depth) bool
		InclusionProbability(string) (float64, bool)
		Unattributed() []string
	} = (*Source)(nil)
	if p, ok := (&Source{}).InclusionProbability("x"); ok || p != 0 {
		t.Error("inclusion probability must be unknown")
	}
}

// Every log in the shared samples is read by some test above: a log added
// there without a test fails here.
func TestEverySharedLogIsChecked(t *testing.T) {
	entries, err := os.ReadDir(sharedSamples)
	if err != nil {
		t.Skipf("shared inspect samples absent: %v", err)
	}
	checked := map[string]bool{
		"2025-05-12T20-28-13-04-00_popularity.json": true, "log_formats.json": true, "custom.eval": true,
		"log_formats.eval": true, "log_read_sample.eval": true, "mmlu-summary-choices.eval": true,
		"log_tool_call_error.json": true, // TestInspectToolCallErrorLogHasNoScores
	}
	logs := 0
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".json") && !strings.HasSuffix(name, ".eval") {
			continue
		}
		logs++
		if !checked[name] {
			t.Errorf("%s: no test reads it", name)
		}
	}
	if logs != len(checked) {
		t.Errorf("%d logs in %s, %d checked", logs, sharedSamples, len(checked))
	}
}
