package inspection

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseInspectionAcceptsProgramAsSystem(t *testing.T) {
	got, err := ParseInspection([]byte(`{"run_id":"r1","program":"old","depth":"deep",
		"runtime_fidelity":90,"task_effectiveness":40.5,"verdict":"partial",
		"flags":[{"id":"x","severity":"critical","description":"d","evidence":"e"}],
		"services":[{"name":"a","status":"ok"}],"summary":"s","cost":{"seconds":1.5,"tokens":9,"usd":0.25},
		"extra":"ignored"}` + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := Inspection{RunID: "r1", System: "old", Depth: Deep, RuntimeFidelity: 90, TaskEffectiveness: 40.5,
		Verdict: VerdictPartial, Flags: []Flag{{ID: "x", Severity: SeverityCritical, Description: "d", Evidence: "e"}},
		Services: []Service{{Name: "a", Status: "ok"}}, Summary: "s", Cost: Cost{Seconds: 1.5, Tokens: 9, USD: 0.25}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	both, err := ParseInspection([]byte(`{"system":"new","program":"old","runtime_fidelity":0,"task_effectiveness":100,"verdict":"fail"}`))
	if err != nil || both.System != "new" {
		t.Errorf("system and program: got %q (%v), want system to win", both.System, err)
	}
}

func TestParseInspectionNamesTheBadField(t *testing.T) {
	tests := []struct {
		name, doc, field string
	}{
		{"empty", ``, ""},
		{"garbage", `hello world`, ""},
		{"array", `[1,2]`, ""},
		{"trailing", `{"runtime_fidelity":1,"task_effectiveness":1,"verdict":"pass"} {}`, ""},
		{"missing rf", `{"task_effectiveness":1,"verdict":"pass"}`, "runtime_fidelity"},
		{"missing te", `{"runtime_fidelity":1,"verdict":"pass"}`, "task_effectiveness"},
		{"missing verdict", `{"runtime_fidelity":1,"task_effectiveness":1}`, "verdict"},
		{"string score", `{"runtime_fidelity":"90","task_effectiveness":1,"verdict":"pass"}`, "runtime_fidelity"},
		{"huge score", `{"runtime_fidelity":1e400,"task_effectiveness":1,"verdict":"pass"}`, "runtime_fidelity"},
		{"score 101", `{"runtime_fidelity":1,"task_effectiveness":101,"verdict":"pass"}`, "task_effectiveness"},
		{"verdict case", `{"runtime_fidelity":1,"task_effectiveness":1,"verdict":"PASS"}`, "verdict"},
		{"depth", `{"runtime_fidelity":1,"task_effectiveness":1,"verdict":"pass","depth":"medium"}`, "depth"},
		{"severity", `{"runtime_fidelity":1,"task_effectiveness":1,"verdict":"pass","flags":[{"severity":"x"}]}`, "flags[0].severity"},
		{"negative cost", `{"runtime_fidelity":1,"task_effectiveness":1,"verdict":"pass","cost":{"usd":-1}}`, "cost.usd"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseInspection([]byte(tt.doc))
			var fe *FieldError
			if !errors.As(err, &fe) {
				t.Fatalf("err = %v, want a *FieldError", err)
			}
			if !strings.HasPrefix(fe.Field, tt.field) {
				t.Errorf("field %q, want %q (%v)", fe.Field, tt.field, err)
			}
		})
	}
}

func TestPermanentIsSeenThroughWrapping(t *testing.T) {
	base := errors.New("bad json")
	err := Permanent(base)
	wrapped := errors.Join(errors.New("context"), err)
	if !IsPermanent(wrapped) || !errors.Is(wrapped, base) {
		t.Error("Permanent lost through wrapping")
	}
	if IsPermanent(base) || Permanent(nil) != nil || Permanent(err) != err {
		t.Error("Permanent marks what it should not")
	}
}

// FuzzUnmarshalAcceptsWhatDecodeOneAccepts: ParseInspection's fast path
// (json.Unmarshal) succeeds only on documents decodeOne, the Decoder it
// replaced, accepts too, with the same result; on every other document
// ParseInspection gives decodeOne's error.
func FuzzUnmarshalAcceptsWhatDecodeOneAccepts(f *testing.F) {
	for _, s := range []string{
		`{"run_id":"r","program":"p","depth":"light","runtime_fidelity":85,"task_effectiveness":80,"verdict":"pass","flags":[{"severity":"info"}],"services":[{"name":"db"}],"cost":{"usd":0.5,"usage":{"input":3}}}`,
		` {"verdict":"pass"} `, `{"verdict":"pass"} {}`, `{"verdict":"pass"} x`, `{"verdict":"pass"`, `{"verdict":5}`,
		`{"verdict":5} {}`, ``, ` `, `null`, `[]`, "{\"summary\":\"\xff\"}", `{"a":1}{"b":2}`, `{"cost":{"tokens":1.5}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var fast, slow inspectionJSON
		fastErr := json.Unmarshal(data, &fast)
		slowErr := decodeOne(data, &slow)
		if fastErr == nil {
			if slowErr != nil {
				t.Fatalf("json.Unmarshal accepts %q, decodeOne does not: %v", data, slowErr)
			}
			if diff := cmp.Diff(slow, fast); diff != "" {
				t.Fatalf("%q decodes differently (-decodeOne +Unmarshal):\n%s", data, diff)
			}
		}
		_, err := ParseInspection(data)
		if slowErr != nil && (err == nil || err.Error() != slowErr.Error()) {
			t.Fatalf("ParseInspection(%q) error %v, want decodeOne's %v", data, err, slowErr)
		}
	})
}

func FuzzParseInspection(f *testing.F) {
	f.Add([]byte(`{"run_id":"r","program":"p","depth":"light","runtime_fidelity":85,"task_effectiveness":80,"verdict":"pass","flags":[{"severity":"info"}]}`))
	f.Add([]byte(`{"runtime_fidelity":-0,"task_effectiveness":100,"verdict":"fail","cost":{"tokens":-1}}`))
	f.Add([]byte(`{"runtime_fidelity":1e308,"task_effectiveness":null,"verdict":"partial"}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, data []byte) {
		insp, err := ParseInspection(data)
		if err != nil {
			var fe *FieldError
			if !errors.As(err, &fe) {
				t.Errorf("error %v is not a *FieldError", err)
			}
			return
		}
		if cerr := CheckInspection(insp); cerr != nil {
			t.Errorf("parsed inspection fails its check: %v", cerr)
		}
	})
}
