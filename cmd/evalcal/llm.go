package main

import (
	"github.com/spf13/pflag"

	"github.com/evalcal/evalcal/programs/llm"
	"github.com/evalcal/evalcal/programs/spec"
)

// llmOptions are run's LLM judge flags: the settings both sides share and
// each side's own (llmSide), turned into one side's spec.Judge by judge.
type llmOptions struct {
	BaseURL                 string
	Light, Deep             llmSide
	LightPrompt, DeepPrompt string
	Temperature             float64
	MaxOutputTokens         int64
	PromptTokens            int64
	Seed                    int64
	seedGiven               bool
}

// llmSide is one side's LLM judge flags (--light-base-url and
// --light-key-file, or the deep ones).
type llmSide struct {
	BaseURL string
	KeyFile string
}

// addFlags defines the LLM judge flags on fs.
func (o *llmOptions) addFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.BaseURL, "base-url", "", "API base `URL` of both LLM sides (default: OPENAI_BASE_URL / ANTHROPIC_BASE_URL)")
	fs.StringVar(&o.Light.BaseURL, "light-base-url", "", "API base `URL` of the light LLM judge (overrides --base-url)")
	fs.StringVar(&o.Deep.BaseURL, "deep-base-url", "", "API base `URL` of the deep LLM judge (overrides --base-url)")
	fs.StringVar(&o.Light.KeyFile, "light-key-file", "", "read the light judge's API key from `FILE` (default: OPENAI_API_KEY / ANTHROPIC_API_KEY)")
	fs.StringVar(&o.Deep.KeyFile, "deep-key-file", "", "read the deep judge's API key from `FILE`")
	fs.StringVar(&o.LightPrompt, "light-prompt", "", "prompt template `FILE` of the light LLM judge (default: built in)")
	fs.StringVar(&o.DeepPrompt, "deep-prompt", "", "prompt template `FILE` of the deep LLM judge (default: built in)")
	fs.Float64Var(&o.Temperature, "temperature", 0, "sampling `T` of the LLM judges (0..2)")
	fs.Int64Var(&o.MaxOutputTokens, "max-output-tokens", 0, "`N` tokens at most in one LLM answer (default: the judge's)")
	fs.Int64Var(&o.PromptTokens, "prompt-tokens", 0, "token budget `N` for a run's files in one LLM prompt (default: the judge's)")
	fs.Int64Var(&o.Seed, "judge-seed", 0, "`SEED` sent to OpenAI judges (not sent unless given)")
}

// validate checks the generation parameters' ranges with the judge's own
// checks (programs/llm), naming the flag.
func (o *llmOptions) validate() error {
	for _, c := range []struct {
		flag string
		err  error
	}{
		{"temperature", llm.CheckTemperature(o.Temperature)},
		{"max-output-tokens", llm.CheckMaxOutputTokens(o.MaxOutputTokens)},
		{"prompt-tokens", llm.CheckPromptTokens(o.PromptTokens)},
	} {
		if c.err != nil {
			return usageErrorf("run: --%s: %v", c.flag, c.err)
		}
	}
	return nil
}

// judge is the LLM settings of the side whose spec came from flag
// ("light" or "deep"): its base URL overrides --base-url, and its key
// file is read instead of the environment's key.
func (o *llmOptions) judge(flag string) spec.Judge {
	j := spec.Judge{
		BaseURL:     o.BaseURL,
		LightPrompt: spec.Input{Path: o.LightPrompt, Flag: "light-prompt"},
		DeepPrompt:  spec.Input{Path: o.DeepPrompt, Flag: "deep-prompt"},
		Temperature: o.Temperature, MaxOutputTokens: o.MaxOutputTokens, PromptTokens: o.PromptTokens,
	}
	if side, ok := map[string]llmSide{"light": o.Light, "deep": o.Deep}[flag]; ok {
		if side.BaseURL != "" {
			j.BaseURL = side.BaseURL
		}
		j.KeyFile = spec.Input{Path: side.KeyFile, Flag: flag + "-key-file"}
	}
	if o.seedGiven {
		seed := o.Seed
		j.Seed = &seed
	}
	return j
}
