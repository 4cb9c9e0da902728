package importers

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
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
// when that line (within r's buffer) is a whole JSON object with a
// top-level testIdx: a result, where the JSON output starts with a line
// "{" of its pretty-printed OutputFile. It reads no further than the
// first newline needs (a pipe's writer is not waited for beyond it).
func isJSONL(path string, r *bufio.Reader) bool {
	if strings.EqualFold(filepath.Ext(path), ".jsonl") {
		return true
	}
	var first []byte
	for {
		buf, _ := r.Peek(r.Buffered())
		if i := bytes.IndexByte(buf, '\n'); i >= 0 {
			first = bytes.TrimSpace(bytes.TrimPrefix(buf[:i], lines.UTF8BOM))
			break
		}
		if len(buf) == r.Size() {
			return false
		}
		if _, err := r.Peek(len(buf) + 1); err != nil {
			return false // one line, or none: not told apart here
		}
	}
	if !json.Valid(first) { // topFields needs valid JSON
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
	sum := sha256.New()
	rd := lines.NewReader(io.TeeReader(r, sum), lim.line, lim.file)
	for n := 1; ; n++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		line, long, err := rd.Next()
		switch {
		case errors.Is(err, io.EOF):
			pf.sum = hex.EncodeToString(sum.Sum(nil))
			return nil
		case errors.Is(err, lines.ErrFileTooLong):
			return fmt.Errorf("longer than %d bytes (at line %d)", lim.file, n)
		case err != nil:
			return fmt.Errorf("line %d: %w", n, err)
		case long:
			pf.unattributed = append(pf.unattributed, fmt.Sprintf("%s:%d: line longer than %d bytes", pf.path, n, lim.line))
		case len(bytes.TrimSpace(line)) > 0:
			pf.addLine(line, n)
		}
	}
}

// jsonSpace is JSON's white space (RFC 8259, section 2).
const jsonSpace = " \t\r\n"

// addLine reads the results on line n: one, or more run together.
func (pf *promptfooFile) addLine(line []byte, n int) {
	where := fmt.Sprintf("%s:%d", pf.path, n)
	if at := bytes.Index(line, lines.UTF8BOM); at >= 0 {
		// Only the file's first bytes may be a byte-order mark (README:
		// Reliability); the reader has taken that one away already.
		pf.unattributed = append(pf.unattributed, fmt.Sprintf("%s: a UTF-8 byte-order mark (EF BB BF) at byte %d of the line; only the file may start with one", where, at+1))
		return
	}
	// The line is bounded, hashed and clear of a byte-order mark already;
	// promptfoo writes JSON.stringify's JSON, without NaN. A line that is
	// one valid JSON value is that result (what a decoder would read:
	// the value without the white space around it).
	if json.Valid(line) {
		pf.add(bytes.Trim(line, jsonSpace), where, "")
		return
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	for k := 0; ; k++ {
		var raw json.RawMessage
		err := dec.Decode(&raw)
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
