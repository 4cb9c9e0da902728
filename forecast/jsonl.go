package forecast

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/evalcal/evalcal/statistician"
)

// ThreeWayCategories names the ordered categories of a three-way forecast
// ("probs" with three entries): outcome "down" is category 0, "flat" 1,
// "up" 2.
var ThreeWayCategories = [...]string{"down", "flat", "up"}

// JSONLOptions says how ReadJSONL treats its input.
type JSONLOptions struct {
	// Strict makes the first bad line an error (a *LineError) instead of a
	// BadLine in the result.
	Strict bool
	// Fields lists the top-level fields to keep in Forecast.Fields; nil
	// keeps every scalar field. Keeping only the grouping field saves an
	// allocation per field per line.
	Fields []string
	// MaxListed caps how many bad lines are listed (all are counted);
	// 0 means DefaultMaxListedBadLines.
	MaxListed int
}

// DefaultMaxListedBadLines is how many bad lines a report lists by default.
const DefaultMaxListedBadLines = 1000

// JSONLResult summarises one JSONL input.
type JSONLResult struct {
	// Lines is the number of non-blank lines read.
	Lines int
	// Forecasts is the number of lines passed to the callback.
	Forecasts int
	// Unresolved counts valid forecasts without an outcome (missing or
	// null); they are not passed to the callback.
	Unresolved int
	// BadCount counts bad lines; Bad lists the first MaxListed.
	BadCount int
	Bad      []BadLine
}

// LineError is the error of a bad line under JSONLOptions.Strict.
type LineError struct {
	BadLine
}

func (e *LineError) Error() string {
	return fmt.Sprintf("%s:%d: %s: %s", e.File, e.Line, e.Field, e.BadLine.Error)
}

// ErrBadLine is matched (errors.Is) by every *LineError.
var ErrBadLine = errors.New("bad forecast line")

// Is makes errors.Is(err, ErrBadLine) true for a *LineError.
func (e *LineError) Is(target error) bool { return target == ErrBadLine }

// ReadJSONL reads forecasts from r, one JSON object a line, parses them on
// every core and calls fn with each, in input order, holding at most a few
// batches of lines. source names the input in Forecast.Source and in bad
// lines.
//
// A binary forecast is
//
//	{"id": "f1", "agent": "alpha", "confidence": 0.7, "outcome": 1, "at": "2026-11-01T12:00:00Z"}
//
// with confidence in [0, 1] and outcome 0, 1, true or false. An ordinal
// forecast gives "probs" (at least two probabilities summing to 1 within
// statistician.ProbsSumTolerance) and an outcome that is the category's
// index, or for three categories "down", "flat" or "up". id, agent and at
// (RFC 3339) are optional; a missing or null outcome means the forecast is
// not resolved yet: it is counted in Unresolved and skipped. Every
// top-level scalar field is kept as text in Forecast.Fields (see
// JSONLOptions.Fields) for grouping.
//
// A line that is not such an object is a bad line (file, line, field,
// error): listed in the result, or with Strict returned as a *LineError.
// So is a line longer than MaxLineBytes (1 MiB), which is skipped without
// being held; an input with no line ending within MaxSkippedLineBytes
// (1 GiB, e.g. /dev/zero) stops the read with an error. Memory stays
// bounded by a few batches of lines whatever the input. A UTF-8
// byte-order mark at the start of the input is skipped; anywhere else it
// makes its line bad, with an error that says "byte-order mark".
//
// ReadJSONL returns an error when r fails, ctx is done, or fn returns one.
func ReadJSONL(ctx context.Context, r io.Reader, source string, opts JSONLOptions, fn func(Forecast) error) (JSONLResult, error) {
	var res JSONLResult
	if opts.MaxListed <= 0 {
		opts.MaxListed = DefaultMaxListedBadLines
	}
	var keep map[string]bool
	if opts.Fields != nil {
		keep = make(map[string]bool, len(opts.Fields))
		for _, f := range opts.Fields {
			keep[f] = true
		}
	}
	err := eachParsedLine(ctx, r, keep, func(p *parsedLine) error {
		res.Lines++
		f, resolved, err := p.f, p.resolved, p.err
		n := p.n
		if err != nil {
			bad := BadLineOf(source, n, err)
			if opts.Strict {
				return &LineError{bad}
			}
			res.BadCount++
			if len(res.Bad) < opts.MaxListed {
				res.Bad = append(res.Bad, bad)
			}
			return nil
		}
		if !resolved {
			res.Unresolved++
			return nil
		}
		f.Source, f.Line = source, n
		res.Forecasts++
		return fn(f)
	})
	if err != nil {
		var le *LineError
		if errors.As(err, &le) {
			return res, err
		}
		return res, fmt.Errorf("forecast: read %s: %w", source, err)
	}
	return res, nil
}

// parsedLine is one non-blank input line (1-based number n) parsed.
type parsedLine struct {
	n        int
	f        Forecast
	resolved bool
	err      error
}

const (
	// MaxLineBytes is the longest line ReadJSONL reads (1 MiB, with its
	// line ending): a longer line is one bad line ("line longer than 1 MiB
	// ..."), skipped without being held in memory, and reading goes on.
	MaxLineBytes = 1 << 20
	// MaxSkippedLineBytes bounds how far ReadJSONL skips an over-long
	// line looking for its end (1 GiB): an input with no line ending that
	// far (/dev/zero, a binary file) is not JSON Lines and stops the read
	// with an error naming the line.
	MaxSkippedLineBytes = 1 << 30
)

// parseBatchLines and parseBatchBytes bound one parse batch: a batch is
// sent when it holds 1024 lines or 256 KiB of text. A batch then needs
// about 0.75 MiB with its parsed forecasts, and at most 2 x workers + 6
// exist.
const (
	parseBatchLines = 1024
	parseBatchBytes = 256 << 10
)

// utf8BOM is the UTF-8 encoding of U+FEFF, the byte-order mark.
var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// errLineTooLong is the error of a line longer than MaxLineBytes.
var errLineTooLong = fmt.Errorf("line longer than %d bytes (1 MiB), not read", MaxLineBytes)

// lineBatch is a run of input lines handed to a parse worker: their bytes
// back to back in buf (line i is buf[ends[i-1]:ends[i]]), their numbers,
// which of them were too long (empty in buf), and the parsed results.
// Batches are recycled, so reading allocates per batch, not per line.
type lineBatch struct {
	seq     int
	members []member // scratch of the parser
	names   interner // repeated labels and field values, allocated once
	buf     []byte
	ends    []int
	nums    []int
	tooLong []bool
	out     []parsedLine
}

func (b *lineBatch) reset() {
	b.buf, b.ends, b.nums, b.tooLong, b.out = b.buf[:0], b.ends[:0], b.nums[:0], b.tooLong[:0], b.out[:0]
}

// parse parses every line of the batch into b.out. Repeated labels
// (agents, grouping fields) are allocated once per batch's table, so
// parsing allocates little besides each line's id.
func (b *lineBatch) parse(keep map[string]bool) {
	b.out = slices.Grow(b.out[:0], len(b.nums))[:len(b.nums)]
	start := 0
	for i, end := range b.ends {
		pl := &b.out[i]
		pl.n = b.nums[i]
		if b.tooLong[i] {
			pl.f, pl.resolved, pl.err = Forecast{}, false, errLineTooLong
		} else {
			pl.f, pl.resolved, pl.err = parseForecastBytes(b.buf[start:end], keep, &b.members, &b.names)
		}
		start = end
	}
}

// interner hands out one string per distinct byte sequence, for up to
// maxInterned of them (then it allocates each time), so that the labels
// repeated on every line (an agent, a team) cost no allocation per line.
type interner struct {
	m map[string]string
}

const maxInterned = 4096

func (in *interner) get(b []byte) string {
	if s, ok := in.m[string(b)]; ok {
		return s
	}
	s := string(b)
	if in.m == nil {
		in.m = make(map[string]string)
	}
	if len(in.m) < maxInterned {
		in.m[s] = s
	}
	return s
}

// readBatches cuts r into batches of lines (see lineBatch), taking fresh
// ones from get, and passes each to send in input order. Blank lines are
// dropped (their numbers still count); a UTF-8 byte-order mark at the very
// start is skipped; a line longer than MaxLineBytes is recorded as too long
// and skipped; one with no end within MaxSkippedLineBytes is an error. It
// looks at ctx every 4096 lines and every 64 MiB of a long line.
func readBatches(ctx context.Context, r io.Reader, get func() *lineBatch, send func(*lineBatch) error) error {
	br := bufio.NewReaderSize(r, 1<<16)
	cur := get()
	for n := 1; ; n++ {
		if n%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		start := len(cur.buf)
		line, err := br.ReadSlice('\n')
		if n == 1 {
			line = bytes.TrimPrefix(line, utf8BOM)
		}
		tooLong := false
		if errors.Is(err, bufio.ErrBufferFull) {
			total := len(line)
			cur.buf = append(cur.buf, line...)
			for errors.Is(err, bufio.ErrBufferFull) {
				line, err = br.ReadSlice('\n')
				total += len(line)
				switch {
				case tooLong:
				case total > MaxLineBytes:
					tooLong = true
					cur.buf = cur.buf[:start]
				default:
					cur.buf = append(cur.buf, line...)
				}
				if total > MaxSkippedLineBytes {
					return fmt.Errorf("line %d: no line ending in its first %d bytes (1 GiB): not a JSON Lines input", n, MaxSkippedLineBytes)
				}
				if total%(64<<20) < len(line) {
					if cerr := ctx.Err(); cerr != nil {
						return cerr
					}
				}
			}
		} else {
			cur.buf = append(cur.buf, line...)
		}
		if !tooLong && len(bytes.TrimSpace(cur.buf[start:])) == 0 {
			cur.buf = cur.buf[:start] // blank line
		} else {
			cur.ends = append(cur.ends, len(cur.buf))
			cur.nums = append(cur.nums, n)
			cur.tooLong = append(cur.tooLong, tooLong)
		}
		if len(cur.nums) > 0 && (len(cur.nums) == parseBatchLines || len(cur.buf) >= parseBatchBytes || err != nil) {
			if serr := send(cur); serr != nil {
				return serr
			}
			cur = get()
		}
		if err == io.EOF {
			return ctx.Err()
		}
		if err != nil {
			return err
		}
	}
}

// eachParsedLine parses the lines of r on GOMAXPROCS workers and calls fn
// with each parsed line in input order, one at a time: the result is the
// same as parsing sequentially, whatever the number of workers. A reader
// cuts the stream into batches (readBatches), workers parse them, and
// this goroutine reorders them by sequence number and recycles them. At
// most 2 x workers + 2 batches exist, so memory stays bounded for any
// input size. The first error of fn or of reading stops the pipeline and
// is returned. fn must not keep the pointer it is given.
func eachParsedLine(ctx context.Context, r io.Reader, keep map[string]bool, fn func(*parsedLine) error) error {
	workers := runtime.GOMAXPROCS(0)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	todo := make(chan *lineBatch, workers)
	done := make(chan *lineBatch, workers)
	free := make(chan *lineBatch, 2*workers+2)
	get := func() *lineBatch {
		select {
		case b := <-free:
			b.reset()
			return b
		default:
			return &lineBatch{}
		}
	}
	readErr := make(chan error, 1)
	go func() {
		defer close(todo)
		seq := 0
		readErr <- readBatches(ctx, r, get, func(b *lineBatch) error {
			b.seq = seq
			seq++
			select {
			case todo <- b:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		})
	}()
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := range todo {
				b.parse(keep)
				select {
				case done <- b:
				case <-ctx.Done():
					return
				}
			}
		}()
	}
	go func() {
		wg.Wait()
		close(done)
	}()
	pending := map[int]*lineBatch{}
	next := 0
	var fnErr error
	for b := range done {
		if fnErr != nil {
			continue // drain so the workers can finish
		}
		pending[b.seq] = b
		for pb, ok := pending[next]; ok; pb, ok = pending[next] {
			delete(pending, next)
			next++
			for i := range pb.out {
				if err := fn(&pb.out[i]); err != nil {
					fnErr = err
					cancel()
					break
				}
			}
			if fnErr != nil {
				break
			}
			select {
			case free <- pb:
			default:
			}
		}
	}
	if fnErr != nil {
		return fnErr
	}
	return <-readErr
}

// ParseForecastLine parses one JSONL line as ReadJSONL does; resolved is
// false when the forecast has no outcome yet. A bad line's error names the
// field (see BadLine).
func ParseForecastLine(line []byte) (f Forecast, resolved bool, err error) {
	var scratch []member
	return parseForecastBytes(line, nil, &scratch, nil)
}

// jsonValue is one top-level value of a line: its kind (the first byte:
// '"', 't', 'f', 'n', '[', '{' or a number's first byte) and its raw
// bytes.
type jsonValue struct {
	kind byte
	raw  []byte
	// plain is set when every string of the line is plain (see
	// validJSONText): a string's bytes are its text.
	plain bool
	// names, when set, turns repeated strings into one allocation.
	names *interner
}

// str returns b as a string, interned when the value has a table.
func (v jsonValue) str(b []byte) string {
	if v.names != nil {
		return v.names.get(b)
	}
	return string(b)
}

// parseForecastBytes parses one line; strings the forecast keeps are
// copies (interned through names when they repeat), never views of line.
func parseForecastBytes(line []byte, keep map[string]bool, scratch *[]member, names *interner) (f Forecast, resolved bool, err error) {
	line = bytes.TrimSpace(line)
	*scratch = (*scratch)[:0]
	valid, plain := validJSONMembers(line, scratch)
	if !valid {
		return f, false, notJSONError(line)
	}
	if len(line) == 0 || line[0] != '{' {
		return f, false, fmt.Errorf("not a JSON object: %s", excerpt(line))
	}
	var confidence, probs, outcome jsonValue
	for _, m := range *scratch {
		rawKey := line[m.key0+1 : m.key1-1]
		var decodedKey string
		if !plain && needsDecoding(rawKey) {
			if decodedKey, err = stringValue(line[m.key0:m.key1]); err != nil {
				return Forecast{}, false, err
			}
			rawKey = []byte(decodedKey)
		}
		v := jsonValue{kind: line[m.val0], raw: line[m.val0:m.val1], plain: plain}
		switch string(rawKey) {
		case "confidence":
			confidence = v
		case "probs":
			probs = v
		case "outcome":
			outcome = v
		case "id":
			if f.ID, err = labelValue("id", v); err != nil {
				return Forecast{}, false, err
			}
		case "agent":
			v.names = names
			if f.Agent, err = labelValue("agent", v); err != nil {
				return Forecast{}, false, err
			}
		case "at":
			if f.At, err = atValue(v); err != nil {
				return Forecast{}, false, err
			}
		}
		if keep == nil || keep[string(rawKey)] {
			v.names = names
			if s, ok := scalarText(v); ok {
				if f.Fields == nil {
					f.Fields = make(map[string]string, 4)
				}
				f.Fields[v.str(rawKey)] = s
			}
		}
	}
	return finishForecast(f, confidence, probs, outcome)
}

// notJSONError explains why a line is not JSON, naming a byte-order mark
// when the line holds one (U+FEFF is allowed only at the very start of
// the input, or inside strings).
func notJSONError(line []byte) error {
	if bytes.HasPrefix(line, utf8BOM) {
		return errors.New("not JSON: the line starts with a UTF-8 byte-order mark (U+FEFF), allowed only at the start of the file (were files concatenated?)")
	}
	var v any
	jerr := json.Unmarshal(line, &v)
	if jerr == nil {
		jerr = errors.New("invalid JSON")
	}
	if bytes.Contains(line, utf8BOM) {
		return fmt.Errorf("not JSON: %w (the line holds a UTF-8 byte-order mark, U+FEFF, which JSON allows only inside strings)", jerr)
	}
	return fmt.Errorf("not JSON: %w", jerr)
}

// atValue reads the "at" field: null, or an RFC 3339 time string.
func atValue(v jsonValue) (time.Time, error) {
	if v.kind == 'n' {
		return time.Time{}, nil
	}
	if v.kind != '"' {
		return time.Time{}, fieldErrorf("at", "must be an RFC 3339 time string, got %s", excerpt(v.raw))
	}
	if t, ok := fastTimestamp(v.raw); ok {
		return t, nil
	}
	s, err := stringValue(v.raw)
	if err != nil {
		return time.Time{}, fieldErrorf("at", "%v", err)
	}
	return parseTimestamp("at", s)
}

// fastTimestamp reads the common form "YYYY-MM-DDTHH:MM:SSZ" (with its
// quotes) without time.Parse, when it is a valid time in years
// 1700-2199; ok is false for anything else, which parseTimestamp then
// decides. It gives what parseTimestamp gives (a test holds them equal).
func fastTimestamp(q []byte) (t time.Time, ok bool) {
	if len(q) != 22 || q[0] != '"' || q[21] != '"' {
		return t, false
	}
	b := q[1:21]
	if b[4] != '-' || b[7] != '-' || b[10] != 'T' || b[13] != ':' || b[16] != ':' || b[19] != 'Z' {
		return t, false
	}
	num := func(i, n int) (int, bool) {
		v := 0
		for _, c := range b[i : i+n] {
			if c < '0' || c > '9' {
				return 0, false
			}
			v = v*10 + int(c-'0')
		}
		return v, true
	}
	year, ok1 := num(0, 4)
	month, ok2 := num(5, 2)
	day, ok3 := num(8, 2)
	hour, ok4 := num(11, 2)
	minute, ok5 := num(14, 2)
	sec, ok6 := num(17, 2)
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6) || year < 1700 || year >= 2200 ||
		month < 1 || month > 12 || day < 1 || day > daysIn(month, year) || hour > 23 || minute > 59 || sec > 59 {
		return t, false
	}
	return time.Date(year, time.Month(month), day, hour, minute, sec, 0, time.UTC), true
}

// daysIn is the number of days of month in year (proleptic Gregorian).
func daysIn(month, year int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// finishForecast checks the forecast and outcome fields and fills them in.
func finishForecast(f Forecast, confidence, probs, outcome jsonValue) (Forecast, bool, error) {
	hasConf := confidence.kind != 0 && confidence.kind != 'n'
	hasProbs := probs.kind != 0 && probs.kind != 'n'
	switch {
	case hasConf && hasProbs:
		return Forecast{}, false, fieldErrorf("probs", "a forecast has confidence or probs, not both")
	case !hasConf && !hasProbs:
		return Forecast{}, false, fieldErrorf("confidence", "missing (need confidence or probs)")
	}
	resolved := outcome.kind != 0 && outcome.kind != 'n'
	if hasConf {
		f.Kind = Binary
		p, err := numberValue(confidence)
		if err != nil || !(p >= 0 && p <= 1) {
			return Forecast{}, false, fieldErrorf("confidence", "must be a number in [0, 1], got %s", excerpt(confidence.raw))
		}
		f.Confidence = p
		if !resolved {
			return f, false, nil
		}
		switch outcome.kind {
		case 't':
			f.Outcome = 1
		case 'f':
			f.Outcome = 0
		default:
			x, err := numberValue(outcome)
			if err != nil || (x != 0 && x != 1) {
				return Forecast{}, false, fieldErrorf("outcome", "must be 0, 1, true or false, got %s", excerpt(outcome.raw))
			}
			f.Outcome = int(x)
		}
		return f, true, nil
	}
	f.Kind = Ordinal
	ps, err := numberArray(probs)
	if err != nil {
		return Forecast{}, false, err
	}
	f.Probs = ps
	if !resolved {
		// Check the probabilities even when there is nothing to score yet.
		if _, err := statistician.RPS(ps, 0); err != nil {
			return Forecast{}, false, fieldErrorf("probs", "%v", err)
		}
		return f, false, nil
	}
	o, err := categoryValue(outcome, len(ps))
	if err != nil {
		return Forecast{}, false, err
	}
	if _, err := statistician.RPS(ps, o); err != nil {
		return Forecast{}, false, fieldErrorf("probs", "%v", err)
	}
	f.Outcome = o
	return f, true, nil
}

// categoryValue reads an ordinal outcome: the category index, or for K = 3
// one of ThreeWayCategories.
func categoryValue(v jsonValue, k int) (int, error) {
	if v.kind == '"' {
		s, err := stringValue(v.raw)
		if err == nil && k == len(ThreeWayCategories) {
			for i, name := range ThreeWayCategories {
				if s == name {
					return i, nil
				}
			}
		}
		return 0, fieldErrorf("outcome", "must be a category index in [0, %d) or, for three categories, down, flat or up; got %s", k, excerpt(v.raw))
	}
	x, err := numberValue(v)
	if err != nil || x != math.Trunc(x) || x < 0 || x >= float64(k) {
		return 0, fieldErrorf("outcome", "must be a category index in [0, %d), got %s", k, excerpt(v.raw))
	}
	return int(x), nil
}
