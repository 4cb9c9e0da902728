package llm

import (
	"bytes"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/evalcal/evalcal/inspection"
	"github.com/evalcal/evalcal/internal/testutil"

	"github.com/evalcal/evalcal/internal/judgeserver"
	"github.com/evalcal/evalcal/sampler"
)

// testKey is the key every test judge sends (the secrets test plants its
// own).
const testKey = "sk-test-0123456789abcdef"

// providers are both SDK paths.
var providers = []string{OpenAI, Anthropic}

// fakeProvider is a judge server on 127.0.0.1 and the requests it got.
type fakeProvider struct {
	srv *judgeserver.Server
	url string
	rec *recorder
}

// startServer starts a judge server with opts over real HTTP.
func startServer(t *testing.T, opts judgeserver.Options) *fakeProvider {
	t.Helper()
	srv, url := testutil.StartJudgeServer(t, opts)
	return &fakeProvider{srv: srv, url: url, rec: &recorder{base: http.DefaultTransport}}
}

// baseURL is the provider's base URL on the server.
func (f *fakeProvider) baseURL(provider string) string {
	if provider == OpenAI {
		return f.url + "/v1"
	}
	return f.url
}

// judge builds a judge of provider:model against the server; edit
// changes the config first.
func (f *fakeProvider) judge(t *testing.T, provider, model string, edit ...func(*Config)) *Judge {
	t.Helper()
	cfg := Config{Provider: provider, Model: model, BaseURL: f.baseURL(provider), APIKey: testKey,
		HTTPClient: &http.Client{Transport: f.rec}}
	for _, e := range edit {
		e(&cfg)
	}
	j, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return j
}

// recorder is a transport that keeps every request and response body.
type recorder struct {
	base http.RoundTripper
	mu   sync.Mutex
	reqs []recorded
}

type recorded struct {
	header        http.Header
	body, resBody []byte
	status        int
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil {
		body, _ = io.ReadAll(req.Body)
		req.Body = io.NopCloser(bytes.NewReader(body))
	}
	res, err := r.base.RoundTrip(req)
	rec := recorded{header: req.Header.Clone(), body: body}
	if err == nil {
		rec.status = res.StatusCode
		rec.resBody, _ = io.ReadAll(res.Body)
		res.Body = io.NopCloser(bytes.NewReader(rec.resBody))
	}
	r.mu.Lock()
	r.reqs = append(r.reqs, rec)
	r.mu.Unlock()
	return res, err
}

func (r *recorder) all() []recorded {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]recorded(nil), r.reqs...)
}

// corpusRun describes a run of the bundled corpus.
func corpusRun(t testing.TB, id string) inspection.Run {
	t.Helper()
	dir := filepath.Join("..", "..", "testdata", "runs", id)
	run, err := sampler.Describe(dir)
	if err != nil {
		t.Fatal(err)
	}
	return run
}

// Corpus runs used by the tests (testdata/runs/MANIFEST.json).
const (
	runClean       = "20260112-135900-3d1e60" // completed, no defect
	runPlaceholder = "20260115-090746-0ce28c" // completed, a placeholder output (deep sees it)
	runLarge       = "20260307-225102-bded57" // two 100 KB outputs: deep is cut at the default budget
)

// writeRun creates a run directory with files (relative path -> content).
func writeRun(t testing.TB, files map[string]string) inspection.Run {
	t.Helper()
	dir := testutil.WriteFiles(t, filepath.Join(t.TempDir(), "20260101-000000-abcdef"), files)
	return inspection.Run{ID: filepath.Base(dir), Path: dir, System: "test-system", Era: "state-md-v1", Valid: true}
}

func ioNopCloser(s string) io.ReadCloser { return io.NopCloser(strings.NewReader(s)) }
