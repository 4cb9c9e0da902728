package reportenc

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"reflect"
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
func WriteRunsFile(ctx context.Context, w io.Writer, r *report.Report) (report.RunsFile, error) {
	h := sha256.New()
	cw := &byteCounter{w: io.MultiWriter(w, h)}
	out := bufio.NewWriterSize(cw, 256<<10)
	l := &runsLineWriter{ctx: ctx, out: out, sections: map[string]int{},
		enc: &jsonEncoder{ctx: ctx, out: out, round: true, compact: true, structs: map[reflect.Type][]jsonField{}}}
	for _, name := range report.RunsFileSections() {
		keys := strings.Split(name, ".")
		if name == report.RunsFileAddresses {
			for k, rec := range r.Recommendations {
				for _, id := range rec.Addresses {
					if err := l.line(name, k, keys, reflect.ValueOf(id)); err != nil {
						return report.RunsFile{}, err
					}
				}
			}
			continue
		}
		v := report.RunsFileListing(r, name)
		if !v.IsValid() {
			continue
		}
		for i := range v.Len() {
			if err := l.line(name, -1, keys, v.Index(i)); err != nil {
				return report.RunsFile{}, err
			}
		}
	}
	if err := out.Flush(); err != nil {
		return report.RunsFile{}, err
	}
	return report.RunsFile{SHA256: hex.EncodeToString(h.Sum(nil)), Bytes: cw.n, Lines: l.lines, Sections: l.sections}, nil
}

// runsLineWriter writes a runs file's lines.
type runsLineWriter struct {
	ctx      context.Context
	out      *bufio.Writer
	enc      *jsonEncoder
	lines    int
	sections map[string]int
	buf      []byte
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
	l.sections[name]++
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
