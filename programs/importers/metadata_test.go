package importers

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/evalcal/evalcal/inspection"
)

// An inspect_ai sample's flat metadata is its run's; a nested field is
// left out with a warning naming the file, line, sample and field.
func TestInspectSampleMetadataIsTheRuns(t *testing.T) {
	withMD := func(id, md string) string {
		return fmt.Sprintf(`    {"id": %s, "epoch": 1, "input": "q", "target": "t", "scores": {"m": {"value": "C"}}, "metadata": %s}`, id, md)
	}
	log := logJSON("t", 1, withMD("1", `{"task": "t1", "len": 120, "choices": ["a", "b"]}`), withMD("2", `null`), withMD("3", `"x"`))
	path := writeFile(t, "md.json", log)
	_, runs, err := LoadInspect(context.Background(), path, "m")
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(inspection.Metadata{"task": "t1", "len": "120"}, runs[0].Metadata); d != "" {
		t.Errorf("sample 1 metadata (-want +got):\n%s", d)
	}
	if len(runs[0].Warnings) != 1 || !strings.HasPrefix(runs[0].Warnings[0], path+":") ||
		!strings.HasSuffix(runs[0].Warnings[0], "sample 1 epoch 1: metadata.choices is an array; metadata values are strings, numbers or booleans: skipped") {
		t.Errorf("sample 1 warnings %q", runs[0].Warnings)
	}
	if runs[1].Metadata != nil || runs[1].Warnings != nil {
		t.Errorf("sample 2 (null metadata): %v %q", runs[1].Metadata, runs[1].Warnings)
	}
	if runs[2].Metadata != nil || len(runs[2].Warnings) != 1 || !strings.Contains(runs[2].Warnings[0], "metadata: metadata is not an object: skipped") {
		t.Errorf("sample 3 (string metadata): %v %q", runs[2].Metadata, runs[2].Warnings)
	}
}

// A promptfoo result's vars and metadata are its run's metadata; metadata
// wins a field both give.
func TestPromptfooVarsAndMetadataAreTheRuns(t *testing.T) {
	_, runs, err := LoadPromptfoo(context.Background(), twoAssertions, "contains")
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(inspection.Metadata{"question": "What is the capital of France?"}, runs[0].Metadata); d != "" {
		t.Errorf("test0-prompt0 metadata (-want +got):\n%s", d)
	}
	md, warn := resultMetadata([]byte(`{"q":"x","topic":"geo","ctx":{"a":1}}`), []byte(`{"topic":"maths","tier":2}`))
	if d := cmp.Diff(inspection.Metadata{"q": "x", "topic": "maths", "tier": "2"}, md); d != "" {
		t.Errorf("merged (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"vars.ctx is an object; metadata values are strings, numbers or booleans: skipped"}, warn); d != "" {
		t.Errorf("warnings (-want +got):\n%s", d)
	}
}
