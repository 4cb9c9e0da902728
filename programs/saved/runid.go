package saved

import (
	"bytes"
	"unicode/utf8"
)

// lineRunID reads the top-level run_id of a line without decoding it, for
// a shard that reads its own runs only (LoadMembers): the line of another
// shard's run is then read no further. ok is false whenever the id is not
// certain to be what encoding/json would decode (the line is then decoded
// in full, as without shards):
//   - the line must be an object whose keys are plain ASCII strings (no
//     backslash in any key);
//   - exactly one top-level key equals run_id without regard to case
//     (encoding/json matches keys so, and the last of repeated ones wins),
//     and its value is a string without a backslash;
//   - strings, nesting and the rest are skipped, not checked: a line that
//     is not valid JSON is another shard's business when its run_id names
//     that shard, as the line of a run of that shard.
//
// The common form, {"run_id":"…", as evalcal and most writers put the id
// first, is read from its prefix and one search of the rest for a second
// run_id key; any other is read by a scan from quote to quote that tracks
// the nesting depth.
func lineRunID(line []byte) ([]byte, bool) {
	if id, rest, ok := leadingRunID(line); ok {
		if !mayHoldRunIDKey(rest) {
			return id, true
		}
	}
	return scanRunID(line)
}

// runIDKey is the key lineRunID looks for, quoted.
const runIDKey = `"run_id"`

// leadingRunID reads a line that begins {"run_id":"ID" (spaces allowed
// around the colon and after the brace) and returns ID and what follows
// its closing quote.
func leadingRunID(line []byte) (id, rest []byte, ok bool) {
	s := skipSpace(line, 0)
	if s >= len(line) || line[s] != '{' {
		return nil, nil, false
	}
	s = skipSpace(line, s+1)
	if !bytes.HasPrefix(line[s:], []byte(runIDKey)) {
		return nil, nil, false
	}
	s = skipSpace(line, s+len(runIDKey))
	if s >= len(line) || line[s] != ':' {
		return nil, nil, false
	}
	s = skipSpace(line, s+1)
	if s >= len(line) || line[s] != '"' {
		return nil, nil, false
	}
	end := bytes.IndexByte(line[s+1:], '"')
	if end < 0 {
		return nil, nil, false
	}
	id = line[s+1 : s+1+end]
	if !plainID(id) {
		return nil, nil, false
	}
	return id, line[s+2+end:], true
}

// mayHoldRunIDKey says whether s may hold another run_id key: a quoted
// run_id in any case (found at each underscore, the one byte every
// unescaped spelling has), a non-ASCII byte next to an underscore, or a
// \u escape, which could spell one. It answers true when in doubt.
func mayHoldRunIDKey(s []byte) bool {
	if bytes.Contains(s, []byte(`\u`)) {
		return true
	}
	for i := 0; ; {
		k := bytes.IndexByte(s[i:], '_')
		if k < 0 {
			return false
		}
		i += k
		// `"run_id"` has its underscore at index 4.
		if i >= 4 && i+4 <= len(s) && bytes.EqualFold(s[i-4:i+4], []byte(runIDKey)) {
			return true
		}
		// A letter of run_id spelled with a non-ASCII one that folds into
		// it (as U+017F folds into s) takes up to 3 bytes.
		if hasEscapeOrHigh(s[max(i-13, 0):min(i+9, len(s))]) {
			return true
		}
		i++
	}
}

func hasEscapeOrHigh(b []byte) bool {
	for _, c := range b {
		if c == '\\' || c >= 0x80 {
			return true
		}
	}
	return false
}

// scanRunID is lineRunID's general path: a scan of the whole line from
// quote to quote, counting the nesting depth outside strings.
func scanRunID(line []byte) ([]byte, bool) {
	s := skipSpace(line, 0)
	if s >= len(line) || line[s] != '{' {
		return nil, false
	}
	var id []byte
	found := false
	depth := 0
	for i := s; i < len(line); {
		switch c := line[i]; c {
		case '"':
			end, ok := stringEnd(line, i)
			if !ok {
				return nil, false
			}
			str := line[i+1 : end]
			next := skipSpace(line, end+1)
			if depth != 1 || next >= len(line) || line[next] != ':' {
				i = end + 1 // a value, or a key of a nested object
				continue
			}
			if hasEscapeOrHigh(str) {
				return nil, false // a key the decoder might fold into run_id
			}
			if !bytes.EqualFold(str, []byte("run_id")) {
				i = next + 1
				continue
			}
			if found {
				return nil, false // run_id given twice: the decoder keeps the last
			}
			v := skipSpace(line, next+1)
			if v >= len(line) || line[v] != '"' {
				return nil, false
			}
			vend, ok := stringEnd(line, v)
			if !ok || !plainID(line[v+1:vend]) {
				return nil, false
			}
			id, found = line[v+1:vend], true
			i = vend + 1
		case '{', '[':
			depth++
			i++
		case '}', ']':
			depth--
			i++
		default:
			i++
		}
	}
	return id, found
}

// plainID says whether a string value's bytes are what encoding/json
// decodes it to: not empty, no escape, valid UTF-8 (the decoder replaces
// an invalid byte).
func plainID(id []byte) bool {
	return len(id) > 0 && bytes.IndexByte(id, '\\') < 0 && utf8.Valid(id)
}

// stringEnd returns the index of the quote that closes the JSON string
// whose opening quote is at line[open].
func stringEnd(line []byte, open int) (int, bool) {
	for j := open + 1; ; {
		k := bytes.IndexByte(line[j:], '"')
		if k < 0 {
			return 0, false
		}
		j += k
		bs := 0
		for b := j - 1; b > open && line[b] == '\\'; b-- {
			bs++
		}
		if bs%2 == 0 {
			return j, true
		}
		j++
	}
}

func skipSpace(line []byte, i int) int {
	for i < len(line) && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r' || line[i] == '\n') {
		i++
	}
	return i
}
