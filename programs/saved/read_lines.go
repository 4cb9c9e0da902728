package saved

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"

	"github.com/evalcal/evalcal/runner"
)

// Size limits of a saved-inspections file.
const (
	// MaxLineBytes bounds one JSONL line (an inspection is a few KB). A
	// longer line is rejected alone ("line N: longer than 16777216
	// bytes"); the rest of the file is read.
	MaxLineBytes = 16 << 20
	// MaxFileBytes bounds the whole file; a longer one (or /dev/zero) is
	// an error of the file, and nothing of it is used.
	MaxFileBytes = 1 << 30
)

// limits are the size limits a load applies; tests shrink them.
type limits struct {
	line int
	file int64
}

var defaultLimits = limits{line: MaxLineBytes, file: MaxFileBytes}

// utf8BOM is the UTF-8 encoding of U+FEFF, the byte-order mark some
// editors put at the start of a file.
var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// errFileTooLong is returned by lineReader.next past the file limit.
var errFileTooLong = errors.New("file too long")

// lineReader reads lines of at most lim.line bytes from a file of at most
// lim.file bytes, in bounded memory: a longer line is returned cut to
// lim.line bytes with long set, the rest of it skipped unread into
// memory. A UTF-8 byte-order mark at the very start is dropped.
type lineReader struct {
	r     *bufio.Reader
	lim   limits
	total int64
	buf   []byte
	first bool
}

func newLineReader(r io.Reader, lim limits) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, 64<<10), lim: lim, first: true}
}

// next returns the next line without its "\n", and whether it was cut
// (lim.line counts the bytes before the "\n"; lim.file counts all).
// At the end it returns io.EOF; past lim.file bytes, errFileTooLong.
// The line is valid until the next call.
func (lr *lineReader) next() (line []byte, long bool, err error) {
	lr.buf = lr.buf[:0]
	for {
		chunk, err := lr.r.ReadSlice('\n')
		lr.total += int64(len(chunk))
		if lr.total > lr.lim.file {
			return nil, false, errFileTooLong
		}
		content := bytes.TrimSuffix(chunk, []byte("\n"))
		if room := lr.lim.line - len(lr.buf); len(content) > room {
			long = true
			lr.buf = append(lr.buf, content[:max(room, 0)]...)
		} else {
			lr.buf = append(lr.buf, content...)
		}
		switch {
		case err == nil:
			return lr.trim(), long, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			if len(chunk) == 0 && len(lr.buf) == 0 && !long {
				return nil, false, io.EOF
			}
			return lr.trim(), long, nil
		default:
			return nil, false, err
		}
	}
}

func (lr *lineReader) trim() []byte {
	b := lr.buf
	if lr.first {
		lr.first = false
		b = bytes.TrimPrefix(b, utf8BOM)
	}
	return b
}

// byteOrderMarkError explains a line that cannot be read because of a
// byte-order mark: a UTF-8 one after the first line (two files joined),
// or a UTF-16 one (the file is not UTF-8). It returns nil otherwise.
func byteOrderMarkError(line []byte, lineNo int) error {
	switch {
	case bytes.HasPrefix(line, utf8BOM):
		return errors.New("line starts with a UTF-8 byte-order mark (one is accepted only at the start of the file; were files joined?)")
	case lineNo == 1 && (bytes.HasPrefix(line, []byte{0xFF, 0xFE}) || bytes.HasPrefix(line, []byte{0xFE, 0xFF})):
		return errors.New("UTF-16 byte-order mark: the file must be UTF-8")
	}
	return nil
}

// attributionOfPrefix reads the top-level run_id and depth of a JSON
// object that may be cut short (an over-long line), token by token, and
// stops at the cut.
func attributionOfPrefix(prefix []byte) (string, runner.Depth, bool) {
	dec := json.NewDecoder(bytes.NewReader(prefix))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return "", "", false
	}
	var id, depth string
	for dec.More() && (id == "" || depth == "") {
		k, err := dec.Token()
		if err != nil {
			break
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			break
		}
		switch k {
		case "run_id":
			_ = json.Unmarshal(v, &id)
		case "depth":
			_ = json.Unmarshal(v, &depth)
		}
	}
	switch d := runner.Depth(depth); {
	case id == "":
	case d == runner.Light, d == runner.Deep:
		return id, d, true
	}
	return "", "", false
}

// checkContext returns ctx's error, if any, every 1024 lines.
func checkContext(ctx context.Context, lineNo int) error {
	if lineNo%1024 != 0 {
		return nil
	}
	return ctx.Err()
}
