// Package reportenc writes evalcal's documents (the calibration report,
// score, calls, gate, rank, position and plan documents) as YAML and JSON:
// streaming encoders whose key order is the structs' field order, and
// whose floats follow the report's precision rule (report.Precision).
// It is internal to the module: the commands and the report's readers and
// renderers call it; a library user encodes a report.Report with yaml.v3
// or encoding/json (same keys, unrounded floats) or, inside this module,
// with WriteYAML and WriteJSON. See docs/ARCHITECTURE.md.
package reportenc

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/evalcal/evalcal/report"
)

// WriteYAML writes any document (the calibration report, a score, calls
// or gate document) to w as YAML with two-space indentation, key order
// the structs' field order and map keys sorted: byte for byte what
// yaml.v3 (Encoder.SetIndent(2)) writes for the same value, except that
// every float follows the precision rule (see report.Precision), -0 is written 0,
// and map keys that yaml.v3's order leaves tied (strings differing only
// in invalid UTF-8) are ordered by their bytes instead of at random.
//
// Memory is bounded by the document's depth and its largest scalar, not
// by the document: the encoder writes the block structure and plain
// scalars itself as it walks the value, straight into a buffered writer,
// and has yaml.v3 render only what needs its judgement (quoted and
// literal strings, keys, flow collections), one node at a time and
// indented into place, instead of building yaml.v3's event stream for the
// whole document.
//
// A NaN or infinite float is refused with an error naming its field path
// (e.g. "groups[3].brier"): an undefined figure must be null. Nothing is
// guaranteed about what was written to w before an error.
func WriteYAML(w io.Writer, v any) error {
	return writeYAML(context.Background(), w, v, encodeOptions{round: true})
}

// WriteYAMLContext is WriteYAML that stops with ctx's error (wrapped)
// when ctx is done, checked every 256 list items.
func WriteYAMLContext(ctx context.Context, w io.Writer, v any) error {
	return writeYAML(ctx, w, v, encodeOptions{round: true})
}

// WriteJSON writes any document to w as indented JSON with a final
// newline: byte for byte what json.MarshalIndent(v, "", "  ") followed by
// "\n" writes for the same value, except that every float follows the
// precision rule (see report.Precision) and -0 is written 0. It writes as it
// walks the value, so memory does not grow with the document. A NaN or
// infinite float is refused with an error naming its field path.
func WriteJSON(w io.Writer, v any) error {
	return writeJSON(context.Background(), w, v, encodeOptions{round: true})
}

// WriteJSONContext is WriteJSON that stops with ctx's error (wrapped)
// when ctx is done, checked every 256 list items.
func WriteJSONContext(ctx context.Context, w io.Writer, v any) error {
	return writeJSON(ctx, w, v, encodeOptions{round: true})
}

// cancelEvery is how many list items the encoders write between looks
// at their context.
const cancelEvery = 256

// Rounded returns a copy of the document v as its reader sees it: every
// float rounded by the precision rule (see report.Precision), exactly as
// WriteYAML and WriteJSON write it. A renderer that shows a report both
// from memory (run --format markdown) and from its file (render) renders
// Rounded(r), so that both agree digit for digit. Rounding is
// idempotent: a rounded document reads back and re-encodes to the same
// bytes. v's type must be one encoding/json can read back.
func Rounded[T any](v *T) (*T, error) {
	var buf bytes.Buffer
	if err := WriteJSON(&buf, v); err != nil {
		return nil, err
	}
	out := new(T)
	if err := json.Unmarshal(buf.Bytes(), out); err != nil {
		return nil, fmt.Errorf("report: read back a rounded document: %w", err)
	}
	return out, nil
}

// encodeOptions are the encoders' switches. round false writes every
// float as yaml.v3 or encoding/json would (the identity the tests check).
type encodeOptions struct {
	round bool
}

// pathElem is one step from the document root: a mapping key or a list
// position.
type pathElem struct {
	key     string
	index   int
	isIndex bool
}

// docPath is where an encoder is in the document: for the precision rule
// (the keys, and whether the walk is inside an exact type) and for error
// messages (keys and list positions).
type docPath struct {
	elems []pathElem
	// keys are the mapping keys of elems; joined is them dot-joined (the
	// class cache's key) and marks the length of joined before each key.
	keys   []string
	joined []byte
	marks  []int
	// exact counts the enclosing values of an exact type.
	exact int
	cache map[string]report.Precision
}

// maxClassCache bounds the class cache; documents with more distinct key
// paths (large maps with user keys) classify the rest uncached.
const maxClassCache = 1 << 14

func (p *docPath) pushKey(k string) {
	p.elems = append(p.elems, pathElem{key: k})
	p.keys = append(p.keys, k)
	p.marks = append(p.marks, len(p.joined))
	p.joined = append(p.joined, '.')
	p.joined = append(p.joined, k...)
}

func (p *docPath) pushIndex(i int) {
	p.elems = append(p.elems, pathElem{index: i, isIndex: true})
}

func (p *docPath) pop() {
	last := p.elems[len(p.elems)-1]
	p.elems = p.elems[:len(p.elems)-1]
	if !last.isIndex {
		p.keys = p.keys[:len(p.keys)-1]
		p.joined = p.joined[:p.marks[len(p.marks)-1]]
		p.marks = p.marks[:len(p.marks)-1]
	}
}

// depth is the number of steps from the root (for per-depth buffers).
func (p *docPath) depth() int { return len(p.elems) }

// class is the precision of a number at the current path.
func (p *docPath) class() report.Precision {
	if p.exact > 0 {
		return report.Exact
	}
	if c, ok := p.cache[string(p.joined)]; ok {
		return c
	}
	c := report.PrecisionOfKeys(p.keys)
	if p.cache == nil {
		p.cache = map[string]report.Precision{}
	}
	if len(p.cache) < maxClassCache {
		p.cache[string(p.joined)] = c
	}
	return c
}

// String writes the path as "groups[3].murphy.binned.table[0].lower"
// ("the document" at the root).
func (p *docPath) String() string {
	if len(p.elems) == 0 {
		return "the document"
	}
	var b []byte
	for i, e := range p.elems {
		if e.isIndex {
			b = append(b, '[')
			b = strconv.AppendInt(b, int64(e.index), 10)
			b = append(b, ']')
			continue
		}
		if i > 0 {
			b = append(b, '.')
		}
		b = append(b, e.key...)
	}
	return string(b)
}

// appendFloat writes x at the current path: as yaml.v3 or encoding/json
// would without rounding, else rounded and written as its class says.
// NaN and ±Inf are an error naming the path when rounding (and always in
// JSON, as encoding/json refuses them too).
func (p *docPath) appendFloat(b []byte, x float64, bitSize int, json, round bool) ([]byte, error) {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		if round || json {
			return b, fmt.Errorf("%s: %v is not a number a document can hold (an undefined figure is null)", p, x)
		}
		return appendYAMLFloat(b, x, bitSize), nil
	}
	if !round {
		if json {
			return appendJSONFloat(b, x, bitSize), nil
		}
		return appendYAMLFloat(b, x, bitSize), nil
	}
	class := p.class()
	switch class {
	case report.PValue:
		return appendPValue(b, report.RoundFloat(x, report.PValue, bitSize)), nil
	case report.Exact:
		if x == 0 {
			x = 0 // no -0
		}
	default:
		x = report.RoundFloat(x, class, bitSize)
		bitSize = 64 // the rounded decimal is a float64
	}
	if json {
		return appendJSONFloat(b, x, bitSize), nil
	}
	return appendYAMLFloat(b, x, bitSize), nil
}

// newBufferedWriter wraps w unless it already buffers.
func newBufferedWriter(w io.Writer) *bufio.Writer {
	if bw, ok := w.(*bufio.Writer); ok {
		return bw
	}
	return bufio.NewWriterSize(w, 64<<10)
}

// EncodeYAML renders any document (the calibration report, a score,
// calls or gate document) as YAML with two-space indentation; key order
// is the structs' field order. It is WriteYAML into memory: the figures
// follow the precision rule (see report.Precision); prefer WriteYAML to a file
// or stdout for large documents.
func EncodeYAML(v any) ([]byte, error) {
	var buf bytes.Buffer
	if err := WriteYAML(&buf, v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// EncodeJSON renders any document as indented JSON with a final newline.
// It is WriteJSON into memory (see report.Precision for the figures).
func EncodeJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	if err := WriteJSON(&buf, v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
