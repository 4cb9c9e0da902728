// Package lines reads a file line by line in bounded memory: each line at
// most a line limit (a longer one is returned cut, with the rest of it
// skipped unread into memory), the whole file at most a file limit.
package lines

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// UTF8BOM is the UTF-8 encoding of U+FEFF, the byte-order mark some
// editors put at the start of a file; Reader drops it there.
var UTF8BOM = []byte{0xEF, 0xBB, 0xBF}

// ErrFileTooLong is returned by Reader.Next past the file limit.
var ErrFileTooLong = errors.New("file too long")

// Reader reads lines of at most maxLine bytes from a file of at most
// maxFile bytes. A UTF-8 byte-order mark at the very start is dropped.
type Reader struct {
	r       *bufio.Reader
	maxLine int
	maxFile int64
	total   int64
	start   int64 // where the last line Next returned starts
	buf     []byte
	first   bool
}

// NewReader reads r through a 64 KiB buffer.
func NewReader(r io.Reader, maxLine int, maxFile int64) *Reader {
	return &Reader{r: bufio.NewReaderSize(r, 64<<10), maxLine: maxLine, maxFile: maxFile, first: true}
}

// Next returns the next line without its "\n", and whether it was cut
// (maxLine counts the bytes before the "\n"; maxFile counts all). At the
// end it returns io.EOF; past maxFile bytes, ErrFileTooLong. The line is
// valid until the next call.
func (lr *Reader) Next() (line []byte, long bool, err error) {
	lr.buf, lr.start = lr.buf[:0], lr.total
	for {
		chunk, err := lr.r.ReadSlice('\n')
		lr.total += int64(len(chunk))
		if lr.total > lr.maxFile {
			return nil, false, ErrFileTooLong
		}
		content := bytes.TrimSuffix(chunk, []byte("\n"))
		if room := lr.maxLine - len(lr.buf); len(content) > room {
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

func (lr *Reader) trim() []byte {
	b := lr.buf
	if lr.first {
		lr.first = false
		if bytes.HasPrefix(b, UTF8BOM) {
			b, lr.start = b[len(UTF8BOM):], lr.start+int64(len(UTF8BOM))
		}
	}
	return b
}

// Start returns the offset in the file of the first byte of the line
// Next last returned (after a byte-order mark it dropped).
func (lr *Reader) Start() int64 { return lr.start }
