package llm

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"unicode"

	"github.com/evalcal/evalcal/inspection"
)

// Defaults of the generation parameters.
const (
	// DefaultMaxOutputTokens bounds one answer: an inspection with a
	// dozen flags is under 1,000 tokens; the rest is room for a verbose
	// summary or a reasoning model's hidden tokens.
	DefaultMaxOutputTokens = 2048
	// DefaultPromptTokens is the budget for the run's files in one prompt
	// (about 128 KB of ASCII text), the template excluded.
	DefaultPromptTokens = 32000
	// MinPromptTokens is the smallest budget New accepts: below it the file
	// listing alone may not fit.
	MinPromptTokens = 1000
	// MaxPromptTokens is the largest budget New accepts (4M tokens,
	// beyond every model's context window).
	MaxPromptTokens = 4 << 20
)

// Versions hashed into Identity: bump them whenever what a model is shown
// or asked for changes.
const (
	// SchemaVersion is the version of the answer schema sent to the model
	// (see AnswerSchema).
	SchemaVersion = 1
	// PackVersion is the version of the packing rules and of the run
	// message's layout (see Pack).
	PackVersion = 1
)

// maxSecretFile bounds a key file read by ReadSecretFile.
const maxSecretFile = 64 << 10

// Config configures one judge. The zero value of each optional field
// selects its default.
type Config struct {
	// Provider is OpenAI ("openai") or Anthropic ("anthropic").
	Provider string
	// Model is the model name sent to the provider.
	Model string
	// BaseURL is the API base ("" selects the provider's: OpenAI
	// https://api.openai.com/v1, Anthropic https://api.anthropic.com). An
	// OpenAI-compatible server's base ends in /v1.
	BaseURL string
	// APIKey authenticates the requests; required (a local server that
	// checks no key accepts any non-empty value). It is never part of
	// Identity, an error or an Inspection.
	APIKey string
	// Temperature is the sampling temperature, 0..2 (default 0).
	Temperature float64
	// OmitTemperature sends no temperature at all (for models that reject
	// it; a 400 naming temperature also drops it, once, for the judge).
	OmitTemperature bool
	// MaxOutputTokens bounds one answer (max_completion_tokens /
	// max_tokens); 0 selects DefaultMaxOutputTokens.
	MaxOutputTokens int64
	// Seed is sent to OpenAI (plus the call's repeat index, see
	// inspection.RepeatOf) when not nil; the Messages API has no seed, so an
	// Anthropic judge rejects it.
	Seed *int64
	// LightPrompt and DeepPrompt are the text/template source of the
	// system prompt at each depth ("" selects the built-in one; see
	// PromptData for what a template can use).
	LightPrompt string
	DeepPrompt  string
	// PromptTokens is the token budget for the run's files in one prompt;
	// 0 selects DefaultPromptTokens.
	PromptTokens int64
	// HTTPClient sends the requests (nil: a new http.Client without a
	// timeout; the runner's context bounds each call). Its transport is
	// wrapped to bound response bodies.
	HTTPClient *http.Client
}

// String describes c without its API key, so that printing a Config
// cannot leak it.
func (c Config) String() string {
	key := "unset"
	if c.APIKey != "" {
		key = "set"
	}
	return fmt.Sprintf("llm.Config{%s:%s base=%q key=%s}", c.Provider, c.Model, c.BaseURL, key)
}

// GoString is String, for %#v.
func (c Config) GoString() string { return c.String() }

// ConfigFromEnv returns the configuration of provider:model with the API
// key and base URL from the environment: OPENAI_API_KEY and
// OPENAI_BASE_URL, or ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL (the
// provider's env prefix). It is the only place this package reads the
// environment. A missing key is reported by New, naming the variable.
func ConfigFromEnv(provider, model string) (Config, error) {
	cfg := Config{Provider: provider, Model: model}
	p, ok := providerNamed(provider)
	if !ok {
		return cfg, unknownProvider(provider)
	}
	cfg.APIKey = os.Getenv(p.env + "_API_KEY")
	cfg.BaseURL = os.Getenv(p.env + "_BASE_URL")
	return cfg, nil
}

// ReadSecretFile reads an API key from a regular file of at most 64 KiB
// (a file named by a flag, for users who keep keys out of the
// environment), trimmed of surrounding white space. Errors name the file,
// never its content.
func ReadSecretFile(path string) (string, error) {
	data, err := readRegularFile(path, maxSecretFile)
	if err != nil {
		return "", fmt.Errorf("llm: read key file: %w", err)
	}
	key := strings.TrimSpace(string(data))
	if key == "" {
		return "", fmt.Errorf("llm: read key file %s: empty", path)
	}
	return key, nil
}

// ReadPromptFile reads a prompt template (--light-prompt FILE) from a
// regular file of at most 1 MiB.
func ReadPromptFile(path string) (string, error) {
	data, err := readRegularFile(path, 1<<20)
	if err != nil {
		return "", fmt.Errorf("llm: read prompt: %w", err)
	}
	return string(data), nil
}

// readRegularFile reads path, refusing anything but a regular file (a
// FIFO would block) and anything over limit bytes.
func readRegularFile(path string, limit int64) ([]byte, error) {
	f, err := openRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s: larger than %d bytes", path, limit)
	}
	return data, nil
}

// Judge is an LLM inspector. It is safe for concurrent use.
type Judge struct {
	provider, model string
	key             string // only for redaction
	identity        string
	desc            identityDoc // what identity hashes (Describe)
	maxOutput       int64
	budget          int64
	temperature     float64
	seed            *int64
	system          map[inspection.Depth]string
	systemTokens    int64 // the larger of the two system prompts
	client          completer

	// noTemperature and textOnly are the one-time adaptations (see the
	// package doc); once set they stay set.
	noTemperature atomic.Bool
	textOnly      atomic.Bool
}

// New validates cfg and builds its judge. An unknown provider, an empty
// or malformed model name, a missing API key, a base URL that is not
// http(s) or carries credentials, a temperature outside 0..2, a negative
// token figure, a budget outside MinPromptTokens..MaxPromptTokens, a seed
// for Anthropic, or a template that does not parse or execute is an
// error naming the field.
func New(cfg Config) (*Judge, error) {
	prov, ok := providerNamed(cfg.Provider)
	if !ok {
		return nil, unknownProvider(cfg.Provider)
	}
	base := prov.base
	if err := checkModel(cfg.Model); err != nil {
		return nil, fmt.Errorf("llm: %s: %w", cfg.Provider, err)
	}
	name := cfg.Provider + ":" + cfg.Model
	if cfg.APIKey == "" {
		return nil, fmt.Errorf("llm: %s: no API key (set %s_API_KEY; a local server that checks none accepts any value)",
			name, prov.env)
	}
	if cfg.BaseURL != "" {
		var err error
		if base, err = checkBaseURL(cfg.BaseURL); err != nil {
			return nil, fmt.Errorf("llm: %s: base URL: %w", name, err)
		}
	}
	if err := CheckTemperature(cfg.Temperature); err != nil {
		return nil, fmt.Errorf("llm: %s: temperature %w", name, err)
	}
	if err := CheckMaxOutputTokens(cfg.MaxOutputTokens); err != nil {
		return nil, fmt.Errorf("llm: %s: max output tokens %w", name, err)
	}
	if cfg.MaxOutputTokens == 0 {
		cfg.MaxOutputTokens = DefaultMaxOutputTokens
	}
	if err := CheckPromptTokens(cfg.PromptTokens); err != nil {
		return nil, fmt.Errorf("llm: %s: prompt token budget %w", name, err)
	}
	if cfg.PromptTokens == 0 {
		cfg.PromptTokens = DefaultPromptTokens
	}
	if prov.check != nil {
		if err := prov.check(cfg); err != nil {
			return nil, fmt.Errorf("llm: %s: %w", name, err)
		}
	}
	system := map[inspection.Depth]string{}
	for _, p := range []struct {
		depth inspection.Depth
		text  string
	}{{inspection.Light, cfg.LightPrompt}, {inspection.Deep, cfg.DeepPrompt}} {
		s, err := renderSystemPrompt(p.depth, p.text)
		if err != nil {
			return nil, fmt.Errorf("llm: %s: %w", name, err)
		}
		system[p.depth] = s
	}
	j := &Judge{
		provider:    cfg.Provider,
		model:       cfg.Model,
		key:         cfg.APIKey,
		maxOutput:   cfg.MaxOutputTokens,
		budget:      cfg.PromptTokens,
		temperature: cfg.Temperature,
		seed:        cfg.Seed,
		system:      system,
		systemTokens: max(EstimateTokens([]byte(system[inspection.Light])),
			EstimateTokens([]byte(system[inspection.Deep]))),
	}
	if cfg.OmitTemperature {
		j.noTemperature.Store(true)
	}
	j.identity, j.desc = identity(cfg, base, system)
	hc := limitedClient(cfg.HTTPClient)
	j.client = prov.client(base, cfg.APIKey, hc)
	return j, nil
}

// checkModel accepts a non-empty name of at most 256 bytes without space
// or control characters (model names such as "gpt-4o-2024-08-06",
// "llama3.1:8b" or "meta-llama/Llama-3.1-8B-Instruct").
func checkModel(m string) error {
	switch {
	case m == "":
		return errors.New("empty model name")
	case len(m) > 256:
		return fmt.Errorf("model name of %d bytes, want at most 256", len(m))
	}
	for _, r := range m {
		if unicode.IsSpace(r) || unicode.IsControl(r) || r == unicode.ReplacementChar {
			return fmt.Errorf("model name %q holds a space or control character", m)
		}
	}
	return nil
}

// checkBaseURL accepts an absolute http or https URL without user
// information and returns it without a trailing slash. The error never
// quotes a URL that carries credentials.
func checkBaseURL(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", errors.New("not a URL")
	}
	switch {
	case u.User != nil:
		return "", errors.New("must not carry credentials (user:password@); give the key as the API key")
	case u.Scheme != "http" && u.Scheme != "https":
		return "", fmt.Errorf("scheme %q, want http or https", u.Scheme)
	case u.Host == "":
		return "", errors.New("no host")
	case u.Fragment != "":
		return "", errors.New("must not have a fragment")
	}
	return strings.TrimRight(u.String(), "/"), nil
}

// identityDoc is what Identity hashes: everything that can change an
// answer, and nothing secret.
type identityDoc struct {
	Provider        string   `json:"provider"`
	BaseURL         string   `json:"base_url"`
	Model           string   `json:"model"`
	Temperature     *float64 `json:"temperature"`
	MaxOutputTokens int64    `json:"max_output_tokens"`
	Seed            *int64   `json:"seed"`
	PromptTokens    int64    `json:"prompt_tokens"`
	LightPrompt     string   `json:"light_prompt_sha256"`
	DeepPrompt      string   `json:"deep_prompt_sha256"`
	SchemaVersion   int      `json:"schema_version"`
	PackVersion     int      `json:"pack_version"`
}

func identity(cfg Config, base string, system map[inspection.Depth]string) (string, identityDoc) {
	doc := identityDoc{
		Provider:        cfg.Provider,
		BaseURL:         base,
		Model:           cfg.Model,
		MaxOutputTokens: cfg.MaxOutputTokens,
		Seed:            cfg.Seed,
		PromptTokens:    cfg.PromptTokens,
		LightPrompt:     sha256Hex(system[inspection.Light]),
		DeepPrompt:      sha256Hex(system[inspection.Deep]),
		SchemaVersion:   SchemaVersion,
		PackVersion:     PackVersion,
	}
	if !cfg.OmitTemperature {
		t := cfg.Temperature
		doc.Temperature = &t
	}
	data, _ := json.Marshal(doc) // cannot fail: plain fields, finite numbers (checked by New)
	return cfg.Provider + ":" + cfg.Model + "@" + sha256Hex(string(data))[:16], doc
}

// Description is what Identity hashes, field by field, so that two judges
// can be told apart in words (evalcal drift and anchor freeze record it).
type Description struct {
	Provider, BaseURL, Model string
	// Parameters are the generation parameters as text: temperature
	// ("omitted" for a model that rejects it), max_output_tokens, seed
	// ("not sent"), prompt_tokens, schema_version and pack_version.
	Parameters map[string]string
	// PromptSHA256 is the hex SHA-256 of each depth's rendered system
	// prompt.
	PromptSHA256 map[inspection.Depth]string
}

// Describe returns what Identity is a hash of.
func (j *Judge) Describe() Description {
	d := j.desc
	temp, seed := "omitted", "not sent"
	if d.Temperature != nil {
		temp = strconv.FormatFloat(*d.Temperature, 'g', -1, 64)
	}
	if d.Seed != nil {
		seed = strconv.FormatInt(*d.Seed, 10)
	}
	return Description{Provider: d.Provider, BaseURL: d.BaseURL, Model: d.Model,
		Parameters: map[string]string{"temperature": temp, "seed": seed,
			"max_output_tokens": strconv.FormatInt(d.MaxOutputTokens, 10), "prompt_tokens": strconv.FormatInt(d.PromptTokens, 10),
			"schema_version": strconv.Itoa(d.SchemaVersion), "pack_version": strconv.Itoa(d.PackVersion)},
		PromptSHA256: map[inspection.Depth]string{inspection.Light: d.LightPrompt, inspection.Deep: d.DeepPrompt}}
}

func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// Identity is "provider:model@" and the first 16 hex digits of the
// SHA-256 of everything that can change an answer: provider, base URL,
// model, temperature (or its omission), max output tokens, seed, prompt
// token budget, the SHA-256 of each depth's rendered system prompt (the
// template and what it shows), SchemaVersion and PackVersion. The API key
// is not part of it. The temperature dropped after a 400 does not change
// it: that happens for every call of the same model alike.
func (j *Judge) Identity() string { return j.identity }

// Model is the model name prices are looked up by (inspection.Billed).
func (j *Judge) Model() string { return j.model }

// Name is "provider:model", how errors name the judge.
func (j *Judge) Name() string { return j.provider + ":" + j.model }

// MaxCallTokens bounds the tokens of one Inspect call, its repair
// attempt included (inspection.Billed): input twice the system prompt, the
// run message at its full budget and the message overhead, plus the first
// answer sent back with the repair request; output twice the max output
// tokens. Token counts are this package's estimate (see EstimateTokens)
// plus 25% for tokenizers that count more.
func (j *Judge) MaxCallTokens() (input, output int64) {
	return j.callTokens(j.budget)
}

// MaxRunTokens bounds the tokens of one Inspect call on run
// (inspection.RunBound): as MaxCallTokens, with the run message's content at
// most the run's size in bytes plus its file listing (EstimateTokens never
// counts more than one token a byte), when that is less than the budget.
func (j *Judge) MaxRunTokens(run inspection.Run, _ inspection.Depth) (input, output int64) {
	content := j.budget
	if run.SizeBytes > 0 {
		content = min(content, run.SizeBytes+64*int64(run.Files)+1024)
	}
	return j.callTokens(content)
}

// callTokens is MaxCallTokens for a run message of content tokens.
func (j *Judge) callTokens(content int64) (input, output int64) {
	one := j.systemTokens + content + runMessageOverheadTokens
	input = 2*one + j.maxOutput + repairOverheadTokens
	input += input / 4
	return input, 2 * j.maxOutput
}

// Overheads in estimated tokens, counted in MaxCallTokens: the run
// message's header lines and cut notes beyond the budget's files, and a
// repair request's error text and instructions.
const (
	runMessageOverheadTokens = 256
	repairOverheadTokens     = 512
)
