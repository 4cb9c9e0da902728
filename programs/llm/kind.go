package llm

import (
	"context"
	"fmt"
	"math"

	"github.com/evalcal/evalcal/programs/spec"
)

// Kind is the spec kind "PROVIDER:MODEL" of provider (OpenAI or
// Anthropic): an LLM judge configured from the environment
// (ConfigFromEnv) and the side's settings (spec.Judge).
func Kind(provider string) spec.Kind {
	return spec.Kind{Name: provider, Usage: provider + ":MODEL",
		Open: func(_ context.Context, model string, env spec.Env) (spec.Opened, error) {
			j, err := fromSettings(provider, model, env.Judge)
			if err != nil {
				return spec.Opened{}, err
			}
			return spec.Opened{Inspector: j}, nil
		},
	}
}

// fromSettings builds the judge provider:model: the key and base URL from
// the environment, overridden by the side's base URL and key file; the
// prompt templates from their files; the generation parameters as given.
// A file that cannot be read is a *spec.FlagError naming its flag.
func fromSettings(provider, model string, s spec.Judge) (*Judge, error) {
	cfg, err := ConfigFromEnv(provider, model)
	if err != nil {
		return nil, err
	}
	if s.BaseURL != "" {
		cfg.BaseURL = s.BaseURL
	}
	if s.KeyFile.Path != "" {
		if cfg.APIKey, err = ReadSecretFile(s.KeyFile.Path); err != nil {
			return nil, &spec.FlagError{Flag: s.KeyFile.Flag, Err: err}
		}
	}
	for _, p := range []struct {
		in  spec.Input
		dst *string
	}{{s.LightPrompt, &cfg.LightPrompt}, {s.DeepPrompt, &cfg.DeepPrompt}} {
		if p.in.Path == "" {
			continue
		}
		if *p.dst, err = ReadPromptFile(p.in.Path); err != nil {
			return nil, &spec.FlagError{Flag: p.in.Flag, Err: err}
		}
	}
	cfg.Temperature, cfg.MaxOutputTokens, cfg.PromptTokens = s.Temperature, s.MaxOutputTokens, s.PromptTokens
	cfg.Seed = s.Seed
	return New(cfg)
}

// The ranges of the generation parameters, each checked by one function
// that New and the command's flag checks share. The error states the
// value and the range, without the parameter's name (the caller adds the
// field or the flag).

// CheckTemperature accepts a sampling temperature in [0, 2].
func CheckTemperature(t float64) error {
	if math.IsNaN(t) || t < 0 || t > 2 {
		return fmt.Errorf("%v is outside 0..2", t)
	}
	return nil
}

// CheckMaxOutputTokens accepts 0 (DefaultMaxOutputTokens) or more.
func CheckMaxOutputTokens(n int64) error {
	if n < 0 {
		return fmt.Errorf("%d is negative", n)
	}
	return nil
}

// CheckPromptTokens accepts 0 (DefaultPromptTokens) or a budget in
// [MinPromptTokens, MaxPromptTokens].
func CheckPromptTokens(n int64) error {
	if n != 0 && (n < MinPromptTokens || n > MaxPromptTokens) {
		return fmt.Errorf("%d is outside %d..%d", n, MinPromptTokens, MaxPromptTokens)
	}
	return nil
}
