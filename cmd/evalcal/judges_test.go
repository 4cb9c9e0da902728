package main

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/evalcal/evalcal/inspection"
	"github.com/google/go-cmp/cmp"
)

// The shell completes --inspector with every registered spec kind
// (programs/all), the ones taking an argument with their colon.
func TestCompletionListsEverySpecKind(t *testing.T) {
	r := runBinary(t, binOptions{}, "__complete", "run", "--inspector", "")
	expect(t, "__complete run --inspector", r, 0,
		[]string{"builtin\n", "exec:\n", "saved:\n", "openai:\n", "anthropic:\n", "inspect:\n", "promptfoo:\n"}, nil)
}

// A spec of no known form names every form; a kind's own check (an
// importer's options) is reported as it is, before any work.
func TestSpecErrorsBeforeAnyWork(t *testing.T) {
	for _, c := range []struct {
		spec string
		want string
	}{
		{"gemini:pro", `--light must be builtin, exec:COMMAND, saved:FILE, openai:MODEL, anthropic:MODEL, inspect:LOG[#SCORER][?OPTIONS], promptfoo:FILE[#ASSERTION][?OPTIONS] or panel:SPEC,SPEC[,...][?agg=majority|median], got "gemini:pro"`},
		{"builtin:x", `--light must be builtin, exec:COMMAND`},
		{"promptfoo:out.json#?max=10", `--light: promptfoo: option "max=10"`},
	} {
		r := runBinary(t, binOptions{}, "run", "--light", c.spec, "testdata/runs")
		expect(t, "run --light "+c.spec, r, 2, nil, []string{c.want})
	}
}

// The generation parameters' ranges are programs/llm's, checked before any
// work whatever the inspectors, naming the flag.
func TestLLMRangesAreCheckedOnce(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--temperature", "2.5"}, "run: --temperature: 2.5 is outside 0..2"},
		{[]string{"--temperature", "NaN"}, "run: --temperature: NaN is outside 0..2"},
		{[]string{"--max-output-tokens", "-1"}, "run: --max-output-tokens: -1 is negative"},
		{[]string{"--prompt-tokens", "999"}, "run: --prompt-tokens: 999 is outside 1000..4194304"},
	} {
		r := runBinary(t, binOptions{}, append(append([]string{"run"}, c.args...), "testdata/runs")...)
		expect(t, "run "+c.args[0], r, 2, nil, []string{c.want})
	}
}

// unionRuns joins two files' runs: the light file's metadata wins a
// conflict (with a warning) and each file adds the fields it alone has;
// one file on both sides gives its runs' metadata unchanged.
func TestUnionRunsMergesMetadata(t *testing.T) {
	light := []inspection.Run{
		{ID: "a", ContentHash: "1", Metadata: inspection.Metadata{"k": "x", "l": "1"}},
		{ID: "b", ContentHash: "2", Metadata: inspection.Metadata{"k": "y"}},
		{ID: "c", ContentHash: "3"},
	}
	deep := []inspection.Run{
		{ID: "a", ContentHash: "4", Metadata: inspection.Metadata{"k": "z", "d": "2"}},
		{ID: "b", ContentHash: "5", Metadata: inspection.Metadata{"k": "y"}},
		{ID: "c", ContentHash: "6", Metadata: inspection.Metadata{}},
	}
	got := unionRuns([][]inspection.Run{light, deep})
	want := []inspection.Metadata{{"k": "x", "l": "1", "d": "2"}, {"k": "y"}, nil}
	for i, r := range got {
		if !maps.Equal(r.Metadata, want[i]) {
			t.Errorf("run %s: metadata %v, want %v", r.ID, r.Metadata, want[i])
		}
	}
	if len(got[0].Warnings) != 1 || !strings.Contains(got[0].Warnings[0], `metadata.k: "x" and "z"`) || len(got[1].Warnings) != 0 {
		t.Errorf("warnings %q and %q, want one conflict on run a", got[0].Warnings, got[1].Warnings)
	}
	if light[0].Metadata["d"] != "" {
		t.Errorf("the light run's metadata was changed: %v", light[0].Metadata)
	}
	same := unionRuns([][]inspection.Run{light, light})
	for i, r := range same {
		if !maps.Equal(r.Metadata, light[i].Metadata) || len(r.Warnings) != 0 {
			t.Errorf("one file twice: run %s: %v %q", r.ID, r.Metadata, r.Warnings)
		}
	}
}

// One slice of runs on both sides (an importer's file named twice) joins
// as two copies of it do through the map.
func TestUnionRunsOfOneSlice(t *testing.T) {
	runs := []inspection.Run{
		{ID: "a", System: "s", ContentHash: "1", SizeBytes: 10, Metadata: inspection.Metadata{"k": "x"}, Warnings: []string{"w"}},
		{ID: "b", ContentHash: "2", SizeBytes: 3},
		{ID: "c", ContentHash: "3", Metadata: inspection.Metadata{}},
	}
	want := unionRuns([][]inspection.Run{runs, slices.Clone(runs)})
	if _, ok := unionOfOne([][]inspection.Run{runs, slices.Clone(runs)}); ok {
		t.Fatal("two slices taken for one")
	}
	got := unionRuns([][]inspection.Run{runs, runs})
	if _, ok := unionOfOne([][]inspection.Run{runs, runs}); !ok {
		t.Fatal("one slice not taken")
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-two copies +one slice):\n%s", d)
	}
	if want[0].SizeBytes != 20 || want[0].ContentHash == "1" || runs[0].SizeBytes != 10 {
		t.Errorf("join: %+v; input %+v", want[0], runs[0])
	}
	if got := unionRuns(nil); len(got) != 0 {
		t.Errorf("no list: %v", got)
	}
	unsorted := []inspection.Run{runs[1], runs[0]}
	if _, ok := unionOfOne([][]inspection.Run{unsorted, unsorted}); ok {
		t.Error("unsorted runs taken")
	}
}
