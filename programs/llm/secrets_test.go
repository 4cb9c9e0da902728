package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/openai/openai-go/v3"

	"github.com/evalcal/evalcal/inspection"
	"github.com/evalcal/evalcal/internal/judgeserver"
)

// TestPlantedKeyNeverLeaks plants a key and runs both providers through
// every fault; the key, and every 8-byte piece of it, must be absent from
// every error (%v, %+v, %#v, %q), every inspection, every identity and
// every printed Config. The SDK errors (whose text may quote the request)
// must not be reachable through the chain either.
func TestPlantedKeyNeverLeaks(t *testing.T) {
	const planted = "sk-planted-SECRET-7f3a9c2e5b1d4086"
	run := corpusRun(t, runClean)
	var outputs []string
	for _, p := range providers {
		// The server answers 401 with the key masked the way providers do
		// (first 3 and last 2 characters), and 401 for a wrong key.
		fp := startServer(t, judgeserver.Options{APIKey: "another-key-entirely"})
		models := []string{judgeserver.ModelMini, "judge-huge"}
		for _, k := range judgeserver.FaultKinds {
			if k != judgeserver.FaultSlow {
				models = append(models, judgeserver.ModelMini+"+"+k)
			}
		}
		for _, accept := range []bool{false, true} {
			srv := fp
			if accept {
				srv = startServer(t, judgeserver.Options{APIKey: planted})
			}
			for _, m := range models {
				cfg := Config{Provider: p, Model: m, BaseURL: srv.baseURL(p), APIKey: planted}
				j, err := New(cfg)
				if err != nil {
					t.Fatal(err)
				}
				outputs = append(outputs, j.Identity(), fmt.Sprintf("%v %+v %#v %s", cfg, cfg, cfg, cfg))
				for _, d := range []inspection.Depth{inspection.Light, inspection.Deep} {
					insp, err := j.Inspect(context.Background(), run, d)
					if err != nil {
						outputs = append(outputs, fmt.Sprintf("%v|%+v|%#v|%q", err, err, err, err.Error()))
						for e := err; e != nil; e = errors.Unwrap(e) {
							outputs = append(outputs, e.Error())
						}
						var oe *openai.Error
						var ae *anthropic.Error
						if errors.As(err, &oe) || errors.As(err, &ae) {
							t.Errorf("%s %s: the SDK error is reachable from %v", p, m, err)
						}
						if u, ok := inspection.UsageOf(err); ok {
							data, _ := json.Marshal(u)
							outputs = append(outputs, string(data))
						}
						continue
					}
					data, _ := json.Marshal(insp)
					outputs = append(outputs, string(data))
				}
			}
		}
	}
	// A connection error and a bad config.
	j, _ := New(Config{Provider: OpenAI, Model: "m", BaseURL: "http://127.0.0.1:1/v1?x=1", APIKey: planted})
	_, err := j.Inspect(context.Background(), run, inspection.Light)
	outputs = append(outputs, fmt.Sprint(err))
	_, err = New(Config{Provider: OpenAI, Model: "m", BaseURL: "http://user:" + planted + "@host/v1", APIKey: planted})
	outputs = append(outputs, fmt.Sprint(err))

	all := strings.Join(outputs, "\n")
	if !strings.Contains(all, "authentication failed (401") {
		t.Fatal("no 401 was exercised")
	}
	for i := 0; i+8 <= len(planted); i++ {
		if piece := planted[i : i+8]; strings.Contains(all, piece) {
			at := strings.Index(all, piece)
			t.Fatalf("key piece %q leaked: ...%s...", piece, all[max(0, at-80):min(len(all), at+80)])
		}
	}
	if strings.Contains(all, "sk-********") {
		t.Error("the masked key leaked")
	}
}

// TestRedactSecret: the key, a masked echo of it and any word sharing 8
// bytes with it are removed; other words stay.
func TestRedactSecret(t *testing.T) {
	const key = "sk-live-abcdef0123456789"
	cases := []struct{ in, want string }{
		{"Incorrect API key provided: sk-********89. See docs", "Incorrect API key provided: [redacted]. See docs"},
		{"key " + key + " is bad", "key [redacted] is bad"},
		{"prefix xxabcdef0123yy suffix", "prefix [redacted] suffix"},
		{"nothing secret here", "nothing secret here"},
		{`"` + key + `"`, `"[redacted]"`},
	}
	for _, c := range cases {
		if got := redactSecret(c.in, key); got != c.want {
			t.Errorf("redact(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if got := redactSecret("anything", ""); got != "anything" {
		t.Errorf("no key: %q changed", got)
	}
}

// TestRedactShortDummyKey: a dummy key shorter than a real one ("x", "demo")
// is removed where it stands alone, never inside the provider's words
// (issue 28: "The model does not e[redacted]ist").
func TestRedactShortDummyKey(t *testing.T) {
	cases := []struct{ key, in, want string }{
		{"x", "The model `judge-x` does not exist", "The model `judge-x` does not exist"},
		{"x", "Incorrect API key provided: x.", "Incorrect API key provided: [redacted]."},
		{"demo", "demonstration key demo rejected", "demonstration key [redacted] rejected"},
		{"k1", "bearer k1", "bearer [redacted]"},
	}
	for _, c := range cases {
		if got := redactSecret(c.in, c.key); got != c.want {
			t.Errorf("redact(%q, key %q) = %q, want %q", c.in, c.key, got, c.want)
		}
	}
}

// TestKeyOnlyInItsHeader: the key travels in one header only (a bearer
// Authorization; the Anthropic SDK v2 sends it so too, older ones as
// x-api-key), never in a body or another header.
func TestKeyOnlyInItsHeader(t *testing.T) {
	run := corpusRun(t, runClean)
	for _, p := range providers {
		fp := startServer(t, judgeserver.Options{})
		if _, err := fp.judge(t, p, judgeserver.ModelMini).Inspect(context.Background(), run, inspection.Light); err != nil {
			t.Fatal(err)
		}
		r := fp.rec.all()[0]
		if strings.Contains(string(r.body), testKey) {
			t.Errorf("%s: the key is in the request body", p)
		}
		header, want := "Authorization", "Bearer "+testKey
		if p == Anthropic && r.header.Get("X-Api-Key") != "" {
			header, want = "X-Api-Key", testKey
		}
		if got := r.header.Get(header); got != want {
			t.Errorf("%s: %s = %q, want the key", p, header, got)
		}
		for name := range r.header {
			if name != http.CanonicalHeaderKey(header) && strings.Contains(strings.Join(r.header[name], " "), testKey) {
				t.Errorf("%s: the key is in header %s", p, name)
			}
		}
	}
}
