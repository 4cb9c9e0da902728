package saved

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"runtime"

	"github.com/evalcal/evalcal/inspection"
	"github.com/evalcal/evalcal/internal/lines"
)

// lineKind is what the decoding of one line found (parsedLine).
type lineKind uint8

const (
	lineBlank   lineKind = iota // nothing but space
	lineLong                    // longer than the line limit: line holds its first bytes
	lineOther                   // another shard's run, left out (LoadMembers)
	lineSkimmed                 // another shard's run, skimmed (LoadShard): id, depth, system
	lineDecoded                 // decoded: insp and err, and the fields below
)

// parsedLine is one line of a saved-inspections file with the work that
// depends on the line alone done: load applies it to the runs in file
// order.
type parsedLine struct {
	no   int
	line []byte // trimmed; valid until load's callback returns
	off  int64  // where line starts in the file
	kind lineKind

	id, depth, system string // lineSkimmed

	*decodedLine // lineDecoded
}

// decodedLine is what decoding a line gave: apart from parsedLine so that
// the lines a shard only reads the run id of stay small (a batch of them
// was zeroed and scanned by the collector at every line).
type decodedLine struct {
	insp   inspection.Inspection
	err    error // why the line is not an inspection
	pi     *float64
	piErr  error
	named  string // lineSystem of the line
	md     inspection.Metadata
	mdSkip []inspection.MetadataSkip
	mdErr  error
	hasMd  bool
}

// parseBatchLines is how many lines one decoding task takes.
const parseBatchLines = 512

// parseBatch is a run of consecutive lines, decoded by one worker.
type parseBatch struct {
	buf   []byte // the lines' bytes
	lines []parsedLine
	// err ends the file after the batch's lines (a read error, a file
	// over its limit, ctx ended), at line errAt.
	err  error
	done chan struct{}
}

// eachParsedLine reads f line by line (lim), decodes the lines on every
// CPU (decodeLine, the costly part of a load: JSON decoding) and calls
// fn with each line in file order, so that what a line changes in the
// runs is applied as a sequential reading would. It returns fn's first
// error, or the read error (with the number of the line it occurred at:
// *lineError) that ended the file. At most a few batches per CPU are in
// flight, so memory does not grow with the file.
func eachParsedLine(ctx context.Context, f io.Reader, lim limits, sel selection, fn func(*parsedLine) error) error {
	workers := runtime.GOMAXPROCS(0)
	work := make(chan *parseBatch, 2*workers)
	ordered := make(chan *parseBatch, 2*workers)
	quit := make(chan struct{})
	defer close(quit)
	free := make(chan *parseBatch, 4*workers) // batches applied, for the reader to fill again

	go readBatches(ctx, f, lim, work, ordered, free, quit)
	for range workers {
		go func() {
			s := sel
			s.last = nil // a memo of its own (selection.in), not sharing the caller's
			for b := range work {
				for i := range b.lines {
					decodeLine(&b.lines[i], &s)
				}
				close(b.done)
			}
		}()
	}
	for b := range ordered {
		<-b.done
		for i := range b.lines {
			if err := fn(&b.lines[i]); err != nil {
				return err
			}
		}
		if b.err != nil {
			return b.err
		}
		select {
		case free <- b:
		default:
		}
	}
	return nil
}

// lineError is a read error at a line: the file cannot be read on.
type lineError struct {
	no  int
	err error
}

func (e *lineError) Error() string { return e.err.Error() }
func (e *lineError) Unwrap() error { return e.err }

// readBatches reads the lines into batches and hands each to a worker
// (work) and, in order, to the consumer (ordered), filling again the
// batches the consumer is done with (free: a file of any size then takes
// a few batches' memory); it stops at the end of the file, at an error
// (sent with the last batch) or when quit closes.
func readBatches(ctx context.Context, f io.Reader, lim limits, work, ordered chan<- *parseBatch, free <-chan *parseBatch, quit <-chan struct{}) {
	defer close(work)
	defer close(ordered)
	lr := lines.NewReader(f, lim.line, lim.file)
	lineNo := 0
	bufHint := 64 << 10
	for {
		var b *parseBatch
		select {
		case b = <-free:
			clear(b.lines) // no line keeps what it decoded alive
			b.buf, b.lines, b.done = b.buf[:0], b.lines[:0], make(chan struct{})
		default:
			b = &parseBatch{buf: make([]byte, 0, bufHint), lines: make([]parsedLine, 0, parseBatchLines), done: make(chan struct{})}
		}
		type span struct{ at, n int }
		spans := make([]span, 0, parseBatchLines)
		for len(spans) < parseBatchLines && b.err == nil {
			raw, long, err := lr.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			lineNo++
			if err == nil {
				err = checkContext(ctx, lineNo)
			}
			if err != nil {
				b.err = &lineError{no: lineNo, err: err}
				break
			}
			kind := lineDecoded
			line := raw
			if long {
				kind = lineLong
			} else if line = bytes.TrimSpace(raw); len(line) == 0 {
				kind = lineBlank
			}
			off := lr.Start()
			if len(line) > 0 {
				off += int64(cap(raw) - cap(line)) // TrimSpace returns a part of raw: the space it dropped in front
			}
			spans = append(spans, span{len(b.buf), len(line)})
			b.buf = append(b.buf, line...)
			b.lines = append(b.lines, parsedLine{no: lineNo, kind: kind, off: off})
		}
		for i, s := range spans {
			b.lines[i].line = b.buf[s.at : s.at+s.n : s.at+s.n]
		}
		bufHint = max(bufHint, len(b.buf)+len(b.buf)/8) // a batch's lines in one allocation
		if len(b.lines) == 0 && b.err == nil {
			return // the end of the file
		}
		select {
		case work <- b:
		case <-quit:
			return
		}
		select {
		case ordered <- b:
		case <-quit:
			return
		}
		if b.err != nil {
			return
		}
	}
}

// decodeLine does the work of a line that depends on it alone: another
// shard's line is read for its run id (LoadMembers) or skimmed
// (LoadShard); any other is decoded, with its inclusion probability,
// system and metadata.
func decodeLine(pl *parsedLine, sel *selection) {
	if pl.kind != lineDecoded {
		return
	}
	line := pl.line
	switch {
	case sel.only:
		if id, ok := lineRunID(line); ok && !sel.in(id) {
			pl.kind = lineOther
			return
		}
	case sel.member != nil:
		if id, depth, system, ok := skim(line); ok && !sel.in([]byte(id)) {
			pl.kind, pl.id, pl.depth, pl.system = lineSkimmed, id, depth, system
			return
		}
	}
	pl.decodedLine = &decodedLine{}
	pl.insp, pl.err = parseLine(line)
	if pl.err != nil {
		if bom := byteOrderMarkError(line, pl.no); bom != nil {
			pl.err = bom
		}
		return
	}
	pl.pi, pl.piErr = inclusionProbability(line)
	pl.named = lineSystem(line, &pl.insp)
	if mayHoldKey(line, "metadata") { // decoding every line again took a tenth of the CPU at 100k runs
		pl.hasMd = true
		var v struct {
			Metadata json.RawMessage `json:"metadata"`
		}
		if json.Unmarshal(line, &v) != nil {
			pl.hasMd = false
			return
		}
		pl.md, pl.mdSkip, pl.mdErr = inspection.MetadataFromJSON(v.Metadata)
	}
}
