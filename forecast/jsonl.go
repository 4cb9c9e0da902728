package forecast

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"strconv"
	"sync"
	"unicode/utf8"

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

// ReadJSONL reads forecasts from r, one JSON object a line, and calls fn
// with each, in input order, without holding more than one line in
// memory. source names the input in Forecast.Source and in bad lines.
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
	err := eachParsedLine(ctx, r, keep, func(p parsedLine) error {
		res.Lines++
		f, resolved, err := p.f, p.resolved, p.err
		n := p.n
		if err != nil {
			bad := badLineOf(source, n, err)
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

// parseBatchLines is how many lines a parse worker takes at a time.
const parseBatchLines = 4096

// eachParsedLine parses the lines of r on GOMAXPROCS workers and calls fn
// with each parsed line in input order, one at a time: the result is the
// same as parsing sequentially, whatever the number of workers. A reader
// cuts the stream into batches of lines (copied, since the reader reuses
// its buffer), workers parse batches, and this goroutine reorders them by
// sequence number. At most 2 x workers batches are in flight, so memory
// stays bounded for any input size. The first error of fn or of reading
// stops the pipeline and is returned.
func eachParsedLine(ctx context.Context, r io.Reader, keep map[string]bool, fn func(parsedLine) error) error {
	workers := runtime.GOMAXPROCS(0)
	if workers == 1 {
		return eachLine(ctx, r, func(line []byte, n int) error {
			f, resolved, err := parseForecastLine(line, keep)
			return fn(parsedLine{n: n, f: f, resolved: resolved, err: err})
		})
	}
	type batch struct {
		seq   int
		lines [][]byte
		nums  []int
		out   []parsedLine
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	todo := make(chan *batch, workers)
	done := make(chan *batch, workers)
	readErr := make(chan error, 1)
	go func() {
		defer close(todo)
		cur := &batch{}
		seq := 0
		send := func() bool {
			cur.seq = seq
			seq++
			select {
			case todo <- cur:
				cur = &batch{}
				return true
			case <-ctx.Done():
				return false
			}
		}
		err := eachLine(ctx, r, func(line []byte, n int) error {
			cur.lines = append(cur.lines, append([]byte(nil), line...))
			cur.nums = append(cur.nums, n)
			if len(cur.lines) == parseBatchLines && !send() {
				return ctx.Err()
			}
			return nil
		})
		if err == nil && len(cur.lines) > 0 {
			send()
		}
		readErr <- err
	}()
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := range todo {
				b.out = make([]parsedLine, len(b.lines))
				for i, line := range b.lines {
					f, resolved, err := parseForecastLine(line, keep)
					b.out[i] = parsedLine{n: b.nums[i], f: f, resolved: resolved, err: err}
				}
				b.lines = nil
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
	pending := map[int]*batch{}
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
			for _, pl := range pb.out {
				if err := fn(pl); err != nil {
					fnErr = err
					cancel()
					break
				}
			}
			if fnErr != nil {
				break
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
	return parseForecastLine(line, nil)
}

// jsonValue is one top-level value of a line: its kind (the first byte:
// '"', 't', 'f', 'n', '[', '{' or a number's first byte) and raw text.
type jsonValue struct {
	kind byte
	raw  []byte
}

func parseForecastLine(line []byte, keep map[string]bool) (f Forecast, resolved bool, err error) {
	line = bytes.TrimSpace(line)
	if !validJSON(line) {
		var v any
		jerr := json.Unmarshal(line, &v)
		if jerr == nil {
			jerr = errors.New("invalid JSON")
		}
		return f, false, fmt.Errorf("not JSON: %w", jerr)
	}
	if len(line) == 0 || line[0] != '{' {
		return f, false, fmt.Errorf("not a JSON object: %s", excerpt(line))
	}
	var confidence, probs, outcome jsonValue
	err = eachMember(line, func(key []byte, v jsonValue) error {
		switch string(key) {
		case "confidence":
			confidence = v
		case "probs":
			probs = v
		case "outcome":
			outcome = v
		case "id":
			if f.ID, err = labelValue("id", v); err != nil {
				return err
			}
		case "agent":
			if f.Agent, err = labelValue("agent", v); err != nil {
				return err
			}
		case "at":
			if v.kind == 'n' {
				break
			}
			if v.kind != '"' {
				return fieldErrorf("at", "must be an RFC 3339 time string, got %s", excerpt(v.raw))
			}
			s, err := stringValue(v.raw)
			if err != nil {
				return fieldErrorf("at", "%v", err)
			}
			if f.At, err = parseTimestamp("at", s); err != nil {
				return err
			}
		}
		if keep != nil && !keep[string(key)] {
			return nil
		}
		if text, ok := scalarText(v); ok {
			if f.Fields == nil {
				f.Fields = make(map[string]string, 4)
			}
			f.Fields[string(key)] = text
		}
		return nil
	})
	if err != nil {
		return Forecast{}, false, err
	}
	return finishForecast(f, confidence, probs, outcome)
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

// eachMember calls fn with every member of the JSON object in line, which
// must be valid JSON (validJSON) starting with '{'. A key that appears
// twice is passed twice; the last wins, as with encoding/json.
func eachMember(line []byte, fn func(key []byte, v jsonValue) error) error {
	i := skipSpace(line, 1)
	if line[i] == '}' {
		return nil
	}
	for {
		end := stringEnd(line, i)
		key := line[i+1 : end-1]
		if needsDecoding(key) {
			s, err := stringValue(line[i:end])
			if err != nil {
				return err
			}
			key = []byte(s)
		}
		i = skipSpace(line, end)
		i = skipSpace(line, i+1) // ':'
		vend := valueEnd(line, i)
		if err := fn(key, jsonValue{kind: line[i], raw: line[i:vend]}); err != nil {
			return err
		}
		i = skipSpace(line, vend)
		if line[i] == '}' {
			return nil
		}
		i = skipSpace(line, i+1) // ','
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// stringEnd returns the index just past the string starting at b[i] = '"'.
func stringEnd(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(b)
}

// valueEnd returns the index just past the (valid) value starting at b[i].
func valueEnd(b []byte, i int) int {
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				j = stringEnd(b, j) - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return len(b)
	}
	j := i
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' && b[j] != '\t' && b[j] != '\n' && b[j] != '\r' {
		j++
	}
	return j
}

// needsDecoding reports whether a string literal's contents differ from
// its bytes: escapes, or invalid UTF-8 (which encoding/json turns into
// U+FFFD).
func needsDecoding(b []byte) bool {
	return bytes.IndexByte(b, '\\') >= 0 || !utf8.Valid(b)
}

// stringValue decodes a JSON string literal (with its quotes) as
// encoding/json does.
func stringValue(raw []byte) (string, error) {
	if !needsDecoding(raw) {
		return string(raw[1 : len(raw)-1]), nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", err
	}
	return s, nil
}

// numberValue returns a finite JSON number.
func numberValue(v jsonValue) (float64, error) {
	if v.kind != '-' && (v.kind < '0' || v.kind > '9') {
		return 0, errors.New("not a number")
	}
	x, err := strconv.ParseFloat(string(v.raw), 64)
	if err != nil || math.IsInf(x, 0) {
		return 0, fmt.Errorf("not a finite number: %s", excerpt(v.raw))
	}
	return x, nil
}

// numberArray reads the "probs" array of finite numbers.
func numberArray(v jsonValue) ([]float64, error) {
	if v.kind != '[' {
		return nil, fieldErrorf("probs", "must be an array of numbers, got %s", excerpt(v.raw))
	}
	var out []float64
	b := v.raw
	i := skipSpace(b, 1)
	for i < len(b) && b[i] != ']' {
		end := valueEnd(b, i)
		x, err := numberValue(jsonValue{kind: b[i], raw: b[i:end]})
		if err != nil {
			return nil, fieldErrorf("probs", "entry %d: %v", len(out), err)
		}
		out = append(out, x)
		i = skipSpace(b, end)
		if i < len(b) && b[i] == ',' {
			i = skipSpace(b, i+1)
		}
	}
	return out, nil
}

// labelValue reads id or agent: a string, or a number kept as written.
func labelValue(field string, v jsonValue) (string, error) {
	switch {
	case v.kind == 'n':
		return "", nil
	case v.kind == '"':
		s, err := stringValue(v.raw)
		if err != nil {
			return "", fieldErrorf(field, "%v", err)
		}
		return s, nil
	case v.kind == '-' || (v.kind >= '0' && v.kind <= '9'):
		return string(v.raw), nil
	}
	return "", fieldErrorf(field, "must be a string, got %s", excerpt(v.raw))
}

// scalarText returns a scalar value as text: a string decoded, a number
// as written, true or false; null, arrays and objects have none.
func scalarText(v jsonValue) (string, bool) {
	switch v.kind {
	case '"':
		s, err := stringValue(v.raw)
		return s, err == nil
	case 'n', '[', '{':
		return "", false
	}
	return string(v.raw), true
}
