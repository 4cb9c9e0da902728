package judgeserver

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// runMessage builds a run message in programs/llm's layout.
func runMessage(depth string, files map[string]string, order ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Run: r\nSystem: s\nLayout: state-md-v1\nDepth: %s\n\n", depth)
	b.WriteString("Files in the run directory (n files, m bytes), path and size in bytes:\n")
	for _, p := range order {
		fmt.Fprintf(&b, "- %s %d\n", p, len(files[p]))
	}
	const tag = "[fence 0123456789abcdef]"
	b.WriteString("\nContents.\nEach file is framed by lines that end with the tag " + tag + ".\n\n")
	for _, p := range order {
		if depth == "light" && p != "state.md" {
			continue
		}
		fmt.Fprintf(&b, "===== %s (%d bytes) ===== %s\n%s===== end %s ===== %s\n\n", p, len(files[p]), tag, files[p], p, tag)
	}
	return b.String()
}

func post(t *testing.T, h http.Handler, path string, body any, header map[string]string) (*http.Response, map[string]any) {
	t.Helper()
	data, _ := json.Marshal(body)
	req := httptest.NewRequest(http.MethodPost, path, bytes.NewReader(data))
	for k, v := range header {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	res := rec.Result()
	var out map[string]any
	_ = json.NewDecoder(res.Body).Decode(&out)
	return res, out
}

func chat(model, user string) map[string]any {
	return map[string]any{"model": model, "temperature": 0,
		"response_format": map[string]any{"type": "json_schema", "json_schema": map[string]any{"name": "x", "strict": true, "schema": map[string]any{}}},
		"messages":        []any{map[string]any{"role": "system", "content": "sys"}, map[string]any{"role": "user", "content": user}}}
}

// content returns the chat answer's inspection.
func content(t *testing.T, out map[string]any) map[string]any {
	t.Helper()
	ch := out["choices"].([]any)[0].(map[string]any)
	var insp map[string]any
	if err := json.Unmarshal([]byte(ch["message"].(map[string]any)["content"].(string)), &insp); err != nil {
		t.Fatalf("content is not JSON: %v", err)
	}
	return insp
}

func flagIDs(insp map[string]any) []string {
	var ids []string
	for _, f := range insp["flags"].([]any) {
		ids = append(ids, f.(map[string]any)["id"].(string)+":"+f.(map[string]any)["severity"].(string))
	}
	return ids
}

// TestModelsDisagreeLikeCheapAndThoroughJudges: on hand-built runs, the
// lenient model misses what the strict one reads for and calls warnings
// what it calls critical; both follow the verdict rule and light's caps.
func TestModelsDisagreeLikeCheapAndThoroughJudges(t *testing.T) {
	s, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	clean := map[string]string{"state.md": "1→ a ✓\n2→ b ✓\n---end 2026\n", "bindings/a.md": "# a\nkind: output\n\nDone.\n", "bindings/b.md": "# b\n\nAlso done.\n"}
	order := []string{"bindings/a.md", "bindings/b.md", "state.md"}
	placeholder := map[string]string{"state.md": clean["state.md"], "bindings/a.md": clean["bindings/a.md"], "bindings/b.md": "# b\n\nTODO: write this\n"}
	missing := map[string]string{"state.md": clean["state.md"], "bindings/a.md": clean["bindings/a.md"]}
	failed := map[string]string{"state.md": "1→ a ✓\n2→ b ✗ Boom\n---error 2026 boom\n", "bindings/a.md": "Done.\n", "workspace/b/__error.md": "boom\n"}
	cases := []struct {
		name, model, depth string
		files              map[string]string
		order              []string
		verdict            string
		flags              []string
	}{
		{"clean light", ModelMini, "light", clean, order, "pass", nil},
		{"clean deep", ModelLarge, "deep", clean, order, "pass", nil},
		{"placeholder light", ModelMini, "light", placeholder, order, "pass", nil},
		{"placeholder deep", ModelLarge, "deep", placeholder, order, "partial", []string{"placeholder-output:critical"}},
		{"placeholder mini deep", ModelMini, "deep", placeholder, order, "pass", nil},
		{"lorem mini deep", ModelMini, "deep", map[string]string{"state.md": clean["state.md"], "bindings/a.md": clean["bindings/a.md"],
			"bindings/b.md": "Lorem ipsum dolor.\n"}, order, "pass", []string{"placeholder-output:warning"}},
		{"missing mini", ModelMini, "light", missing, []string{"bindings/a.md", "state.md"}, "pass", []string{"missing-binding:warning"}},
		{"missing large", ModelLarge, "deep", missing, []string{"bindings/a.md", "state.md"}, "partial", []string{"missing-binding:critical"}},
		{"failed", ModelLarge, "deep", failed, []string{"bindings/a.md", "state.md", "workspace/b/__error.md"}, "fail",
			[]string{"run-failed:critical", "error-file:critical"}},
	}
	for _, c := range cases {
		_, out := post(t, s, "/v1/chat/completions", chat(c.model, runMessage(c.depth, c.files, c.order...)), nil)
		insp := content(t, out)
		if insp["verdict"] != c.verdict || fmt.Sprint(flagIDs(insp)) != fmt.Sprint(c.flags) {
			t.Errorf("%s: verdict %v flags %v, want %s %v", c.name, insp["verdict"], flagIDs(insp), c.verdict, c.flags)
		}
		rf, te := insp["runtime_fidelity"].(float64), insp["task_effectiveness"].(float64)
		if c.depth == "light" && (rf > 85 || te > 80) {
			t.Errorf("%s: light scores %v/%v over the caps", c.name, rf, te)
		}
		if c.model == ModelMini && c.depth == "deep" && (rf != float64(int(rf/10))*10 || te != float64(int(te/10))*10) {
			t.Errorf("%s: mini scores %v/%v not rounded to tens", c.name, rf, te)
		}
	}
}

func TestAnswersAreDeterministic(t *testing.T) {
	msg := runMessage("deep", map[string]string{"state.md": "1→ a ✓\n---end x\n"}, "state.md")
	var first []byte
	for i := range 2 {
		s, _ := New(Options{})
		_, out := post(t, s, "/v1/chat/completions", chat(ModelLarge, msg), nil)
		data, _ := json.Marshal(content(t, out))
		if i == 0 {
			first = data
		} else if !bytes.Equal(first, data) {
			t.Errorf("answers differ:\n%s\n%s", first, data)
		}
	}
}

func TestParseFault(t *testing.T) {
	good := map[string]Fault{
		"429":         {Kind: "429", Rate: 1},
		"500=0.25":    {Kind: "500", Rate: 0.25},
		"truncated*2": {Kind: "truncated", Rate: 1, First: 2},
	}
	for s, want := range good {
		if got, err := ParseFault(s); err != nil || got != want {
			t.Errorf("ParseFault(%q) = %+v, %v; want %+v", s, got, err, want)
		}
	}
	for _, s := range []string{"", "teapot", "429=0", "429=1.5", "429=x", "429*0", "429*-1"} {
		if _, err := ParseFault(s); err == nil {
			t.Errorf("ParseFault(%q) accepted", s)
		}
	}
}

// TestFaultRateIsDeterministicAndCalibrated: a rate fault hits about its
// rate of conversations, the same ones every time.
func TestFaultRateIsDeterministicAndCalibrated(t *testing.T) {
	f := Fault{Kind: Fault429, Rate: 0.3}
	hits := 0
	const n = 10000
	for i := range n {
		conv := sha256.Sum256([]byte(fmt.Sprint(i)))
		a, b := fires(f, conv, 0), fires(f, conv, 0)
		if a != b {
			t.Fatal("not deterministic")
		}
		if a {
			hits++
		}
	}
	// Binomial sd at n=10000, p=0.3 is 0.0046: 0.03 is 6.5 sd.
	if r := float64(hits) / n; r < 0.27 || r > 0.33 {
		t.Errorf("hit rate %.3f, want about 0.3", r)
	}
	if !fires(Fault{Kind: "x", First: 2}, [32]byte{}, 1) || fires(Fault{Kind: "x", First: 2}, [32]byte{}, 2) {
		t.Error("First counts wrong")
	}
}

func TestErrorsAndHeaders(t *testing.T) {
	s, err := New(Options{APIKey: "right-key-123", RetryAfter: 1500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	msg := runMessage("light", map[string]string{"state.md": "---end x\n"}, "state.md")
	auth := map[string]string{"Authorization": "Bearer right-key-123"}
	res, out := post(t, s, "/v1/chat/completions", chat(ModelMini, msg), map[string]string{"Authorization": "Bearer wrong-key-456"})
	e, _ := out["error"].(map[string]any)
	if res.StatusCode != 401 || e["code"] != "invalid_api_key" || strings.Contains(fmt.Sprint(e["message"]), "wrong-key-456") {
		t.Errorf("wrong key: %d %v", res.StatusCode, out)
	}
	res, out = post(t, s, "/v1/chat/completions", chat("judge-huge", msg), auth)
	if e, _ := out["error"].(map[string]any); res.StatusCode != 404 || e["code"] != "model_not_found" {
		t.Errorf("unknown model: %d %v", res.StatusCode, out)
	}
	res, _ = post(t, s, "/v1/chat/completions", chat(ModelMini+"+429", msg), auth)
	if res.StatusCode != 429 || res.Header.Get("Retry-After") != "1.5" {
		t.Errorf("429: %d Retry-After %q", res.StatusCode, res.Header.Get("Retry-After"))
	}
	res, _ = post(t, s, "/v1/messages", map[string]any{"model": ModelMini + "+429ms", "max_tokens": 10,
		"messages": []any{map[string]any{"role": "user", "content": msg}}}, map[string]string{"X-Api-Key": "right-key-123"})
	if res.StatusCode != 429 || res.Header.Get("Retry-After-Ms") != "1500" {
		t.Errorf("anthropic 429ms: %d %q", res.StatusCode, res.Header.Get("Retry-After-Ms"))
	}
	res, out = post(t, s, "/v1/messages", map[string]any{"model": ModelMini + "+529", "max_tokens": 10,
		"messages": []any{map[string]any{"role": "user", "content": msg}}}, map[string]string{"X-Api-Key": "right-key-123"})
	if e, _ := out["error"].(map[string]any); res.StatusCode != 529 || e["type"] != "overloaded_error" || out["type"] != "error" {
		t.Errorf("anthropic 529: %d %v", res.StatusCode, out)
	}
	res, out = post(t, s, "/v1/chat/completions", chat(ModelMini+"+nousage", msg), auth)
	if _, has := out["usage"]; res.StatusCode != 200 || has {
		t.Errorf("nousage: %d %v", res.StatusCode, out)
	}
	res, _ = post(t, s, "/v1/chat/completions", map[string]any{"model": ModelMini, "messages": []any{}}, auth)
	if res.StatusCode != 400 {
		t.Errorf("no user message: %d", res.StatusCode)
	}
}

func TestUsageReportsCachedPrefix(t *testing.T) {
	s, _ := New(Options{})
	msg := func(i int) string {
		return runMessage("light", map[string]string{"state.md": fmt.Sprintf("%d ---end x\n", i)}, "state.md")
	}
	long := strings.Repeat("system prompt ", 100)
	req := func(i int) map[string]any {
		return map[string]any{"model": ModelMini, "messages": []any{map[string]any{"role": "system", "content": long},
			map[string]any{"role": "user", "content": msg(i)}}}
	}
	_, a := post(t, s, "/v1/chat/completions", req(1), nil)
	_, b := post(t, s, "/v1/chat/completions", req(2), nil)
	cached := func(out map[string]any) float64 {
		return out["usage"].(map[string]any)["prompt_tokens_details"].(map[string]any)["cached_tokens"].(float64)
	}
	if cached(a) != 0 || cached(b) != float64(len(long)/4) {
		t.Errorf("cached tokens %v then %v, want 0 then %d", cached(a), cached(b), len(long)/4)
	}
	if p := a["usage"].(map[string]any)["prompt_tokens"].(float64); p < float64(len(long)/4) {
		t.Errorf("prompt tokens %v under bytes/4 of the system prompt", p)
	}
}

// TestSlowStopsWhenTheClientLeaves: the slow fault's wait ends with the
// request.
func TestSlowStopsWhenTheClientLeaves(t *testing.T) {
	s, _ := New(Options{SlowDelay: time.Hour})
	ts := httptest.NewServer(s)
	defer ts.Close()
	data, _ := json.Marshal(chat(ModelMini+"+slow", runMessage("light", nil)))
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, ts.URL+"/v1/chat/completions", bytes.NewReader(data))
	start := time.Now()
	if _, err := http.DefaultClient.Do(req); err == nil {
		t.Error("a slow answer arrived before the deadline")
	}
	if time.Since(start) > 5*time.Second {
		t.Error("the client waited past its deadline")
	}
}

func TestModelsAndBodyLimit(t *testing.T) {
	s, _ := New(Options{})
	req := httptest.NewRequest(http.MethodGet, "/v1/models", nil)
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, req)
	var out struct {
		Data []struct{ ID string } `json:"data"`
	}
	if err := json.NewDecoder(rec.Body).Decode(&out); err != nil || len(out.Data) != 2 || out.Data[0].ID != ModelMini {
		t.Errorf("models: %v %+v", err, out)
	}
	big := httptest.NewRequest(http.MethodPost, "/v1/chat/completions", io.LimitReader(zeros{}, maxBody+10))
	rec = httptest.NewRecorder()
	s.ServeHTTP(rec, big)
	if rec.Code != 400 {
		t.Errorf("oversized body: %d", rec.Code)
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = ' '
	}
	return len(p), nil
}

func TestNewRejectsBadOptions(t *testing.T) {
	for _, o := range []Options{{Latency: -1}, {Faults: []Fault{{Kind: "teapot", Rate: 1}}}, {Faults: []Fault{{Kind: "429"}}}} {
		if _, err := New(o); err == nil {
			t.Errorf("New(%+v) accepted", o)
		}
	}
}

func FuzzParseRunMessage(f *testing.F) {
	f.Add(runMessage("deep", map[string]string{"state.md": "1→ a ✓\n---end x\n", "bindings/a.md": "TODO\n"}, "bindings/a.md", "state.md"))
	f.Add("===== x (1 bytes) =====\n")
	f.Fuzz(func(t *testing.T, msg string) {
		v := parseRunMessage(msg)
		_ = inspect(ModelLarge, v, salt(ModelLarge, msg))
		_ = inspect(ModelMini, v, 0)
	})
}
