package llm

import (
	"strings"
	"testing"
)

// TestProvidersAreKindsAndReadTheirEnvironment: every provider is a spec
// kind, in the help's order, and reads its key and base URL from its own
// variables.
func TestProvidersAreKindsAndReadTheirEnvironment(t *testing.T) {
	var names []string
	for _, k := range Kinds() {
		names = append(names, k.Name)
	}
	if got := strings.Join(names, ","); got != "openai,anthropic" {
		t.Fatalf("Kinds() = %s, want openai,anthropic", got)
	}
	for _, c := range []struct{ provider, env string }{{OpenAI, "OPENAI"}, {Anthropic, "ANTHROPIC"}} {
		t.Setenv(c.env+"_API_KEY", "key-"+c.provider)
		t.Setenv(c.env+"_BASE_URL", "http://127.0.0.1:1/"+c.provider)
		cfg, err := ConfigFromEnv(c.provider, "m")
		if err != nil {
			t.Fatal(err)
		}
		if cfg.APIKey != "key-"+c.provider || cfg.BaseURL != "http://127.0.0.1:1/"+c.provider {
			t.Errorf("%s: key %q base %q, want its own variables", c.provider, cfg.APIKey, cfg.BaseURL)
		}
	}
	_, err := ConfigFromEnv("gemini", "m")
	if err == nil || err.Error() != `llm: unknown provider "gemini" (want openai or anthropic)` {
		t.Errorf("unknown provider: %v", err)
	}
}
