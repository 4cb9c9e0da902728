// Package judgeserver is a fake LLM provider for evalcal's tests and demo
// (issue 8): an OpenAI-compatible server (POST /v1/chat/completions, GET
// /v1/models) and a fake Anthropic Messages endpoint (POST /v1/messages).
//
// Its answers are deterministic, computed from the run message a judge
// sends (programs/llm's layout: the "Depth:" line, the file listing, the
// framed file contents): the log's terminator and markers, __error.md
// files, services without a binding, empty outputs, and at deep depth
// placeholder, cut-off and unparseable outputs. ModelMini is lenient and
// coarse, ModelLarge strict, so light-mini against deep-large disagrees
// the way a cheap judge and an expensive one do. Token usage is realistic
// (prompt tokens about bytes/4; a system prompt seen before is reported as
// cached input).
//
// Faults are chosen per request by suffixes on the model name
// ("judge-mini+429", "judge-large+truncated*1+nousage") or for every
// request by Options.Faults with a rate; see Fault.
//
// A pairwise message (programs/llm's pairwise layout: two runs, A shown
// first) is answered with {"winner": "A" | "B" | "tie", "reason"}: the run
// of the higher score sum wins, except that a share Options.FirstSlot of
// the requests (or "first=S" as a model-name suffix) answers A whatever the
// runs are, a planted position bias. Options.OrderSensitive (or "order=S")
// plants an order-sensitive judge: a share of the runs gets the opposite
// verdict when their files are listed out of path order.
package judgeserver

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// maxBody bounds a request body.
const maxBody = 32 << 20

// Fault kinds.
const (
	Fault429      = "429"       // 429 rate limit with Retry-After in seconds
	Fault429Ms    = "429ms"     // 429 with retry-after-ms only
	Fault429Date  = "429date"   // 429 with Retry-After as an HTTP date
	Fault429Bare  = "429bare"   // 429 without any Retry-After
	Fault500      = "500"       // 500 server error
	Fault529      = "529"       // 529 overloaded
	FaultSlow     = "slow"      // answer only after Options.SlowDelay
	FaultTrunc    = "truncated" // the answer's JSON cut short (finish_reason length / stop_reason max_tokens)
	FaultBadJSON  = "badjson"   // prose instead of the inspection
	FaultRefusal  = "refusal"   // the model refuses
	FaultNoUsage  = "nousage"   // the answer has no usage
	Fault401      = "401"       // authentication error (quotes the key masked)
	Fault403      = "403"       // permission error
	FaultQuota    = "quota"     // OpenAI 429 insufficient_quota; Anthropic 400 "credit balance is too low"
	FaultBilling  = "billing"   // 402 billing_error
	FaultNoTemp   = "notemp"    // 400 when the request carries a temperature
	FaultNoSchema = "noschema"  // 400 when the request asks for structured output
)

// FaultKinds lists every fault kind.
var FaultKinds = []string{Fault429, Fault429Ms, Fault429Date, Fault429Bare, Fault500, Fault529, FaultSlow,
	FaultTrunc, FaultBadJSON, FaultRefusal, FaultNoUsage, Fault401, Fault403, FaultQuota, FaultBilling,
	FaultNoTemp, FaultNoSchema}

// Fault is a fault mode. With First > 0 it hits the first First requests
// of each conversation (same model, system prompt and run message: a
// retry or a repair request is a later request of it); otherwise it hits
// a request with probability Rate, decided by a hash of the conversation
// and the request's index in it, so the outcome is the same on every run
// whatever the order of requests. A model-name suffix has Rate 1.
type Fault struct {
	Kind  string
	Rate  float64
	First int
}

// ParseFault reads "KIND", "KIND=RATE" (0 < RATE <= 1) or "KIND*N" (the
// first N requests of each conversation).
func ParseFault(s string) (Fault, error) {
	f := Fault{Kind: s, Rate: 1}
	if k, r, ok := strings.Cut(s, "="); ok {
		rate, err := strconv.ParseFloat(r, 64)
		if err != nil || !(rate > 0 && rate <= 1) {
			return Fault{}, fmt.Errorf("judgeserver: fault %q: rate must be in (0, 1]", s)
		}
		f.Kind, f.Rate = k, rate
	} else if k, n, ok := strings.Cut(s, "*"); ok {
		first, err := strconv.Atoi(n)
		if err != nil || first < 1 {
			return Fault{}, fmt.Errorf("judgeserver: fault %q: count must be a positive integer", s)
		}
		f.Kind, f.First = k, first
	}
	if !slices.Contains(FaultKinds, f.Kind) {
		return Fault{}, fmt.Errorf("judgeserver: unknown fault %q (want one of %s)", f.Kind, strings.Join(FaultKinds, ", "))
	}
	return f, nil
}

// Options configure a server.
type Options struct {
	// Latency is added to every answer (not to error answers).
	Latency time.Duration
	// SlowDelay is the delay of the slow fault (default 1 minute).
	SlowDelay time.Duration
	// RetryAfter is the wait a 429 or 529 asks for (default 1s).
	RetryAfter time.Duration
	// APIKey, when set, is the only key accepted.
	APIKey string
	// TextOnly rejects structured output (response_format json_schema,
	// tools) with a 400, like OpenAI-compatible servers without it.
	TextOnly bool
	// Faults apply to every request.
	Faults []Fault
	// FirstSlot is the share (0..1) of pairwise requests answered with the
	// run shown first whatever the runs are (a planted position bias); a
	// model-name suffix "first=S" sets it per request.
	FirstSlot float64
	// OrderSensitive is the share (0..1) of runs whose verdict turns over
	// when their files are listed out of path order (a planted
	// order-sensitive judge, run --perturb order); a model-name suffix
	// "order=S" sets it per request.
	OrderSensitive float64
	// Now is the clock of Retry-After dates (default time.Now).
	Now func() time.Time
}

// Server is the fake provider; it implements http.Handler and is safe for
// concurrent use.
type Server struct {
	opts     Options
	mux      *http.ServeMux
	requests atomic.Int64

	mu    sync.Mutex
	convs map[[32]byte]int  // requests seen per conversation
	seen  map[[32]byte]bool // system prompts seen (for cached tokens)
}

// New returns a server with opts.
func New(opts Options) (*Server, error) {
	if opts.SlowDelay == 0 {
		opts.SlowDelay = time.Minute
	}
	if opts.RetryAfter == 0 {
		opts.RetryAfter = time.Second
	}
	if opts.Latency < 0 || opts.SlowDelay < 0 || opts.RetryAfter < 0 {
		return nil, errors.New("judgeserver: negative duration")
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if !(opts.FirstSlot >= 0 && opts.FirstSlot <= 1) || !(opts.OrderSensitive >= 0 && opts.OrderSensitive <= 1) {
		return nil, fmt.Errorf("judgeserver: first-slot share %v or order share %v outside [0, 1]", opts.FirstSlot, opts.OrderSensitive)
	}
	for _, f := range opts.Faults {
		if !slices.Contains(FaultKinds, f.Kind) || (f.First == 0 && !(f.Rate > 0 && f.Rate <= 1)) || f.First < 0 {
			return nil, fmt.Errorf("judgeserver: bad fault %+v", f)
		}
	}
	s := &Server{opts: opts, mux: http.NewServeMux(), convs: map[[32]byte]int{}, seen: map[[32]byte]bool{}}
	s.mux.HandleFunc("POST /v1/chat/completions", func(w http.ResponseWriter, r *http.Request) { s.serve(w, r, openAIAPI) })
	s.mux.HandleFunc("POST /v1/messages", func(w http.ResponseWriter, r *http.Request) { s.serve(w, r, anthropicAPI) })
	s.mux.HandleFunc("GET /v1/models", s.models)
	return s, nil
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

// Requests is the number of completion requests received so far.
func (s *Server) Requests() int64 { return s.requests.Load() }

func (s *Server) models(w http.ResponseWriter, r *http.Request) {
	data := make([]map[string]any, 0, len(Models))
	for _, m := range Models {
		data = append(data, map[string]any{"id": m, "object": "model", "created": 0, "owned_by": "evalcal"})
	}
	writeJSON(w, http.StatusOK, nil, map[string]any{"object": "list", "data": data})
}

type api int

const (
	openAIAPI api = iota
	anthropicAPI
)

// call is one parsed completion request.
type call struct {
	api         api
	key         string
	model       string // without fault suffixes
	faults      []Fault
	firstSlot   *float64 // the "first=S" suffix
	orderShare  *float64 // the "order=S" suffix
	system      string
	user        string // the first user message: the run
	allText     int    // bytes of every message and schema
	temperature bool
	structured  bool // response_format json_schema / json_object, or a forced tool
	toolName    string
	jsonMode    bool
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request, a api) {
	s.requests.Add(1)
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	if err != nil || len(body) > maxBody {
		s.fail(w, a, http.StatusBadRequest, "invalid_request_error", "", "request body unreadable or larger than 32 MiB")
		return
	}
	c, err := parseCall(a, r.Header, body)
	if err != nil {
		s.fail(w, a, http.StatusBadRequest, "invalid_request_error", "", err.Error())
		return
	}
	if s.opts.APIKey != "" && c.key != s.opts.APIKey {
		s.unauthorized(w, c)
		return
	}
	if !slices.Contains(Models, c.model) {
		if a == openAIAPI {
			s.fail(w, a, http.StatusNotFound, "invalid_request_error", "model_not_found",
				fmt.Sprintf("The model `%s` does not exist or you do not have access to it.", c.model))
		} else {
			s.fail(w, a, http.StatusNotFound, "not_found_error", "", "model: "+c.model)
		}
		return
	}
	conv := sha256.Sum256([]byte(c.model + "\x00" + c.system + "\x00" + c.user))
	s.mu.Lock()
	n := s.convs[conv]
	s.convs[conv] = n + 1
	sys := sha256.Sum256([]byte(c.model + "\x00" + c.system))
	cached := s.seen[sys]
	s.seen[sys] = true
	s.mu.Unlock()

	hit := map[string]bool{}
	for _, f := range append(slices.Clone(c.faults), s.opts.Faults...) {
		if fires(f, conv, n) {
			hit[f.Kind] = true
		}
	}
	if s.opts.TextOnly {
		hit[FaultNoSchema] = true
	}
	if s.failFault(w, a, c, hit) {
		return
	}

	delay := s.opts.Latency
	if hit[FaultSlow] {
		delay += s.opts.SlowDelay
	}
	if !sleep(r.Context(), delay) {
		return // the client went away
	}

	var ans map[string]any
	if pv, ok := parsePairMessage(c.user); ok {
		share := s.opts.FirstSlot
		if c.firstSlot != nil {
			share = *c.firstSlot
		}
		ans = judgePair(c.model, pv, conv, share)
	} else {
		v := parseRunMessage(c.user)
		ans = inspect(c.model, v, salt(c.model, c.user))
		share := s.opts.OrderSensitive
		if c.orderShare != nil {
			share = *c.orderShare
		}
		ans = orderSensitive(ans, v, share)
	}
	text, stop := answerText(c, ans, hit)
	usage := usageOf(c, text, cached)
	if hit[FaultNoUsage] {
		usage = nil
	}
	id := fmt.Sprintf("%x", conv[:6]) + "-" + strconv.Itoa(n)
	if a == openAIAPI {
		s.answerOpenAI(w, c, id, text, stop, usage, hit[FaultRefusal])
	} else {
		s.answerAnthropic(w, c, id, text, stop, usage, hit[FaultRefusal])
	}
}

// failFault answers the request with the error of the first fault that
// hit it (an HTTP error in the provider's format) and reports whether it
// did; a slow or refusing fault, or none, leaves the answer to serve.
func (s *Server) failFault(w http.ResponseWriter, a api, c call, hit map[string]bool) bool {
	switch {
	case hit[Fault401]:
		s.unauthorized(w, c)
		return true
	case hit[Fault403]:
		s.fail(w, a, http.StatusForbidden, "permission_error", "", "Your API key does not have permission to use the specified resource.")
		return true
	case hit[FaultQuota] && a == openAIAPI:
		s.fail(w, a, http.StatusTooManyRequests, "insufficient_quota", "insufficient_quota",
			"You exceeded your current quota, please check your plan and billing details.")
		return true
	case hit[FaultQuota]:
		s.fail(w, a, http.StatusBadRequest, "invalid_request_error", "",
			"Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits.")
		return true
	case hit[FaultBilling]:
		s.fail(w, a, http.StatusPaymentRequired, "billing_error", "", "There is an issue with your account's billing.")
		return true
	case hit[FaultNoTemp] && c.temperature:
		if a == openAIAPI {
			s.failParam(w, http.StatusBadRequest, "Unsupported value: 'temperature' does not support 0 with this model. Only the default (1) value is supported.", "temperature", "unsupported_value")
		} else {
			s.fail(w, a, http.StatusBadRequest, "invalid_request_error", "", "temperature: not supported for this model")
		}
		return true
	case hit[FaultNoSchema] && c.structured:
		if a == openAIAPI {
			s.failParam(w, http.StatusBadRequest, "response_format of type json_schema is not supported by this server", "response_format", "")
		} else {
			s.fail(w, a, http.StatusBadRequest, "invalid_request_error", "", "tool_choice: forced tool use is not supported by this server")
		}
		return true
	case hit[Fault429], hit[Fault429Ms], hit[Fault429Date], hit[Fault429Bare]:
		h := http.Header{}
		switch {
		case hit[Fault429]:
			h.Set("Retry-After", strconv.FormatFloat(s.opts.RetryAfter.Seconds(), 'f', -1, 64))
		case hit[Fault429Ms]:
			h.Set("retry-after-ms", strconv.FormatInt(s.opts.RetryAfter.Milliseconds(), 10))
		case hit[Fault429Date]:
			h.Set("Retry-After", s.opts.Now().Add(s.opts.RetryAfter).UTC().Format(http.TimeFormat))
		}
		s.failHeader(w, a, http.StatusTooManyRequests, h, "rate_limit_error", "rate_limit_exceeded",
			"Rate limit reached for "+c.model+" on requests per min.")
		return true
	case hit[Fault500]:
		s.fail(w, a, http.StatusInternalServerError, "api_error", "", "The server had an error while processing your request.")
		return true
	case hit[Fault529]:
		h := http.Header{}
		h.Set("Retry-After", strconv.FormatFloat(s.opts.RetryAfter.Seconds(), 'f', -1, 64))
		s.failHeader(w, a, 529, h, "overloaded_error", "", "Overloaded")
		return true
	}
	return false
}

// fires decides whether fault f hits the n-th request of conversation conv.
func fires(f Fault, conv [32]byte, n int) bool {
	if f.First > 0 {
		return n < f.First
	}
	if f.Rate >= 1 {
		return true
	}
	h := sha256.New()
	h.Write([]byte(f.Kind))
	h.Write(conv[:])
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], uint64(n))
	h.Write(b[:])
	u := binary.LittleEndian.Uint64(h.Sum(nil)[:8])
	return float64(u>>11)/float64(1<<53) < f.Rate
}

func sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// parseCall reads a completion request of either API. Model suffixes
// after "+" are faults.
func parseCall(a api, h http.Header, body []byte) (call, error) {
	var req struct {
		Model          string          `json:"model"`
		Messages       []message       `json:"messages"`
		System         json.RawMessage `json:"system"`
		Temperature    *float64        `json:"temperature"`
		ResponseFormat *struct {
			Type string `json:"type"`
		} `json:"response_format"`
		Tools      []json.RawMessage `json:"tools"`
		ToolChoice *struct {
			Type string `json:"type"`
			Name string `json:"name"`
		} `json:"tool_choice"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return call{}, fmt.Errorf("request is not JSON: %v", err)
	}
	if req.Model == "" {
		return call{}, errors.New("model: field required")
	}
	c := call{api: a, temperature: req.Temperature != nil}
	parts := strings.Split(req.Model, "+")
	c.model = parts[0]
	for _, p := range parts[1:] {
		if share, ok, err := ParseFirstSlot(p); ok {
			if err != nil {
				return call{}, err
			}
			c.firstSlot = &share
			continue
		}
		if share, ok, err := ParseOrderShare(p); ok {
			if err != nil {
				return call{}, err
			}
			c.orderShare = &share
			continue
		}
		f, err := ParseFault(p)
		if err != nil {
			return call{}, err
		}
		c.faults = append(c.faults, f)
	}
	switch a {
	case openAIAPI:
		c.key = strings.TrimPrefix(h.Get("Authorization"), "Bearer ")
		if rf := req.ResponseFormat; rf != nil {
			c.structured = rf.Type == "json_schema"
			c.jsonMode = rf.Type == "json_schema" || rf.Type == "json_object"
		}
	case anthropicAPI:
		// The Anthropic SDK sends the key as x-api-key or, since v2, as a
		// bearer token.
		c.key = h.Get("X-Api-Key")
		if c.key == "" {
			c.key = strings.TrimPrefix(h.Get("Authorization"), "Bearer ")
		}
		c.system = textOf(req.System)
		if tc := req.ToolChoice; tc != nil && tc.Type == "tool" && len(req.Tools) > 0 {
			c.structured, c.jsonMode, c.toolName = true, true, tc.Name
		}
	}
	c.allText = len(c.system)
	for _, m := range req.Messages {
		t := textOf(m.Content)
		c.allText += len(t)
		switch {
		case m.Role == "system" || m.Role == "developer":
			c.system += t
		case m.Role == "user" && c.user == "":
			c.user = t
		}
	}
	for _, t := range req.Tools {
		c.allText += len(t)
	}
	if c.user == "" {
		return call{}, errors.New("messages: no user message")
	}
	return c, nil
}

type message struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// textOf reads message content: a string, or an array of blocks whose
// text (or tool_result content) is joined.
func textOf(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []struct {
		Type    string          `json:"type"`
		Text    string          `json:"text"`
		Content json.RawMessage `json:"content"`
		Input   json.RawMessage `json:"input"`
	}
	if json.Unmarshal(raw, &blocks) != nil {
		return ""
	}
	var b strings.Builder
	for _, bl := range blocks {
		b.WriteString(bl.Text)
		if len(bl.Content) > 0 {
			b.WriteString(textOf(bl.Content))
		}
		b.Write(bl.Input)
	}
	return b.String()
}

// answerText renders the inspection as the answer's text and its stop
// reason: JSON for structured output, a fenced block in prose otherwise;
// the truncated and badjson faults spoil it.
func answerText(c call, ans map[string]any, hit map[string]bool) (string, string) {
	data, _ := json.Marshal(ans) // plain values
	text := string(data)
	stop := "stop"
	switch {
	case hit[FaultRefusal]:
		return "I can't help with inspecting this content.", "refusal"
	case hit[FaultTrunc] && c.toolName != "":
		// A tool's input is always an object: cut to its first field.
		text = fmt.Sprintf(`{"runtime_fidelity": %v}`, ans["runtime_fidelity"])
		stop = "length"
	case hit[FaultTrunc]:
		text = text[:len(text)/2]
		stop = "length"
	case hit[FaultBadJSON] && c.toolName != "":
		text = `{"note": "The run looks fine to me."}`
	case hit[FaultBadJSON]:
		text = "The run looks fine to me; I would pass it."
	case !c.jsonMode:
		text = "Here is the inspection:\n\n```json\n" + text + "\n```\n"
	}
	return text, stop
}

type usage struct {
	prompt, completion, cached int64
}

// usageOf estimates tokens as bytes/4; a system prompt seen before is
// reported as cached.
func usageOf(c call, text string, cached bool) *usage {
	u := &usage{prompt: int64(c.allText+3) / 4, completion: int64(len(text)+3) / 4}
	if cached {
		u.cached = min(u.prompt, int64(len(c.system))/4)
	}
	return u
}

func (s *Server) answerOpenAI(w http.ResponseWriter, c call, id, text, stop string, u *usage, refused bool) {
	msg := map[string]any{"role": "assistant", "content": text, "refusal": nil}
	if refused {
		msg["content"], msg["refusal"] = nil, text
		stop = "stop"
	}
	out := map[string]any{
		"id": "chatcmpl-" + id, "object": "chat.completion", "created": 0, "model": c.model,
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": stop, "logprobs": nil}},
	}
	if u != nil {
		out["usage"] = map[string]any{
			"prompt_tokens": u.prompt, "completion_tokens": u.completion, "total_tokens": u.prompt + u.completion,
			"prompt_tokens_details":     map[string]any{"cached_tokens": u.cached},
			"completion_tokens_details": map[string]any{"reasoning_tokens": 0},
		}
	}
	writeJSON(w, http.StatusOK, nil, out)
}

func (s *Server) answerAnthropic(w http.ResponseWriter, c call, id, text, stop string, u *usage, refused bool) {
	var content []any
	stopReason := map[string]string{"stop": "end_turn", "length": "max_tokens", "refusal": "refusal"}[stop]
	switch {
	case refused:
		content = []any{map[string]any{"type": "text", "text": text}}
	case c.toolName != "":
		var input any = map[string]any{}
		if json.Unmarshal([]byte(text), &input) != nil {
			input = map[string]any{}
		}
		content = []any{map[string]any{"type": "tool_use", "id": "toolu_" + id, "name": c.toolName, "input": input}}
		if stop == "stop" {
			stopReason = "tool_use"
		}
	default:
		content = []any{map[string]any{"type": "text", "text": text}}
	}
	out := map[string]any{
		"id": "msg_" + id, "type": "message", "role": "assistant", "model": c.model,
		"content": content, "stop_reason": stopReason, "stop_sequence": nil,
	}
	if u != nil {
		out["usage"] = map[string]any{
			"input_tokens": u.prompt - u.cached, "output_tokens": u.completion,
			"cache_read_input_tokens": u.cached, "cache_creation_input_tokens": 0,
		}
	}
	writeJSON(w, http.StatusOK, nil, out)
}

// unauthorized answers 401, quoting the key masked as providers do.
func (s *Server) unauthorized(w http.ResponseWriter, c call) {
	masked := "(none)"
	if k := c.key; len(k) >= 8 {
		masked = k[:3] + strings.Repeat("*", 8) + k[len(k)-2:]
	} else if k != "" {
		masked = strings.Repeat("*", 8)
	}
	if c.api == openAIAPI {
		s.failParam(w, http.StatusUnauthorized, "Incorrect API key provided: "+masked+". You can find your API key in your account settings.", "", "invalid_api_key")
		return
	}
	s.fail(w, c.api, http.StatusUnauthorized, "authentication_error", "", "invalid x-api-key "+masked)
}

func (s *Server) fail(w http.ResponseWriter, a api, status int, errType, code, msg string) {
	s.failHeader(w, a, status, nil, errType, code, msg)
}

func (s *Server) failParam(w http.ResponseWriter, status int, msg, param, code string) {
	body := map[string]any{"error": map[string]any{"message": msg, "type": "invalid_request_error", "param": nullable(param), "code": nullable(code)}}
	writeJSON(w, status, nil, body)
}

func (s *Server) failHeader(w http.ResponseWriter, a api, status int, h http.Header, errType, code, msg string) {
	if a == anthropicAPI {
		writeJSON(w, status, h, map[string]any{"type": "error", "error": map[string]any{"type": errType, "message": msg}})
		return
	}
	writeJSON(w, status, h, map[string]any{"error": map[string]any{"message": msg, "type": errType, "param": nil, "code": nullable(code)}})
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func writeJSON(w http.ResponseWriter, status int, h http.Header, v any) {
	for k, vs := range h {
		for _, x := range vs {
			w.Header().Add(k, x)
		}
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	data, _ := json.Marshal(v) // plain values
	_, _ = w.Write(data)
}
