package reportio

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/evalcal/evalcal/report"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// englishMessages prints the validator's messages, as its Error does.
var englishMessages = message.NewPrinter(language.English)

// ErrSchema is returned (wrapped) when a report does not match the
// report schema: a field missing, of the wrong type, out of range.
var ErrSchema = errors.New("does not match the report schema")

// maxSchemaProblems bounds how many problems a schema error lists.
const maxSchemaProblems = 8

// readerSchema is the report schema as readers apply it: unknown keys are
// allowed (every "additionalProperties": false is dropped), so that a
// report carrying a section added within the same schema version still
// reads; everything else holds. It is compiled once, then only read.
var readerSchema = sync.OnceValues(func() (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(report.SchemaJSON()))
	if err != nil {
		return nil, fmt.Errorf("report: embedded schema: %w", err)
	}
	allowUnknownKeys(doc)
	c := jsonschema.NewCompiler()
	if err := c.AddResource("report.schema.json", doc); err != nil {
		return nil, fmt.Errorf("report: embedded schema: %w", err)
	}
	s, err := c.Compile("report.schema.json")
	if err != nil {
		return nil, fmt.Errorf("report: embedded schema: %w", err)
	}
	return s, nil
})

// allowUnknownKeys removes every "additionalProperties": false from a
// decoded schema document.
func allowUnknownKeys(v any) {
	switch v := v.(type) {
	case map[string]any:
		if ap, ok := v["additionalProperties"].(bool); ok && !ap {
			delete(v, "additionalProperties")
		}
		for _, c := range v {
			allowUnknownKeys(c)
		}
	case []any:
		for _, c := range v {
			allowUnknownKeys(c)
		}
	}
}

// validateSchema checks a report document, decoded into the JSON value
// model, against the report schema. The error wraps ErrSchema and lists
// the problems by field, "comparisons[3].deep_verdict: value must be one
// of ...", missing fields first; when the missing top-level fields are
// the report's last ones it adds that the file may be truncated.
func validateSchema(inst any) error {
	s, err := readerSchema()
	if err != nil {
		return err
	}
	err = s.Validate(inst)
	var ve *jsonschema.ValidationError
	if err == nil || !errors.As(err, &ve) {
		return err
	}
	var missing, other, missingTop []string
	collectProblems(ve, &missing, &other, &missingTop)
	// Missing top-level fields first: they say the most.
	missing = dedupeSorted(missing)
	sort.SliceStable(missing, func(i, j int) bool {
		return strings.Count(missing[i], ".") < strings.Count(missing[j], ".")
	})
	problems := append(missing, dedupeSorted(other)...)
	if len(problems) > maxSchemaProblems {
		problems = append(problems[:maxSchemaProblems], fmt.Sprintf("and %d more", len(problems)-maxSchemaProblems))
	}
	msg := strings.Join(problems, "; ")
	if looksTruncated(missingTop) {
		msg += " (the report's last sections are missing: is the file truncated?)"
	}
	return fmt.Errorf("%w: %s", ErrSchema, msg)
}

// collectProblems walks a validation error down to its leaves. Under an
// anyOf (a field that may also be null), the branch that only says "want
// null" is dropped: the other branch says what is wrong.
func collectProblems(e *jsonschema.ValidationError, missing, other, missingTop *[]string) {
	if len(e.Causes) == 0 {
		at := fieldPath(e.InstanceLocation)
		switch k := e.ErrorKind.(type) {
		case *kind.Required:
			for _, m := range k.Missing {
				*missing = append(*missing, "missing field "+joinField(at, m))
			}
			if at == "" {
				*missingTop = append(*missingTop, k.Missing...)
			}
		default:
			if at == "" {
				at = "(document)"
			}
			*other = append(*other, "field "+at+": "+e.ErrorKind.LocalizedString(englishMessages))
		}
		return
	}
	causes := e.Causes
	if _, ok := e.ErrorKind.(*kind.AnyOf); ok {
		var kept []*jsonschema.ValidationError
		for _, c := range causes {
			if t, ok := c.ErrorKind.(*kind.Type); ok && len(c.Causes) == 0 && len(t.Want) == 1 && t.Want[0] == "null" {
				continue
			}
			kept = append(kept, c)
		}
		if len(kept) > 0 {
			causes = kept
		}
	}
	for _, c := range causes {
		collectProblems(c, missing, other, missingTop)
	}
}

// looksTruncated reports whether the missing top-level fields are the
// report's last required fields in document order: what a file cut short
// lacks.
func looksTruncated(missingTop []string) bool {
	if len(missingTop) == 0 {
		return false
	}
	gone := map[string]bool{}
	for _, m := range missingTop {
		gone[m] = true
	}
	var order []string
	t := reflect.TypeOf(report.Report{})
	for i := range t.NumField() {
		name, opts, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" && !strings.Contains(opts, "omitempty") {
			order = append(order, name)
		}
	}
	for i, name := range order {
		if gone[name] {
			for _, later := range order[i:] {
				if !gone[later] {
					return false
				}
			}
			return true
		}
	}
	return false
}

// fieldPath writes an instance location as "comparisons[3].deep_verdict".
func fieldPath(loc []string) string {
	var b strings.Builder
	for _, seg := range loc {
		if _, err := strconv.Atoi(seg); err == nil {
			b.WriteString("[" + seg + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(seg)
	}
	return b.String()
}

func joinField(at, name string) string {
	if at == "" {
		return name
	}
	return at + "." + name
}

func dedupeSorted(s []string) []string {
	sort.Strings(s)
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}

// jsonValue turns a decoded YAML value into the JSON value model the
// validator reads: timestamps become RFC 3339 strings, and a mapping key
// that is not a string is an error naming where it is.
func jsonValue(v any, at string) (any, error) {
	switch v := v.(type) {
	case map[string]any:
		for k, c := range v {
			jc, err := jsonValue(c, joinField(at, k))
			if err != nil {
				return nil, err
			}
			v[k] = jc
		}
		return v, nil
	case map[any]any:
		for k := range v {
			if _, ok := k.(string); !ok {
				where := at
				if where == "" {
					where = "(top level)"
				}
				return nil, fmt.Errorf("field %s: key %v is not a string", where, k)
			}
		}
		m := make(map[string]any, len(v))
		for k, c := range v {
			jc, err := jsonValue(c, joinField(at, k.(string)))
			if err != nil {
				return nil, err
			}
			m[k.(string)] = jc
		}
		return m, nil
	case []any:
		for i, c := range v {
			jc, err := jsonValue(c, at+"["+strconv.Itoa(i)+"]")
			if err != nil {
				return nil, err
			}
			v[i] = jc
		}
		return v, nil
	case time.Time:
		return v.Format(time.RFC3339Nano), nil
	case json.Number, nil, bool, string, int, int64, uint64, float64:
		return v, nil
	}
	return nil, fmt.Errorf("field %s: unsupported value %T", at, v)
}
