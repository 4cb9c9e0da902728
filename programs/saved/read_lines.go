package saved

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"

	"github.com/evalcal/evalcal/inspection"
	"github.com/evalcal/evalcal/internal/lines"
)

// Size limits of a saved-inspections file.
const (
	// MaxLineBytes bounds one JSONL line (an inspection is a few KB). A
	// longer line is rejected alone ("line N: longer than 16777216
	// bytes"); the rest of the file is read.
	MaxLineBytes = 16 << 20
	// MaxFileBytes bounds the whole file; a longer one (or /dev/zero) is
	// an error of the file, and nothing of it is used. The file is read
	// line by line, so the bound is not memory: it is 16 GiB, some ten
	// million runs of inspections of a few hundred bytes (1 GiB refused a
	// million runs with a summary and a few flags a line).
	MaxFileBytes = 16 << 30
)

// limits are the size limits a load applies; tests shrink them.
type limits struct {
	line int
	file int64
	// reread is the size from which a regular file's inspections are
	// read again by offset rather than kept decoded (lineref.go).
	reread int64
}

// RereadBytes is the size from which a saved file that is a regular file
// is not kept in memory decoded: its lines are read again by offset when
// the runner asks for them (lineref.go). Under it (some 50,000 runs) the
// decoded inspections are a few tens of MB, and reading each line twice
// would only cost CPU.
const RereadBytes = 32 << 20

var defaultLimits = limits{line: MaxLineBytes, file: MaxFileBytes, reread: RereadBytes}

// byteOrderMarkError explains a line that cannot be read because of a
// byte-order mark: a UTF-8 one after the first line (two files joined),
// or a UTF-16 one (the file is not UTF-8). It returns nil otherwise.
func byteOrderMarkError(line []byte, lineNo int) error {
	switch {
	case bytes.HasPrefix(line, lines.UTF8BOM):
		return errors.New("line starts with a UTF-8 byte-order mark (one is accepted only at the start of the file; were files joined?)")
	case lineNo == 1 && (bytes.HasPrefix(line, []byte{0xFF, 0xFE}) || bytes.HasPrefix(line, []byte{0xFE, 0xFF})):
		return errors.New("UTF-16 byte-order mark: the file must be UTF-8")
	}
	return nil
}

// attributionOfPrefix reads the top-level run_id and depth of a JSON
// object that may be cut short (an over-long line), token by token, and
// stops at the cut.
func attributionOfPrefix(prefix []byte) (string, inspection.Depth, bool) {
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
	switch d := inspection.Depth(depth); {
	case id == "":
	case d == inspection.Light, d == inspection.Deep:
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
