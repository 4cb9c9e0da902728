package reportenc

import (
	"encoding"
	"encoding/base64"
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/evalcal/evalcal/report"
	"gopkg.in/yaml.v3"
)

// resolve applies yaml.v3's marshal preamble (encoder.marshal): a nil
// pointer or interface is null; *yaml.Node and yaml.Node are used as
// they are; time.Time, time.Duration, yaml.Marshaler and
// encoding.TextMarshaler are converted; pointers and interfaces are
// followed. It returns either the value to encode by its kind, or a
// ready node.
func (e *yamlEncoder) resolve(v reflect.Value) (reflect.Value, *yaml.Node, error) {
	for range 10000 {
		if !v.IsValid() {
			return v, nullNode(), nil
		}
		switch v.Kind() {
		case reflect.Pointer, reflect.Interface:
			if v.IsNil() {
				return v, nullNode(), nil
			}
		}
		if v.Kind() == reflect.Interface {
			// yaml.v3 looks at the value inside.
			v = v.Elem()
			continue
		}
		if e.special(v.Type()) {
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
			}
		}
		if v.Kind() == reflect.Pointer {
			v = v.Elem()
			continue
		}
		return v, nil, nil
	}
	return v, nil, fmt.Errorf("%s: too many levels of indirection", &e.path)
}

var (
	yamlMarshalerType     = reflect.TypeFor[yaml.Marshaler]()
	yamlTextMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
	yamlIsZeroerType      = reflect.TypeFor[yaml.IsZeroer]()
	yamlSpecialTypes      = map[reflect.Type]bool{
		reflect.TypeFor[yaml.Node]():     true,
		reflect.TypeFor[*yaml.Node]():    true,
		reflect.TypeFor[time.Time]():     true,
		reflect.TypeFor[*time.Time]():    true,
		reflect.TypeFor[time.Duration](): true,
	}
)

// special reports whether yaml.v3 treats a value of type t other than by
// its kind (its marshal's type switch), so that only those values are
// boxed to find out.
func (e *yamlEncoder) special(t reflect.Type) bool {
	if s, ok := e.specials[t]; ok {
		return s
	}
	s := yamlSpecialTypes[t] || t.Implements(yamlMarshalerType) || t.Implements(yamlTextMarshalerType)
	e.specials[t] = s
	return s
}

func nullNode() *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Value: "null"} }

// node builds the node tree yaml.v3 would emit for v (a flow collection,
// a scalar to render, a map key).
func (e *yamlEncoder) node(v reflect.Value) (*yaml.Node, error) {
	rv, ready, err := e.resolve(v)
	if err != nil || ready != nil {
		return ready, err
	}
	switch rv.Kind() {
	case reflect.Map:
		return e.mapNode(rv)
	case reflect.Struct:
		return e.structNode(rv)
	case reflect.Slice, reflect.Array:
		return e.seqNode(rv)
	case reflect.String:
		return e.stringNode(rv.String()), nil
	}
	text, err := e.scalarValue(rv)
	if err != nil {
		return nil, err
	}
	return &yaml.Node{Kind: yaml.ScalarNode, Value: string(text)}, nil
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

func (e *yamlEncoder) mapNode(v reflect.Value) (*yaml.Node, error) {
	n := &yaml.Node{Kind: yaml.MappingNode, Style: e.collectionStyle()}
	keys := sortedYAMLKeys(v)
	n.Content = make([]*yaml.Node, 0, 2*len(keys))
	for _, k := range keys {
		kn, err := e.node(k)
		if err != nil {
			return nil, err
		}
		e.path.pushKey(mapKeyString(k))
		vn, err := e.node(v.MapIndex(k))
		e.path.pop()
		if err != nil {
			return nil, err
		}
		n.Content = append(n.Content, kn, vn)
	}
	return n, nil
}

func (e *yamlEncoder) structNode(v reflect.Value) (*yaml.Node, error) {
	if report.IsExact(v.Type()) {
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
		kn := e.stringNode(f.key)
		e.flow = f.flow
		e.path.pushKey(f.key)
		vn, err := e.node(fv)
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
			kn, err := e.node(k)
			if err != nil {
				return nil, err
			}
			e.flow = false
			e.path.pushKey(k.String())
			vn, err := e.node(m.MapIndex(k))
			e.path.pop()
			if err != nil {
				return nil, err
			}
			n.Content = append(n.Content, kn, vn)
		}
	}
	return n, nil
}

func (e *yamlEncoder) seqNode(v reflect.Value) (*yaml.Node, error) {
	n := &yaml.Node{Kind: yaml.SequenceNode, Style: e.collectionStyle()}
	n.Content = make([]*yaml.Node, 0, v.Len())
	for i := 0; i < v.Len(); i++ {
		e.path.pushIndex(i)
		c, err := e.node(v.Index(i))
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
		n := &yaml.Node{Kind: yaml.ScalarNode, Value: s}
		if e.flow && base64.StdEncoding.EncodedLen(len(s)) >= 70 {
			// yaml.v3 breaks base64 into 70-column lines, and stringv
			// double-quotes a multi-line string under a pending ,flow.
			n.Style = yaml.DoubleQuotedStyle
		}
		return n
	}
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Style: e.stringStyle(s), Value: s}
}

// stringStyle is the style stringNode gives a valid UTF-8 string.
func (e *yamlEncoder) stringStyle(s string) yaml.Style {
	switch {
	case strings.Contains(s, "\n"):
		if e.flow {
			return yaml.DoubleQuotedStyle
		}
	case isBase60Float(s) || isOldBool(s):
		return yaml.DoubleQuotedStyle
	}
	return 0
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
