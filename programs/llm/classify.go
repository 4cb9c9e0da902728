package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/evalcal/evalcal/inspection"
)

// Limits on what is kept of a provider's answer.
const (
	// maxResponseBytes bounds one response body (an answer is a few KB;
	// the SDKs read bodies whole).
	maxResponseBytes = 16 << 20
	// maxErrorBody bounds the error body read for its message.
	maxErrorBody = 64 << 10
	// maxMessageBytes bounds a provider message quoted in an error.
	maxMessageBytes = 300
	// maxRawBytes bounds the raw answer quoted in a failure's reason.
	maxRawBytes = 500
)

// providerError is an HTTP error answer, summarised by this package: the
// SDK's error (whose text may quote the request URL or the whole body) is
// never kept.
type providerError struct {
	status  int
	errType string // OpenAI error.type, Anthropic error.type
	code    string // OpenAI error.code
	param   string // OpenAI error.param
	message string
	// retryAfter is the wait asked for, if any.
	retryAfter    time.Duration
	hasRetryAfter bool
}

func (e *providerError) Error() string {
	s := fmt.Sprintf("HTTP %d", e.status)
	if e.code != "" {
		s += " " + e.code
	} else if e.errType != "" {
		s += " " + e.errType
	}
	if e.message != "" {
		s += ": " + e.message
	}
	return s
}

// mentions reports whether the error names word in its parameter, code or
// message (case-insensitive).
func (e *providerError) mentions(words ...string) bool {
	text := strings.ToLower(e.param + " " + e.code + " " + e.message)
	for _, w := range words {
		if strings.Contains(text, w) {
			return true
		}
	}
	return false
}

// badRequest reports a 400 or 422, the statuses servers reject a
// parameter with.
func (e *providerError) badRequest() bool {
	return e.status == http.StatusBadRequest || e.status == http.StatusUnprocessableEntity
}

// newProviderError reads the error response res (status >= 400): its
// message from any of the shapes servers use ({"error": {"message",
// "type", "code", "param"}}, {"error": "text"}, {"message": ...},
// {"detail": ...}, or plain text), and its Retry-After.
func newProviderError(res *http.Response, now time.Time) *providerError {
	e := &providerError{status: res.StatusCode}
	e.retryAfter, e.hasRetryAfter = parseRetryAfter(res.Header, now)
	if res.Body == nil {
		return e
	}
	body, _ := io.ReadAll(io.LimitReader(res.Body, maxErrorBody))
	var doc struct {
		Error   json.RawMessage `json:"error"`
		Message any             `json:"message"`
		Detail  any             `json:"detail"`
		Type    any             `json:"type"`
	}
	if json.Unmarshal(body, &doc) != nil {
		e.message = strings.TrimSpace(string(body))
		return e
	}
	var inner struct {
		Message any `json:"message"`
		Type    any `json:"type"`
		Code    any `json:"code"`
		Param   any `json:"param"`
	}
	if len(doc.Error) > 0 && json.Unmarshal(doc.Error, &inner) == nil {
		e.message, e.errType, e.code, e.param = text(inner.Message), text(inner.Type), text(inner.Code), text(inner.Param)
	} else if len(doc.Error) > 0 {
		var s string
		if json.Unmarshal(doc.Error, &s) == nil {
			e.message = s
		}
	}
	if e.message == "" {
		e.message = text(doc.Message)
	}
	if e.message == "" {
		e.message = text(doc.Detail)
	}
	if e.errType == "" {
		e.errType = text(doc.Type)
	}
	return e
}

// text renders a JSON value read as any (a string, a number, an object)
// as one line.
func text(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return v
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	default:
		data, _ := json.Marshal(v)
		return string(data)
	}
}

// parseRetryAfter reads the wait a response asks for: retry-after-ms
// (milliseconds, OpenAI and Anthropic), else Retry-After in seconds or as
// an HTTP date (RFC 9110 section 10.2.3) relative to now. A negative, NaN
// or unreadable value is ignored; a date in the past is 0. A wait too
// long for a time.Duration (about 292 years: "1e300", "inf") is the
// longest Duration, so it exceeds any --max-retry-wait and fails the call
// like any other wait past the cap, never reads as "no wait given".
func parseRetryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); isWait(ms, err) {
			return waitOf(ms, time.Millisecond), true
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil || errors.Is(err, strconv.ErrRange) {
		if isWait(s, err) {
			return waitOf(s, time.Second), true
		}
		return 0, false
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(0, t.Sub(now)), true
	}
	return 0, false
}

// isWait reports whether a parsed wait is a wait: >= 0 and not NaN
// (ParseFloat's range error gives +-Inf, kept).
func isWait(x float64, err error) bool {
	return (err == nil || errors.Is(err, strconv.ErrRange)) && x >= 0
}

// waitOf is x units as a Duration, the longest Duration when it does not
// fit.
func waitOf(x float64, unit time.Duration) time.Duration {
	d := x * float64(unit)
	if d >= math.MaxInt64 { // +Inf too
		return time.Duration(math.MaxInt64)
	}
	return time.Duration(d)
}

// classify turns a request's failure into the runner's classes, with a
// message naming the judge and the cause and never the key:
//
//	401                                      fatal: authentication failed
//	403                                      fatal: permission denied
//	404, code model_not_found                fatal: unknown model or wrong base URL
//	insufficient_quota, billing_error, 402,
//	  "credit balance"                       fatal: quota or credit exhausted
//	408, 409, 429, 5xx, 529                  transient, with Retry-After when sent
//	other 4xx                                permanent
//	redirect to another origin               fatal: refused, the key stays
//	timeout, connection error, bad body      transient
//	ctx cancelled                            returned as is (wrapped)
func (j *Judge) classify(err error) error {
	if err == nil {
		return nil
	}
	name := j.Name()
	var pe *providerError
	if errors.As(err, &pe) {
		msg := j.redact(clip(pe.message, maxMessageBytes))
		detail := strconv.Itoa(pe.status)
		if pe.code != "" {
			detail += " " + pe.code
		} else if pe.errType != "" {
			detail += " " + pe.errType
		}
		say := func(what string) error {
			if msg == "" {
				return fmt.Errorf("%s: %s (%s)", name, what, j.redact(detail))
			}
			return fmt.Errorf("%s: %s (%s): %s", name, what, j.redact(detail), msg)
		}
		quota := pe.code == "insufficient_quota" || pe.errType == "insufficient_quota" ||
			pe.errType == "billing_error" || pe.status == http.StatusPaymentRequired ||
			strings.Contains(strings.ToLower(pe.message), "credit balance")
		switch {
		case pe.status == http.StatusUnauthorized:
			return inspection.Fatal(say("authentication failed"))
		case pe.status == http.StatusForbidden:
			return inspection.Fatal(say("permission denied"))
		case pe.status == http.StatusNotFound || pe.code == "model_not_found":
			return inspection.Fatal(say("unknown model or wrong base URL"))
		case quota:
			return inspection.Fatal(say("quota or credit exhausted"))
		case pe.status == http.StatusTooManyRequests || pe.status == http.StatusRequestTimeout ||
			pe.status == http.StatusConflict || pe.status >= 500:
			what := "rate limited"
			switch {
			case pe.status == 529:
				what = "overloaded"
			case pe.status >= 500:
				what = "server error"
			case pe.status == http.StatusRequestTimeout:
				what = "request timeout"
			case pe.status == http.StatusConflict:
				what = "conflict"
			}
			e := say(what)
			if pe.hasRetryAfter {
				return inspection.RetryAfter(e, pe.retryAfter)
			}
			return e
		default:
			return inspection.Permanent(say("request rejected"))
		}
	}
	switch {
	case errors.Is(err, context.Canceled):
		return fmt.Errorf("%s: %w", name, context.Canceled)
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("%s: request timed out: %w", name, context.DeadlineExceeded)
	}
	var re *redirectError
	if errors.As(err, &re) || strings.Contains(err.Error(), "origin must match the configured base URL") {
		// The SDKs refuse a cross-origin request themselves too.
		what := "the server redirected to another origin; refused (set the base URL to the API's own address)"
		if re != nil {
			what = re.Error()
		}
		return inspection.Fatal(fmt.Errorf("%s: %s", name, j.redact(what)))
	}
	var be *bodyError
	if errors.As(err, &be) {
		return fmt.Errorf("%s: %s", name, j.redact(be.Error()))
	}
	return fmt.Errorf("%s: %s", name, j.redact(transportMessage(err)))
}

// bodyError is a 2xx answer whose body could not be read as the API's
// JSON (a proxy's HTML page, a cut connection): transient.
type bodyError struct{ msg string }

func (e *bodyError) Error() string { return e.msg }

// transportMessage describes a failure to get an answer without the
// request's URL query, user information or headers.
func transportMessage(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		target := ue.URL
		if u, perr := url.Parse(ue.URL); perr == nil {
			u.User, u.RawQuery, u.Fragment = nil, "", ""
			target = u.String()
		}
		inner := ue.Err
		var ne net.Error
		if errors.As(inner, &ne) && ne.Timeout() {
			return fmt.Sprintf("request to %s timed out", target)
		}
		return fmt.Sprintf("request to %s failed: %s", target, clip(inner.Error(), maxMessageBytes))
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return "request timed out"
	}
	return "request failed: " + clip(err.Error(), maxMessageBytes)
}

// redact removes the API key from s, and every word of s that shares at
// least 8 bytes with it or that masks a secret with "****" (providers
// echo keys as "sk-abc***xyz"). A key shorter than shortKeyBytes (a dummy
// key such as "x" for a local server) is removed only where it stands as
// a whole token, so that the provider's own words survive ("does not
// exist", not "does not e[redacted]ist"; issue 28).
func (j *Judge) redact(s string) string {
	return redactSecret(s, j.key)
}

func redactSecret(s, key string) string {
	if key == "" || s == "" {
		return s
	}
	if len(key) >= shortKeyBytes {
		s = strings.ReplaceAll(s, key, "[redacted]")
	} else {
		s = replaceToken(s, key, "[redacted]")
	}
	words := strings.FieldsFunc(s, func(r rune) bool {
		return r == ' ' || r == '\t' || r == '\n' || r == '"' || r == '\'' || r == ',' || r == '`'
	})
	for _, w := range words {
		w = strings.TrimRight(w, ".;:!?)")
		if w == "[redacted]" || w == "" {
			continue
		}
		if strings.Contains(w, "****") || sharesRun(w, key, 8) {
			s = strings.ReplaceAll(s, w, "[redacted]")
		}
	}
	return s
}

// shortKeyBytes is the length under which a key is taken for a dummy
// and redacted only as a whole token: every provider's real keys are
// longer (OpenAI's and Anthropic's run to dozens of bytes), and a
// shorter string occurs inside ordinary words.
const shortKeyBytes = 8

// replaceToken replaces each occurrence of tok in s that is not part of a
// longer token (letters, digits, '-', '_' on either side).
func replaceToken(s, tok, with string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, tok)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		end := i + len(tok)
		whole := (i == 0 || !isTokenByte(s[i-1])) && (end == len(s) || !isTokenByte(s[end]))
		b.WriteString(s[:i])
		if whole {
			b.WriteString(with)
		} else {
			b.WriteString(tok)
		}
		s = s[end:]
	}
}

// isTokenByte reports whether c can be part of a key-like token.
func isTokenByte(c byte) bool {
	return c == '-' || c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// sharesRun reports whether a and b have a common substring of n bytes.
func sharesRun(a, b string, n int) bool {
	if len(a) < n || len(b) < n {
		return false
	}
	for i := 0; i+n <= len(a); i++ {
		if strings.Contains(b, a[i:i+n]) {
			return true
		}
	}
	return false
}

// clip shortens s to at most n bytes (on a rune boundary) with "...".
func clip(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && cut < len(s) && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "..."
}

// limitedClient returns a copy of hc (a new client when nil) whose
// transport bounds response bodies to maxResponseBytes.
func limitedClient(hc *http.Client) *http.Client {
	c := &http.Client{}
	if hc != nil {
		c = &http.Client{Transport: hc.Transport, CheckRedirect: hc.CheckRedirect, Jar: hc.Jar, Timeout: hc.Timeout}
	}
	base := c.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	c.Transport = limitTransport{base: base}
	next := c.CheckRedirect
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if len(via) > 0 && !sameOrigin(req.URL, via[0].URL) {
			return &redirectError{from: originOf(via[0].URL), to: originOf(req.URL)}
		}
		if next != nil {
			return next(req, via)
		}
		if len(via) >= 10 { // net/http's default policy
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}
	return c
}

// redirectError is a redirect to another origin, refused: the key would
// go with it. It recurs on every call, so classify makes it fatal.
type redirectError struct{ from, to string }

func (e *redirectError) Error() string {
	return fmt.Sprintf("the server at %s redirected to another origin, %s; refused (set the base URL to the API's own address)", e.from, e.to)
}

// sameOrigin reports whether a and b have one scheme, host and port.
func sameOrigin(a, b *url.URL) bool {
	return strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(a.Hostname(), b.Hostname()) && portOf(a) == portOf(b)
}

func portOf(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	if strings.EqualFold(u.Scheme, "https") {
		return "443"
	}
	return "80"
}

// originOf is scheme://host of u, without user information or path.
func originOf(u *url.URL) string { return u.Scheme + "://" + u.Host }

// limitTransport bounds every response body.
type limitTransport struct{ base http.RoundTripper }

func (t limitTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	res, err := t.base.RoundTrip(req)
	if err != nil || res.Body == nil {
		return res, err
	}
	res.Body = &limitedBody{rc: res.Body, left: maxResponseBytes}
	return res, nil
}

// limitedBody fails a read past its limit instead of truncating silently.
type limitedBody struct {
	rc   io.ReadCloser
	left int64
}

var errBodyTooLarge = fmt.Errorf("response body larger than %d bytes", maxResponseBytes)

func (b *limitedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		// One more byte tells a body of exactly the limit from a longer one.
		var one [1]byte
		if n, _ := b.rc.Read(one[:]); n > 0 {
			return 0, errBodyTooLarge
		}
		return 0, io.EOF
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	return n, err
}

func (b *limitedBody) Close() error { return b.rc.Close() }
