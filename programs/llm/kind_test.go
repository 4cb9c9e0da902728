package llm

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/evalcal/evalcal/programs/spec"
)

func TestRangeChecksAtTheirBounds(t *testing.T) {
	for _, c := range []struct {
		name string
		err  error
		ok   bool
	}{
		{"temperature 0", CheckTemperature(0), true},
		{"temperature 2", CheckTemperature(2), true},
		{"temperature 2.0001", CheckTemperature(2.0001), false},
		{"temperature -0.1", CheckTemperature(-0.1), false},
		{"temperature NaN", CheckTemperature(math.NaN()), false},
		{"max output 0", CheckMaxOutputTokens(0), true},
		{"max output -1", CheckMaxOutputTokens(-1), false},
		{"prompt 0 (default)", CheckPromptTokens(0), true},
		{"prompt min", CheckPromptTokens(MinPromptTokens), true},
		{"prompt min-1", CheckPromptTokens(MinPromptTokens - 1), false},
		{"prompt max", CheckPromptTokens(MaxPromptTokens), true},
		{"prompt max+1", CheckPromptTokens(MaxPromptTokens + 1), false},
		{"prompt -1", CheckPromptTokens(-1), false},
	} {
		if (c.err == nil) != c.ok {
			t.Errorf("%s: %v, want ok=%v", c.name, c.err, c.ok)
		}
	}
}

// A key or prompt file that cannot be read names its own flag.
func TestKindNamesTheFileFlag(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "k")
	for _, j := range []spec.Judge{
		{KeyFile: spec.Input{Path: "/nonexistent/key", Flag: "deep-key-file"}},
		{DeepPrompt: spec.Input{Path: "/nonexistent/prompt", Flag: "deep-prompt"}},
	} {
		_, err := Kind(OpenAI).Open(context.Background(), "m", spec.Env{Judge: j})
		var fe *spec.FlagError
		if !errors.As(err, &fe) || (fe.Flag != j.KeyFile.Flag && fe.Flag != j.DeepPrompt.Flag) {
			t.Errorf("Open with %+v: %v, want a FlagError naming its flag", j, err)
		}
	}
	if _, err := Kind(OpenAI).Open(context.Background(), "m", spec.Env{Judge: spec.Judge{Temperature: 3}}); err == nil {
		t.Error("a temperature of 3 was accepted")
	}
}
