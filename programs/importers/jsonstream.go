package importers

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"unicode/utf8"
)

// errFileTooLong is returned by a limitedReader past its limit.
var errFileTooLong = errors.New("file too long")

// limitedReader counts the bytes it passes and fails with errFileTooLong
// once more than max have been read, so a document can never be read past
// its size limit whatever it declares. Every byte read is also written to
// sum (the file's SHA-256).
type limitedReader struct {
	r   io.Reader
	max int64
	n   int64
	sum hash.Hash
}

func newLimitedReader(r io.Reader, max int64) *limitedReader {
	return &limitedReader{r: r, max: max, sum: sha256.New()}
}

func (l *limitedReader) Read(p []byte) (int, error) {
	if l.n > l.max {
		return 0, errFileTooLong
	}
	// Read at most one byte past the limit: enough to know it is passed.
	if room := l.max + 1 - l.n; int64(len(p)) > room {
		p = p[:room]
	}
	n, err := l.r.Read(p)
	l.n += int64(n)
	l.sum.Write(p[:n])
	if l.n > l.max {
		return n, errFileTooLong
	}
	return n, err
}

// drain reads the rest of the input (hashing it), so sum covers the whole
// file even when the decoder stopped before its end.
func (l *limitedReader) drain() error {
	_, err := io.Copy(io.Discard, l)
	return err
}

// hexSum is the lowercase hex SHA-256 of everything read.
func (l *limitedReader) hexSum() string { return fmt.Sprintf("%x", l.sum.Sum(nil)) }

// cleanReader passes a JSON document through with two changes that
// encoding/json needs: a UTF-8 byte-order mark at the start is dropped,
// and the tokens NaN, Infinity and -Infinity outside strings become null.
// Python's json module and pydantic (which write inspect_ai's logs) emit
// those tokens for non-finite floats; JSON has no such values, and a
// non-finite score is no score. Newlines are never changed, and the
// reader remembers where they fall in its output, so LineAt can turn an
// offset of the cleaned stream (json.Decoder.InputOffset) into the line
// of the original file.
type cleanReader struct {
	src      io.Reader
	chunk    []byte // read buffer
	in       []byte // input read but not yet cleaned (a token cut by a read)
	out      []byte // cleaned bytes not yet returned
	outOff   int64  // bytes of cleaned output produced so far
	started  bool
	eof      bool
	err      error
	inString bool
	escaped  bool
	// newlines are the output offsets of newlines at or after the last
	// LineAt query; base counts the newlines before them.
	newlines []int64
	base     int
}

func newCleanReader(src io.Reader) *cleanReader { return &cleanReader{src: src} }

// nonFinite returns the token cleanReader rewrites that starts with b.
func nonFinite(b byte) string {
	switch b {
	case 'N':
		return "NaN"
	case 'I':
		return "Infinity"
	case '-':
		return "-Infinity"
	}
	return ""
}

func (c *cleanReader) Read(p []byte) (int, error) {
	for len(c.out) == 0 {
		if c.err != nil {
			return 0, c.err
		}
		c.fill()
	}
	n := copy(p, c.out)
	c.out = c.out[n:]
	return n, nil
}

// Bytes the cleaner must look at: in a string, those that end it or
// escape the next byte; outside, those that start a string or a token it
// rewrites; and newlines everywhere.
var (
	stringStops  = byteSet("\"\\\n")
	outsideStops = byteSet("\"NI-\n")
)

func byteSet(s string) (set [256]bool) {
	for i := range len(s) {
		set[s[i]] = true
	}
	return set
}

// fill reads one chunk of input and cleans as much of it as it can:
// runs of ordinary bytes are copied whole, the scan stopping only at the
// bytes that can change the state (quotes, backslashes in strings, the
// first bytes of the tokens) and at newlines.
func (c *cleanReader) fill() {
	if c.chunk == nil {
		c.chunk = make([]byte, 64<<10)
	}
	n, err := c.src.Read(c.chunk)
	c.in = append(c.in, c.chunk[:n]...)
	if err != nil {
		c.eof = true
		c.err = err
	}
	if !c.started {
		if len(c.in) < 3 && !c.eof {
			return
		}
		c.in = bytes.TrimPrefix(c.in, []byte{0xEF, 0xBB, 0xBF})
		c.started = true
	}
	out := c.out[:0]
	in := c.in
	i, run := 0, 0 // in[run:i] is copied as it is
	flush := func() {
		out = append(out, in[run:i]...)
		c.outOff += int64(i - run)
	}
loop:
	for i < len(in) {
		stops := &outsideStops
		if c.inString {
			if c.escaped { // the byte a backslash escapes, whatever it is
				c.escaped = false
				if in[i] == '\n' {
					c.newlines = append(c.newlines, c.outOff+int64(i-run))
				}
				i++
				continue
			}
			stops = &stringStops
		}
		for i < len(in) && !stops[in[i]] {
			i++
		}
		if i == len(in) {
			break
		}
		b := in[i]
		if b == '\n' {
			c.newlines = append(c.newlines, c.outOff+int64(i-run))
			i++
			continue
		}
		if c.inString {
			switch b {
			case '\\':
				c.escaped = true
			case '"':
				c.inString = false
			}
			i++
			continue
		}
		if b == '"' {
			c.inString = true
			i++
			continue
		}
		tok := nonFinite(b)
		rest := in[i:]
		if len(rest) < len(tok) && !c.eof && bytes.HasPrefix([]byte(tok), rest) {
			break loop // the token may continue in the next chunk
		}
		if bytes.HasPrefix(rest, []byte(tok)) {
			flush()
			out = append(out, "null"...)
			c.outOff += 4
			i += len(tok)
			run = i
			continue
		}
		i++
	}
	flush()
	c.out = out
	c.in = append(c.in[:0], in[i:]...)
	if c.eof && len(c.in) > 0 {
		// A cut token at the very end: pass it on for the decoder to reject.
		c.out = append(c.out, c.in...)
		c.outOff += int64(len(c.in))
		c.in = c.in[:0]
	}
}

// LineAt returns the 1-based line of the byte at offset off of the
// cleaned stream. Offsets must not decrease from one call to the next:
// the newlines before off are forgotten.
func (c *cleanReader) LineAt(off int64) int {
	k := 0
	for k < len(c.newlines) && c.newlines[k] < off {
		k++
	}
	c.base += k
	c.newlines = c.newlines[k:]
	return c.base + 1
}

// jsonStream decodes one JSON document element by element, in memory
// bounded by its largest element.
type jsonStream struct {
	dec   *json.Decoder
	clean *cleanReader
	lim   *limitedReader
}

func newJSONStream(r io.Reader, maxBytes int64) *jsonStream {
	lim := newLimitedReader(r, maxBytes)
	clean := newCleanReader(lim)
	dec := json.NewDecoder(clean)
	dec.UseNumber()
	return &jsonStream{dec: dec, clean: clean, lim: lim}
}

// line is the line the decoder has reached.
func (s *jsonStream) line() int { return s.clean.LineAt(s.dec.InputOffset()) }

// rawValue decodes the next value as raw bytes and returns the line it
// starts on.
func (s *jsonStream) rawValue() (json.RawMessage, int, error) {
	var raw json.RawMessage
	if err := s.dec.Decode(&raw); err != nil {
		return nil, 0, err
	}
	start := s.dec.InputOffset() - int64(len(raw))
	return raw, s.clean.LineAt(start), nil
}

// delim reads the next token and checks it is the delimiter want; a null
// instead is reported by null = true.
func (s *jsonStream) delim(want json.Delim) (null bool, err error) {
	tok, err := s.dec.Token()
	if err != nil {
		return false, err
	}
	if tok == nil {
		return true, nil
	}
	if d, ok := tok.(json.Delim); !ok || d != want {
		return false, fmt.Errorf("want %q, found %v", string(want), describeToken(tok))
	}
	return false, nil
}

// object walks the keys of the next value, which must be an object (or
// null, which has no keys), calling each with the decoder positioned at
// the key's value; each call must consume exactly that value.
func (s *jsonStream) object(each func(key string) error) error {
	null, err := s.delim('{')
	if err != nil || null {
		return err
	}
	for s.dec.More() {
		tok, err := s.dec.Token()
		if err != nil {
			return err
		}
		key, _ := tok.(string)
		if err := each(key); err != nil {
			return err
		}
	}
	_, err = s.dec.Token()
	return err
}

// array walks the elements of the next value, which must be an array (or
// null), calling each with the decoder positioned at the element.
func (s *jsonStream) array(each func(i int) error) error {
	null, err := s.delim('[')
	if err != nil || null {
		return err
	}
	for i := 0; s.dec.More(); i++ {
		if err := each(i); err != nil {
			return err
		}
	}
	_, err = s.dec.Token()
	return err
}

// skip consumes the next value.
func (s *jsonStream) skip() error {
	var v json.RawMessage
	return s.dec.Decode(&v)
}

// end checks that nothing but white space follows the document and
// hashes the rest of the file.
func (s *jsonStream) end() error {
	if _, err := s.dec.Token(); !errors.Is(err, io.EOF) {
		if err == nil {
			return errors.New("data after the end of the JSON document")
		}
		return err
	}
	return s.lim.drain()
}

func describeToken(tok json.Token) string {
	switch t := tok.(type) {
	case json.Delim:
		return fmt.Sprintf("%q", string(t))
	case string:
		return fmt.Sprintf("the string %q", truncate(t, 40))
	case json.Number:
		return "the number " + string(t)
	case bool:
		return fmt.Sprintf("%v", t)
	}
	return fmt.Sprintf("%v", tok)
}

// topFields returns the raw values of the keys of the JSON object data
// that want accepts (a later duplicate key wins, as in encoding/json),
// skipping every other value without decoding it (see eachField).
func topFields(data []byte, want func(key string) bool) (map[string]json.RawMessage, error) {
	out := map[string]json.RawMessage{}
	err := eachField(data, func(key, value []byte) {
		if k := string(key); want(k) {
			out[k] = value
		}
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// eachField calls each with the key (unescaped) and the raw value of
// every member of the JSON object data, in order, skipping the values
// without decoding them; key and value are parts of data, or key a copy
// when it had to be unescaped. data must be valid JSON (a json.Decoder's
// RawMessage, or checked with json.Valid): the skipping only tracks
// strings and brackets. A value that is not an object is an error.
func eachField(data []byte, each func(key, value []byte)) error {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return errors.New("not a JSON object")
	}
	i++
	for {
		i = skipSpace(data, i)
		if i >= len(data) {
			return errors.New("unterminated object")
		}
		if data[i] == '}' {
			return nil
		}
		if data[i] == ',' {
			i = skipSpace(data, i+1)
		}
		if data[i] != '"' {
			return errors.New("malformed object")
		}
		end := skipString(data, i)
		rawKey := data[i:end]
		if len(rawKey) < 2 {
			return errors.New("unterminated string")
		}
		i = skipSpace(data, end)
		if i >= len(data) || data[i] != ':' {
			return errors.New("malformed object")
		}
		i = skipSpace(data, i+1)
		vEnd := skipValue(data, i)
		key := rawKey[1 : len(rawKey)-1]
		if bytes.IndexByte(rawKey, '\\') >= 0 || !utf8.Valid(rawKey) { // unescaped, or made valid, as encoding/json does
			var k string
			if err := json.Unmarshal(rawKey, &k); err != nil {
				return err
			}
			key = []byte(k)
		}
		each(key, data[i:vEnd])
		i = vEnd
	}
}

func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\n' || data[i] == '\t' || data[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the offset after the string starting at data[i].
func skipString(data []byte, i int) int {
	i++
	for {
		j := bytes.IndexAny(data[i:], `"\`)
		if j < 0 {
			return len(data)
		}
		i += j
		if data[i] == '"' {
			return i + 1
		}
		i += 2 // a backslash and the byte it escapes
		if i >= len(data) {
			return len(data)
		}
	}
}

// skipValue returns the offset after the value starting at data[i].
func skipValue(data []byte, i int) int {
	if i >= len(data) {
		return i
	}
	switch data[i] {
	case '"':
		return skipString(data, i)
	case '{', '[':
		depth := 0
		for i < len(data) {
			j := bytes.IndexAny(data[i:], `"{}[]`)
			if j < 0 {
				return len(data)
			}
			i += j
			switch data[i] {
			case '"':
				i = skipString(data, i)
				continue
			case '{', '[':
				depth++
			default:
				depth--
			}
			i++
			if depth == 0 {
				return i
			}
		}
		return i
	}
	for i < len(data) && !bytes.ContainsRune([]byte(",}] \t\r\n"), rune(data[i])) {
		i++
	}
	return i
}
