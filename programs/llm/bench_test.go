package llm

import (
	"bufio"
	"context"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/evalcal/evalcal/inspection"
	"github.com/evalcal/evalcal/internal/judgeserver"
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
			if _, err := j.Inspect(ctx, run, inspection.Deep); err != nil { // warm the connection
				b.Fatal(err)
			}
			th.ns.Store(0)
			b.ReportAllocs()
			b.ResetTimer()
			start := time.Now()
			for b.Loop() {
				if _, err := j.Inspect(ctx, run, inspection.Deep); err != nil {
					b.Fatal(err)
				}
			}
			el := time.Since(start)
			b.ReportMetric(float64(el-time.Duration(th.ns.Load()))/float64(b.N)/1e3, "overhead-µs/op")
			b.ReportMetric(float64(th.ns.Load())/float64(b.N)/1e3, "server-µs/op")
		})
	}
}

// BenchmarkPack packs a typical corpus run (the one BenchmarkInspect
// inspects, 10 KB in 15 files) and the largest (two 100 KB outputs, cut
// to the default budget) at deep.
func BenchmarkPack(b *testing.B) {
	for name, id := range map[string]string{"typical": runPlaceholder, "largest": runLarge} {
		b.Run(name, func(b *testing.B) {
			run := corpusRun(b, id)
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Pack(ctx, run, inspection.Deep, DefaultPromptTokens); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkParseAnswer(b *testing.B) {
	text := "Here it is:\n```json\n" + goodAnswer + "\n```\n"
	b.ReportAllocs()
	for b.Loop() {
		if _, err := parseAnswer(context.Background(), text, parseRun, inspection.Deep); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkInspectSeparateServer runs the judge server as its own process
// (cmd/judgeserver, zero latency) so that this process's CPU time is
// evalcal's alone: cpu-µs/op is packing, the SDK's request and response,
// the HTTP client and parsing, per call. It does not depend on how busy
// the machine is, unlike wall time.
func BenchmarkInspectSeparateServer(b *testing.B) {
	bin := filepath.Join(b.TempDir(), "judgeserver")
	if out, err := exec.Command("go", "build", "-o", bin, "../../cmd/judgeserver").CombinedOutput(); err != nil {
		b.Fatalf("build the judge server: %v\n%s", err, out)
	}
	cmd := exec.Command(bin)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		b.Fatal(err)
	}
	base := strings.TrimSpace(line)
	run := corpusRun(b, runPlaceholder)
	for _, p := range providers {
		b.Run(p, func(b *testing.B) {
			url := base
			if p == Anthropic {
				url = strings.TrimSuffix(base, "/v1")
			}
			j, err := New(Config{Provider: p, Model: judgeserver.ModelLarge, BaseURL: url, APIKey: testKey})
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			if _, err := j.Inspect(ctx, run, inspection.Deep); err != nil {
				b.Fatal(err)
			}
			cpu0 := processCPU(b)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if _, err := j.Inspect(ctx, run, inspection.Deep); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(processCPU(b)-cpu0)/float64(b.N)/1e3, "cpu-µs/op")
		})
	}
}

// processCPU is this process's user and system CPU time so far.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
