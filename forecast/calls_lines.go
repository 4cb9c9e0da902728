package forecast

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"syscall"

	"golang.org/x/sync/errgroup"
)

// Limits of the calls, prices and gate readers (issue 13 item 7). They
// bound memory: a reader holds at most a few chunks of lines at a time,
// each at most MaxLineBytes + 256 KiB long, whatever the input.
const (
	// DefaultMaxLineBytes is the longest line accepted (1 MiB, newline
	// excluded). A call, price or gate line is a few hundred bytes.
	DefaultMaxLineBytes = 1 << 20
	// DefaultMaxFileBytes is the most bytes read from one input (4 GiB:
	// about 22 million calls or 100 million prices).
	DefaultMaxFileBytes = 4 << 30
)

// ErrInputTooLarge is returned (wrapped, with the file and line) when an
// input holds more than ReadLimits.MaxFileBytes bytes.
var ErrInputTooLarge = errors.New("input larger than the limit")

// ReadLimits bounds what a calls, prices or gate reader accepts. The zero
// value means the defaults.
type ReadLimits struct {
	// MaxLineBytes is the longest line accepted, its newline excluded; a
	// longer line is a bad line (field "line") and the reader goes on
	// with the next one. 0 means DefaultMaxLineBytes.
	MaxLineBytes int
	// MaxFileBytes is the most bytes read from one input; reading more
	// fails with ErrInputTooLarge (a stream such as /dev/zero ends there).
	// 0 means DefaultMaxFileBytes.
	MaxFileBytes int64
}

// resolve returns l with defaults filled in, or an error for a negative
// limit.
func (l ReadLimits) resolve() (ReadLimits, error) {
	if l.MaxLineBytes < 0 || l.MaxFileBytes < 0 {
		return l, fmt.Errorf("read limits must be >= 0, got line %d, file %d", l.MaxLineBytes, l.MaxFileBytes)
	}
	if l.MaxLineBytes == 0 {
		l.MaxLineBytes = DefaultMaxLineBytes
	}
	if l.MaxFileBytes == 0 {
		l.MaxFileBytes = DefaultMaxFileBytes
	}
	return l, nil
}

// Problems a line can have before it is parsed; each becomes a bad line
// with field "line".
var (
	errLineBOM = errors.New("starts with a UTF-8 byte-order mark (U+FEFF); only the start of a file may carry one")
	errLineNUL = errors.New("contains a NUL byte: not UTF-8 text")
)

func lineTooLong(limit int) error {
	return fmt.Errorf("longer than %d bytes (the line limit)", limit)
}

// chunkTarget is the size a chunk of lines grows to before it is handed
// on (it grows further only to hold one long line).
const chunkTarget = 256 << 10

// lineChunk is a run of whole lines of an input.
type lineChunk struct {
	// data holds whole lines; each ends in '\n' except, at the end of
	// the input, the last.
	data []byte
	// first is the 1-based number of data's first line.
	first int
	// long is set, with data empty, when line first was longer than the
	// line limit and was skipped unread.
	long bool
	// pooled is the buffer data came from, returned by release.
	pooled []byte
}

// chunkReader cuts an input into chunks of whole lines. A UTF-8
// byte-order mark at the very start is dropped. It holds at most one
// partial line (at most the line limit) between chunks.
type chunkReader struct {
	r       io.Reader
	lim     ReadLimits
	free    chan []byte // recycled buffers
	pending []byte      // the start of a line not yet ended
	line    int         // number of the next line to hand on
	read    int64       // bytes read so far
	started bool        // the byte-order mark check is done
	eof     bool
	skip    bool // discarding the rest of an over-long line
}

func newChunkReader(r io.Reader, lim ReadLimits, firstLine int) *chunkReader {
	return &chunkReader{r: r, lim: lim, line: firstLine, free: make(chan []byte, 16)}
}

// buffer returns a recycled buffer (or a new one) with capacity >= n.
func (cr *chunkReader) buffer(n int) []byte {
	select {
	case b := <-cr.free:
		if cap(b) >= n {
			return b[:0]
		}
	default:
	}
	return make([]byte, 0, max(n, chunkTarget))
}

// recycle keeps buf for reuse unless enough buffers are kept already.
func (cr *chunkReader) recycle(buf []byte) {
	select {
	case cr.free <- buf[:0]:
	default:
	}
}

// release hands c's buffer back for reuse; c must not be used after.
func (cr *chunkReader) release(c *lineChunk) {
	if c.pooled != nil {
		cr.recycle(c.pooled)
	}
	c.pooled, c.data = nil, nil
}

// fill reads more input into buf (up to its capacity); it sets cr.eof at
// the end of the input and fails past the file limit.
func (cr *chunkReader) fill(buf []byte) ([]byte, error) {
	n, err := cr.r.Read(buf[len(buf):cap(buf)])
	buf = buf[:len(buf)+n]
	cr.read += int64(n)
	line := cr.line // the line being read
	if cr.skip {
		line-- // the over-long line, already handed on
	}
	if cr.read > cr.lim.MaxFileBytes {
		return buf, fmt.Errorf("line %d: %w of %d bytes", line, ErrInputTooLarge, cr.lim.MaxFileBytes)
	}
	switch {
	case errors.Is(err, io.EOF):
		cr.eof = true
	case err != nil:
		return buf, fmt.Errorf("line %d: %w", line, err)
	}
	return buf, nil
}

// next returns the next chunk, or io.EOF after the last one.
func (cr *chunkReader) next(ctx context.Context) (*lineChunk, error) {
	for cr.skip {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if cr.eof {
			return nil, io.EOF
		}
		buf, err := cr.fill(cr.buffer(chunkTarget))
		if i := bytes.IndexByte(buf, '\n'); i >= 0 {
			cr.skip = false
			cr.pending = append(cr.pending[:0], buf[i+1:]...)
		}
		cr.recycle(buf)
		if err != nil {
			return nil, err
		}
	}
	buf := cr.buffer(max(chunkTarget, len(cr.pending)+chunkTarget/4))
	buf = append(buf, cr.pending...)
	cr.pending = cr.pending[:0]
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if !cr.started && (len(buf) >= len(utf8BOM) || cr.eof) {
			cr.started = true
			if bytes.HasPrefix(buf, utf8BOM) {
				buf = append(buf[:0], buf[len(utf8BOM):]...)
			}
		}
		end := bytes.LastIndexByte(buf, '\n') + 1
		if cr.eof {
			end = len(buf)
		}
		if end > 0 && (cr.eof || len(buf) == cap(buf) || end >= chunkTarget) {
			cr.pending = append(cr.pending, buf[end:]...)
			c := &lineChunk{data: buf[:end], first: cr.line, pooled: buf}
			cr.line += bytes.Count(c.data, []byte{'\n'})
			if cr.eof && end > 0 && buf[end-1] != '\n' {
				cr.line++
			}
			return c, nil
		}
		if cr.eof {
			cr.recycle(buf)
			return nil, io.EOF
		}
		if cr.started && end == 0 && len(buf) > cr.lim.MaxLineBytes {
			// No newline within the limit: the line is too long. Hand on
			// a marker and discard the rest of the line unread.
			cr.skip = true
			c := &lineChunk{first: cr.line, long: true}
			cr.line++
			cr.recycle(buf)
			return c, nil
		}
		if len(buf) == cap(buf) {
			grown := make([]byte, len(buf), min(2*cap(buf), cr.lim.MaxLineBytes+chunkTarget))
			copy(grown, buf)
			buf = grown
		}
		var err error
		if buf, err = cr.fill(buf); err != nil {
			return nil, err
		}
	}
}

// each calls fn with every non-blank line of c and its number, and bad
// with the number and problem of every line that is longer than
// maxLine, starts with a byte-order mark, or holds a NUL byte.
func (c *lineChunk) each(maxLine int, fn func(line []byte, n int), bad func(n int, err error)) {
	if c.long {
		bad(c.first, lineTooLong(maxLine))
		return
	}
	data := c.data
	for n := c.first; len(data) > 0; n++ {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		switch {
		case len(line) > maxLine:
			bad(n, lineTooLong(maxLine))
		case bytes.IndexByte(line, 0) >= 0:
			bad(n, errLineNUL)
		case bytes.HasPrefix(bytes.TrimLeft(line, " \t"), utf8BOM):
			bad(n, errLineBOM)
		case len(bytes.TrimSpace(line)) == 0:
		default:
			fn(line, n)
		}
	}
}

// readWorkers is how many goroutines parse lines: every core, as the
// parsers are CPU-bound and results are delivered in input order.
func readWorkers() int { return max(1, runtime.GOMAXPROCS(0)) }

// forEachChunk reads cr's chunks and calls work on each in up to workers
// goroutines; deliver receives the results on the calling goroutine in
// input order, and the chunk's bytes stay valid until deliver returns (a
// result may point into them). At most about 3 x workers chunks are in
// memory at once. It stops at the first error of cr or deliver, and when
// ctx is done (returning ctx.Err()).
func forEachChunk[R any](ctx context.Context, cr *chunkReader, workers int, work func(*lineChunk) R, deliver func(R) error) error {
	stop, cancel := context.WithCancel(ctx)
	defer cancel()
	g, gctx := errgroup.WithContext(stop)
	type done struct {
		c *lineChunk
		r R
	}
	type job struct {
		c   *lineChunk
		out chan done
	}
	jobs := make(chan job, workers)
	order := make(chan chan done, 2*workers)
	g.Go(func() error {
		defer close(jobs)
		defer close(order)
		for {
			c, err := cr.next(gctx)
			if errors.Is(err, io.EOF) {
				return nil
			}
			if err != nil {
				return err
			}
			out := make(chan done, 1)
			select {
			case order <- out:
			case <-gctx.Done():
				return gctx.Err()
			}
			select {
			case jobs <- job{c, out}:
			case <-gctx.Done():
				return gctx.Err()
			}
		}
	})
	for range workers {
		g.Go(func() error {
			for j := range jobs {
				if gctx.Err() != nil {
					continue // drain; the result is not awaited
				}
				j.out <- done{j.c, work(j.c)} // buffered: never blocks
			}
			return nil
		})
	}
	var derr error
	for out := range order {
		if derr != nil {
			continue
		}
		select {
		case d := <-out:
			derr = deliver(d.r)
			cr.release(d.c)
			if derr != nil {
				cancel()
			}
		case <-gctx.Done():
			derr = gctx.Err()
		}
	}
	gerr := g.Wait()
	switch {
	case derr != nil && !errors.Is(derr, context.Canceled):
		return derr
	case gerr != nil && !errors.Is(gerr, context.Canceled):
		return gerr
	case derr != nil || gerr != nil:
		if err := ctx.Err(); err != nil {
			return err
		}
		return context.Canceled
	}
	return ctx.Err()
}

// OpenRegular opens path for reading only when it is a regular file (a
// symbolic link to one is followed): a FIFO, device or directory is an
// error, checked before opening and again on the open file, which is
// opened non-blocking so that a FIFO swapped in between cannot block. A
// file larger than maxBytes is an error.
func OpenRegular(path string, maxBytes int64) (*os.File, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file (%s)", path, fi.Mode().Type())
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	if fi, err = f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		if err == nil {
			err = fmt.Errorf("%s: not a regular file (%s)", path, fi.Mode().Type())
		}
		return nil, err
	}
	if fi.Size() > maxBytes {
		f.Close()
		return nil, fmt.Errorf("%s: %w: %d bytes, limit %d", path, ErrInputTooLarge, fi.Size(), maxBytes)
	}
	return f, nil
}
