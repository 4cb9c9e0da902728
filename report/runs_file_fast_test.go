package report

import (
	"encoding/json"
	"reflect"
	"testing"
)

// fastCases are items as the writer writes them and as it never does:
// each must decode as encoding/json decodes it, or be left to it.
var fastCases = []string{
	`{"run_id":"run-0000001","system":"gamma","light_verdict":"fail","deep_verdict":"partial","verdict_match":false,"light_scores":{"runtime_fidelity":82,"task_effectiveness":61},"deep_scores":{"runtime_fidelity":26,"task_effectiveness":46.125},"runtime_fidelity_delta":-56,"task_effectiveness_delta":-14.875,"flag_overlap":{"both":["F5"],"light_only":[],"deep_only":[]},"disagreement_type":"verdict_split","minor_noise":false,"notes":["verdicts differ: light fail, deep partial"],"light_summary":"generated run 1","deep_summary":"generated run 1"}`,
	`{"run_id":"a","system":"s","metadata":{"task":"t7","lang":"fr"},"light_verdict":"pass","deep_verdict":"pass","verdict_match":true,"light_scores":{"runtime_fidelity":1e2,"task_effectiveness":0.5},"deep_scores":{"runtime_fidelity":100,"task_effectiveness":0},"runtime_fidelity_delta":0,"task_effectiveness_delta":-0.5,"flag_overlap":{"both":[],"light_only":[],"deep_only":[],"severity_mismatches":["F1: warning -> error"]},"disagreement_type":null,"minor_noise":true,"notes":[]}`,
	`{"run_id":"esc","system":"s","light_verdict":"pass","deep_verdict":"pass","verdict_match":true,"light_scores":{"runtime_fidelity":1,"task_effectiveness":1},"deep_scores":{"runtime_fidelity":1,"task_effectiveness":1},"runtime_fidelity_delta":0,"task_effectiveness_delta":0,"flag_overlap":{"both":[],"light_only":[],"deep_only":[]},"disagreement_type":null,"minor_noise":true,"notes":["a \"quoted\" note\n","caf\u00e9 \ud83d\ude00"]}`,
	"{\"run_id\":\"bad \xff byte\",\"system\":\"s\"}",       // invalid UTF-8: encoding/json replaces the byte
	`{"run_id":"ws", "system":"s"}`,                         // whitespace: left to encoding/json
	`{"RUN_ID":"case","system":"s"}`,                        // another case: left to encoding/json
	`{"run_id":"n","system":null,"notes":null}`,             // nulls: left to encoding/json
	`{"run_id":"x","light_scores":{"runtime_fidelity":01}}`, // not JSON
	`{"run_id":"x","unknown":1}`,
	`{"run_id":"x","light_scores":{"runtime_fidelity":1e999}}`,
	`{"run_id":"x"}trailing`,
	`{"id":"run-1","system":"alpha","era":"saved","status":"unknown","services":0,"size_bytes":605,"content_hash":"69c5"}`,
	`{"id":"run-2","system":"alpha","era":"saved","status":"unknown","services":2,"size_bytes":1.5,"content_hash":"69c5"}`,
	`{"id":"run-3","system":"alpha","era":"saved","status":"unknown","services":-1,"size_bytes":9223372036854775808,"content_hash":"x","path":"a/b","warnings":["w1"]}`,
}

// checkFast decodes item with fast into a new *T and with encoding/json,
// and fails when fast accepted it and the two differ, or fast accepted
// what encoding/json refuses. It returns whether fast accepted it.
func checkFast[T any](t *testing.T, item []byte, fast func([]byte, *T, map[string]string) bool) bool {
	t.Helper()
	var got, want T
	ok := fast(item, &got, map[string]string{})
	err := json.Unmarshal(item, &want)
	if ok && (err != nil || !reflect.DeepEqual(got, want)) {
		t.Errorf("%s:\n fast %+v\n json %+v (%v)", item, got, want, err)
	}
	return ok
}

func TestFastDecodersAgreeWithEncodingJSON(t *testing.T) {
	accepted := 0
	for _, c := range fastCases {
		if checkFast(t, []byte(c), fastComparison) || checkFast(t, []byte(c), fastSampleRun) {
			accepted++
		}
	}
	if accepted != 5 { // three comparisons, the invalid byte and a sample run
		t.Errorf("the fast decoders took %d of the cases, want 5", accepted)
	}
}

// FuzzFastComparison: what fastComparison accepts, encoding/json decodes
// to the same comparison.
func FuzzFastComparison(f *testing.F) {
	for _, c := range fastCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, item []byte) {
		checkFast(t, item, fastComparison)
		checkFast(t, item, fastSampleRun)
	})
}
