package all

import (
	"errors"
	"testing"

	"github.com/evalcal/evalcal/programs/spec"
)

func TestKindsAreValid(t *testing.T) {
	if err := Kinds().Validate(); err != nil {
		t.Fatal(err)
	}
}

// The help's list of spec forms, as the README documents it.
func TestUsageListsEveryKindInOrder(t *testing.T) {
	const want = "builtin, exec:COMMAND, saved:FILE, openai:MODEL, anthropic:MODEL, inspect:LOG[#SCORER][?OPTIONS], promptfoo:FILE[#ASSERTION][?OPTIONS] or panel:SPEC,SPEC[,...][?agg=majority|median]"
	if got := Kinds().Usage(); got != want {
		t.Errorf("Usage() = %q\nwant      %q", got, want)
	}
}

func TestParseAndFile(t *testing.T) {
	for _, c := range []struct {
		spec, kind, file string
		err              error // nil, spec.ErrForm, or errAny for a Check error
	}{
		{spec: "builtin", kind: "builtin"},
		{spec: "builtin:x", err: spec.ErrForm},
		{spec: "builtin:", err: spec.ErrForm},
		{spec: "exec", err: spec.ErrForm},
		{spec: "exec:", err: spec.ErrForm},
		{spec: "exec:sh judge.sh {run} {depth}", kind: "exec"},
		{spec: "saved:labels.jsonl", kind: "saved", file: "labels.jsonl"},
		{spec: "saved:a:b", kind: "saved", file: "a:b"},
		{spec: "openai:gpt-4o-mini", kind: "openai"},
		{spec: "anthropic:claude", kind: "anthropic"},
		{spec: "inspect:log.eval#match?P=0,max=10", kind: "inspect", file: "log.eval"},
		{spec: "inspect:log.eval#?max=0", err: errAny},
		{spec: "promptfoo:out.json#polite?pass=0.5", kind: "promptfoo", file: "out.json"},
		{spec: "promptfoo:out.json#?max=10", err: errAny},
		{spec: "gemini:pro", err: spec.ErrForm},
		{spec: "panel:builtin,exec:sh j.sh {run} {depth}?agg=median", kind: "panel"},
		{spec: "panel:builtin,[panel:builtin,builtin]", err: errAny}, // a member may not be a panel
		{spec: "panel:builtin,gemini:pro", err: errAny},              // every member is checked
		{spec: "", err: spec.ErrForm},
	} {
		k, _, err := Kinds().Parse(c.spec)
		switch {
		case c.err == nil && err != nil:
			t.Errorf("Parse(%q): %v", c.spec, err)
		case c.err == spec.ErrForm && !errors.Is(err, spec.ErrForm):
			t.Errorf("Parse(%q) = %v, want ErrForm", c.spec, err)
		case c.err == errAny && (err == nil || errors.Is(err, spec.ErrForm)):
			t.Errorf("Parse(%q) = %v, want the kind's check error", c.spec, err)
		case c.err == nil && k.Name != c.kind:
			t.Errorf("Parse(%q) kind %q, want %q", c.spec, k.Name, c.kind)
		}
		if got := Kinds().File(c.spec); c.err == nil && got != c.file {
			t.Errorf("File(%q) = %q, want %q", c.spec, got, c.file)
		}
	}
}

var errAny = errors.New("any check error")
