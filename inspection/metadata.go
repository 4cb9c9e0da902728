package inspection

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
)

// Metadata is a run's flat metadata: field name -> value, as the run's
// source declares it (a saved inspection's `metadata` object, an inspect_ai
// sample's `metadata`, a promptfoo result's `vars` and `metadata`, a run
// directory log's front-matter `metadata:` map; README "Input formats").
// A value is a string, a number or a boolean, kept as text: a string as
// it is, a number as its source writes it ("3", "0.25"), a boolean as
// "true" or "false". Reports slice runs by a field's value (`run --by`),
// compared as text. Nested objects and arrays are not metadata: readers
// skip them with a warning (MetadataSkip). A nil Metadata is empty.
type Metadata map[string]string

// SystemField is the field name that addresses a run's system: Field
// answers it from the run's system, never from a metadata entry of that
// name.
const SystemField = "system"

// Field returns the value of field name for a run of the given system
// and metadata: the system for SystemField, else the metadata entry.
// ok is false when the run has no such field (or an empty system).
func Field(system string, md Metadata, name string) (value string, ok bool) {
	if name == SystemField {
		return system, system != ""
	}
	v, ok := md[name]
	return v, ok
}

// MetadataSkip is a metadata field a reader left out, and why ("an
// object", "an array").
type MetadataSkip struct {
	Field string
	Why   string
}

// String is "metadata.FIELD is WHY; metadata values are strings, numbers
// or booleans: skipped".
func (s MetadataSkip) String() string {
	return fmt.Sprintf("metadata.%s is %s; metadata values are strings, numbers or booleans: skipped", s.Field, s.Why)
}

// ErrMetadataNotObject is returned by MetadataFromJSON for a value that is
// not a JSON object (nor null).
var ErrMetadataNotObject = errors.New("metadata is not an object")

// MetadataFromJSON reads a flat JSON object of metadata. Strings are kept,
// numbers kept as written, booleans as "true"/"false"; a null value (and
// a null or empty raw) is no field. A nested object or array is left out
// and listed in skipped, sorted by field. A raw value that is not an
// object is ErrMetadataNotObject; malformed JSON is an error too. It never
// panics.
func MetadataFromJSON(raw []byte) (md Metadata, skipped []MetadataSkip, err error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil, nil
	}
	if raw[0] != '{' {
		return nil, nil, ErrMetadataNotObject
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return nil, nil, fmt.Errorf("metadata: %w", err)
	}
	for _, k := range slices.Sorted(maps.Keys(fields)) {
		v := bytes.TrimSpace(fields[k])
		switch {
		case len(v) == 0 || string(v) == "null":
			continue
		case v[0] == '{':
			skipped = append(skipped, MetadataSkip{Field: k, Why: "an object"})
			continue
		case v[0] == '[':
			skipped = append(skipped, MetadataSkip{Field: k, Why: "an array"})
			continue
		}
		if md == nil {
			md = Metadata{}
		}
		switch {
		case v[0] == '"':
			var s string
			if err := json.Unmarshal(v, &s); err != nil {
				return nil, nil, fmt.Errorf("metadata.%s: %w", k, err)
			}
			md[k] = s
		case string(v) == "true" || string(v) == "false":
			md[k] = string(v)
		default:
			if _, err := strconv.ParseFloat(string(v), 64); err != nil {
				return nil, nil, fmt.Errorf("metadata.%s: %s is not a number", k, v)
			}
			md[k] = string(v)
		}
	}
	return md, skipped, nil
}

// MergeMetadata adds to into the fields of from it lacks and returns the
// result (into itself when it is not nil). A field both hold with other
// values keeps into's value and is named in conflicts ("FIELD: "a" and
// "b""), sorted.
func MergeMetadata(into, from Metadata) (Metadata, []string) {
	var conflicts []string
	for _, k := range slices.Sorted(maps.Keys(from)) {
		v := from[k]
		old, ok := into[k]
		switch {
		case !ok:
			if into == nil {
				into = Metadata{}
			}
			into[k] = v
		case old != v:
			conflicts = append(conflicts, fmt.Sprintf("%s: %q and %q", k, old, v))
		}
	}
	return into, conflicts
}
