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
