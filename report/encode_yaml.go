package report

import (
	"bufio"
	"bytes"
	"encoding"
	"errors"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// The YAML encoder reproduces yaml.v3's marshalling (gopkg.in/yaml.v3
// v3.0.1, encode.go and yaml.go: which fields, in which order, which
// scalar style) as yaml.Node trees, and lets yaml.v3 emit them a batch at
// a time:
//
//   - a value whose node tree fits in the batch budget is one batch;
//   - a larger struct or map is written entry by entry, a larger list
//     item by item, small neighbours batched together, recursively;
//   - each batch is encoded by a fresh yaml.v3 encoder (its event queue is
//     never trimmed, so one encoder for the whole document holds every
//     event) and its lines are indented into place.
//
// yaml.v3 lays a batch out at column 0 as it would at any depth (no line
// folding: its best width is unlimited), so indenting each non-empty line
// by the batch's column gives the whole-document layout: a mapping's
// entries, or a list's "- " items, are batched as a mapping or a list, so
// the batch's own text carries the "- " and "key:" markers.

// errChunkTooBig is returned internally when a node tree outgrows its
// budget; the caller then streams the value instead.
var errChunkTooBig = errors.New("report: yaml batch budget exceeded")

type yamlEncoder struct {
	out   *bufio.Writer
	round bool
	path  docPath
	// flow is yaml.v3's encoder.flow: set from a field's ,flow flag before
	// its value, cleared by the next mapping or sequence.
	flow    bool
	budget  int
	structs map[reflect.Type]*yamlStructInfo
	chunk   bytes.Buffer
	spaces  []byte
	num     []byte
}

func writeYAML(w io.Writer, v any, opts encodeOptions) error {
	e := &yamlEncoder{out: newBufferedWriter(w), round: opts.round, budget: opts.chunkNodes,
		structs: map[reflect.Type]*yamlStructInfo{}}
	if e.budget <= 0 {
		e.budget = defaultChunkNodes
	}
	if err := e.value(reflect.ValueOf(v), 0, nil); err != nil {
		return fmt.Errorf("report: encode yaml: %w", err)
	}
	if err := e.out.Flush(); err != nil {
		return fmt.Errorf("report: write yaml: %w", err)
	}
	return nil
}

// value writes v as a block at column col, its first line starting with
// first (nil: col spaces): as one batch when it fits the budget, else
// streamed.
func (e *yamlEncoder) value(v reflect.Value, col int, first []byte) error {
	mark, flow := e.path.depth(), e.flow
	left := e.budget
	n, err := e.node(v, &left)
	if err == nil {
		return e.writeChunk(n, col, first)
	}
	if !errors.Is(err, errChunkTooBig) {
		return err
	}
	e.path.truncate(mark)
	e.flow = flow
	return e.stream(v, col, first)
}

// stream writes a value that does not fit one batch: a struct or map
// entry by entry, a list item by item.
func (e *yamlEncoder) stream(v reflect.Value, col int, first []byte) error {
	rv, ready, err := e.resolve(v)
	if err != nil {
		return err
	}
	if ready == nil && !e.flow {
		switch rv.Kind() {
		case reflect.Struct:
			return e.streamStruct(rv, col, first)
		case reflect.Map:
			return e.streamMap(rv, col, first)
		case reflect.Slice, reflect.Array:
			return e.streamList(rv, col, first)
		}
	}
	// A scalar, a yaml.Node or a flow collection: one batch, however big.
	n, err := e.node(v, nil)
	if err != nil {
		return err
	}
	return e.writeChunk(n, col, first)
}

// batch collects small neighbouring entries (a mapping) or items (a
// sequence) of a streamed value.
type yamlBatch struct {
	e       *yamlEncoder
	node    *yaml.Node
	cost    int
	col     int
	first   []byte // prefix of the streamed value's first line; nil once used
	written bool
}

func (b *yamlBatch) prefix() []byte {
	p := b.first
	b.first = nil
	b.written = true
	if p == nil {
		return b.e.indent(b.col)
	}
	return p
}

func (b *yamlBatch) add(cost int, nodes ...*yaml.Node) error {
	b.node.Content = append(b.node.Content, nodes...)
	b.cost += cost
	if b.cost >= b.e.budget {
		return b.flush()
	}
	return nil
}

func (b *yamlBatch) flush() error {
	if len(b.node.Content) == 0 {
		return nil
	}
	err := b.e.writeChunk(b.node, b.col, b.prefix())
	b.node = &yaml.Node{Kind: b.node.Kind}
	b.cost = 0
	return err
}

// finish flushes the batch; a streamed value that wrote nothing (every
// entry omitted) is written as yaml.v3 writes an empty collection.
func (b *yamlBatch) finish() error {
	if err := b.flush(); err != nil {
		return err
	}
	if !b.written {
		return b.e.writeChunk(b.node, b.col, b.prefix())
	}
	return nil
}

// entry writes one mapping entry of a streamed struct or map: into the
// batch when its value fits, else as "key:" and the value streamed below
// it.
func (e *yamlEncoder) entry(b *yamlBatch, key *yaml.Node, v reflect.Value, flow bool) error {
	mark := e.path.depth()
	e.flow = flow
	left := e.budget
	n, err := e.node(v, &left)
	if err == nil {
		return b.add(e.budget-left+1, key, n)
	}
	if !errors.Is(err, errChunkTooBig) {
		return err
	}
	e.path.truncate(mark)
	e.flow = flow
	if err := b.flush(); err != nil {
		return err
	}
	line, ok, err := e.keyLine(key)
	if err != nil {
		return err
	}
	if !ok {
		// A complex key ("? ..."): the entry as one batch, however big.
		n, err := e.node(v, nil)
		if err != nil {
			return err
		}
		return e.writeChunk(&yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{key, n}}, b.col, b.prefix())
	}
	if err := e.writeLine(b.prefix(), line); err != nil {
		return err
	}
	return e.stream(v, b.col+2, nil)
}

// keyLine is the "key:" line yaml.v3 writes for a simple key; ok is false
// for a key yaml.v3 writes as a complex "? key" entry.
func (e *yamlEncoder) keyLine(key *yaml.Node) ([]byte, bool, error) {
	null := &yaml.Node{Kind: yaml.ScalarNode, Value: "null"}
	if err := e.encodeChunk(&yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{key, null}}); err != nil {
		return nil, false, err
	}
	text := e.chunk.Bytes()
	line, ok := bytes.CutSuffix(text, []byte(" null\n"))
	if !ok || bytes.HasPrefix(text, []byte("? ")) || bytes.IndexByte(line, '\n') >= 0 {
		return nil, false, nil
	}
	return append([]byte(nil), line...), true, nil
}

func (e *yamlEncoder) streamStruct(v reflect.Value, col int, first []byte) error {
	if exactTypes[v.Type()] {
		e.path.exact++
		defer func() { e.path.exact-- }()
	}
	info, err := e.structInfo(v.Type())
	if err != nil {
		return err
	}
	b := &yamlBatch{e: e, node: &yaml.Node{Kind: yaml.MappingNode}, col: col, first: first}
	for _, f := range info.fields {
		fv, ok := fieldByIndex(v, f.index)
		if !ok {
			continue
		}
		if f.omitEmpty {
			zero, err := yamlIsZero(fv)
			if err != nil {
				return err
			}
			if zero {
				continue
			}
		}
		key := e.stringNode(f.key)
		e.path.pushKey(f.key)
		err := e.entry(b, key, fv, f.flow)
		e.path.pop()
		if err != nil {
			return err
		}
	}
	if info.inlineMap >= 0 {
		m := v.Field(info.inlineMap)
		for _, k := range sortedYAMLKeys(m) {
			if info.has(k.String()) {
				return fmt.Errorf("%s: cannot have key %q in inlined map: conflicts with struct field", &e.path, k.String())
			}
			key := e.stringNode(k.String())
			e.path.pushKey(k.String())
			err := e.entry(b, key, m.MapIndex(k), false)
			e.path.pop()
			if err != nil {
				return err
			}
		}
	}
	return b.finish()
}

func (e *yamlEncoder) streamMap(v reflect.Value, col int, first []byte) error {
	b := &yamlBatch{e: e, node: &yaml.Node{Kind: yaml.MappingNode}, col: col, first: first}
	for _, k := range sortedYAMLKeys(v) {
		key, err := e.node(k, nil)
		if err != nil {
			return err
		}
		e.path.pushKey(mapKeyString(k))
		err = e.entry(b, key, v.MapIndex(k), e.flow)
		e.path.pop()
		if err != nil {
			return err
		}
	}
	return b.finish()
}

func (e *yamlEncoder) streamList(v reflect.Value, col int, first []byte) error {
	b := &yamlBatch{e: e, node: &yaml.Node{Kind: yaml.SequenceNode}, col: col, first: first}
	for i := 0; i < v.Len(); i++ {
		e.path.pushIndex(i)
		err := e.item(b, v.Index(i))
		e.path.pop()
		if err != nil {
			return err
		}
	}
	return b.finish()
}

// item writes one item of a streamed list: into the batch when it fits,
// else as "- " followed by the item streamed beside it.
func (e *yamlEncoder) item(b *yamlBatch, v reflect.Value) error {
	mark, flow := e.path.depth(), e.flow
	left := e.budget
	n, err := e.node(v, &left)
	if err == nil {
		return b.add(e.budget-left, n)
	}
	if !errors.Is(err, errChunkTooBig) {
		return err
	}
	e.path.truncate(mark)
	e.flow = flow
	if err := b.flush(); err != nil {
		return err
	}
	first := append(append([]byte(nil), b.prefix()...), "- "...)
	return e.stream(v, b.col+2, first)
}

// encodeChunk encodes one batch into e.chunk with a fresh yaml.v3 encoder.
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

// writeChunk encodes a batch and writes it at column col: the first line
// after first (nil: col spaces), every later line that has content
// indented by col. yaml.v3 ends a line at any YAML break (LF, and inside
// literal and single-quoted scalars also CR, NEL, LS and PS written as
// they are) and indents only before content, so empty lines stay empty.
func (e *yamlEncoder) writeChunk(n *yaml.Node, col int, first []byte) error {
	if err := e.encodeChunk(n); err != nil {
		return err
	}
	text := e.chunk.Bytes()
	if first == nil {
		first = e.indent(col)
	}
	e.out.Write(first)
	start := 0
	for i := 0; i < len(text); {
		w := yamlBreakWidth(text, i)
		if w == 0 {
			i++
			continue
		}
		i += w
		if col > 0 && i < len(text) && yamlBreakWidth(text, i) == 0 {
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

// resolve applies yaml.v3's marshal preamble (encoder.marshal): a nil
// pointer or interface is null; *yaml.Node and yaml.Node are used as
// they are; time.Time, time.Duration, yaml.Marshaler and
// encoding.TextMarshaler are converted; pointers and interfaces are
// followed. It returns either the value to encode by its kind, or a
// ready node.
func (e *yamlEncoder) resolve(v reflect.Value) (reflect.Value, *yaml.Node, error) {
	for range 10000 {
		if !v.IsValid() || v.Kind() == reflect.Pointer && v.IsNil() {
			return v, nullNode(), nil
		}
		if !v.CanInterface() {
			return v, nil, fmt.Errorf("%s: cannot encode an unexported embedded field of type %s", &e.path, v.Type())
		}
		switch x := v.Interface().(type) {
		case *yaml.Node:
			return v, x, nil
		case yaml.Node:
			return v, &x, nil
		case time.Time:
			return v, &yaml.Node{Kind: yaml.ScalarNode, Value: x.Format(time.RFC3339Nano)}, nil
		case *time.Time:
			return v, &yaml.Node{Kind: yaml.ScalarNode, Value: x.Format(time.RFC3339Nano)}, nil
		case time.Duration:
			return v, e.stringNode(x.String()), nil
		case yaml.Marshaler:
			r, err := x.MarshalYAML()
			if err != nil {
				return v, nil, fmt.Errorf("%s: %w", &e.path, err)
			}
			if r == nil {
				return v, nullNode(), nil
			}
			v = reflect.ValueOf(r)
			continue
		case encoding.TextMarshaler:
			text, err := x.MarshalText()
			if err != nil {
				return v, nil, fmt.Errorf("%s: %w", &e.path, err)
			}
			return v, e.stringNode(string(text)), nil
		case nil:
			return v, nullNode(), nil
		}
		switch v.Kind() {
		case reflect.Interface, reflect.Pointer:
			v = v.Elem()
			continue
		}
		return v, nil, nil
	}
	return v, nil, fmt.Errorf("%s: too many levels of indirection", &e.path)
}

func nullNode() *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Value: "null"} }

// node builds the node tree yaml.v3 would emit for v. left, when not nil,
// is the remaining budget: each node costs one, a string one more per 64
// bytes, and the build stops with errChunkTooBig when it runs out.
func (e *yamlEncoder) node(v reflect.Value, left *int) (*yaml.Node, error) {
	if left != nil {
		*left--
		if *left < 0 {
			return nil, errChunkTooBig
		}
	}
	rv, ready, err := e.resolve(v)
	if err != nil || ready != nil {
		return ready, err
	}
	switch rv.Kind() {
	case reflect.Map:
		return e.mapNode(rv, left)
	case reflect.Struct:
		return e.structNode(rv, left)
	case reflect.Slice, reflect.Array:
		return e.seqNode(rv, left)
	case reflect.String:
		s := rv.String()
		if left != nil {
			*left -= len(s) / 64
		}
		return e.stringNode(s), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return &yaml.Node{Kind: yaml.ScalarNode, Value: strconv.FormatInt(rv.Int(), 10)}, nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return &yaml.Node{Kind: yaml.ScalarNode, Value: strconv.FormatUint(rv.Uint(), 10)}, nil
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
		return &yaml.Node{Kind: yaml.ScalarNode, Value: string(b)}, nil
	case reflect.Bool:
		return &yaml.Node{Kind: yaml.ScalarNode, Value: strconv.FormatBool(rv.Bool())}, nil
	}
	return nil, fmt.Errorf("%s: cannot marshal type: %s", &e.path, rv.Type())
}

// collectionStyle is yaml.v3's mappingv/slicev: a pending ,flow flag makes
// this collection flow style and is consumed.
func (e *yamlEncoder) collectionStyle() yaml.Style {
	if e.flow {
		e.flow = false
		return yaml.FlowStyle
	}
	return 0
}

func (e *yamlEncoder) mapNode(v reflect.Value, left *int) (*yaml.Node, error) {
	n := &yaml.Node{Kind: yaml.MappingNode, Style: e.collectionStyle()}
	keys := sortedYAMLKeys(v)
	n.Content = make([]*yaml.Node, 0, 2*len(keys))
	for _, k := range keys {
		kn, err := e.node(k, left)
		if err != nil {
			return nil, err
		}
		e.path.pushKey(mapKeyString(k))
		vn, err := e.node(v.MapIndex(k), left)
		e.path.pop()
		if err != nil {
			return nil, err
		}
		n.Content = append(n.Content, kn, vn)
	}
	return n, nil
}

func (e *yamlEncoder) structNode(v reflect.Value, left *int) (*yaml.Node, error) {
	if exactTypes[v.Type()] {
		e.path.exact++
		defer func() { e.path.exact-- }()
	}
	info, err := e.structInfo(v.Type())
	if err != nil {
		return nil, err
	}
	n := &yaml.Node{Kind: yaml.MappingNode, Style: e.collectionStyle()}
	n.Content = make([]*yaml.Node, 0, 2*len(info.fields))
	for _, f := range info.fields {
		fv, ok := fieldByIndex(v, f.index)
		if !ok {
			continue
		}
		if f.omitEmpty {
			zero, err := yamlIsZero(fv)
			if err != nil {
				return nil, err
			}
			if zero {
				continue
			}
		}
		if left != nil {
			*left--
		}
		kn := e.stringNode(f.key)
		e.flow = f.flow
		e.path.pushKey(f.key)
		vn, err := e.node(fv, left)
		e.path.pop()
		if err != nil {
			return nil, err
		}
		n.Content = append(n.Content, kn, vn)
	}
	if info.inlineMap >= 0 {
		m := v.Field(info.inlineMap)
		for _, k := range sortedYAMLKeys(m) {
			if info.has(k.String()) {
				return nil, fmt.Errorf("%s: cannot have key %q in inlined map: conflicts with struct field", &e.path, k.String())
			}
			kn, err := e.node(k, left)
			if err != nil {
				return nil, err
			}
			e.flow = false
			e.path.pushKey(k.String())
			vn, err := e.node(m.MapIndex(k), left)
			e.path.pop()
			if err != nil {
				return nil, err
			}
			n.Content = append(n.Content, kn, vn)
		}
	}
	return n, nil
}

func (e *yamlEncoder) seqNode(v reflect.Value, left *int) (*yaml.Node, error) {
	n := &yaml.Node{Kind: yaml.SequenceNode, Style: e.collectionStyle()}
	n.Content = make([]*yaml.Node, 0, v.Len())
	for i := 0; i < v.Len(); i++ {
		e.path.pushIndex(i)
		c, err := e.node(v.Index(i), left)
		e.path.pop()
		if err != nil {
			return nil, err
		}
		n.Content = append(n.Content, c)
	}
	return n, nil
}

// stringNode is yaml.v3's stringv as a node: plain unless the string
// would read back as another type (which yaml.v3 finds for a !!str node
// itself), is a YAML 1.1 bool or base-60 float (double-quoted), or has a
// line break (literal, or double-quoted under a pending ,flow). Invalid
// UTF-8 is left untagged, so that yaml.v3 writes it as !!binary base64.
func (e *yamlEncoder) stringNode(s string) *yaml.Node {
	if !utf8.ValidString(s) {
		return &yaml.Node{Kind: yaml.ScalarNode, Value: s}
	}
	n := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}
	switch {
	case strings.Contains(s, "\n"):
		if e.flow {
			n.Style = yaml.DoubleQuotedStyle
		}
	case isBase60Float(s) || isOldBool(s):
		n.Style = yaml.DoubleQuotedStyle
	}
	return n
}

// isOldBool is yaml.v3's list of YAML 1.1 booleans, which it quotes.
func isOldBool(s string) bool {
	switch s {
	case "y", "Y", "yes", "Yes", "YES", "on", "On", "ON",
		"n", "N", "no", "No", "NO", "off", "Off", "OFF":
		return true
	}
	return false
}

// base60float is yaml.v3's YAML 1.1 base-60 float, which it quotes.
var base60float = regexp.MustCompile(`^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$`)

func isBase60Float(s string) bool {
	if s == "" {
		return false
	}
	c := s[0]
	if !(c == '+' || c == '-' || c >= '0' && c <= '9') || strings.IndexByte(s, ':') < 0 {
		return false
	}
	return base60float.MatchString(s)
}

// yamlField is one key of a struct as yaml.v3's getStructInfo lists it.
type yamlField struct {
	key             string
	index           []int // through ,inline structs
	omitEmpty, flow bool
}

type yamlStructInfo struct {
	fields    []yamlField
	keys      map[string]bool
	inlineMap int // field number of the ,inline map, or -1
}

func (s *yamlStructInfo) has(key string) bool { return s.keys[key] }

// structInfo is yaml.v3's getStructInfo: exported fields (and embedded
// ones) in order, the key from the yaml tag (or a bare tag without ':',
// or the lowercased field name), "-" skipped, ,omitempty, ,flow and
// ,inline (a struct's keys spliced in, or one map[string]T), duplicate
// keys refused.
func (e *yamlEncoder) structInfo(t reflect.Type) (*yamlStructInfo, error) {
	if s, ok := e.structs[t]; ok {
		return s, nil
	}
	s := &yamlStructInfo{keys: map[string]bool{}, inlineMap: -1}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if f.PkgPath != "" && !f.Anonymous {
			continue
		}
		tag := f.Tag.Get("yaml")
		if tag == "" && !strings.Contains(string(f.Tag), ":") {
			tag = string(f.Tag)
		}
		if tag == "-" {
			continue
		}
		field := yamlField{index: []int{i}}
		inline := false
		parts := strings.Split(tag, ",")
		for _, flag := range parts[1:] {
			switch flag {
			case "omitempty":
				field.omitEmpty = true
			case "flow":
				field.flow = true
			case "inline":
				inline = true
			default:
				return nil, fmt.Errorf("unsupported flag %q in tag %q of type %s", flag, tag, t)
			}
		}
		tag = parts[0]
		if inline {
			switch f.Type.Kind() {
			case reflect.Map:
				if s.inlineMap >= 0 {
					return nil, fmt.Errorf("multiple ,inline maps in struct %s", t)
				}
				if f.Type.Key() != reflect.TypeFor[string]() {
					return nil, fmt.Errorf("option ,inline needs a map with string keys in struct %s", t)
				}
				s.inlineMap = i
			case reflect.Struct, reflect.Pointer:
				ft := f.Type
				for ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				if ft.Kind() != reflect.Struct {
					return nil, fmt.Errorf("option ,inline may only be used on a struct or map field")
				}
				inner, err := e.structInfo(ft)
				if err != nil {
					return nil, err
				}
				for _, g := range inner.fields {
					if s.keys[g.key] {
						return nil, fmt.Errorf("duplicated key '%s' in struct %s", g.key, t)
					}
					g.index = append([]int{i}, g.index...)
					s.keys[g.key] = true
					s.fields = append(s.fields, g)
				}
			default:
				return nil, fmt.Errorf("option ,inline may only be used on a struct or map field")
			}
			continue
		}
		field.key = tag
		if field.key == "" {
			field.key = strings.ToLower(f.Name)
		}
		if s.keys[field.key] {
			return nil, fmt.Errorf("duplicated key '%s' in struct %s", field.key, t)
		}
		s.keys[field.key] = true
		s.fields = append(s.fields, field)
	}
	e.structs[t] = s
	return s, nil
}

// fieldByIndex follows an index path through (possibly pointer) inline
// structs; ok is false when a pointer on the way is nil.
func fieldByIndex(v reflect.Value, index []int) (reflect.Value, bool) {
	for _, i := range index {
		for v.Kind() == reflect.Pointer {
			if v.IsNil() {
				return reflect.Value{}, false
			}
			v = v.Elem()
		}
		v = v.Field(i)
	}
	return v, true
}

// yamlIsZero is yaml.v3's isZero, the ,omitempty test: an IsZero() method
// when there is one, else the zero of the kind, a struct when every
// exported field is zero.
func yamlIsZero(v reflect.Value) (bool, error) {
	kind := v.Kind()
	if !v.CanInterface() {
		return false, fmt.Errorf("cannot test an unexported embedded field of type %s", v.Type())
	}
	if z, ok := v.Interface().(yaml.IsZeroer); ok {
		if (kind == reflect.Pointer || kind == reflect.Interface) && v.IsNil() {
			return true, nil
		}
		return z.IsZero(), nil
	}
	switch kind {
	case reflect.String:
		return v.Len() == 0, nil
	case reflect.Interface, reflect.Pointer:
		return v.IsNil(), nil
	case reflect.Slice, reflect.Map:
		return v.Len() == 0, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int() == 0, nil
	case reflect.Float32, reflect.Float64:
		return v.Float() == 0, nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return v.Uint() == 0, nil
	case reflect.Bool:
		return !v.Bool(), nil
	case reflect.Struct:
		t := v.Type()
		for i := v.NumField() - 1; i >= 0; i-- {
			if t.Field(i).PkgPath != "" {
				continue
			}
			zero, err := yamlIsZero(v.Field(i))
			if err != nil || !zero {
				return false, err
			}
		}
		return true, nil
	}
	return false, nil
}

// mapKeyString is a map key as the precision rule and error paths see it.
func mapKeyString(k reflect.Value) string {
	for (k.Kind() == reflect.Interface || k.Kind() == reflect.Pointer) && !k.IsNil() {
		k = k.Elem()
	}
	if k.Kind() == reflect.String {
		return k.String()
	}
	if k.CanInterface() {
		return fmt.Sprint(k.Interface())
	}
	return k.Type().String()
}

// sortedYAMLKeys returns a map's keys in yaml.v3's order (sorter.go).
func sortedYAMLKeys(m reflect.Value) []reflect.Value {
	keys := m.MapKeys()
	sort.Sort(yamlKeyList(keys))
	return keys
}

// yamlKeyList sorts map keys as yaml.v3's keyList does: numbers and bools
// by value before other kinds; strings in "natural" order, where runs of
// digits compare as numbers and letters sort before digits only after
// equal digit runs.
type yamlKeyList []reflect.Value

func (l yamlKeyList) Len() int      { return len(l) }
func (l yamlKeyList) Swap(i, j int) { l[i], l[j] = l[j], l[i] }
func (l yamlKeyList) Less(i, j int) bool {
	a, b := l[i], l[j]
	ak, bk := a.Kind(), b.Kind()
	for (ak == reflect.Interface || ak == reflect.Pointer) && !a.IsNil() {
		a = a.Elem()
		ak = a.Kind()
	}
	for (bk == reflect.Interface || bk == reflect.Pointer) && !b.IsNil() {
		b = b.Elem()
		bk = b.Kind()
	}
	af, aok := yamlKeyFloat(a)
	bf, bok := yamlKeyFloat(b)
	if aok && bok {
		if af != bf {
			return af < bf
		}
		if ak != bk {
			return ak < bk
		}
		return yamlNumLess(a, b)
	}
	if ak != reflect.String || bk != reflect.String {
		return ak < bk
	}
	ar, br := []rune(a.String()), []rune(b.String())
	digits := false
	for i := 0; i < len(ar) && i < len(br); i++ {
		if ar[i] == br[i] {
			digits = unicode.IsDigit(ar[i])
			continue
		}
		al := unicode.IsLetter(ar[i])
		bl := unicode.IsLetter(br[i])
		if al && bl {
			return ar[i] < br[i]
		}
		if al || bl {
			if digits {
				return al
			}
			return bl
		}
		var ai, bi int
		var an, bn int64
		if ar[i] == '0' || br[i] == '0' {
			for j := i - 1; j >= 0 && unicode.IsDigit(ar[j]); j-- {
				if ar[j] != '0' {
					an = 1
					bn = 1
					break
				}
			}
		}
		for ai = i; ai < len(ar) && unicode.IsDigit(ar[ai]); ai++ {
			an = an*10 + int64(ar[ai]-'0')
		}
		for bi = i; bi < len(br) && unicode.IsDigit(br[bi]); bi++ {
			bn = bn*10 + int64(br[bi]-'0')
		}
		if an != bn {
			return an < bn
		}
		if ai != bi {
			return ai < bi
		}
		return ar[i] < br[i]
	}
	return len(ar) < len(br)
}

func yamlKeyFloat(v reflect.Value) (float64, bool) {
	switch v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return float64(v.Int()), true
	case reflect.Float32, reflect.Float64:
		return v.Float(), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return float64(v.Uint()), true
	case reflect.Bool:
		if v.Bool() {
			return 1, true
		}
		return 0, true
	}
	return 0, false
}

func yamlNumLess(a, b reflect.Value) bool {
	switch a.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return a.Int() < b.Int()
	case reflect.Float32, reflect.Float64:
		return a.Float() < b.Float()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return a.Uint() < b.Uint()
	case reflect.Bool:
		return !a.Bool() && b.Bool()
	}
	return false
}
