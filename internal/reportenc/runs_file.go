package reportenc

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"reflect"
	"runtime"
	"strconv"
	"strings"

	"github.com/evalcal/evalcal/report"
)

// SplitRuns writes r's per-run listings to the runs file path (atomically:
// see report.WriteFileAtomicFunc) and returns the report to write in r's place:
// a copy of r without them, whose RunsFile names the file as recorded
// (the path the report should give, see RunsFile.Path) with its SHA-256.
// r is not modified. The same r gives the same bytes, whatever wrote it.
func SplitRuns(ctx context.Context, r *report.Report, path, recorded string) (*report.Report, error) {
	var rf report.RunsFile
	err := report.WriteFileAtomicFunc(path, func(w io.Writer) error {
		var err error
		rf, err = WriteRunsFile(ctx, w, r)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("report: write runs file %s: %w", path, err)
	}
	rf.Path = recorded
	out := report.WithoutRuns(r)
	out.RunsFile = &rf
	return out, nil
}

// WriteRunsFile writes r's per-run listings to w as a runs file (see
// report.RunsFile) and returns its description, Path left empty. Every float
// follows the precision rule at the listing's path in the report, so an
// item reads back as it would from the report itself. ctx is checked
// every cancelEvery lines.
//
// The lines are encoded on every CPU, runsChunkLines at a time, and
// written in their order (at a million runs the encoding took 7 s on one
// core).
func WriteRunsFile(ctx context.Context, w io.Writer, r *report.Report) (report.RunsFile, error) {
	h := sha256.New()
	cw := &byteCounter{w: io.MultiWriter(w, h)}
	out := bufio.NewWriterSize(cw, 256<<10)
	rf := report.RunsFile{Sections: map[string]int{}}
	err := encodeRunsChunks(ctx, runsChunks(r), func(c *runsChunk) error {
		if _, err := out.Write(c.buf.Bytes()); err != nil {
			return err
		}
		rf.Lines += c.lines
		rf.Sections[c.name] += c.lines
		return nil
	})
	if err != nil {
		return report.RunsFile{}, err
	}
	if err := out.Flush(); err != nil {
		return report.RunsFile{}, err
	}
	rf.SHA256, rf.Bytes = hex.EncodeToString(h.Sum(nil)), cw.n
	return rf, nil
}

// runsChunkLines is how many lines one encoding task writes.
const runsChunkLines = 1024

// runsChunk is up to runsChunkLines consecutive lines of one listing:
// items [from, to) of list, each written with the section name, index
// (a recommendation's, or -1) and the report path keys; buf and lines
// are what encoding them gave.
type runsChunk struct {
	name     string
	index    int
	keys     []string
	list     reflect.Value
	from, to int

	buf   bytes.Buffer
	lines int
	err   error
	done  chan struct{}
}

// runsChunks cuts r's per-run listings into chunks, in the runs file's
// order (report.RunsFileSections, and each listing's own order).
func runsChunks(r *report.Report) []*runsChunk {
	var out []*runsChunk
	add := func(name string, index int, keys []string, list reflect.Value) {
		for from := 0; from < list.Len(); from += runsChunkLines {
			out = append(out, &runsChunk{name: name, index: index, keys: keys, list: list,
				from: from, to: min(from+runsChunkLines, list.Len()), done: make(chan struct{})})
		}
	}
	for _, name := range report.RunsFileSections() {
		keys := strings.Split(name, ".")
		if name == report.RunsFileAddresses {
			for k, rec := range r.Recommendations {
				add(name, k, keys, reflect.ValueOf(rec.Addresses))
			}
			continue
		}
		if v := report.RunsFileListing(r, name); v.IsValid() {
			add(name, -1, keys, v)
		}
	}
	return out
}

// encodeRunsChunks encodes the chunks on GOMAXPROCS workers and calls
// write with each, in order, once it is encoded; at most two chunks a
// worker are encoded ahead of the writing. It returns the first encoding
// or write error, or ctx's.
func encodeRunsChunks(ctx context.Context, chunks []*runsChunk, write func(*runsChunk) error) error {
	workers := runtime.GOMAXPROCS(0)
	work := make(chan *runsChunk)
	ahead := make(chan struct{}, 2*workers) // a token per chunk handed out and not yet written
	quit := make(chan struct{})
	defer close(quit)
	go func() {
		defer close(work)
		for _, c := range chunks {
			select {
			case ahead <- struct{}{}:
			case <-quit:
				return
			}
			select {
			case work <- c:
			case <-quit:
				return
			}
		}
	}()
	for range workers {
		go func() {
			l := &runsLineWriter{ctx: ctx}
			for c := range work {
				c.lines, c.err = l.chunk(c)
				close(c.done)
			}
		}()
	}
	for _, c := range chunks {
		select {
		case <-c.done:
		case <-ctx.Done():
			return ctx.Err()
		}
		if c.err != nil {
			return c.err
		}
		if err := write(c); err != nil {
			return err
		}
		c.buf = bytes.Buffer{} // written: its memory goes
		<-ahead
	}
	return nil
}

// runsLineWriter encodes runs file lines, one worker's: its encoder
// keeps its own cache of struct fields.
type runsLineWriter struct {
	ctx   context.Context
	out   *bufio.Writer
	enc   *jsonEncoder
	lines int
	buf   []byte
	last  int // the size of the last chunk encoded: the next one's buffer is sized once from it
}

// chunk encodes c's lines into c.buf and returns how many it wrote.
func (l *runsLineWriter) chunk(c *runsChunk) (int, error) {
	if l.out == nil {
		l.out = bufio.NewWriterSize(&c.buf, 64<<10)
		l.enc = &jsonEncoder{ctx: l.ctx, out: l.out, round: true, compact: true, structs: map[reflect.Type][]jsonField{}}
	}
	l.out.Reset(&c.buf)
	c.buf.Grow(l.last + l.last/8) // growing a megabyte by doubling was 6% of a million-run calibration's CPU
	for i := c.from; i < c.to; i++ {
		if err := l.line(c.name, c.index, c.keys, c.list.Index(i)); err != nil {
			return 0, err
		}
	}
	err := l.out.Flush()
	l.last = c.buf.Len()
	return c.to - c.from, err
}

// line writes one line: section name, the recommendation's index (or -1)
// and the item v, encoded at the report path keys.
func (l *runsLineWriter) line(name string, index int, keys []string, v reflect.Value) error {
	if l.lines%cancelEvery == cancelEvery-1 {
		if err := l.ctx.Err(); err != nil {
			return err
		}
	}
	b := append(l.buf[:0], `{"section":`...)
	b = appendJSONString(b, name)
	if index >= 0 {
		b = append(b, `,"index":`...)
		b = strconv.AppendInt(b, int64(index), 10)
	}
	b = append(b, `,"item":`...)
	l.buf = b
	l.out.Write(b)
	for _, k := range keys {
		l.enc.path.pushKey(k)
	}
	err := l.enc.value(v, false)
	for range keys {
		l.enc.path.pop()
	}
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	l.out.WriteString("}\n")
	l.lines++
	return nil
}

// byteCounter counts the bytes written through it.
type byteCounter struct {
	w io.Writer
	n int64
}

func (c *byteCounter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// colon separates a key from its value in the JSON encoder: ": ", or ":"
// in a compact encoder (a runs file's lines).
func (e *jsonEncoder) colon() {
	if e.compact {
		e.out.WriteByte(':')
		return
	}
	e.out.WriteString(": ")
}
