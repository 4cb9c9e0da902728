package forecast

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/evalcal/evalcal/internal/testutil"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func mustReadPrices(t *testing.T, path string) *Prices {
	t.Helper()
	p, _, err := ReadPricesFile(context.Background(), path, ReadLimits{})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// splitLine is a line as the readers see it: its number and text, or the
// problem that makes it a bad line ("long", "nul", "bom").
type splitLine struct {
	N       int
	Text    string
	Problem string
}

// splitReference splits input the way the readers are documented to:
// a byte-order mark is dropped at the very start only; lines end at
// "\n"; a line longer than maxLine (newline excluded) is "long", else one
// holding a NUL byte is "nul", else one starting (after spaces and tabs)
// with a byte-order mark is "bom", else a blank line is skipped.
func splitReference(input []byte, maxLine int) []splitLine {
	input = bytes.TrimPrefix(input, utf8BOM)
	var out []splitLine
	parts := bytes.Split(input, []byte{'\n'})
	if len(parts[len(parts)-1]) == 0 {
		parts = parts[:len(parts)-1]
	}
	for i, p := range parts {
		l := splitLine{N: i + 1}
		switch {
		case len(p) > maxLine:
			l.Problem = "long"
		case bytes.IndexByte(p, 0) >= 0:
			l.Problem = "nul"
		case bytes.HasPrefix(bytes.TrimLeft(p, " \t"), utf8BOM):
			l.Problem = "bom"
		case len(bytes.TrimSpace(p)) == 0:
			continue
		default:
			l.Text = string(p)
		}
		out = append(out, l)
	}
	return out
}

func problemOf(err error) string {
	switch {
	case errors.Is(err, errLineNUL):
		return "nul"
	case errors.Is(err, errLineBOM):
		return "bom"
	case strings.Contains(err.Error(), "longer than"):
		return "long"
	}
	return "?" + err.Error()
}

// jitterReader returns data in reads of random sizes (1 to max bytes).
type jitterReader struct {
	data []byte
	rng  *rand.Rand
	max  int
}

func (r *jitterReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, io.EOF
	}
	n := min(len(p), len(r.data), 1+r.rng.IntN(r.max))
	copy(p, r.data[:n])
	r.data = r.data[n:]
	return n, nil
}

// splitWithChunks reads input through the chunk reader on workers
// goroutines and returns the lines as splitLines.
func splitWithChunks(input []byte, r io.Reader, lim ReadLimits, workers int) ([]splitLine, error) {
	lim, err := lim.resolve()
	if err != nil {
		return nil, err
	}
	var out []splitLine
	work := func(c *lineChunk) []splitLine {
		var got []splitLine
		c.each(lim.MaxLineBytes, func(line []byte, n int) {
			got = append(got, splitLine{N: n, Text: string(line)})
		}, func(n int, err error) {
			got = append(got, splitLine{N: n, Problem: problemOf(err)})
		})
		return got
	}
	err = forEachChunk(context.Background(), newChunkReader(r, lim, 1), workers, work, func(ls []splitLine) error {
		out = append(out, ls...)
		return nil
	})
	return out, err
}

// randomInput is lines of random lengths (some around maxLine), with CRs,
// blank lines, NUL bytes and byte-order marks here and there.
func randomInput(rng *rand.Rand, lines, maxLine int) []byte {
	var b []byte
	if rng.IntN(3) == 0 {
		b = append(b, utf8BOM...)
	}
	for i := range lines {
		n := rng.IntN(maxLine + 3)
		if rng.IntN(20) == 0 {
			n = maxLine + rng.IntN(5*maxLine+chunkTarget/64)
		}
		if rng.IntN(30) == 0 {
			b = append(b, utf8BOM...)
		}
		for range n {
			switch k := rng.IntN(200); {
			case k == 0:
				b = append(b, 0)
			case k < 10:
				b = append(b, ' ')
			case k < 12:
				b = append(b, '\r')
			default:
				b = append(b, byte('a'+k%26))
			}
		}
		if i < lines-1 || rng.IntN(2) == 0 {
			b = append(b, '\n')
		}
	}
	return b
}

func TestChunkReaderSplitsLinesAsDocumented(t *testing.T) {
	// Property: for random inputs, limits, read sizes and worker counts
	// (inputs up to about a megabyte, so several 256 KiB chunks), the
	// chunked, parallel reader yields exactly the reference split.
	for seed := range uint64(40) {
		rng := rand.New(rand.NewPCG(seed, 7))
		maxLine := []int{3, 40, 700, 5000}[seed%4]
		lines := 1 + rng.IntN(60)
		if seed%5 == 0 {
			lines = 2000 + rng.IntN(3000)
		}
		input := randomInput(rng, lines, maxLine)
		want := splitReference(input, maxLine)
		for _, workers := range []int{1, 3} {
			r := &jitterReader{data: input, rng: rand.New(rand.NewPCG(seed, uint64(workers))), max: 1 + rng.IntN(70000)}
			got, err := splitWithChunks(input, r, ReadLimits{MaxLineBytes: maxLine}, workers)
			if err != nil {
				t.Fatalf("seed %d: %v", seed, err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("seed %d workers %d max line %d (-reference +reader):\n%s", seed, workers, maxLine, diff)
			}
		}
	}
}

func FuzzChunkReader(f *testing.F) {
	f.Add([]byte("a\nb\r\n\n\xef\xbb\xbfc\nd\x00e\nlonglonglong"), uint8(4), uint8(3))
	f.Add([]byte("\xef\xbb\xbf{\"a\":1}\n"), uint8(1), uint8(1))
	f.Fuzz(func(t *testing.T, input []byte, maxLine, readSize uint8) {
		lim := ReadLimits{MaxLineBytes: 1 + int(maxLine)}
		r := &jitterReader{data: input, rng: rand.New(rand.NewPCG(uint64(len(input)), 1)), max: 1 + int(readSize)}
		got, err := splitWithChunks(input, r, lim, 2)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(splitReference(input, lim.MaxLineBytes), got); diff != "" {
			t.Fatalf("(-reference +reader):\n%s", diff)
		}
	})
}

// readerCase runs one of the four line readers on r.
type readerCase struct {
	name string
	read func(ctx context.Context, r io.Reader, lim ReadLimits) ([]BadLine, error)
	file func(ctx context.Context, path string) error
	// line and other are valid lines of the input, other than each other.
	line, other string
}

var asOf2027 = time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)

func readerCases() []readerCase {
	return []readerCase{
		{"calls", func(ctx context.Context, r io.Reader, lim ReadLimits) ([]BadLine, error) {
			rep, err := ResolveCalls(ctx, r, nil, CallOptions{AsOf: asOf2027, File: "calls.jsonl", Limits: lim})
			return rep.BadLines, err
		}, func(ctx context.Context, path string) error {
			_, err := ResolveCallsFile(ctx, path, nil, CallOptions{AsOf: asOf2027})
			return err
		}, `{"id":"c1","agent":"a","decider":"system","action":"hold","decided_at":"2026-01-01T00:00:00Z"}`,
			`{"id":"c2","agent":"a","decider":"system","action":"hold","decided_at":"2026-01-01T00:00:00Z"}`},
		{"prices-jsonl", func(ctx context.Context, r io.Reader, lim ReadLimits) ([]BadLine, error) {
			_, bad, err := ReadPricesWithLimits(ctx, r, "prices.jsonl", lim)
			return bad, err
		}, func(ctx context.Context, path string) error {
			_, _, err := ReadPricesFile(ctx, path, ReadLimits{})
			return err
		}, `{"pool":"ETH","ts":"2026-01-01T00:00:00Z","price":100}`, `{"pool":"ETH","ts":"2026-01-01T00:00:00Z","price":101}`},
		{"events", func(ctx context.Context, r io.Reader, lim ReadLimits) ([]BadLine, error) {
			_, bad, err := ReadGateEventsWithLimits(ctx, r, "events.jsonl", lim)
			return bad, err
		}, func(ctx context.Context, path string) error {
			_, _, err := ReadGateEventsFile(ctx, path, ReadLimits{})
			return err
		}, `{"type":"candidate","candidate":"c","layer":"task","evidence":"audit"}`, `{"candidate":"c","layer":"task","seq":1,"hit":true}`},
		{"history", func(ctx context.Context, r io.Reader, lim ReadLimits) ([]BadLine, error) {
			_, bad, err := ReadGateHistoryWithLimits(ctx, r, "history.jsonl", lim)
			return bad, err
		}, func(ctx context.Context, path string) error {
			_, _, err := ReadGateHistoryFile(ctx, path, ReadLimits{})
			return err
		}, `{"layer":"task","high_risk":true}`, `{"layer":"task","high_risk":false}`},
	}
}

// endless repeats pattern for ever.
type endless struct {
	pattern []byte
	block   []byte // pattern repeated to at least 64 KiB
	off     int
}

func (e *endless) Read(p []byte) (int, error) {
	if e.block == nil {
		e.block = bytes.Repeat(e.pattern, (64<<10)/len(e.pattern)+1)
		e.block = e.block[:len(e.block)/len(e.pattern)*len(e.pattern)]
	}
	n := 0
	for n < len(p) {
		k := copy(p[n:], e.block[e.off:])
		n += k
		e.off = (e.off + k) % len(e.block)
	}
	return n, nil
}

// longLine is an input of a valid line, one line of n bytes of 'x', and
// another valid line, generated as it is read.
func longLine(rc readerCase, n int) io.Reader {
	return io.MultiReader(strings.NewReader(rc.line+"\n"), io.LimitReader(&endless{pattern: []byte("x")}, int64(n)), strings.NewReader("\n"+rc.other+"\n"))
}

func TestReadersSkipA200MBLineWithBoundedMemory(t *testing.T) {
	// Issue 13 item 7: a 200 MB line is a bad line (file:line), the
	// lines around it are read, and memory stays bounded by the line limit.
	if testing.Short() {
		t.Skip("streams 200 MB per reader; skipped with -short")
	}
	for _, rc := range readerCases() {
		var bad []BadLine
		var err error
		probe, _ := testutil.PeakHeap(func() error {
			bad, err = rc.read(context.Background(), longLine(rc, 200<<20), ReadLimits{})
			return nil
		})
		peak := probe.Peak
		if err != nil {
			t.Fatalf("%s: %v", rc.name, err)
		}
		if len(bad) != 1 || bad[0].Line != 2 || bad[0].Field != "line" || !strings.Contains(bad[0].Error, "longer than 1048576 bytes") {
			t.Errorf("%s: bad lines %+v, want line 2 too long", rc.name, bad)
		}
		if peak > 48<<20 {
			t.Errorf("%s: peak heap %d MB reading a 200 MB line", rc.name, peak>>20)
		}
		t.Logf("%s: peak heap %.1f MB", rc.name, float64(peak)/(1<<20))
	}
}

func TestReadersStopAtTheFileLimit(t *testing.T) {
	// /dev/zero-like input (and an endless run of valid lines) fails with
	// ErrInputTooLarge at the file limit, naming the file and the line.
	// (Prices fail sooner on zeros: their first line decides the format.)
	for _, rc := range readerCases() {
		for _, pattern := range []string{"\x00", rc.line + "\n"} {
			_, err := rc.read(context.Background(), &endless{pattern: []byte(pattern)}, ReadLimits{MaxFileBytes: 1 << 20})
			if err == nil || !strings.Contains(err.Error(), ".jsonl: line ") {
				t.Errorf("%s, endless %q: %v, want an error naming file and line", rc.name, pattern[:1], err)
			} else if !errors.Is(err, ErrInputTooLarge) && !(rc.name == "prices-jsonl" && strings.Contains(err.Error(), "line 1: longer than")) {
				t.Errorf("%s, endless %q: %v, want ErrInputTooLarge", rc.name, pattern[:1], err)
			}
		}
	}
	_, err := ResolveCalls(context.Background(), &endless{pattern: []byte{0}}, nil, CallOptions{AsOf: asOf2027, File: "zero", Limits: ReadLimits{MaxFileBytes: 1 << 20}})
	if want := "forecast: read calls zero: line 1: input larger than the limit of 1048576 bytes"; err == nil || err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}
}

func TestReadersOnDevZeroWithDefaultLimits(t *testing.T) {
	// The case: /dev/zero given as input. By path it is refused
	// at once (not a regular file); read as a stream it ends at the 4 GiB
	// default limit with memory bounded.
	if testing.Short() {
		t.Skip("reads 4 GiB of /dev/zero; skipped with -short")
	}
	f, err := os.Open("/dev/zero")
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	start := time.Now()
	var rerr error
	probe, _ := testutil.PeakHeap(func() error {
		_, rerr = ResolveCalls(context.Background(), f, nil, CallOptions{AsOf: asOf2027, File: "/dev/zero"})
		return nil
	})
	peak := probe.Peak
	if !errors.Is(rerr, ErrInputTooLarge) {
		t.Errorf("ResolveCalls on /dev/zero: %v, want ErrInputTooLarge", rerr)
	}
	t.Logf("/dev/zero: %v after %v, peak heap %.1f MB", rerr, time.Since(start).Round(time.Millisecond), float64(peak)/(1<<20))
	if peak > 48<<20 {
		t.Errorf("peak heap %d MB", peak>>20)
	}
}

func TestReadersRefuseNonRegularFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.jsonl")
	if err := os.Symlink(fifo, link); err != nil {
		t.Fatal(err)
	}
	for _, rc := range readerCases() {
		for _, path := range []string{"/dev/zero", fifo, link, dir} {
			done := make(chan error, 1)
			go func() { done <- rc.file(context.Background(), path) }()
			select {
			case err := <-done:
				if err == nil || !strings.Contains(err.Error(), "not a regular file") {
					t.Errorf("%s %s: %v, want 'not a regular file'", rc.name, path, err)
				}
			case <-time.After(5 * time.Second):
				t.Fatalf("%s %s: blocked", rc.name, path) // a FIFO opened for reading blocks until a writer comes
			}
		}
	}
}

func TestReadersAcceptByteOrderMarkAndCRLF(t *testing.T) {
	// Issue 11 item 4: a UTF-8 byte-order mark at the start of the input
	// is skipped (line 1 is read); CRLF line ends work; a byte-order mark
	// at the start of a later line is a bad line that says so.
	for _, rc := range readerCases() {
		input := "\xef\xbb\xbf" + rc.line + "\r\n" + rc.line + "\r\n"
		bad, err := rc.read(context.Background(), strings.NewReader(input), ReadLimits{})
		if err != nil || len(bad) > 1 || (len(bad) == 1 && bad[0].Field != "id" && bad[0].Field != "candidate") {
			t.Errorf("%s with a byte-order mark and CRLF: bad lines %+v, %v", rc.name, bad, err)
		}
		bad, err = rc.read(context.Background(), strings.NewReader(rc.line+"\n\n\xef\xbb\xbf"+rc.line+"\n"), ReadLimits{})
		if err != nil || len(bad) != 1 || bad[0].Line != 3 || !strings.Contains(bad[0].Error, "byte-order mark") {
			t.Errorf("%s with a byte-order mark on line 3: bad lines %+v, %v", rc.name, bad, err)
		}
	}
	// CSV prices: the header may carry the mark; a mark in a field is a
	// bad line rather than a different pool.
	p, bad, err := ReadPrices(context.Background(), strings.NewReader("\xef\xbb\xbfpool,ts,price\r\nETH,2026-01-01T00:00:00Z,100\r\n\xef\xbb\xbfETH,2026-01-01T01:00:00Z,101\r\nETH,\xef\xbb\xbf2026-01-01T02:00:00Z,102\r\n"), "prices.csv")
	if err != nil || p.Len() != 1 || len(bad) != 2 || !strings.Contains(bad[0].Error, "byte-order mark") || !strings.Contains(bad[1].Error, "byte-order mark") {
		t.Errorf("CSV: %d prices, bad %+v, %v; want 1 price and 2 bad lines naming the byte-order mark", p.Len(), bad, err)
	}
	// A JSON line with a mark outside a string says so.
	_, err = ParseCall([]byte(`{"id":"c1",` + "\xef\xbb\xbf" + `"agent":"a"}`))
	if err == nil || !strings.Contains(err.Error(), "byte-order mark") {
		t.Errorf("ParseCall with a byte-order mark inside the object: %v", err)
	}
}

func TestReadersReturnPromptlyWhenCancelled(t *testing.T) {
	// Issue 13 item 2: cancelling stops an endless input within moments,
	// with ctx.Err(); so does an endless single line.
	for _, rc := range readerCases() {
		inputs := map[string]func() io.Reader{
			"lines": func() io.Reader { return &endless{pattern: []byte(rc.line + "\n")} },
			"1 line": func() io.Reader {
				return io.MultiReader(strings.NewReader(rc.line+"\n"), &endless{pattern: []byte("x")})
			},
		}
		for name, input := range inputs {
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() {
				_, err := rc.read(ctx, input(), ReadLimits{MaxFileBytes: 1 << 62})
				done <- err
			}()
			time.Sleep(20 * time.Millisecond)
			cancel()
			select {
			case err := <-done:
				if !errors.Is(err, context.Canceled) {
					t.Errorf("%s, endless %s: %v, want context.Canceled", rc.name, name, err)
				}
			case <-time.After(2 * time.Second):
				t.Fatalf("%s, endless %s: still reading 2 s after cancel", rc.name, name)
			}
		}
	}
}

func TestReadersRejectNegativeLimits(t *testing.T) {
	for _, rc := range readerCases() {
		if _, err := rc.read(context.Background(), strings.NewReader(rc.line), ReadLimits{MaxLineBytes: -1}); err == nil {
			t.Errorf("%s: negative line limit accepted", rc.name)
		}
	}
}

// callsCorpus is n generated calls over a few agents, seasons and pools,
// with repeated ids, bad lines and tampered seals sprinkled in.
func callsCorpus(n int) string {
	rng := rand.New(rand.NewPCG(5, 6))
	var b strings.Builder
	for i := range n {
		switch rng.IntN(50) {
		case 0:
			b.WriteString("not json\n")
			continue
		case 1:
			b.WriteString("\n")
			continue
		}
		id := fmt.Sprintf("c%d", i)
		if rng.IntN(40) == 0 {
			id = fmt.Sprintf("c%d", rng.IntN(i+1)) // a repeat, most of the time
		}
		agent, season := fmt.Sprintf("a%d", rng.IntN(4)), fmt.Sprintf("s%d", rng.IntN(2))
		at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(rng.IntN(48*60)) * time.Minute).Format(time.RFC3339)
		conf := fmt.Sprintf("0.%02d", rng.IntN(100))
		seal := ""
		switch rng.IntN(4) {
		case 0:
			seal = SealV2Of(SealFields{ID: id, Agent: agent, Season: season, Decider: "llm", Action: "buy", Pool: "P1",
				DecidedAt: at, Confidence: conf, HorizonHours: "6", ReferencePrice: "100", Refused: "false"})
		case 1:
			seal = SealOf(id, agent, at, "buy", conf, "6", "100")
		case 2:
			seal = strings.Repeat("0", 64) // tampered
		}
		fmt.Fprintf(&b, `{"id":%q,"agent":%q,"season":%q,"decider":"llm","action":"buy","confidence":%s,"horizon_hours":6,"reference_price":100,"decided_at":%q,"pool":"P1","refused":false,"seal":%q}`+"\n",
			id, agent, season, conf, at, seal)
	}
	return b.String()
}

func TestResolveCallsSameReportForAnyWorkerCount(t *testing.T) {
	// About 1.3 MB of calls: several chunks, delivered in input order, so
	// bad lines, repeats and groups come out the same for any number of
	// workers.
	input := callsCorpus(6000)
	var prices strings.Builder
	prices.WriteString("pool,ts,price\n")
	for m := range 60 * 60 {
		fmt.Fprintf(&prices, "P1,%s,%d\n", time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(m)*time.Minute).Format(time.RFC3339), 95+m%11)
	}
	p, _, err := ReadPrices(context.Background(), strings.NewReader(prices.String()), "prices.csv")
	if err != nil {
		t.Fatal(err)
	}
	var first CallReport
	for i, workers := range []int{1, 2, 5} {
		rep, err := ResolveCalls(context.Background(), strings.NewReader(input), p, CallOptions{AsOf: asOf2027, File: "calls.jsonl", Workers: workers})
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			first = rep
			if len(rep.BadLines) < 100 || len(rep.Tampered) < 1000 || rep.SealedV1 < 1000 || rep.SealedV2 < 1000 {
				t.Fatalf("corpus too tame: %d bad, %d tampered, %d v1, %d v2", len(rep.BadLines), len(rep.Tampered), rep.SealedV1, rep.SealedV2)
			}
			continue
		}
		if diff := cmp.Diff(first, rep, cmpopts.IgnoreUnexported(GroupScore{})); diff != "" {
			t.Errorf("workers %d (-1 worker +%d):\n%s", workers, workers, diff)
		}
	}
}
