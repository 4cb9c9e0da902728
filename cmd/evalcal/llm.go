package main

import (
	"fmt"

	"github.com/evalcal/evalcal/programs/llm"
	"github.com/evalcal/evalcal/runner"
)

// openJudge builds the LLM judge provider:model for the side named by
// flag ("light", "deep" or "inspector" for both): the key and base URL from
// the environment, overridden by --base-url, --light-base-url or
// --deep-base-url and --light-key-file or --deep-key-file; the prompt
// templates from --light-prompt and --deep-prompt; the generation
// parameters from their flags. A misconfiguration (no key, a bad URL, a
// prompt that does not parse) is a usage error before any call.
func openJudge(provider, model, flag string, o *runOptions) (runner.Inspector, error) {
	cfg, err := llm.ConfigFromEnv(provider, model)
	if err != nil {
		return nil, usageErrorf("run: --%s: %v", flag, err)
	}
	baseURL, keyFile := o.BaseURL, ""
	switch flag {
	case "light":
		if o.LightBaseURL != "" {
			baseURL = o.LightBaseURL
		}
		keyFile = o.LightKeyFile
	case "deep":
		if o.DeepBaseURL != "" {
			baseURL = o.DeepBaseURL
		}
		keyFile = o.DeepKeyFile
	}
	if baseURL != "" {
		cfg.BaseURL = baseURL
	}
	if keyFile != "" {
		if cfg.APIKey, err = llm.ReadSecretFile(keyFile); err != nil {
			return nil, inputError(fmt.Errorf("run: --%s-key-file: %w", flag, err))
		}
	}
	for _, p := range []struct {
		path string
		dst  *string
		name string
	}{{o.LightPrompt, &cfg.LightPrompt, "light-prompt"}, {o.DeepPrompt, &cfg.DeepPrompt, "deep-prompt"}} {
		if p.path == "" {
			continue
		}
		if *p.dst, err = llm.ReadPromptFile(p.path); err != nil {
			return nil, inputError(fmt.Errorf("run: --%s: %w", p.name, err))
		}
	}
	cfg.Temperature, cfg.MaxOutputTokens, cfg.PromptTokens = o.Temperature, o.MaxOutputTokens, o.PromptTokens
	if o.judgeSeedGiven {
		seed := o.JudgeSeed
		cfg.Seed = &seed
	}
	j, err := llm.New(cfg)
	if err != nil {
		return nil, usageErrorf("run: --%s: %v", flag, err)
	}
	return j, nil
}
