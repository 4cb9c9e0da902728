package llm

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/evalcal/evalcal/internal/judgeserver"
	"github.com/evalcal/evalcal/runner"
)

// timedHandler adds up the time the fake provider spends answering, so
// that a benchmark can report evalcal's own part of a call.
type timedHandler struct {
	h  http.Handler
	ns atomic.Int64
}

func (t *timedHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	t.h.ServeHTTP(w, r)
	t.ns.Add(int64(time.Since(start)))
}

// BenchmarkInspect is one inspection of a typical corpus run (the
// placeholder run, deep: 10 KB of files) against the judge server at zero
// latency over loopback HTTP. overhead-µs/op is the call's wall time minus
// the server's handler time: packing, the SDK's request and response,
// parsing, and the loopback round trip.
func BenchmarkInspect(b *testing.B) {
	run := corpusRun(b, runPlaceholder)
	for _, p := range providers {
		b.Run(p, func(b *testing.B) {
			srv, err := judgeserver.New(judgeserver.Options{})
			if err != nil {
				b.Fatal(err)
			}
			th := &timedHandler{h: srv}
			ts := httptest.NewServer(th)
			defer ts.Close()
			base := ts.URL
			if p == OpenAI {
				base += "/v1"
			}
			j, err := New(Config{Provider: p, Model: judgeserver.ModelLarge, BaseURL: base, APIKey: testKey})
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			if _, err := j.Inspect(ctx, run, runner.Deep); err != nil { // warm the connection
				b.Fatal(err)
			}
			th.ns.Store(0)
			b.ReportAllocs()
			b.ResetTimer()
			start := time.Now()
			for b.Loop() {
				if _, err := j.Inspect(ctx, run, runner.Deep); err != nil {
					b.Fatal(err)
				}
			}
			el := time.Since(start)
			b.ReportMetric(float64(el-time.Duration(th.ns.Load()))/float64(b.N)/1e3, "overhead-µs/op")
			b.ReportMetric(float64(th.ns.Load())/float64(b.N)/1e3, "server-µs/op")
		})
	}
}

// BenchmarkPack packs the largest corpus run (two 100 KB outputs) at deep
// within the default budget.
func BenchmarkPack(b *testing.B) {
	run := corpusRun(b, runLarge)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Pack(ctx, run, runner.Deep, DefaultPromptTokens); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseAnswer(b *testing.B) {
	text := "Here it is:\n```json\n" + goodAnswer + "\n```\n"
	b.ReportAllocs()
	for b.Loop() {
		if _, err := parseAnswer(text, parseRun, runner.Deep); err != nil {
			b.Fatal(err)
		}
	}
}
