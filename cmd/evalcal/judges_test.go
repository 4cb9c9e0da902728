package main

import "testing"

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
		{"gemini:pro", `--light must be builtin, exec:COMMAND, saved:FILE, openai:MODEL, anthropic:MODEL, inspect:LOG[#SCORER][?OPTIONS] or promptfoo:FILE[#ASSERTION][?OPTIONS], got "gemini:pro"`},
		{"builtin:x", `--light must be builtin, exec:COMMAND`},
		{"promptfoo:out.json#?max=10", `--light: promptfoo: option "max=10"`},
	} {
		r := runBinary(t, binOptions{}, "run", "--light", c.spec, "testdata/runs")
		expect(t, "run --light "+c.spec, r, 2, nil, []string{c.want})
	}
}
