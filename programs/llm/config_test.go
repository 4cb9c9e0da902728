package llm

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/evalcal/evalcal/inspection"
	"github.com/evalcal/evalcal/internal/judgeserver"
	"github.com/evalcal/evalcal/sampler"
)

func validConfig() Config {
	return Config{Provider: OpenAI, Model: "judge-mini", APIKey: testKey}
}

func TestNewRejectsBadConfig(t *testing.T) {
	seed := int64(1)
	cases := []struct {
		name string
		edit func(*Config)
		want string
	}{
		{"unknown provider", func(c *Config) { c.Provider = "gemini" }, `unknown provider "gemini" (want openai or anthropic)`},
		{"empty model", func(c *Config) { c.Model = "" }, "empty model name"},
		{"model with a space", func(c *Config) { c.Model = "gpt 4" }, "space or control character"},
		{"missing key", func(c *Config) { c.APIKey = "" }, "openai:judge-mini: no API key (set OPENAI_API_KEY"},
		{"missing anthropic key", func(c *Config) { c.Provider, c.APIKey = Anthropic, "" }, "set ANTHROPIC_API_KEY"},
		{"base URL scheme", func(c *Config) { c.BaseURL = "ftp://host/v1" }, `scheme "ftp", want http or https`},
		{"base URL credentials", func(c *Config) { c.BaseURL = "https://u:p@host/v1" }, "must not carry credentials"},
		{"base URL host", func(c *Config) { c.BaseURL = "http:///v1" }, "no host"},
		{"temperature", func(c *Config) { c.Temperature = 2.5 }, "temperature 2.5 is outside 0..2"},
		{"max output", func(c *Config) { c.MaxOutputTokens = -1 }, "max output tokens -1 is negative"},
		{"budget small", func(c *Config) { c.PromptTokens = 10 }, "prompt token budget 10 is outside 1000..4194304"},
		{"anthropic seed", func(c *Config) { c.Provider, c.Seed = Anthropic, &seed }, "takes no seed"},
		{"anthropic max tokens", func(c *Config) { c.Provider, c.MaxOutputTokens = Anthropic, 64000 }, "streaming is required"},
		{"template syntax", func(c *Config) { c.LightPrompt = "{{.Depth" }, "light prompt template"},
		{"template field", func(c *Config) { c.DeepPrompt = "{{.Nope}}" }, "deep prompt template"},
		{"template empty", func(c *Config) { c.LightPrompt = "{{/* nothing */}}  " }, "renders to nothing"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := validConfig()
			c.edit(&cfg)
			_, err := New(cfg)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("New: %v, want an error saying %q", err, c.want)
			}
			if strings.Contains(err.Error(), "u:p@") {
				t.Errorf("the error quotes the credentials: %v", err)
			}
		})
	}
	if _, err := New(validConfig()); err != nil {
		t.Errorf("valid config: %v", err)
	}
}

func TestConfigFromEnv(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "ok-1")
	t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
	t.Setenv("ANTHROPIC_API_KEY", "ak-2")
	t.Setenv("ANTHROPIC_BASE_URL", "")
	c, err := ConfigFromEnv(OpenAI, "m")
	if err != nil || c.APIKey != "ok-1" || c.BaseURL != "http://127.0.0.1:9/v1" || c.Model != "m" {
		t.Errorf("openai: %+v %v", c, err)
	}
	c, err = ConfigFromEnv(Anthropic, "claude")
	if err != nil || c.APIKey != "ak-2" || c.BaseURL != "" {
		t.Errorf("anthropic: %v %v", c, err)
	}
	if _, err := ConfigFromEnv("mistral", "m"); err == nil {
		t.Error("unknown provider accepted")
	}
}

// TestIdentityChangesWithEachParameter: every parameter that can change
// an answer changes the identity; the key does not.
func TestIdentityChangesWithEachParameter(t *testing.T) {
	seed, seed2 := int64(1), int64(2)
	id := func(edit func(*Config)) string {
		cfg := validConfig()
		edit(&cfg)
		j, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		return j.Identity()
	}
	base := id(func(*Config) {})
	if !regexp.MustCompile(`^openai:judge-mini@[0-9a-f]{16}$`).MatchString(base) {
		t.Errorf("identity %q, want openai:judge-mini@<16 hex>", base)
	}
	if again := id(func(*Config) {}); again != base {
		t.Errorf("identity not stable: %q then %q", base, again)
	}
	if other := id(func(c *Config) { c.APIKey = "another" }); other != base {
		t.Errorf("the key changed the identity: %q vs %q", other, base)
	}
	if same := id(func(c *Config) { c.BaseURL = DefaultOpenAIBaseURL + "/" }); same != base {
		t.Errorf("the default base URL spelt out changed the identity: %q", same)
	}
	variants := map[string]func(*Config){
		"provider":      func(c *Config) { c.Provider = Anthropic },
		"base URL":      func(c *Config) { c.BaseURL = "http://127.0.0.1:8080/v1" },
		"model":         func(c *Config) { c.Model = "judge-large" },
		"temperature":   func(c *Config) { c.Temperature = 0.7 },
		"omit temp":     func(c *Config) { c.OmitTemperature = true },
		"max output":    func(c *Config) { c.MaxOutputTokens = 1000 },
		"seed":          func(c *Config) { c.Seed = &seed },
		"another seed":  func(c *Config) { c.Seed = &seed2 },
		"budget":        func(c *Config) { c.PromptTokens = 5000 },
		"light prompt":  func(c *Config) { c.LightPrompt = "Inspect at {{.Depth}} depth. {{.Schema}}" },
		"deep prompt":   func(c *Config) { c.DeepPrompt = "Inspect deeply. {{.Schema}}" },
		"same as other": func(c *Config) { c.LightPrompt = BuiltinPrompt("deep") },
	}
	seen := map[string]string{base: "base"}
	for name, edit := range variants {
		got := id(edit)
		if prev, dup := seen[got]; dup {
			t.Errorf("%s gives the identity of %s: %q", name, prev, got)
		}
		seen[got] = name
	}
}

func TestConfigPrintsWithoutKey(t *testing.T) {
	cfg := validConfig()
	for _, s := range []string{cfg.String(), cfg.GoString()} {
		if strings.Contains(s, testKey) || !strings.Contains(s, "key=set") {
			t.Errorf("%q: want the key hidden, and said to be set", s)
		}
	}
}

func TestMaxCallTokens(t *testing.T) {
	cfg := validConfig()
	cfg.PromptTokens, cfg.MaxOutputTokens = 10000, 500
	j, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	in, out := j.MaxCallTokens()
	if out != 1000 {
		t.Errorf("output bound %d, want 2 x 500", out)
	}
	// Two prompts of budget + template, plus the first answer, plus 25%.
	if low := (2*(10000+j.systemTokens) + 500) * 5 / 4; in < low {
		t.Errorf("input bound %d, want at least %d", in, low)
	}
	if j.Model() != "judge-mini" || j.Name() != "openai:judge-mini" {
		t.Errorf("Model %q, Name %q", j.Model(), j.Name())
	}
}

func TestReadSecretFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "key")
	if err := os.WriteFile(p, []byte("  sk-file-key\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if k, err := ReadSecretFile(p); err != nil || k != "sk-file-key" {
		t.Errorf("ReadSecretFile = %q, %v", k, err)
	}
	big := filepath.Join(dir, "big")
	if err := os.WriteFile(big, make([]byte, maxSecretFile+1), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadSecretFile(big); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("a too large file: %v", err)
	}
	empty := filepath.Join(dir, "empty")
	if err := os.WriteFile(empty, []byte("\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadSecretFile(empty); err == nil {
		t.Error("an empty key file was accepted")
	}
	// A FIFO is refused at once, not waited on.
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("mkfifo:", err)
	}
	done := make(chan error, 1)
	go func() { _, err := ReadSecretFile(fifo); done <- err }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("FIFO: %v, want not a regular file", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("ReadSecretFile blocked on a FIFO")
	}
}

func TestReadPromptFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "light.tmpl")
	if err := os.WriteFile(p, []byte("Judge {{.Depth}}: {{.Schema}}"), 0o644); err != nil {
		t.Fatal(err)
	}
	text, err := ReadPromptFile(p)
	if err != nil {
		t.Fatal(err)
	}
	cfg := validConfig()
	cfg.LightPrompt = text
	j, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if s := j.system["light"]; !strings.HasPrefix(s, "Judge light: {") {
		t.Errorf("light system prompt %.40q, want the user template rendered", s)
	}
	if _, err := ReadPromptFile(filepath.Join(t.TempDir(), "none")); err == nil {
		t.Error("a missing prompt file was accepted")
	}
}

// The budget's per-run bound holds on every corpus run, both providers,
// both depths: the usage the server reports never exceeds it, and it is
// never above the run-independent bound.
func TestMaxRunTokensBoundsEveryCorpusCall(t *testing.T) {
	srv := startServer(t, judgeserver.Options{})
	runs, err := sampler.Discover([]string{"../../testdata/runs"})
	if err != nil {
		t.Fatal(err)
	}
	for _, provider := range providers {
		j := srv.judge(t, provider, "judge-large")
		maxIn, maxOut := j.MaxCallTokens()
		for _, r := range runs {
			if !r.Valid {
				continue
			}
			for _, d := range []inspection.Depth{inspection.Light, inspection.Deep} {
				in, out := j.MaxRunTokens(r, d)
				if in > maxIn || out > maxOut {
					t.Fatalf("%s %s: run bound %d/%d above the call bound %d/%d", r.ID, d, in, out, maxIn, maxOut)
				}
				insp, err := j.Inspect(context.Background(), r, d)
				if err != nil {
					t.Fatalf("%s %s %s: %v", provider, r.ID, d, err)
				}
				u := insp.Cost.Usage
				if u.Input > in || u.Output > out {
					t.Errorf("%s %s %s: used %d/%d tokens, over the bound %d/%d", provider, r.ID, d, u.Input, u.Output, in, out)
				}
			}
		}
	}
}
