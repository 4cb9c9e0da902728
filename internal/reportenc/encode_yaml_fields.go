package reportenc

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
	"unicode"

	"gopkg.in/yaml.v3"
)

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
	if v.Type().Implements(yamlIsZeroerType) {
		if !v.CanInterface() {
			return false, fmt.Errorf("cannot test an unexported embedded field of type %s", v.Type())
		}
		z := v.Interface().(yaml.IsZeroer)
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
// Keys that order leaves tied (strings that differ only in invalid UTF-8
// bytes, which it reads as U+FFFD) yaml.v3 writes in Go's random map
// order; here they are ordered by their bytes, so the output is
// deterministic.
func sortedYAMLKeys(m reflect.Value) []reflect.Value {
	keys := m.MapKeys()
	l := yamlKeyList(keys)
	sort.Slice(keys, func(i, j int) bool {
		if l.Less(i, j) {
			return true
		}
		if l.Less(j, i) {
			return false
		}
		return mapKeyString(keys[i]) < mapKeyString(keys[j])
	})
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
