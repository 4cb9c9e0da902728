package llm

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/evalcal/evalcal/inspection"
	"github.com/evalcal/evalcal/internal/judgeserver"
)

// TestInspectBothProvidersAskForStructuredOutput: one request per
// inspection, asking for the inspection schema strictly (OpenAI) or with a
// forced tool (Anthropic); the answer fills run_id, depth and system from
// the run, and the usage the server reported is the inspection's cost.
func TestInspectBothProvidersAskForStructuredOutput(t *testing.T) {
	run := corpusRun(t, runPlaceholder)
	for _, p := range providers {
		t.Run(p, func(t *testing.T) {
			fp := startServer(t, judgeserver.Options{})
			j := fp.judge(t, p, judgeserver.ModelLarge)
			insp, err := j.Inspect(context.Background(), run, inspection.Deep)
			if err != nil {
				t.Fatal(err)
			}
			if insp.RunID != run.ID || insp.Depth != inspection.Deep || insp.System != run.System {
				t.Errorf("run_id, depth, system = %q, %q, %q; want the run's %q, deep, %q",
					insp.RunID, insp.Depth, insp.System, run.ID, run.System)
			}
			if insp.Verdict != inspection.VerdictPartial || !hasFlag(insp, "placeholder-output") {
				t.Errorf("verdict %s, flags %v; want partial with placeholder-output", insp.Verdict, insp.Flags)
			}
			reqs := fp.rec.all()
			if len(reqs) != 1 {
				t.Fatalf("%d requests, want 1", len(reqs))
			}
			var body map[string]any
			if err := json.Unmarshal(reqs[0].body, &body); err != nil {
				t.Fatal(err)
			}
			if p == OpenAI {
				rf, _ := body["response_format"].(map[string]any)
				js, _ := rf["json_schema"].(map[string]any)
				if rf["type"] != "json_schema" || js["strict"] != true || js["schema"] == nil {
					t.Errorf("response_format = %v, want json_schema strict with the schema", rf)
				}
				if body["max_completion_tokens"] != float64(DefaultMaxOutputTokens) || body["temperature"] != 0.0 {
					t.Errorf("max_completion_tokens %v, temperature %v; want %d, 0", body["max_completion_tokens"], body["temperature"], DefaultMaxOutputTokens)
				}
			} else {
				tc, _ := body["tool_choice"].(map[string]any)
				tools, _ := body["tools"].([]any)
				if tc["type"] != "tool" || tc["name"] != schemaName || len(tools) != 1 {
					t.Errorf("tool_choice %v, %d tools; want a forced %s tool", tc, len(tools), schemaName)
				}
				if body["max_tokens"] != float64(DefaultMaxOutputTokens) || body["temperature"] != 0.0 {
					t.Errorf("max_tokens %v, temperature %v; want %d, 0", body["max_tokens"], body["temperature"], DefaultMaxOutputTokens)
				}
			}
			want := reportedUsage(t, p, reqs[0].resBody)
			got := insp.Cost.Usage
			if got == nil || got.Calls != 1 || got.Input != want.Input || got.Output != want.Output ||
				got.CachedInput != want.CachedInput || got.Model != judgeserver.ModelLarge || got.Missing {
				t.Errorf("usage %+v, want %+v in 1 call of %s", got, want, judgeserver.ModelLarge)
			}
			if insp.Cost.Tokens != want.Input+want.Output || insp.Cost.Seconds <= 0 {
				t.Errorf("cost %+v: want tokens %d and a positive wall time", insp.Cost, want.Input+want.Output)
			}
		})
	}
}

// reportedUsage reads the usage a response body reports, as the runner
// counts it (Anthropic's input_tokens exclude cached tokens).
func reportedUsage(t *testing.T, provider string, body []byte) inspection.Usage {
	t.Helper()
	var doc struct {
		Usage struct {
			PromptTokens     int64 `json:"prompt_tokens"`
			CompletionTokens int64 `json:"completion_tokens"`
			Details          struct {
				Cached int64 `json:"cached_tokens"`
			} `json:"prompt_tokens_details"`
			InputTokens  int64 `json:"input_tokens"`
			OutputTokens int64 `json:"output_tokens"`
			CacheRead    int64 `json:"cache_read_input_tokens"`
		} `json:"usage"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		t.Fatal(err)
	}
	u := doc.Usage
	if provider == OpenAI {
		return inspection.Usage{Input: u.PromptTokens, Output: u.CompletionTokens, CachedInput: u.Details.Cached}
	}
	return inspection.Usage{Input: u.InputTokens + u.CacheRead, Output: u.OutputTokens, CachedInput: u.CacheRead}
}

func hasFlag(insp inspection.Inspection, id string) bool {
	return slices.ContainsFunc(insp.Flags, func(f inspection.Flag) bool { return f.ID == id })
}

// class is an error's class for the runner.
type class string

const (
	ok        class = "ok"
	transient class = "transient"
	permanent class = "permanent"
	fatal     class = "fatal"
)

func classOf(err error) class {
	switch {
	case err == nil:
		return ok
	case inspection.IsFatal(err):
		return fatal
	case inspection.IsPermanent(err):
		return permanent
	}
	return transient
}

// TestInspectFaults drives both SDK paths through every fault of the
// judge server and checks the documented outcome: the error's class, the
// wait a transient error carries, the reason's words, the requests sent
// and the usage billed.
func TestInspectFaults(t *testing.T) {
	run := corpusRun(t, runClean)
	const retryAfter = 2500 * time.Millisecond
	cases := []struct {
		model string
		class class
		// after is the RetryAfter wanted (-1: none).
		after    time.Duration
		reason   []string
		requests int
		// billed is the calls whose usage the result carries (0: none).
		billed int64
	}{
		{"judge-mini+429", transient, retryAfter, []string{"rate limited (429", "Rate limit reached"}, 1, 0},
		{"judge-mini+429ms", transient, retryAfter, []string{"rate limited (429"}, 1, 0},
		{"judge-mini+429bare", transient, -1, []string{"rate limited (429"}, 1, 0},
		{"judge-mini+500", transient, -1, []string{"server error (500", "had an error"}, 1, 0},
		{"judge-mini+529", transient, retryAfter, []string{"overloaded (529"}, 1, 0},
		{"judge-mini+truncated", permanent, -1, []string{"not a valid inspection after a repair request", "output token limit", "raw answer"}, 2, 2},
		{"judge-mini+truncated*1", ok, -1, nil, 2, 2},
		{"judge-mini+badjson", permanent, -1, []string{"not a valid inspection after a repair request", "looks fine"}, 2, 2},
		{"judge-mini+refusal", permanent, -1, []string{"refused", "can't help"}, 1, 1},
		{"judge-mini+nousage", ok, -1, nil, 1, 1},
		{"judge-mini+401", fatal, -1, []string{":judge-mini+401: authentication failed (401"}, 1, 0},
		{"judge-mini+403", fatal, -1, []string{"permission denied (403"}, 1, 0},
		{"judge-mini+quota", fatal, -1, []string{"quota or credit exhausted"}, 1, 0},
		{"judge-mini+billing", fatal, -1, []string{"quota or credit exhausted (402 billing_error"}, 1, 0},
		{"judge-huge", fatal, -1, []string{"unknown model or wrong base URL (404"}, 1, 0},
		{"judge-mini+notemp", ok, -1, nil, 2, 1},
		{"judge-mini+noschema", ok, -1, nil, 2, 1},
		{"judge-mini+notemp+noschema", ok, -1, nil, 3, 1},
		{"judge-mini+noschema+truncated", permanent, -1, []string{"raw answer"}, 3, 2},
	}
	for _, p := range providers {
		for _, c := range cases {
			t.Run(p+"/"+c.model, func(t *testing.T) {
				fp := startServer(t, judgeserver.Options{RetryAfter: retryAfter})
				j := fp.judge(t, p, c.model)
				insp, err := j.Inspect(context.Background(), run, inspection.Light)
				if got := classOf(err); got != c.class {
					t.Fatalf("class %s (%v), want %s", got, err, c.class)
				}
				if n := fp.srv.Requests(); n != int64(c.requests) {
					t.Errorf("%d requests, want %d", n, c.requests)
				}
				d, has := inspection.RetryAfterOf(err)
				switch {
				case c.after < 0 && has:
					t.Errorf("RetryAfter %v, want none", d)
				case c.after >= 0 && (!has || d != c.after):
					t.Errorf("RetryAfter %v (%v), want %v", d, has, c.after)
				}
				for _, w := range c.reason {
					if err == nil || !strings.Contains(err.Error(), w) {
						t.Errorf("error %v does not say %q", err, w)
					}
				}
				var u inspection.Usage
				var billed bool
				if err != nil {
					u, billed = inspection.UsageOf(err)
				} else if insp.Cost.Usage != nil {
					u, billed = *insp.Cost.Usage, true
				}
				if c.billed == 0 && billed {
					t.Errorf("usage %+v attached, want none (nothing billed)", u)
				}
				if c.billed > 0 && (!billed || u.Calls != c.billed || (u.Input == 0) != u.Missing) {
					t.Errorf("usage %+v (%v), want %d billed calls", u, billed, c.billed)
				}
				if c.class == ok && insp.Verdict != inspection.VerdictPass {
					t.Errorf("verdict %s, want pass on the clean run", insp.Verdict)
				}
			})
		}
	}
}

// TestRetryAfterHTTPDate: a Retry-After given as an HTTP date is the time
// to that date (HTTP dates have whole seconds).
func TestRetryAfterHTTPDate(t *testing.T) {
	run := corpusRun(t, runClean)
	for _, p := range providers {
		fp := startServer(t, judgeserver.Options{RetryAfter: 3 * time.Second})
		_, err := fp.judge(t, p, "judge-mini+429date").Inspect(context.Background(), run, inspection.Light)
		d, has := inspection.RetryAfterOf(err)
		if classOf(err) != transient || !has || d < time.Second || d > 3*time.Second {
			t.Errorf("%s: %v, RetryAfter %v %v; want transient with 1s..3s", p, err, d, has)
		}
	}
}

// TestRepairUsageSumsBothCalls: the repair request's usage is added to
// the first one's, and the repair request carries the bad answer and the
// error.
func TestRepairUsageSumsBothCalls(t *testing.T) {
	run := corpusRun(t, runClean)
	for _, p := range providers {
		t.Run(p, func(t *testing.T) {
			fp := startServer(t, judgeserver.Options{})
			insp, err := fp.judge(t, p, "judge-mini+truncated*1").Inspect(context.Background(), run, inspection.Light)
			if err != nil {
				t.Fatal(err)
			}
			reqs := fp.rec.all()
			if len(reqs) != 2 {
				t.Fatalf("%d requests, want 2", len(reqs))
			}
			a, b := reportedUsage(t, p, reqs[0].resBody), reportedUsage(t, p, reqs[1].resBody)
			u := insp.Cost.Usage
			if u.Calls != 2 || u.Input != a.Input+b.Input || u.Output != a.Output+b.Output || u.CachedInput != a.CachedInput+b.CachedInput {
				t.Errorf("usage %+v, want the sum of %+v and %+v in 2 calls", u, a, b)
			}
			if !strings.Contains(string(reqs[1].body), "not a valid inspection") {
				t.Errorf("the repair request does not carry the error: %.300s", reqs[1].body)
			}
			if p == Anthropic && !strings.Contains(string(reqs[1].body), `"tool_result"`) {
				t.Errorf("the Anthropic repair does not answer the tool_use with a tool_result: %.300s", reqs[1].body)
			}
		})
	}
}

// TestAdaptationsAreRemembered: after a 400 naming temperature (or
// structured output) the judge drops it for every later request, so the
// extra request is paid once.
func TestAdaptationsAreRemembered(t *testing.T) {
	run := corpusRun(t, runClean)
	for _, p := range providers {
		for _, fault := range []string{"notemp", "noschema"} {
			t.Run(p+"/"+fault, func(t *testing.T) {
				fp := startServer(t, judgeserver.Options{})
				j := fp.judge(t, p, "judge-mini+"+fault)
				for i := range 2 {
					if _, err := j.Inspect(context.Background(), run, inspection.Light); err != nil {
						t.Fatalf("inspection %d: %v", i, err)
					}
				}
				reqs := fp.rec.all()
				if len(reqs) != 3 {
					t.Fatalf("%d requests for two inspections, want 3 (one rejected)", len(reqs))
				}
				field := map[string]string{"notemp": `"temperature"`, "noschema": `"response_format"`}[fault]
				if p == Anthropic && fault == "noschema" {
					field = `"tool_choice"`
				}
				for i, r := range reqs {
					if has := strings.Contains(string(r.body), field); has != (i == 0) {
						t.Errorf("request %d carries %s: %v, want %v", i, field, has, i == 0)
					}
				}
			})
		}
	}
}

// TestTextOnlyServer: a server without structured output answers JSON in
// prose; the judge extracts it.
func TestTextOnlyServer(t *testing.T) {
	run := corpusRun(t, runPlaceholder)
	fp := startServer(t, judgeserver.Options{TextOnly: true})
	j := fp.judge(t, OpenAI, judgeserver.ModelLarge)
	insp, err := j.Inspect(context.Background(), run, inspection.Deep)
	if err != nil {
		t.Fatal(err)
	}
	if !hasFlag(insp, "placeholder-output") {
		t.Errorf("flags %v, want placeholder-output read from the text answer", insp.Flags)
	}
	last := fp.rec.all()[1]
	if !strings.Contains(string(last.resBody), "```json") {
		t.Errorf("the answer was not prose with a fenced block: %.200s", last.resBody)
	}
}

// TestOmitTemperatureAndSeed: OmitTemperature sends none; a seed is sent
// plus the repeat index.
func TestOmitTemperatureAndSeed(t *testing.T) {
	run := corpusRun(t, runClean)
	fp := startServer(t, judgeserver.Options{})
	seed := int64(7)
	j := fp.judge(t, OpenAI, judgeserver.ModelMini, func(c *Config) { c.OmitTemperature = true; c.Seed = &seed })
	if _, err := j.Inspect(inspection.WithRepeat(context.Background(), 2), run, inspection.Light); err != nil {
		t.Fatal(err)
	}
	var body map[string]any
	if err := json.Unmarshal(fp.rec.all()[0].body, &body); err != nil {
		t.Fatal(err)
	}
	if _, has := body["temperature"]; has {
		t.Errorf("temperature sent although omitted: %v", body["temperature"])
	}
	if body["seed"] != 9.0 {
		t.Errorf("seed %v, want 7 + repeat 2 = 9", body["seed"])
	}
}

// TestSlowAnswerTimesOut: a slow answer past the call's deadline is a
// transient timeout, returned at the deadline.
func TestSlowAnswerTimesOut(t *testing.T) {
	run := corpusRun(t, runClean)
	for _, p := range providers {
		fp := startServer(t, judgeserver.Options{SlowDelay: 30 * time.Second})
		j := fp.judge(t, p, "judge-mini+slow")
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		start := time.Now()
		_, err := j.Inspect(ctx, run, inspection.Light)
		cancel()
		if classOf(err) != transient || !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "timed out") {
			t.Errorf("%s: %v, want a transient timeout", p, err)
		}
		if el := time.Since(start); el > 5*time.Second {
			t.Errorf("%s: returned after %v, want at the 200 ms deadline", p, el)
		}
	}
}

// TestCancelledCallIsNotPermanent: Ctrl-C is reported as cancelled.
func TestCancelledCallIsNotPermanent(t *testing.T) {
	run := corpusRun(t, runClean)
	fp := startServer(t, judgeserver.Options{SlowDelay: 30 * time.Second})
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(50 * time.Millisecond); cancel() }()
	_, err := fp.judge(t, OpenAI, "judge-mini+slow").Inspect(ctx, run, inspection.Light)
	if !errors.Is(err, context.Canceled) || inspection.IsPermanent(err) {
		t.Errorf("%v: want context.Canceled, not permanent", err)
	}
}

// TestConnectionRefusedIsTransient: nothing listening is transient, and
// the message names the URL without the key.
func TestConnectionRefusedIsTransient(t *testing.T) {
	j, err := New(Config{Provider: OpenAI, Model: "m", BaseURL: "http://127.0.0.1:1/v1", APIKey: testKey})
	if err != nil {
		t.Fatal(err)
	}
	_, err = j.Inspect(context.Background(), corpusRun(t, runClean), inspection.Light)
	if classOf(err) != transient || !strings.Contains(err.Error(), "127.0.0.1:1") || strings.Contains(err.Error(), testKey) {
		t.Errorf("%v: want a transient error naming the address", err)
	}
}

// TestPromptTruncationIsRecorded: a run larger than the budget is cut,
// and the inspection says so with an info flag listing the cut files.
func TestPromptTruncationIsRecorded(t *testing.T) {
	run := corpusRun(t, runLarge)
	fp := startServer(t, judgeserver.Options{})
	j := fp.judge(t, Anthropic, judgeserver.ModelLarge, func(c *Config) { c.PromptTokens = 4000 })
	insp, err := j.Inspect(context.Background(), run, inspection.Deep)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(insp.Flags, func(f inspection.Flag) bool { return f.ID == FlagPromptTruncated })
	if i < 0 {
		t.Fatalf("flags %v, want %s", insp.Flags, FlagPromptTruncated)
	}
	f := insp.Flags[i]
	if f.Severity != inspection.SeverityInfo || !strings.Contains(f.Evidence, "bindings/inventory/deps.json") ||
		!strings.Contains(f.Evidence, "of 100071 bytes shown") {
		t.Errorf("flag %+v: want info evidence naming the cut 100071-byte deps.json", f)
	}
	// The light depth of the same run fits: no flag.
	insp, err = j.Inspect(context.Background(), run, inspection.Light)
	if err != nil || hasFlag(insp, FlagPromptTruncated) {
		t.Errorf("light: %v, flags %v; want no truncation", err, insp.Flags)
	}
}

// TestMaxCallTokensBoundsARepairedCall: the worst-case call (the largest
// corpus run, cut to the budget, with a repair) stays within the bound
// the runner budgets with, counted by the server's bytes/4.
func TestMaxCallTokensBoundsARepairedCall(t *testing.T) {
	run := corpusRun(t, runLarge)
	for _, p := range providers {
		fp := startServer(t, judgeserver.Options{})
		j := fp.judge(t, p, "judge-large+truncated*1", func(c *Config) { c.PromptTokens = 8000; c.MaxOutputTokens = 512 })
		insp, err := j.Inspect(context.Background(), run, inspection.Deep)
		if err != nil {
			t.Fatal(err)
		}
		in, out := j.MaxCallTokens()
		u := insp.Cost.Usage
		if u.Calls != 2 || u.Input > in || u.Output > out {
			t.Errorf("%s: usage %+v, bound input %d output %d", p, u, in, out)
		}
		if u.Input < in/3 {
			t.Errorf("%s: input %d is far under the bound %d: the bound is loose or the budget unused", p, u.Input, in)
		}
	}
}

func TestInspectRejectsUnknownDepthAndMissingDir(t *testing.T) {
	fp := startServer(t, judgeserver.Options{})
	j := fp.judge(t, OpenAI, judgeserver.ModelMini)
	if _, err := j.Inspect(context.Background(), corpusRun(t, runClean), "medium"); classOf(err) != permanent {
		t.Errorf("unknown depth: %v, want permanent", err)
	}
	run := corpusRun(t, runClean)
	run.Path += "-gone"
	if _, err := j.Inspect(context.Background(), run, inspection.Light); classOf(err) != permanent {
		t.Errorf("missing directory: %v, want permanent", err)
	}
	if n := fp.srv.Requests(); n != 0 {
		t.Errorf("%d requests for inputs that cannot be inspected, want 0", n)
	}
}

// TestInspectConcurrently: a judge serves many calls at once (the runner's
// --jobs), adapting once to a server that rejects the temperature.
func TestInspectConcurrently(t *testing.T) {
	run := corpusRun(t, runPlaceholder)
	for _, p := range providers {
		fp := startServer(t, judgeserver.Options{})
		j := fp.judge(t, p, "judge-large+notemp")
		const n = 24
		errs := make(chan error, n)
		for i := range n {
			go func() {
				d := []inspection.Depth{inspection.Light, inspection.Deep}[i%2]
				insp, err := j.Inspect(context.Background(), run, d)
				if err == nil && insp.Depth != d {
					err = errors.New("wrong depth")
				}
				errs <- err
			}()
		}
		for range n {
			if err := <-errs; err != nil {
				t.Errorf("%s: %v", p, err)
			}
		}
		if got := fp.srv.Requests(); got < n+1 || got > 2*n {
			t.Errorf("%s: %d requests for %d inspections, want %d plus the rejected ones", p, got, n, n)
		}
	}
}

// TestBadAnswerBodiesAreTransient: a 2xx body that is not the API's JSON
// (a proxy's page) or is larger than the limit fails the call transiently.
func TestBadAnswerBodiesAreTransient(t *testing.T) {
	cases := map[string]http.HandlerFunc{
		"html": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			io.WriteString(w, "<html>proxy login</html>")
		},
		"huge": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"id": "`)
			chunk := strings.Repeat("x", 1<<20)
			for range maxResponseBytes/len(chunk) + 2 {
				if _, err := io.WriteString(w, chunk); err != nil {
					return
				}
			}
		},
	}
	for name, h := range cases {
		ts := httptest.NewServer(h)
		j, err := New(Config{Provider: OpenAI, Model: "m", BaseURL: ts.URL + "/v1", APIKey: testKey})
		if err != nil {
			t.Fatal(err)
		}
		_, err = j.Inspect(context.Background(), corpusRun(t, runClean), inspection.Light)
		if classOf(err) != transient || !strings.Contains(err.Error(), "answer body") {
			t.Errorf("%s: %v, want a transient answer-body error", name, err)
		}
		ts.Close()
	}
}
