package reportenc

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/evalcal/evalcal/report"
)

// The JSON encoder writes what json.MarshalIndent(v, "", "  ") writes
// (encoding/json of Go 1.26: field selection and embedding, omitempty,
// omitzero, ,string, Marshaler and TextMarshaler with pointer receivers
// on addressable values, sorted map keys, []byte as base64, HTML-safe
// string escaping), indenting as it goes instead of building the compact
// document first.

type jsonEncoder struct {
	ctx     context.Context
	out     *bufio.Writer
	round   bool
	path    docPath
	level   int
	depth   int
	structs map[reflect.Type][]jsonField
	buf     []byte
	// compact writes no whitespace between tokens (a runs file's lines).
	compact bool
}

var (
	jsonMarshalerType     = reflect.TypeFor[json.Marshaler]()
	jsonTextMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
	jsonNumberType        = reflect.TypeFor[json.Number]()
)

// maxJSONDepth stops a cyclic value; encoding/json detects cycles after
// 1000 nested pointers, maps or slices.
const maxJSONDepth = 10000

func writeJSON(ctx context.Context, w io.Writer, v any, opts encodeOptions) error {
	e := &jsonEncoder{ctx: ctx, out: newBufferedWriter(w), round: opts.round, structs: map[reflect.Type][]jsonField{}}
	if err := e.value(reflect.ValueOf(v), false); err != nil {
		return fmt.Errorf("report: encode json: %w", err)
	}
	e.out.WriteByte('\n')
	if err := e.out.Flush(); err != nil {
		return fmt.Errorf("report: write json: %w", err)
	}
	return nil
}

func (e *jsonEncoder) newline() {
	if e.compact {
		return
	}
	e.out.WriteByte('\n')
	for range e.level {
		e.out.WriteString("  ")
	}
}

// value writes v; quoted is the ,string option of the field holding it.
func (e *jsonEncoder) value(v reflect.Value, quoted bool) error {
	if !v.IsValid() {
		e.out.WriteString("null")
		return nil
	}
	e.depth++
	defer func() { e.depth-- }()
	if e.depth > maxJSONDepth {
		return fmt.Errorf("%s: nested too deep (a cycle?)", &e.path)
	}
	t := v.Type()
	switch {
	case t.Kind() != reflect.Pointer && v.CanAddr() && reflect.PointerTo(t).Implements(jsonMarshalerType):
		return e.marshaler(v.Addr(), t)
	case t.Implements(jsonMarshalerType):
		return e.marshaler(v, t)
	case t.Kind() != reflect.Pointer && v.CanAddr() && reflect.PointerTo(t).Implements(jsonTextMarshalerType):
		return e.textMarshaler(v.Addr(), t)
	case t.Implements(jsonTextMarshalerType):
		return e.textMarshaler(v, t)
	}
	switch t.Kind() {
	case reflect.Bool:
		e.buf = mayQuote(strconv.AppendBool(e.buf[:0], v.Bool()), quoted)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		e.buf = mayQuote(strconv.AppendInt(e.buf[:0], v.Int(), 10), quoted)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		e.buf = mayQuote(strconv.AppendUint(e.buf[:0], v.Uint(), 10), quoted)
	case reflect.Float32, reflect.Float64:
		bits := 64
		if t.Kind() == reflect.Float32 {
			bits = 32
		}
		b, err := e.path.appendFloat(e.buf[:0], v.Float(), bits, true, e.round)
		if err != nil {
			return err
		}
		e.buf = mayQuote(b, quoted)
	case reflect.String:
		return e.stringValue(v, quoted)
	case reflect.Interface:
		if v.IsNil() {
			e.out.WriteString("null")
			return nil
		}
		return e.value(v.Elem(), false)
	case reflect.Pointer:
		if v.IsNil() {
			e.out.WriteString("null")
			return nil
		}
		return e.value(v.Elem(), quoted)
	case reflect.Struct:
		return e.structValue(v)
	case reflect.Map:
		return e.mapValue(v)
	case reflect.Slice:
		if v.IsNil() {
			e.out.WriteString("null")
			return nil
		}
		if t.Elem().Kind() == reflect.Uint8 {
			p := reflect.PointerTo(t.Elem())
			if !p.Implements(jsonMarshalerType) && !p.Implements(jsonTextMarshalerType) {
				e.buf = append(e.buf[:0], '"')
				e.buf = base64.StdEncoding.AppendEncode(e.buf, v.Bytes())
				e.buf = append(e.buf, '"')
				break
			}
		}
		return e.array(v)
	case reflect.Array:
		return e.array(v)
	default:
		return fmt.Errorf("%s: json: unsupported type: %s", &e.path, t)
	}
	_, err := e.out.Write(e.buf)
	return err
}

func mayQuote(b []byte, quoted bool) []byte {
	if !quoted {
		return b
	}
	b = append(b, '"')
	copy(b[1:], b[:len(b)-1])
	b[0] = '"'
	return append(b, '"')
}

func (e *jsonEncoder) stringValue(v reflect.Value, quoted bool) error {
	s := v.String()
	if v.Type() == jsonNumberType {
		if s == "" {
			s = "0"
		}
		if !isJSONNumber(s) {
			return fmt.Errorf("%s: json: invalid number literal %q", &e.path, s)
		}
		e.buf = mayQuote(append(e.buf[:0], s...), quoted)
		_, err := e.out.Write(e.buf)
		return err
	}
	if quoted {
		inner := appendJSONString(nil, s)
		e.buf = appendJSONStringNoHTML(e.buf[:0], inner)
	} else {
		e.buf = appendJSONString(e.buf[:0], s)
	}
	_, err := e.out.Write(e.buf)
	return err
}

// isJSONNumber is the JSON number grammar (RFC 8259 section 6), which
// encoding/json checks json.Number against.
func isJSONNumber(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			n++
		}
		return n
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && s[i] >= '1' && s[i] <= '9':
		digits()
	default:
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(s)
}

// marshaler writes a json.Marshaler's output as MarshalIndent would:
// compacted with HTML escaping, then indented at the current level.
func (e *jsonEncoder) marshaler(v reflect.Value, t reflect.Type) error {
	if (v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface) && v.IsNil() {
		e.out.WriteString("null")
		return nil
	}
	m, ok := v.Interface().(json.Marshaler)
	if !ok {
		e.out.WriteString("null")
		return nil
	}
	raw, err := m.MarshalJSON()
	if err != nil {
		return fmt.Errorf("%s: json: error calling MarshalJSON for type %s: %w", &e.path, t, err)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, raw); err != nil {
		return fmt.Errorf("%s: json: error calling MarshalJSON for type %s: %w", &e.path, t, err)
	}
	var escaped bytes.Buffer
	json.HTMLEscape(&escaped, compact.Bytes())
	if e.compact {
		_, err = e.out.Write(escaped.Bytes())
		return err
	}
	var indented bytes.Buffer
	if err := json.Indent(&indented, escaped.Bytes(), strings.Repeat("  ", e.level), "  "); err != nil {
		return fmt.Errorf("%s: %w", &e.path, err)
	}
	_, err = e.out.Write(indented.Bytes())
	return err
}

func (e *jsonEncoder) textMarshaler(v reflect.Value, t reflect.Type) error {
	if (v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface) && v.IsNil() {
		e.out.WriteString("null")
		return nil
	}
	m, ok := v.Interface().(encoding.TextMarshaler)
	if !ok {
		e.out.WriteString("null")
		return nil
	}
	text, err := m.MarshalText()
	if err != nil {
		return fmt.Errorf("%s: json: error calling MarshalText for type %s: %w", &e.path, t, err)
	}
	e.buf = appendJSONString(e.buf[:0], string(text))
	_, err = e.out.Write(e.buf)
	return err
}

func (e *jsonEncoder) array(v reflect.Value) error {
	n := v.Len()
	if n == 0 {
		e.out.WriteString("[]")
		return nil
	}
	e.out.WriteByte('[')
	e.level++
	for i := 0; i < n; i++ {
		if i%cancelEvery == cancelEvery-1 {
			if err := e.ctx.Err(); err != nil {
				return fmt.Errorf("%s: %w", &e.path, err)
			}
		}
		if i > 0 {
			e.out.WriteByte(',')
		}
		e.newline()
		e.path.pushIndex(i)
		err := e.value(v.Index(i), false)
		e.path.pop()
		if err != nil {
			return err
		}
	}
	e.level--
	e.newline()
	return e.out.WriteByte(']')
}

func (e *jsonEncoder) structValue(v reflect.Value) error {
	if report.IsExact(v.Type()) {
		e.path.exact++
		defer func() { e.path.exact-- }()
	}
	fields := e.fields(v.Type())
	wrote := false
	for i := range fields {
		f := &fields[i]
		fv, ok := jsonFieldByIndex(v, f.index)
		if !ok {
			continue
		}
		if f.omitEmpty && jsonIsEmpty(fv) || f.omitZero && jsonIsZero(fv) {
			continue
		}
		if wrote {
			e.out.WriteByte(',')
		} else {
			e.out.WriteByte('{')
			e.level++
		}
		wrote = true
		e.newline()
		e.out.Write(f.nameJSON)
		e.colon()
		e.path.pushKey(f.name)
		err := e.value(fv, f.quoted)
		e.path.pop()
		if err != nil {
			return err
		}
	}
	if !wrote {
		e.out.WriteString("{}")
		return nil
	}
	e.level--
	e.newline()
	return e.out.WriteByte('}')
}

func (e *jsonEncoder) mapValue(v reflect.Value) error {
	if v.IsNil() {
		e.out.WriteString("null")
		return nil
	}
	type entry struct {
		key string
		v   reflect.Value
	}
	entries := make([]entry, 0, v.Len())
	for it := v.MapRange(); it.Next(); {
		k, err := jsonKeyName(it.Key())
		if err != nil {
			return fmt.Errorf("%s: json: encoding error for type %q: %q", &e.path, v.Type().String(), err.Error())
		}
		entries = append(entries, entry{k, it.Value()})
	}
	if len(entries) == 0 {
		e.out.WriteString("{}")
		return nil
	}
	slices.SortFunc(entries, func(a, b entry) int { return strings.Compare(a.key, b.key) })
	e.out.WriteByte('{')
	e.level++
	for i, en := range entries {
		if i > 0 {
			e.out.WriteByte(',')
		}
		e.newline()
		e.buf = appendJSONString(e.buf[:0], en.key)
		e.out.Write(e.buf)
		e.colon()
		e.path.pushKey(en.key)
		err := e.value(en.v, false)
		e.path.pop()
		if err != nil {
			return err
		}
	}
	e.level--
	e.newline()
	return e.out.WriteByte('}')
}

// jsonKeyName is encoding/json's resolveKeyName.
func jsonKeyName(k reflect.Value) (string, error) {
	if k.Kind() == reflect.String {
		return k.String(), nil
	}
	if tm, ok := k.Interface().(encoding.TextMarshaler); ok {
		if k.Kind() == reflect.Pointer && k.IsNil() {
			return "", nil
		}
		b, err := tm.MarshalText()
		return string(b), err
	}
	switch k.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(k.Int(), 10), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return strconv.FormatUint(k.Uint(), 10), nil
	}
	return "", fmt.Errorf("unsupported map key type %s", k.Type())
}

// jsonField is one field as encoding/json's typeFields selects it.
type jsonField struct {
	name     string
	nameJSON []byte // the quoted, HTML-escaped name
	tagged   bool
	index    []int
	typ      reflect.Type
	// omitEmpty, omitZero and quoted are the tag's options.
	omitEmpty, omitZero, quoted bool
}

// fields is encoding/json's typeFields: exported fields and the fields of
// embedded structs (breadth first), a field named by its tag or its Go
// name, the Go rules for embedded-field conflicts (shallower wins, then a
// tagged one; ties drop the name), in index order. (long: it follows
// encoding/json's typeFields step by step, so that the two can be read
// side by side.)
func (e *jsonEncoder) fields(t reflect.Type) []jsonField {
	if f, ok := e.structs[t]; ok {
		return f
	}
	var current []jsonField
	next := []jsonField{{typ: t}}
	var count, nextCount map[reflect.Type]int
	visited := map[reflect.Type]bool{}
	var fields []jsonField
	for len(next) > 0 {
		current, next = next, current[:0]
		count, nextCount = nextCount, map[reflect.Type]int{}
		for _, f := range current {
			if visited[f.typ] {
				continue
			}
			visited[f.typ] = true
			for i := 0; i < f.typ.NumField(); i++ {
				sf := f.typ.Field(i)
				if sf.Anonymous {
					ft := sf.Type
					if ft.Kind() == reflect.Pointer {
						ft = ft.Elem()
					}
					if !sf.IsExported() && ft.Kind() != reflect.Struct {
						continue
					}
				} else if !sf.IsExported() {
					continue
				}
				tag := sf.Tag.Get("json")
				if tag == "-" {
					continue
				}
				name, opts, _ := strings.Cut(tag, ",")
				if !jsonValidTag(name) {
					name = ""
				}
				index := make([]int, len(f.index)+1)
				copy(index, f.index)
				index[len(f.index)] = i
				ft := sf.Type
				if ft.Name() == "" && ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				quoted := false
				if jsonTagHas(opts, "string") {
					switch ft.Kind() {
					case reflect.Bool,
						reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
						reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
						reflect.Float32, reflect.Float64, reflect.String:
						quoted = true
					}
				}
				if name != "" || !sf.Anonymous || ft.Kind() != reflect.Struct {
					tagged := name != ""
					if name == "" {
						name = sf.Name
					}
					field := jsonField{name: name, tagged: tagged, index: index, typ: ft,
						omitEmpty: jsonTagHas(opts, "omitempty"), omitZero: jsonTagHas(opts, "omitzero"), quoted: quoted}
					field.nameJSON = appendJSONString(nil, name)
					fields = append(fields, field)
					if count[f.typ] > 1 {
						fields = append(fields, fields[len(fields)-1])
					}
					continue
				}
				nextCount[ft]++
				if nextCount[ft] == 1 {
					next = append(next, jsonField{name: ft.Name(), index: index, typ: ft})
				}
			}
		}
	}
	slices.SortFunc(fields, func(a, b jsonField) int {
		if c := strings.Compare(a.name, b.name); c != 0 {
			return c
		}
		if c := cmp.Compare(len(a.index), len(b.index)); c != 0 {
			return c
		}
		if a.tagged != b.tagged {
			if a.tagged {
				return -1
			}
			return 1
		}
		return slices.Compare(a.index, b.index)
	})
	out := fields[:0]
	for advance, i := 0, 0; i < len(fields); i += advance {
		fi := fields[i]
		for advance = 1; i+advance < len(fields); advance++ {
			if fields[i+advance].name != fi.name {
				break
			}
		}
		if advance == 1 {
			out = append(out, fi)
			continue
		}
		// The first is dominant unless the next is as shallow and as
		// tagged.
		dom := fields[i : i+advance]
		if len(dom[0].index) == len(dom[1].index) && dom[0].tagged == dom[1].tagged {
			continue
		}
		out = append(out, dom[0])
	}
	fields = out
	slices.SortFunc(fields, func(a, b jsonField) int { return slices.Compare(a.index, b.index) })
	e.structs[t] = fields
	return fields
}

func jsonTagHas(opts, name string) bool {
	for opts != "" {
		var o string
		o, opts, _ = strings.Cut(opts, ",")
		if o == name {
			return true
		}
	}
	return false
}

func jsonValidTag(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		switch {
		case strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c):
		case !unicode.IsLetter(c) && !unicode.IsDigit(c):
			return false
		}
	}
	return true
}

// jsonFieldByIndex follows an index path through embedded structs; ok is
// false when an embedded pointer on the way is nil.
func jsonFieldByIndex(v reflect.Value, index []int) (reflect.Value, bool) {
	for _, i := range index {
		if v.Kind() == reflect.Pointer {
			if v.IsNil() {
				return reflect.Value{}, false
			}
			v = v.Elem()
		}
		v = v.Field(i)
	}
	return v, true
}

// jsonIsEmpty is encoding/json's isEmptyValue (,omitempty).
func jsonIsEmpty(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64,
		reflect.Interface, reflect.Pointer:
		return v.IsZero()
	}
	return false
}

type jsonIsZeroer interface{ IsZero() bool }

var jsonIsZeroerType = reflect.TypeFor[jsonIsZeroer]()

// jsonIsZero is encoding/json's ,omitzero test: an IsZero() method when
// the type (or its pointer) has one, else reflect's zero.
func jsonIsZero(v reflect.Value) bool {
	t := v.Type()
	switch {
	case t.Kind() == reflect.Interface && t.Implements(jsonIsZeroerType):
		return v.IsNil() || (v.Elem().Kind() == reflect.Pointer && v.Elem().IsNil()) || v.Interface().(jsonIsZeroer).IsZero()
	case t.Kind() == reflect.Pointer && t.Implements(jsonIsZeroerType):
		return v.IsNil() || v.Interface().(jsonIsZeroer).IsZero()
	case t.Implements(jsonIsZeroerType):
		return v.Interface().(jsonIsZeroer).IsZero()
	case reflect.PointerTo(t).Implements(jsonIsZeroerType):
		if !v.CanAddr() {
			v2 := reflect.New(t).Elem()
			v2.Set(v)
			v = v2
		}
		return v.Addr().Interface().(jsonIsZeroer).IsZero()
	}
	return v.IsZero()
}

const jsonHex = "0123456789abcdef"

// appendJSONString is encoding/json's appendString with HTML escaping:
// ", \ and control characters escaped (\b \f \n \r \t short), <, > and &
// as \u003c..., invalid UTF-8 as \ufffd, U+2028 and U+2029 escaped.
func appendJSONString(dst []byte, s string) []byte { return appendJSONQuoted(dst, s, true) }

// appendJSONQuoted quotes s as encoding/json does, escaping <, > and & too
// when html is set.
func appendJSONQuoted(dst []byte, s string, html bool) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' && (!html || b != '<' && b != '>' && b != '&') {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', jsonHex[b>>4], jsonHex[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		if c == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if c == '\u2028' || c == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', jsonHex[c&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// appendJSONStringNoHTML quotes an already escaped JSON string (the
// ,string option on a string field): only ", \ and control characters are
// escaped again.
func appendJSONStringNoHTML(dst, s []byte) []byte { return appendJSONQuoted(dst, string(s), false) }
