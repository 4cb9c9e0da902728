package llm

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/evalcal/evalcal/inspection"
)

// hostileServer is an OpenAI- and Anthropic-compatible server on
// 127.0.0.1 that answers every request with content and the usage JSON
// given (empty: none), counting the requests.
type hostileServer struct {
	url      string
	requests atomic.Int64
}

func startHostile(t *testing.T, content, openAIUsage, anthropicUsage string) *hostileServer {
	t.Helper()
	hs := &hostileServer{}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hs.requests.Add(1)
		w.Header().Set("Content-Type", "application/json")
		var body map[string]any
		if strings.HasSuffix(r.URL.Path, "/messages") {
			body = map[string]any{"id": "msg_1", "type": "message", "role": "assistant", "model": "m",
				"stop_reason": "end_turn", "content": []any{map[string]any{"type": "text", "text": content}}}
			if anthropicUsage != "" {
				body["usage"] = json.RawMessage(anthropicUsage)
			}
		} else {
			body = map[string]any{"id": "c1", "object": "chat.completion", "created": 1, "model": "m",
				"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
					"message": map[string]any{"role": "assistant", "content": content}}}}
			if openAIUsage != "" {
				body["usage"] = json.RawMessage(openAIUsage)
			}
		}
		json.NewEncoder(w).Encode(body)
	}))
	t.Cleanup(ts.Close)
	hs.url = ts.URL
	return hs
}

// judge is a judge of provider against the server, with key.
func (hs *hostileServer) judge(t *testing.T, provider, key string) *Judge {
	t.Helper()
	base := hs.url
	if provider == OpenAI {
		base += "/v1"
	}
	j, err := New(Config{Provider: provider, Model: "m", BaseURL: base, APIKey: key})
	if err != nil {
		t.Fatal(err)
	}
	return j
}

// inspectWithin runs Inspect under a timeout of limit and fails the test
// when it has not returned after 5 s more (the goroutine is left behind:
// the test has failed).
func inspectWithin(t *testing.T, j *Judge, limit time.Duration) (inspection.Inspection, error, time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	type result struct {
		insp inspection.Inspection
		err  error
	}
	done := make(chan result, 1)
	start := time.Now()
	go func() {
		insp, err := j.Inspect(ctx, corpusRun(t, runClean), inspection.Light)
		done <- result{insp, err}
	}()
	select {
	case r := <-done:
		return r.insp, r.err, time.Since(start)
	case <-time.After(limit + 5*time.Second):
		t.Fatalf("Inspect still running %v after its %v timeout", 5*time.Second, limit)
		return inspection.Inspection{}, nil, 0
	}
}

// Issue 27 (1): an answer of `{"a":` 200,000 times (1 MB) is read in
// bounded work and within the call's timeout, on both SDK paths.
func TestHostileAnswerParsingIsBounded(t *testing.T) {
	bomb := strings.Repeat(`{"a":`, 200_000)
	for _, p := range providers {
		hs := startHostile(t, bomb, `{"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20}`,
			`{"input_tokens": 10, "output_tokens": 10}`)
		_, err, took := inspectWithin(t, hs.judge(t, p, testKey), 2*time.Second)
		if err == nil || took > 3*time.Second {
			t.Errorf("%s: %v after %v, want a failure within the 2 s timeout", p, err, took)
		}
	}
	// parseAnswer alone, without a deadline: bounded work, not minutes.
	start := time.Now()
	_, err := parseAnswer(context.Background(), bomb, parseRun, inspection.Light)
	if err == nil || time.Since(start) > 2*time.Second*raceSlowdown {
		t.Errorf("parseAnswer: %v after %v, want a quick failure", err, time.Since(start))
	}
	// A cancelled context stops it at once, with the context's error.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := parseAnswer(ctx, goodAnswer, parseRun, inspection.Light); err != context.Canceled {
		t.Errorf("cancelled: %v, want context.Canceled", err)
	}
}

// TestParseAnswerWorkIsLinear: nested objects and brace runs of growing
// size take time growing no faster than their size (bounded decodes).
func TestParseAnswerWorkIsLinear(t *testing.T) {
	for _, shape := range []func(n int) string{
		func(n int) string { return strings.Repeat(`{"a":`, n) },
		func(n int) string { return strings.Repeat("{", n) + strings.Repeat("}", n) },
		func(n int) string { return strings.Repeat(`{"a": 1} `, n) },
		func(n int) string { return strings.Repeat(`{"a":[`, n) },
	} {
		for _, n := range []int{100_000, 400_000} {
			start := time.Now()
			parseAnswer(context.Background(), shape(n), parseRun, inspection.Light)
			// Milliseconds when linear; the quadratic parser took minutes.
			if d := time.Since(start); d > 3*time.Second*raceSlowdown {
				t.Errorf("%.20q x %d: %v, want well under 3 s", shape(1), n, d)
			}
		}
	}
}

// Issue 27 (4): a valid answer quoting the key (a run file held it, or the
// server is hostile) loses it before it leaves Inspect, in every text
// field; the same holds for an invalid one's error.
func TestKeyInAValidAnswerIsRedacted(t *testing.T) {
	const key = "sk-planted-ANSWER-5e1f0c9a7d3b2846"
	answer := `{"runtime_fidelity": 80, "task_effectiveness": 70, "services": [{"name": "api", "status": "ok ` + key + `"}],
		"flags": [{"id": "key-leak", "severity": "warning", "description": "Bearer ` + key + `", "evidence": "Authorization: Bearer ` + key + `"}],
		"verdict": "pass", "summary": "the log shows Bearer ` + key + ` and sk-pla***2846"}`
	for _, p := range providers {
		hs := startHostile(t, answer, "", "")
		insp, err := hs.judge(t, p, key).Inspect(context.Background(), corpusRun(t, runClean), inspection.Light)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		data, _ := json.Marshal(insp)
		for i := 0; i+8 <= len(key); i++ {
			if strings.Contains(string(data), key[i:i+8]) {
				t.Fatalf("%s: the inspection holds %q of the key: %s", p, key[i:i+8], data)
			}
		}
		if !strings.Contains(insp.Summary, "Bearer [redacted]") || insp.Flags[0].ID != "key-leak" {
			t.Errorf("%s: summary %q flags %+v", p, insp.Summary, insp.Flags)
		}
	}
}

// Issue 27 (6): usage no request can have (overflowing, negative) fails
// the call, which is booked at its bound, never at a negative or wrapped
// figure.
func TestImpossibleUsageIsBookedAtTheBound(t *testing.T) {
	cases := []struct{ name, openAI, anthropic string }{
		{"overflow", `{"prompt_tokens": 9000000000000000000, "completion_tokens": 10}`,
			`{"input_tokens": 9000000000000000000, "cache_read_input_tokens": 9000000000000000000, "output_tokens": 10}`},
		{"negative", `{"prompt_tokens": -20000000000, "completion_tokens": 10}`,
			`{"input_tokens": 10, "output_tokens": -20000000000}`},
		{"absurd", `{"prompt_tokens": 10, "completion_tokens": 10, "completion_tokens_details": {"reasoning_tokens": 5000000000}}`,
			`{"input_tokens": 10, "cache_creation_input_tokens": 5000000000, "output_tokens": 10}`},
	}
	run := corpusRun(t, runClean)
	for _, c := range cases {
		for _, p := range providers {
			usage := c.openAI
			if p == Anthropic {
				usage = c.anthropic
			}
			hs := startHostile(t, goodAnswer, usage, usage)
			j := hs.judge(t, p, testKey)
			_, err := j.Inspect(context.Background(), run, inspection.Light)
			if classOf(err) != permanent || !strings.Contains(err.Error(), "impossible usage") {
				t.Errorf("%s/%s: %v, want a permanent impossible-usage error", c.name, p, err)
				continue
			}
			u, billed := inspection.UsageOf(err)
			in, out := j.MaxRunTokens(run, inspection.Light)
			if !billed || u.Input != in || u.Output != out || !u.Missing || u.Calls != 1 {
				t.Errorf("%s/%s: usage %+v, want the bound %d/%d, missing", c.name, p, u, in, out)
			}
		}
	}
}

// Issue 27 (8): waits too long for a Duration (or for any sane cap) are
// the longest wait, so they exceed --max-retry-wait; NaN is no wait.
func TestParseRetryAfterHugeValuesExceedAnyCap(t *testing.T) {
	for _, h := range []map[string]string{
		{"Retry-After": "1000000000"}, {"Retry-After": "999999999"}, {"Retry-After": "1e300"},
		{"Retry-After": "inf"}, {"Retry-After": "+Inf"}, {"Retry-After": "1e400"},
		{"Retry-After-Ms": "1e13"}, {"Retry-After-Ms": "inf"},
	} {
		hdr := http.Header{}
		for k, v := range h {
			hdr.Set(k, v)
		}
		d, has := parseRetryAfter(hdr, time.Now())
		if !has || d < 24*time.Hour {
			t.Errorf("%v: %v %v, want a wait of at least a day", h, d, has)
		}
	}
	for _, v := range []string{"NaN", "-inf", "-1e400"} {
		hdr := http.Header{"Retry-After": {v}}
		if d, has := parseRetryAfter(hdr, time.Now()); has {
			t.Errorf("%s: %v, want no wait", v, d)
		}
	}
}

// Issue 27 (14): a redirect to another origin is refused once, as fatal
// (it would recur on every call), not retried as transient; the key never
// reaches the other origin.
func TestCrossOriginRedirectIsFatal(t *testing.T) {
	var elsewhere atomic.Int64
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		elsewhere.Add(1)
	}))
	defer other.Close()
	for _, p := range providers {
		var requests atomic.Int64
		ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			requests.Add(1)
			http.Redirect(w, r, other.URL+r.URL.Path, http.StatusTemporaryRedirect)
		}))
		base := ts.URL
		if p == OpenAI {
			base += "/v1"
		}
		j, err := New(Config{Provider: p, Model: "m", BaseURL: base, APIKey: testKey})
		if err != nil {
			t.Fatal(err)
		}
		_, err = j.Inspect(context.Background(), corpusRun(t, runClean), inspection.Light)
		if classOf(err) != fatal || !strings.Contains(err.Error(), "another origin") {
			t.Errorf("%s: %v (%s), want a fatal cross-origin error", p, err, classOf(err))
		}
		if requests.Load() != 1 {
			t.Errorf("%s: %d requests, want 1", p, requests.Load())
		}
		ts.Close()
	}
	if elsewhere.Load() != 0 {
		t.Errorf("%d requests reached the other origin", elsewhere.Load())
	}
}
