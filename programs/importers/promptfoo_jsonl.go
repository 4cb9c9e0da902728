package importers

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/evalcal/evalcal/internal/lines"
)

// promptfoo writes its JSON Lines output (`promptfoo eval -o FILE.jsonl`)
// as one EvalResult per line: the same testIdx, promptIdx, provider,
// success, score, error, failureReason and gradingResult fields a result
// of the JSON output has, with no file-level version. Older versions
// joined the batches of results without a newline between them, so a
// line may hold two results back to back; both are read.

// errResultAtTop is a file read as promptfoo's JSON output whose
// top-level object is a result: JSON Lines whose first line is too long
// to be recognised by isJSONL.
var errResultAtTop = errors.New("the file's first value is one promptfoo result, not an output file: " +
	"name it .jsonl to read it as the JSON Lines output (`promptfoo eval -o FILE.jsonl`)")

// isJSONL decides whether a promptfoo file is JSON Lines: by its name
// (".jsonl", as promptfoo decides what to write), else by its first line,
// when that line (within what r has buffered) is a whole JSON object with
// a top-level testIdx: a result, where the JSON output starts with a line
// "{" of its pretty-printed OutputFile.
func isJSONL(path string, r *bufio.Reader) bool {
	if strings.EqualFold(filepath.Ext(path), ".jsonl") {
		return true
	}
	head, _ := r.Peek(r.Size())
	head = bytes.TrimPrefix(head, []byte("\uFEFF"))
	nl := bytes.IndexByte(head, '\n')
	if nl < 0 {
		return false
	}
	first := bytes.TrimSpace(head[:nl])
	if !json.Valid(first) {
		return false
	}
	fields, err := topFields(first, func(k string) bool { return k == "testIdx" })
	return err == nil && fields["testIdx"] != nil
}

// readLines reads a JSON Lines file line by line, in memory bounded by
// lim.line: each result as the JSON output's are (a bad result fails its
// run alone), a line that is not JSON or longer than lim.line listed by
// Unattributed with its number, blank lines skipped. The whole file fails
// when it is longer than lim.file or cannot be read, or when ctx ends.
func (pf *promptfooFile) readLines(ctx context.Context, r io.Reader, lim limits) error {
	pf.jsonl = true
	lr := newLimitedReader(r, lim.file+1) // lines.Reader tells a file past lim.file
	rd := lines.NewReader(lr, lim.line, lim.file)
	for n := 1; ; n++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		line, long, err := rd.Next()
		switch {
		case errors.Is(err, io.EOF):
			pf.sum = lr.hexSum()
			return nil
		case errors.Is(err, lines.ErrFileTooLong), errors.Is(err, errFileTooLong):
			return fmt.Errorf("longer than %d bytes", lim.file)
		case err != nil:
			return err
		case long:
			pf.unattributed = append(pf.unattributed, fmt.Sprintf("%s:%d: line longer than %d bytes", pf.path, n, lim.line))
		case len(bytes.TrimSpace(line)) > 0:
			pf.addLine(line, n)
		}
	}
}

// addLine reads the results on line n: one, or more run together.
func (pf *promptfooFile) addLine(line []byte, n int) {
	where := fmt.Sprintf("%s:%d", pf.path, n)
	s := newJSONStream(bytes.NewReader(line), int64(len(line)))
	for k := 0; ; k++ {
		raw, _, err := s.rawValue()
		if errors.Is(err, io.EOF) && k > 0 {
			return
		}
		if err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				err = errors.New("the line ends inside a JSON value (truncated?)")
			}
			pf.unattributed = append(pf.unattributed, fmt.Sprintf("%s: not valid JSON: %v", where, err))
			return
		}
		label := ""
		if k > 0 {
			label = fmt.Sprintf("result %d of the line ", k+1)
		}
		pf.add(raw, where, label)
	}
}
