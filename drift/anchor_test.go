package drift

import (
	"strconv"
	"strings"
	"testing"
)

func sampleAnchors() *Anchors {
	deep := Observation{Verdict: "fail", RuntimeFidelity: 20, TaskEffectiveness: 10.5}
	a := &Anchors{SchemaVersion: AnchorSchemaVersion, Kind: AnchorKind, GeneratedBy: "evalcal test",
		CommandLine: []string{"evalcal", "anchor", "freeze", "runs"}, Paths: []string{"runs"},
		Light: Judge{Spec: "builtin", Identity: "builtin/1"}, Deep: &Judge{Spec: "builtin", Identity: "builtin/1"},
		Runs: []AnchorRun{
			{ID: "a", ContentHash: "h1", Light: Observation{Verdict: "pass", RuntimeFidelity: 85, TaskEffectiveness: 80}, Deep: &deep},
			{ID: "b", ContentHash: "h2", Light: Observation{Verdict: "partial", RuntimeFidelity: 0.1 + 0.2, TaskEffectiveness: 45}},
		}}
	a.Hash = AnchorsHash(a.Runs)
	return a
}

// TestAnchorsRoundTrip: an encoded anchor set reads back equal, numbers
// exact (0.1 + 0.2 is not 0.3).
func TestAnchorsRoundTrip(t *testing.T) {
	a := sampleAnchors()
	data, err := EncodeAnchors(a)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ParseAnchors(data, "anchors.yaml")
	if err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	if got.Runs[1].Light.RuntimeFidelity != 0.1+0.2 || got.Hash != a.Hash || got.Runs[0].Deep.TaskEffectiveness != 10.5 || got.Deep.Identity != "builtin/1" {
		t.Errorf("read back %+v", got)
	}
}

// TestParseAnchorsNamesFileLineAndField: each bad anchor file is refused
// with the file, the line of the run and the field.
func TestParseAnchorsNamesFileLineAndField(t *testing.T) {
	good, err := EncodeAnchors(sampleAnchors())
	if err != nil {
		t.Fatal(err)
	}
	doc := string(good)
	for _, c := range []struct {
		name, data, want string
	}{
		{"a report", "schema_version: 2\ngenerated_by: x\n", `anchors.yaml:1: kind: "", want "evalcal-anchors"`},
		{"newer", strings.Replace(doc, "schema_version: 1", "schema_version: 9", 1), "anchors.yaml:1: schema_version: 9 is newer"},
		{"unknown field", strings.Replace(doc, "generated_by:", "generated_byy:", 1), "field generated_byy not found"},
		{"bad verdict", strings.Replace(doc, "verdict: partial", "verdict: maybe", 1), `anchors.yaml:`},
		{"score", strings.Replace(doc, "task_effectiveness: 45", "task_effectiveness: 145", 1), "(b): light.task_effectiveness: 145 outside 0..100"},
		{"edited", strings.Replace(doc, "verdict: pass", "verdict: fail", 1), "hash: "},
		{"repeated id", strings.Replace(doc, "id: b", "id: a", 1), `id: "a" is listed twice`},
		{"no runs", strings.Split(doc, "runs:")[0] + "runs: []\n", "runs: no anchor run"},
		{"not yaml", "runs: [", "anchors.yaml: yaml:"},
	} {
		_, err := ParseAnchors([]byte(c.data), "anchors.yaml")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want it to contain %q", c.name, err, c.want)
		}
	}
	// The bad verdict names its run's line: the second run item.
	bad := strings.Replace(doc, "verdict: partial", "verdict: maybe", 1)
	line := 0
	for i, l := range strings.Split(bad, "\n") {
		if strings.HasPrefix(l, "  - id: b") {
			line = i + 1
		}
	}
	_, err = ParseAnchors([]byte(bad), "anchors.yaml")
	if want := "anchors.yaml:" + strconv.Itoa(line) + ": runs[1] (b): light.verdict: \"maybe\""; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("bad verdict: %v, want %q", err, want)
	}
}

// FuzzParseAnchors: no input makes ParseAnchors panic, and what it accepts
// encodes and reads back with the same hash.
func FuzzParseAnchors(f *testing.F) {
	good, err := EncodeAnchors(sampleAnchors())
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add([]byte("kind: evalcal-anchors\nschema_version: 1\nruns: [{id: x}]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := ParseAnchors(data, "f")
		if err != nil {
			return
		}
		again, err := EncodeAnchors(a)
		if err != nil {
			t.Fatal(err)
		}
		b, err := ParseAnchors(again, "f")
		if err != nil {
			t.Fatalf("re-read: %v", err)
		}
		if b.Hash != a.Hash {
			t.Errorf("hash %s, then %s", b.Hash, a.Hash)
		}
	})
}
