package reportenc

import (
	"reflect"
	"sort"
	"strings"

	. "github.com/evalcal/evalcal/report"
)

// floatKeyPaths lists every float a document of type t can hold, by key
// path (list positions left out, map keys as "*"), with the class the
// precision rule gives it (Exact inside an exact type). Interface-typed
// fields hold no statically known floats.
func floatKeyPaths(t reflect.Type) map[string]Precision {
	e := &yamlEncoder{structs: map[reflect.Type]*yamlStructInfo{}}
	out := map[string]Precision{}
	var walk func(t reflect.Type, keys []string, exact bool, depth int)
	walk = func(t reflect.Type, keys []string, exact bool, depth int) {
		if depth > 12 {
			return
		}
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if IsExact(t) {
			exact = true
		}
		switch t.Kind() {
		case reflect.Float32, reflect.Float64:
			class := PrecisionOfKeys(keys)
			if exact {
				class = Exact
			}
			out[strings.Join(keys, ".")] = class
		case reflect.Slice, reflect.Array:
			walk(t.Elem(), keys, exact, depth+1)
		case reflect.Map:
			walk(t.Elem(), append(keys[:len(keys):len(keys)], "*"), exact, depth+1)
		case reflect.Struct:
			info, err := e.structInfo(t)
			if err != nil {
				return
			}
			for _, f := range info.fields {
				ft := t
				for _, i := range f.index {
					for ft.Kind() == reflect.Pointer {
						ft = ft.Elem()
					}
					ft = ft.Field(i).Type
				}
				walk(ft, append(keys[:len(keys):len(keys)], f.key), exact, depth+1)
			}
			if info.inlineMap >= 0 {
				walk(t.Field(info.inlineMap).Type.Elem(), append(keys[:len(keys):len(keys)], "*"), exact, depth+1)
			}
		}
	}
	walk(t, nil, false, 0)
	return out
}

func sortedPaths(m map[string]Precision) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
