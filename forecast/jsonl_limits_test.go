package forecast

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

const goodLine = `{"agent": "a", "confidence": 0.5, "outcome": 1}` + "\n"

// An over-long line is one bad line; the lines around it are read.
func TestReadJSONLOverLongLineIsOneBadLine(t *testing.T) {
	long := `{"agent": "a", "pad": "` + strings.Repeat("x", MaxLineBytes) + `", "confidence": 0.5, "outcome": 1}` + "\n"
	atLimit := `{"agent": "a", "confidence": 0.5, "outcome": 1, "pad": "` + strings.Repeat("y", MaxLineBytes-80) + `"}` + "\n"
	if len(atLimit) > MaxLineBytes {
		t.Fatalf("test line of %d bytes is over the limit", len(atLimit))
	}
	in := goodLine + long + goodLine + atLimit + goodLine
	fs, res, err := readAll(t, in, JSONLOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(fs) != 4 || res.BadCount != 1 {
		t.Fatalf("%d forecasts, %d bad, want 4 and 1 (%+v)", len(fs), res.BadCount, res.Bad)
	}
	b := res.Bad[0]
	if b.Line != 2 || b.Field != "line" || !strings.Contains(b.Error, "line longer than") {
		t.Errorf("bad line %+v, want line 2 field line \"line longer than ...\"", b)
	}
	if fs[1].Line != 3 || fs[3].Line != 5 {
		t.Errorf("line numbers %d, %d after the long line, want 3 and 5", fs[1].Line, fs[3].Line)
	}
	_, _, err = readAll(t, in, JSONLOptions{Strict: true})
	var le *LineError
	if !errors.As(err, &le) || le.Line != 2 {
		t.Errorf("strict: err %v, want a LineError for line 2", err)
	}
}

// zeros is an endless reader of zero bytes, like /dev/zero.
type zeros struct{ n int64 }

func (z *zeros) Read(p []byte) (int, error) {
	clear(p)
	z.n += int64(len(p))
	return len(p), nil
}

// An input without line endings (/dev/zero) is a clear error after
// MaxSkippedLineBytes, with memory bounded by the line limit, not the
// input.
func TestReadJSONLStopsOnAnInputWithoutLineEndings(t *testing.T) {
	if testing.Short() || raceDetector {
		t.Skip("reads 1 GiB (skipped under -short and -race)")
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	z := &zeros{}
	_, err := ReadJSONL(context.Background(), z, "/dev/zero", JSONLOptions{}, func(Forecast) error { return nil })
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), "line 1: no line ending") || !strings.Contains(err.Error(), "/dev/zero") {
		t.Fatalf("err %v, want \"read /dev/zero: line 1: no line ending ...\"", err)
	}
	if z.n > MaxSkippedLineBytes+1<<20 {
		t.Errorf("read %d bytes before stopping, want about %d", z.n, MaxSkippedLineBytes)
	}
	if grown := int64(after.TotalAlloc - before.TotalAlloc); grown > 16<<20 {
		t.Errorf("allocated %d bytes reading zeros, want a few MiB at most", grown)
	}
}

// The real /dev/zero, cancelled: a pipe-like input never ends, so the
// reader must honour ctx while skipping.
func TestReadJSONLDevZeroHonoursCancel(t *testing.T) {
	f, err := os.Open("/dev/zero")
	if err != nil {
		t.Skip("no /dev/zero")
	}
	defer f.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = ReadJSONL(ctx, f, "/dev/zero", JSONLOptions{}, func(Forecast) error { return nil })
	if err == nil {
		t.Fatal("no error reading /dev/zero")
	}
	if !errors.Is(err, context.DeadlineExceeded) && !strings.Contains(err.Error(), "no line ending") {
		t.Errorf("err %v, want the deadline or the line-ending error", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("took %v", d)
	}
}

// A byte-order mark starts the file: accepted. Anywhere else the line is
// bad and the error says "byte-order mark".
func TestReadJSONLByteOrderMark(t *testing.T) {
	bom := "\xEF\xBB\xBF"
	fs, res, err := readAll(t, bom+goodLine+goodLine, JSONLOptions{})
	if err != nil || len(fs) != 2 || res.BadCount != 0 {
		t.Fatalf("BOM at the start: %d forecasts, bad %+v, err %v; want 2, none", len(fs), res.Bad, err)
	}
	fs, res, err = readAll(t, goodLine+bom+goodLine+`{"agent": "a",`+bom+` "confidence": 0.5, "outcome": 1}`+"\n", JSONLOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(fs) != 1 || res.BadCount != 2 {
		t.Fatalf("%d forecasts, %d bad, want 1 and 2", len(fs), res.BadCount)
	}
	for _, b := range res.Bad {
		if !strings.Contains(b.Error, "byte-order mark") {
			t.Errorf("line %d: error %q does not name the byte-order mark", b.Line, b.Error)
		}
	}
	// Inside a string, U+FEFF is just a character.
	fs, _, _ = readAll(t, `{"agent": "a`+bom+`", "confidence": 0.5, "outcome": 1}`, JSONLOptions{})
	if len(fs) != 1 || fs[0].Agent != "a\uFEFF" {
		t.Errorf("BOM inside a string: %+v", fs)
	}
}

func TestReadJSONLAcceptsCRLF(t *testing.T) {
	fs, res, err := readAll(t, strings.ReplaceAll(goodLine+goodLine, "\n", "\r\n"), JSONLOptions{})
	if err != nil || len(fs) != 2 || res.BadCount != 0 {
		t.Errorf("CRLF: %d forecasts, %+v, %v", len(fs), res.Bad, err)
	}
}

// The timestamp fast path gives exactly what parseTimestamp gives, and
// declines whatever parseTimestamp rejects.
func TestFastTimestampAgreesWithParseTimestamp(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 8))
	digits := func(n, max int) string {
		s := strconv.Itoa(r.IntN(max + 1))
		for len(s) < n {
			s = "0" + s
		}
		return s
	}
	cases := []string{"2026-02-29T00:00:00Z", "2024-02-29T23:59:59Z", "1900-02-29T00:00:00Z", "2000-02-29T00:00:00Z",
		"1699-12-31T23:59:59Z", "1700-01-01T00:00:00Z", "2199-12-31T23:59:59Z", "2200-01-01T00:00:00Z",
		"2026-13-01T00:00:00Z", "2026-04-31T00:00:00Z", "2026-01-01T24:00:00Z", "2026-01-01T00:60:00Z",
		"2026-01-01T00:00:60Z", "2026-01-01t00:00:00Z", "2026-01-01T00:00:00z", "2026-01-01T00:00:00+00:00"}
	for range 20000 {
		cases = append(cases, digits(4, 2300)+"-"+digits(2, 13)+"-"+digits(2, 32)+"T"+digits(2, 25)+":"+digits(2, 61)+":"+digits(2, 61)+"Z")
	}
	for _, s := range cases {
		fast, ok := fastTimestamp([]byte(`"` + s + `"`))
		slow, err := parseTimestamp("at", s)
		if ok && (err != nil || !fast.Equal(slow) || fast.Location() != slow.Location()) {
			t.Fatalf("%s: fast %v, parseTimestamp %v %v", s, fast, slow, err)
		}
		if !ok && err == nil && len(s) == 20 && s[19] == 'Z' {
			t.Fatalf("%s: fast path declined a time parseTimestamp accepts (%v)", s, slow)
		}
	}
}

// plainDecimal is strconv.ParseFloat for the numbers it accepts.
func TestPlainDecimalAgreesWithParseFloat(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	cases := []string{"0", "-0", "1", "0.5", "0.7", "0.1", "0.3", "0.999999999999999", "123456789012345", "-0.000000000000001"}
	for range 100000 {
		d := 1 + r.IntN(15)
		s := strconv.FormatFloat(r.Float64(), 'f', d, 64)
		if r.IntN(2) == 0 {
			s = "-" + s
		}
		cases = append(cases, s)
	}
	for _, s := range cases {
		x, ok := plainDecimal([]byte(s))
		if !ok {
			continue
		}
		want, err := strconv.ParseFloat(s, 64)
		if err != nil || x != want || (x == 0 && (1/x > 0) != (1/want > 0)) {
			t.Fatalf("%s: plainDecimal %v, ParseFloat %v %v", s, x, want, err)
		}
	}
	for _, s := range []string{"1e5", "0.1234567890123456", "1.", ".5", "", "-", "0x1"} {
		if _, ok := plainDecimal([]byte(s)); ok {
			t.Errorf("%q: accepted", s)
		}
	}
}

// FuzzReadJSONL feeds arbitrary bytes (split into lines as they come) to
// the reader: it must not fail except on its documented limits, and every
// line is either a forecast, unresolved, or a bad line.
func FuzzReadJSONL(f *testing.F) {
	f.Add([]byte(goodLine + "\xEF\xBB\xBF" + goodLine + "{oops\n\n" + `{"confidence": 0.2, "outcome": 0}`))
	f.Add([]byte("\xEF\xBB\xBF" + goodLine))
	f.Fuzz(func(t *testing.T, in []byte) {
		n := 0
		res, err := ReadJSONL(context.Background(), bytes.NewReader(in), "fuzz", JSONLOptions{MaxListed: 1 << 20}, func(Forecast) error { n++; return nil })
		if err != nil {
			t.Fatalf("err %v", err)
		}
		if res.Forecasts+res.Unresolved+res.BadCount != res.Lines || n != res.Forecasts {
			t.Fatalf("lines %d = forecasts %d + unresolved %d + bad %d? (callback %d)", res.Lines, res.Forecasts, res.Unresolved, res.BadCount, n)
		}
	})
}

var _ io.Reader = (*zeros)(nil)

// endlessLines is an input that never ends, of valid forecast lines.
type endlessLines struct{ n int }

func (e *endlessLines) Read(p []byte) (int, error) {
	k := 0
	for k < len(p) {
		line := fmt.Sprintf("{\"id\": \"f%d\", \"agent\": \"a\", \"confidence\": 0.7, \"outcome\": 1}\n", e.n)
		if k+len(line) > len(p) {
			break
		}
		k += copy(p[k:], line)
		e.n++
	}
	return k, nil
}

// A pipe-like input of valid lines never ends: only ctx can stop the
// read, and it must, promptly (the /dev/zero case above may stop at its
// line limit first, so it cannot show this alone).
func TestReadJSONLEndlessInputHonoursCancel(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := ReadJSONL(ctx, &endlessLines{}, "endless", JSONLOptions{}, func(Forecast) error { return nil })
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err %v, want the deadline", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("took %v to stop", d)
	}
}
