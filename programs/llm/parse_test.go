package llm

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/evalcal/evalcal/inspection"
)

const goodAnswer = `{"runtime_fidelity": 80, "task_effectiveness": 70, "services": [], "flags": [], "verdict": "pass", "summary": "ok"}`

var parseRun = inspection.Run{ID: "20260101-000000-abcdef", System: "sys"}

func TestParseAnswerFindsTheInspection(t *testing.T) {
	cases := map[string]string{
		"bare":          goodAnswer,
		"fenced":        "Here it is:\n```json\n" + goodAnswer + "\n```\nDone.",
		"after example": `An object looks like {"example": true}; mine: ` + goodAnswer,
		"with braces in strings": `{"runtime_fidelity": 80, "task_effectiveness": 70, "services": [], "flags": [],
			"verdict": "pass", "summary": "a } and a { inside"}`,
		"own run fields": `{"run_id": "other", "depth": "deep", "system": "x", "cost": {"usd": 9},` + goodAnswer[1:],
	}
	for name, text := range cases {
		insp, err := parseAnswer(context.Background(), text, parseRun, inspection.Light)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if insp.RunID != parseRun.ID || insp.Depth != inspection.Light || insp.System != "sys" || insp.Cost != (inspection.Cost{}) {
			t.Errorf("%s: run fields %q %q %q cost %+v, want the run's and no cost", name, insp.RunID, insp.Depth, insp.System, insp.Cost)
		}
		if insp.RuntimeFidelity != 80 || insp.TaskEffectiveness != 70 || insp.Verdict != "pass" {
			t.Errorf("%s: %+v", name, insp)
		}
	}
}

func TestParseAnswerErrorsNameTheProblem(t *testing.T) {
	cases := map[string]string{
		"":       "empty answer",
		"  \n":   "empty answer",
		"no":     "no JSON object in the answer",
		`{"a":1`: "no JSON object in the answer",
		strings.Replace(goodAnswer, "80", "180", 1):                     "field runtime_fidelity: 180 is outside 0..100",
		`{"runtime_fidelity": 80}`:                                      "field task_effectiveness: missing",
		`{"x": 1} then ` + strings.Replace(goodAnswer, "pass", "ok", 1): "runtime_fidelity: missing",
	}
	for text, want := range cases {
		_, err := parseAnswer(context.Background(), text, parseRun, inspection.Deep)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("parseAnswer(%q) = %v, want %q", text, err, want)
		}
	}
	var fe *inspection.FieldError
	if _, err := parseAnswer(context.Background(), `{"runtime_fidelity": 80}`, parseRun, inspection.Deep); !errors.As(err, &fe) {
		t.Errorf("%v is not a *inspection.FieldError", err)
	}
}

func FuzzParseAnswer(f *testing.F) {
	f.Add(goodAnswer)
	f.Add("```json\n" + goodAnswer + "\n```")
	f.Add(`{"runtime_fidelity": 1e999}`)
	f.Add(strings.Repeat("{", 100))
	f.Add(strings.Repeat(`{"a":`, 2000))
	f.Add(strings.Repeat(`{"a":[`, 2000) + goodAnswer)
	f.Fuzz(func(t *testing.T, text string) {
		// The time bound per input (issue 27): the fuzzer's inputs are
		// small, so they are grown to 1 MB; parsing is linear in the
		// answer, so 1 MB takes milliseconds, far under the bound.
		big := text
		for len(big) > 0 && len(big) < 1<<20 {
			big += big
		}
		start := time.Now()
		parseAnswer(context.Background(), big, parseRun, inspection.Light)
		if d := time.Since(start); d > 2*time.Second {
			t.Fatalf("parsing %d bytes (%.40q repeated) took %v", len(big), text, d)
		}
		insp, err := parseAnswer(context.Background(), text, parseRun, inspection.Light)
		if err == nil {
			if insp.RunID != parseRun.ID || inspection.CheckInspection(insp) != nil {
				t.Fatalf("accepted an invalid inspection %+v", insp)
			}
		}
	})
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	cases := []struct {
		name    string
		headers map[string]string
		want    time.Duration
		has     bool
	}{
		{"seconds", map[string]string{"Retry-After": "2"}, 2 * time.Second, true},
		{"fraction", map[string]string{"Retry-After": "1.5"}, 1500 * time.Millisecond, true},
		{"ms wins", map[string]string{"Retry-After": "9", "Retry-After-Ms": "250"}, 250 * time.Millisecond, true},
		{"date", map[string]string{"Retry-After": now.Add(3 * time.Second).Format(http.TimeFormat)}, 3 * time.Second, true},
		{"past date", map[string]string{"Retry-After": now.Add(-time.Hour).Format(http.TimeFormat)}, 0, true},
		{"negative", map[string]string{"Retry-After": "-1"}, 0, false},
		{"garbage", map[string]string{"Retry-After": "soon"}, 0, false},
		{"bad ms falls back", map[string]string{"Retry-After-Ms": "x", "Retry-After": "4"}, 4 * time.Second, true},
		{"none", nil, 0, false},
	}
	for _, c := range cases {
		h := http.Header{}
		for k, v := range c.headers {
			h.Set(k, v)
		}
		got, has := parseRetryAfter(h, now)
		if got != c.want || has != c.has {
			t.Errorf("%s: %v %v, want %v %v", c.name, got, has, c.want, c.has)
		}
	}
}

// TestProviderErrorShapes: the message is read from the error shapes of
// OpenAI, Anthropic and OpenAI-compatible servers.
func TestProviderErrorShapes(t *testing.T) {
	cases := []struct {
		body               string
		msg, errType, code string
	}{
		{`{"error": {"message": "m1", "type": "t1", "code": "c1", "param": "p"}}`, "m1", "t1", "c1"},
		{`{"type": "error", "error": {"type": "overloaded_error", "message": "m2"}}`, "m2", "overloaded_error", ""},
		{`{"object": "error", "message": "m3", "type": "BadRequestError", "code": 400}`, "m3", "BadRequestError", ""},
		{`{"error": "m4"}`, "m4", "", ""},
		{`{"detail": "m5"}`, "m5", "", ""},
		{`Bad Gateway`, "Bad Gateway", "", ""},
		{`{"error": {"message": "m6", "code": 429}}`, "m6", "", "429"},
	}
	for _, c := range cases {
		res := &http.Response{StatusCode: 400, Header: http.Header{}, Body: ioNopCloser(c.body)}
		e := newProviderError(res, time.Now())
		if e.message != c.msg || e.errType != c.errType || e.code != c.code {
			t.Errorf("%s: message %q type %q code %q", c.body, e.message, e.errType, e.code)
		}
	}
}

// TestClassifyStatuses: the class of each status, independent of a
// server.
func TestClassifyStatuses(t *testing.T) {
	j, err := New(validConfig())
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		e    providerError
		want class
	}{
		{providerError{status: 401}, fatal},
		{providerError{status: 403}, fatal},
		{providerError{status: 404}, fatal},
		{providerError{status: 400, code: "model_not_found"}, fatal},
		{providerError{status: 429, code: "insufficient_quota"}, fatal},
		{providerError{status: 400, errType: "invalid_request_error", message: "Your credit balance is too low"}, fatal},
		{providerError{status: 402}, fatal},
		{providerError{status: 429}, transient},
		{providerError{status: 408}, transient},
		{providerError{status: 409}, transient},
		{providerError{status: 500}, transient},
		{providerError{status: 503}, transient},
		{providerError{status: 529}, transient},
		{providerError{status: 400}, permanent},
		{providerError{status: 413}, permanent},
		{providerError{status: 422}, permanent},
	}
	for _, c := range cases {
		e := c.e
		if got := classOf(j.classify(&e)); got != c.want {
			t.Errorf("%+v: %s, want %s", c.e, got, c.want)
		}
	}
	if got := classOf(j.classify(&bodyError{msg: "x"})); got != transient {
		t.Errorf("bad body: %s, want transient", got)
	}
}

func TestClip(t *testing.T) {
	if got := clip("  short ", 10); got != "short" {
		t.Errorf("%q", got)
	}
	if got := clip("ab✓cd", 3); got != "ab..." {
		t.Errorf("clip inside a rune: %q", got)
	}
}
