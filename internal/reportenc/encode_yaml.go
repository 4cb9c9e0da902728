package reportenc

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"reflect"
	"strconv"

	"github.com/evalcal/evalcal/report"
	"gopkg.in/yaml.v3"
)

// The YAML encoder writes what yaml.v3 (gopkg.in/yaml.v3 v3.0.1,
// Encoder.SetIndent(2)) writes, as it walks the value:
//
//   - which fields, in which order, and which scalar style follow yaml.v3's
//     marshalling (encode.go and yaml.go), reproduced below;
//   - block mappings and sequences are laid out as yaml.v3 lays them out
//     with indent 2: "key:" then the nested block two columns in, a list
//     under a key indented too, "- " items with a mapping's first key or a
//     nested list's first "- " on the dash's line, empty collections as
//     [] and {};
//   - numbers, booleans, null and plain-safe strings are written directly;
//   - every other scalar (quoted, literal, !!binary) and every key is
//     rendered by yaml.v3 alone at column 0 and indented into place
//     (yaml.v3 never folds lines: its best width is unlimited);
//   - a flow collection, a complex "? key" entry or a yaml.Node in the
//     document is rendered by yaml.v3 under dummy parents at its real
//     depth, so its lines come out exactly as in the whole document.
//
// Memory is the path from the root to the current value, a few small
// caches, and the largest scalar or flow collection; nothing grows with
// the document. TestEncodersMatchReferenceOnRandomDocuments and
// FuzzEncodersMatchReference check the output against yaml.v3's.

type yamlEncoder struct {
	ctx   context.Context
	out   *bufio.Writer
	round bool
	path  docPath
	// flow is yaml.v3's encoder.flow: set from a field's ,flow flag before
	// its value, consumed by the next mapping or sequence (a scalar leaves
	// it set).
	flow     bool
	structs  map[reflect.Type]*yamlStructInfo
	specials map[reflect.Type]bool
	// keys caches rendered "key:" texts; scalars caches rendered strings.
	keys       map[scalarKey][]byte
	stringKeys map[string][]byte
	scalars    map[scalarKey][]byte
	leads      [][]byte
	entryBufs  [][]yamlEntry
	chunk      bytes.Buffer
	spaces     []byte
	num        []byte
}

// maxScalarCache bounds the rendered-string cache (its entries are short
// strings that repeat: verdicts, systems, notes).
const maxScalarCache = 4096

func writeYAML(ctx context.Context, w io.Writer, v any, opts encodeOptions) error {
	e := &yamlEncoder{ctx: ctx, out: newBufferedWriter(w), round: opts.round,
		structs: map[reflect.Type]*yamlStructInfo{}, specials: map[reflect.Type]bool{}, keys: map[scalarKey][]byte{},
		stringKeys: map[string][]byte{}, scalars: map[scalarKey][]byte{}}
	if err := e.emit(reflect.ValueOf(v), yamlPlace{}); err != nil {
		return fmt.Errorf("report: encode yaml: %w", err)
	}
	if err := e.out.Flush(); err != nil {
		return fmt.Errorf("report: write yaml: %w", err)
	}
	return nil
}

// yamlPlace is where emit writes a value:
//
//   - the document root: lead nil;
//   - a mapping value: lead is the entry's line up to and including
//     "key:", key the key's node;
//   - a list item: lead is the item's line up to and including "-".
//
// prefix is the line before the key or the dash, col its width (the
// key's or the dash's column).
type yamlPlace struct {
	prefix, lead []byte
	// value marks a mapping value; its key is key, or the string keyString
	// when the key's text came from the cache.
	value     bool
	key       *yaml.Node
	keyString string
	col       int
}

func (p yamlPlace) root() bool { return p.lead == nil }
func (p yamlPlace) item() bool { return p.lead != nil && !p.value }

// emit writes v at place p.
func (e *yamlEncoder) emit(v reflect.Value, p yamlPlace) error {
	switch v.Kind() {
	case reflect.Invalid:
		return e.writePlain(p, "null")
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return e.writePlain(p, "null")
		}
	}
	rv, ready, err := e.resolve(v)
	if err != nil {
		return err
	}
	if ready != nil {
		return e.emitNode(ready, p)
	}
	switch rv.Kind() {
	case reflect.Struct, reflect.Map, reflect.Slice, reflect.Array:
		if e.flow {
			n, err := e.node(rv)
			if err != nil {
				return err
			}
			return e.emitNode(n, p)
		}
	}
	switch rv.Kind() {
	case reflect.Struct:
		return e.structBlock(rv, p)
	case reflect.Map:
		if rv.Len() == 0 {
			return e.writePlain(p, "{}")
		}
		first, inner := e.openBlock(p)
		return e.mapEntries(rv, inner, first)
	case reflect.Slice, reflect.Array:
		if rv.Len() == 0 {
			return e.writePlain(p, "[]")
		}
		first, inner := e.openBlock(p)
		return e.listItems(rv, inner, first)
	case reflect.String:
		s := rv.String()
		if plainSafe(s) {
			return e.writePlain(p, s)
		}
		if t, ok := e.scalars[scalarKey{"!!str", e.stringStyle(s), s}]; ok {
			return e.writeScalarLine(p, t)
		}
		return e.emitNode(e.stringNode(s), p)
	}
	// A number or a boolean: plain, as it is.
	text, err := e.scalarValue(rv)
	if err != nil {
		return err
	}
	if !p.root() {
		e.out.Write(p.lead)
		e.out.WriteByte(' ')
	}
	e.out.Write(text)
	return e.out.WriteByte('\n')
}

// scalarValue formats a number or a boolean as yaml.v3 does (a float per
// the precision rule when rounding), into a scratch buffer.
func (e *yamlEncoder) scalarValue(rv reflect.Value) ([]byte, error) {
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		e.num = strconv.AppendInt(e.num[:0], rv.Int(), 10)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		e.num = strconv.AppendUint(e.num[:0], rv.Uint(), 10)
	case reflect.Float32, reflect.Float64:
		bits := 64
		if rv.Kind() == reflect.Float32 {
			bits = 32
		}
		b, err := e.path.appendFloat(e.num[:0], rv.Float(), bits, false, e.round)
		if err != nil {
			return nil, err
		}
		e.num = b
	case reflect.Bool:
		e.num = strconv.AppendBool(e.num[:0], rv.Bool())
	default:
		return nil, fmt.Errorf("%s: cannot marshal type: %s", &e.path, rv.Type())
	}
	return e.num, nil
}

// openBlock starts a non-empty block mapping or sequence at place p and
// returns the prefix of its first line (nil: its own indentation) and its
// column. Under a key the block starts on the next line, two columns in
// (a list too: yaml.v3 indents a list under a key); after a dash it
// starts on the dash's line ("- key: ...", "- - ...").
func (e *yamlEncoder) openBlock(p yamlPlace) (first []byte, inner int) {
	switch {
	case p.root():
		return nil, 0
	case p.item():
		return append(append([]byte(nil), p.lead...), ' '), p.col + 2
	}
	e.writeLine(p.lead, nil)
	return nil, p.col + 2
}

// structBlock writes a struct as a block mapping, or {} when every field
// is omitted.
func (e *yamlEncoder) structBlock(v reflect.Value, p yamlPlace) error {
	if report.IsExact(v.Type()) {
		e.path.exact++
		defer func() { e.path.exact-- }()
	}
	info, err := e.structInfo(v.Type())
	if err != nil {
		return err
	}
	// The entries are listed first (an all-omitted struct is {}), in a
	// buffer reused per nesting depth.
	d := e.path.depth()
	for len(e.entryBufs) <= d {
		e.entryBufs = append(e.entryBufs, nil)
	}
	entries := e.entryBufs[d][:0]
	defer func() { clear(entries); e.entryBufs[d] = entries[:0] }()
	for _, f := range info.fields {
		fv, ok := fieldByIndex(v, f.index)
		if !ok {
			continue
		}
		if f.omitEmpty {
			zero, err := yamlIsZero(fv)
			if err != nil {
				return fmt.Errorf("%s: %w", &e.path, err)
			}
			if zero {
				continue
			}
		}
		entries = append(entries, yamlEntry{f.key, fv, f.flow})
	}
	if info.inlineMap >= 0 {
		m := v.Field(info.inlineMap)
		keys := sortedYAMLKeys(m)
		for _, k := range keys {
			if info.has(k.String()) {
				return fmt.Errorf("%s: cannot have key %q in inlined map: conflicts with struct field", &e.path, k.String())
			}
		}
		for _, k := range keys {
			entries = append(entries, yamlEntry{k.String(), m.MapIndex(k), false})
		}
	}
	if len(entries) == 0 {
		return e.writePlain(p, "{}")
	}
	first, inner := e.openBlock(p)
	for i, en := range entries {
		e.path.pushKey(en.key)
		err := e.stringEntry(en.key, en.v, en.flow, e.linePrefix(i, first, inner), inner)
		e.path.pop()
		if err != nil {
			return err
		}
	}
	return nil
}

// yamlEntry is one entry of a struct's block mapping.
type yamlEntry struct {
	key  string
	v    reflect.Value
	flow bool
}

// linePrefix is the start of a block's i-th line: first for the first
// (when set), else the block's indentation (e.spaces only grows, so the
// slice stays valid).
func (e *yamlEncoder) linePrefix(i int, first []byte, col int) []byte {
	if i == 0 && first != nil {
		return first
	}
	return e.indent(col)
}

// mapEntries writes a non-empty map's entries at column col, keys in
// yaml.v3's order.
func (e *yamlEncoder) mapEntries(v reflect.Value, col int, first []byte) error {
	for i, k := range sortedYAMLKeys(v) {
		kn, err := e.node(k)
		if err != nil {
			return err
		}
		e.path.pushKey(mapKeyString(k))
		err = e.entry(kn, v.MapIndex(k), e.flow, e.linePrefix(i, first, col), col)
		e.path.pop()
		if err != nil {
			return err
		}
	}
	return nil
}

// listItems writes a non-empty list's items with their dashes at column
// col.
func (e *yamlEncoder) listItems(v reflect.Value, col int, first []byte) error {
	for i := 0; i < v.Len(); i++ {
		if i%cancelEvery == cancelEvery-1 {
			if err := e.ctx.Err(); err != nil {
				return fmt.Errorf("%s: %w", &e.path, err)
			}
		}
		prefix := e.linePrefix(i, first, col)
		lead := append(append(make([]byte, 0, len(prefix)+1), prefix...), '-')
		e.path.pushIndex(i)
		err := e.emit(v.Index(i), yamlPlace{prefix: prefix, lead: lead, col: col})
		e.path.pop()
		if err != nil {
			return err
		}
	}
	return nil
}

// stringEntry is entry for a string key, its "key:" text cached by the
// string. Only simple keys are cached, and they have no line break, so
// they render the same under any ,flow state.
func (e *yamlEncoder) stringEntry(key string, v reflect.Value, flow bool, prefix []byte, col int) error {
	if text, ok := e.stringKeys[key]; ok {
		e.flow = flow
		return e.emit(v, yamlPlace{prefix: prefix, lead: e.lead(prefix, text), value: true, keyString: key, col: col})
	}
	kn := e.stringNode(key)
	text, simple, err := e.keyText(kn)
	if err != nil {
		return err
	}
	if simple && len(e.stringKeys) < maxScalarCache {
		e.stringKeys[key] = text
	}
	return e.entry(kn, v, flow, prefix, col)
}

// lead builds a mapping entry's line up to its colon in a buffer reused
// per nesting depth (the line is written before any deeper entry is
// built).
func (e *yamlEncoder) lead(prefix, keyText []byte) []byte {
	d := e.path.depth()
	for len(e.leads) <= d {
		e.leads = append(e.leads, nil)
	}
	b := append(append(append(e.leads[d][:0], prefix...), keyText...), ':')
	e.leads[d] = b
	return b
}

// entry writes one mapping entry whose line starts with prefix (the key's
// column is col): "key:" and the value, or, for a key yaml.v3 writes as a
// complex "? key" entry, the entry rendered whole.
func (e *yamlEncoder) entry(key *yaml.Node, v reflect.Value, flow bool, prefix []byte, col int) error {
	text, simple, err := e.keyText(key)
	if err != nil {
		return err
	}
	e.flow = flow
	if !simple {
		n, err := e.node(v)
		if err != nil {
			return err
		}
		return e.writeChunk(&yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{key, n}}, col, prefix)
	}
	return e.emit(v, yamlPlace{prefix: prefix, lead: e.lead(prefix, text), value: true, key: key, col: col})
}

// keyText is a key as yaml.v3 writes it as a simple key ("n" quoted, the
// empty string as two single quotes); simple is false for a key it writes
// as a complex "? key" entry (longer than 128 bytes, or multi-line).
func (e *yamlEncoder) keyText(key *yaml.Node) ([]byte, bool, error) {
	ck := scalarKey{key.Tag, key.Style, key.Value}
	cacheable := key.Kind == yaml.ScalarNode && key.Anchor == "" && len(key.Value) <= 256
	if cacheable {
		if t, ok := e.keys[ck]; ok {
			return t, t != nil, nil
		}
	}
	null := &yaml.Node{Kind: yaml.ScalarNode, Value: "null"}
	if err := e.encodeChunk(&yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{key, null}}); err != nil {
		return nil, false, err
	}
	out := e.chunk.Bytes()
	line, ok := bytes.CutSuffix(out, []byte(": null\n"))
	var text []byte
	if ok && !bytes.HasPrefix(out, []byte("? ")) && bytes.IndexByte(line, '\n') < 0 {
		text = append([]byte(nil), line...)
	}
	if cacheable && len(e.keys) < maxScalarCache {
		e.keys[ck] = text
	}
	return text, text != nil, nil
}

// emitNode writes a ready node (a scalar to render, a flow collection, a
// yaml.Node from the document) at place p.
func (e *yamlEncoder) emitNode(n *yaml.Node, p yamlPlace) error {
	if n.Kind == yaml.ScalarNode && n.Tag == "" && n.Style == 0 && plainValue(n.Value) {
		return e.writePlain(p, n.Value)
	}
	if n.Kind == yaml.ScalarNode {
		text, err := e.scalarText(n)
		if err != nil {
			return err
		}
		return e.writeScalarLine(p, text)
	}
	// A collection: rendered in its place, as the one entry of a mapping
	// or the one item of a list, or alone at the root.
	switch {
	case p.root():
		return e.writeChunk(n, 0, nil)
	case p.item():
		return e.writeChunk(&yaml.Node{Kind: yaml.SequenceNode, Content: []*yaml.Node{n}}, p.col, p.prefix)
	}
	key := p.key
	if key == nil {
		key = e.stringNode(p.keyString)
	}
	return e.writeChunk(&yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{key, n}}, p.col, p.prefix)
}

// scalarText renders a scalar node alone, with the line break yaml.v3
// ends it with, cached for short strings.
func (e *yamlEncoder) scalarText(n *yaml.Node) ([]byte, error) {
	key := scalarKey{n.Tag, n.Style, n.Value}
	cacheable := n.Anchor == "" && len(n.Value) <= 256
	if cacheable {
		if t, ok := e.scalars[key]; ok {
			return t, nil
		}
	}
	if err := e.encodeChunk(n); err != nil {
		return nil, err
	}
	text := e.chunk.Bytes()
	if !cacheable {
		return text, nil
	}
	t := append([]byte(nil), text...)
	if len(e.scalars) < maxScalarCache {
		e.scalars[key] = t
	}
	return t, nil
}

// scalarKey identifies a rendered scalar in the cache.
type scalarKey struct {
	tag   string
	style yaml.Style
	value string
}

// writeScalarLine writes a scalar as yaml.v3 rendered it alone (its text
// and the line break yaml.v3 ends it with) at place p: "key: text", "-
// text", or the text alone at the root. A multi-line text (a literal
// block, a single-quoted scalar with raw line breaks) has its later lines
// indented by the place's column. A literal block that ends with a raw
// CR, LS or PS has no line break after it: yaml.v3 takes itself to be at
// the start of a line and writes the next key's indentation straight
// after it, here as at the root.
func (e *yamlEncoder) writeScalarLine(p yamlPlace, text []byte) error {
	if !p.root() {
		e.out.Write(p.lead)
		e.out.WriteByte(' ')
	}
	return e.writeIndented(text, p.col)
}

// writePlain is writeScalarLine for a text without line breaks.
func (e *yamlEncoder) writePlain(p yamlPlace, text string) error {
	if !p.root() {
		e.out.Write(p.lead)
		e.out.WriteByte(' ')
	}
	e.out.WriteString(text)
	return e.out.WriteByte('\n')
}

// plainSafe reports whether yaml.v3 writes s as a plain scalar, as it
// is, anywhere in a block; every other string is rendered by yaml.v3. It
// accepts at most 128 bytes of
//
//   - a letter, then letters, digits, _ . / - and single inner spaces, not
//     a word YAML reads as a bool or null (true, n, off, Null, ...);
//   - a digit, then lower-case letters, digits and -, with a letter other
//     than e (so not an int, a float or 1e5), not 0x, 0o or 0b first (int
//     prefixes) and not four digits and a dash first (a date): run ids
//     and hex hashes.
//
// Such strings resolve to !!str in yaml.v3 (resolve.go) and contain no
// YAML indicator.
func plainSafe(s string) bool {
	if s == "" || len(s) > 128 {
		return false
	}
	if c := s[0]; c >= '0' && c <= '9' {
		return idPlainSafe(s)
	}
	if c := s[0]; !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
		return false
	}
	space := false
	for i := 1; i < len(s); i++ {
		switch c := s[i]; {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '_', c == '.', c == '/', c == '-':
			space = false
		case c == ' ' && !space:
			space = true
		default:
			return false
		}
	}
	if space {
		return false
	}
	switch s {
	case "true", "True", "TRUE", "false", "False", "FALSE", "null", "Null", "NULL":
		return false
	}
	return !isOldBool(s)
}

// idPlainSafe is plainSafe for a string that starts with a digit.
func idPlainSafe(s string) bool {
	if len(s) >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'o' || s[1] == 'b') {
		return false
	}
	digits := 0
	for digits < len(s) && s[digits] >= '0' && s[digits] <= '9' {
		digits++
	}
	if digits == 4 && digits < len(s) && s[digits] == '-' {
		return false
	}
	letter := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9', c == '-', c == 'e':
		case c >= 'a' && c <= 'z':
			letter = true
		default:
			return false
		}
	}
	return letter
}

// plainValue reports whether an untagged scalar the encoder made (a
// number, bool, null) is written as it is.
func plainValue(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9', c >= 'a' && c <= 'z', c == '.', c == '-', c == '+':
		default:
			return false
		}
	}
	return true
}

// encodeChunk encodes one node into e.chunk with a fresh yaml.v3 encoder
// (yaml.v3 keeps every event of an encoder's life).
func (e *yamlEncoder) encodeChunk(n *yaml.Node) (err error) {
	e.chunk.Reset()
	enc := yaml.NewEncoder(&e.chunk)
	enc.SetIndent(2)
	defer func() {
		// yaml.v3 panics on some bad input rather than returning an error.
		if r := recover(); r != nil {
			err = fmt.Errorf("%s: %v", &e.path, r)
		}
	}()
	if err := enc.Encode(n); err != nil {
		return fmt.Errorf("%s: %w", &e.path, err)
	}
	if err := enc.Close(); err != nil {
		return fmt.Errorf("%s: %w", &e.path, err)
	}
	return nil
}

// writeChunk writes a node that yaml.v3 lays out whole: a mapping entry
// or a list item (an entry {key: value} or a one-item list) whose first
// line starts with prefix, at column col, or a document root (col 0, no
// prefix). So that every line comes out exactly as yaml.v3 writes it at
// that depth, the node is rendered under col/2 dummy "k:" parents, whose
// lines are dropped, and the first line's indentation is replaced by
// prefix.
func (e *yamlEncoder) writeChunk(n *yaml.Node, col int, prefix []byte) error {
	depth := col / 2
	wrapped := n
	for range depth {
		wrapped = &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{
			{Kind: yaml.ScalarNode, Tag: "!!str", Value: "k"}, wrapped}}
	}
	if err := e.encodeChunk(wrapped); err != nil {
		return err
	}
	text := e.chunk.Bytes()
	for range depth {
		_, rest, ok := bytes.Cut(text, []byte{'\n'})
		if !ok {
			return fmt.Errorf("%s: yaml.v3 wrote no nested block", &e.path)
		}
		text = rest
	}
	if len(text) < col || !bytes.Equal(text[:col], e.indent(col)) {
		return fmt.Errorf("%s: yaml.v3 wrote a nested block at an unexpected column", &e.path)
	}
	e.out.Write(prefix)
	_, err := e.out.Write(text[col:])
	return err
}

// writeIndented writes a scalar's text rendered at column 0, indenting by
// col every line after a line break that starts with a space. yaml.v3
// ends a line at any YAML break (LF, and inside literal and
// single-quoted scalars also CR, LS and PS written as they are) and then
// indents the scalar's next content by its indentation (at least 2 at
// column 0); empty lines, and a closing quote right after a break, get
// no indentation.
func (e *yamlEncoder) writeIndented(text []byte, col int) error {
	start := 0
	for i := 0; i < len(text); {
		w := yamlBreakWidth(text, i)
		if w == 0 {
			i++
			continue
		}
		i += w
		if col > 0 && i < len(text) && text[i] == ' ' {
			e.out.Write(text[start:i])
			e.out.Write(e.indent(col))
			start = i
		}
	}
	_, err := e.out.Write(text[start:])
	return err
}

// yamlBreakWidth is the length of the YAML line break at text[i] (LF, CR,
// NEL, LS or PS), or 0.
func yamlBreakWidth(text []byte, i int) int {
	switch c := text[i]; {
	case c == '\n' || c == '\r':
		return 1
	case c == 0xC2 && i+1 < len(text) && text[i+1] == 0x85:
		return 2
	case c == 0xE2 && i+2 < len(text) && text[i+1] == 0x80 && (text[i+2] == 0xA8 || text[i+2] == 0xA9):
		return 3
	}
	return 0
}

func (e *yamlEncoder) writeLine(prefix, line []byte) error {
	e.out.Write(prefix)
	e.out.Write(line)
	return e.out.WriteByte('\n')
}

func (e *yamlEncoder) indent(n int) []byte {
	for len(e.spaces) < n {
		e.spaces = append(e.spaces, ' ')
	}
	return e.spaces[:n]
}
