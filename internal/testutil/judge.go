package testutil

import (
	"net/http/httptest"
	"testing"

	"github.com/evalcal/evalcal/internal/judgeserver"
)

// StartJudgeServer starts the bundled judge server (internal/judgeserver)
// with opts over real HTTP on 127.0.0.1, closed when the test ends, and
// returns it with its base URL (no path: OpenAI's API is under /v1).
func StartJudgeServer(t testing.TB, opts judgeserver.Options) (*judgeserver.Server, string) {
	t.Helper()
	s, err := judgeserver.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	return s, ts.URL
}
