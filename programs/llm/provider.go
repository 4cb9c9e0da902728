package llm

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/evalcal/evalcal/programs/spec"
)

// A provider is one LLM API the judge speaks: its spec kind, where its key
// and base URL come from, its default endpoint, its own checks of a
// configuration and its client. Each lives in its own file (openai.go,
// anthropic.go); adding a provider is that file plus one line in
// providerList (docs/ARCHITECTURE.md).
type provider struct {
	// name is the spec kind, the PROVIDER of PROVIDER:MODEL.
	name string
	// env prefixes the environment variables read by ConfigFromEnv:
	// ENV_API_KEY and ENV_BASE_URL.
	env string
	// base is the API base URL when none is given.
	base string
	// check refuses what the API would refuse, on a Config whose
	// defaults New has filled in (nil: nothing to check). Its error is
	// wrapped with "llm: PROVIDER:MODEL: ".
	check func(cfg Config) error
	// client builds the API client on the base URL, key and HTTP client.
	client func(base, key string, hc *http.Client) completer
}

// providerList lists the providers, in the order the help shows their spec
// kinds.
func providerList() []provider {
	return []provider{openAIProvider(), anthropicProvider()}
}

// providerNamed returns the provider called name.
func providerNamed(name string) (provider, bool) {
	for _, p := range providerList() {
		if p.name == name {
			return p, true
		}
	}
	return provider{}, false
}

// Kinds returns the spec kind PROVIDER:MODEL of every provider, in order
// (programs/all lists them).
func Kinds() []spec.Kind {
	var out []spec.Kind
	for _, p := range providerList() {
		out = append(out, Kind(p.name))
	}
	return out
}

// unknownProvider is the error for a provider name that is none of them.
func unknownProvider(name string) error {
	var names []string
	for _, p := range providerList() {
		names = append(names, p.name)
	}
	want := names[len(names)-1]
	if len(names) > 1 {
		want = strings.Join(names[:len(names)-1], ", ") + " or " + want
	}
	return fmt.Errorf("llm: unknown provider %q (want %s)", name, want)
}
