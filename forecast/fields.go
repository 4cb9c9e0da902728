package forecast

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"
	"unicode/utf8"
)

// fieldError is a problem with one field of an input line.
type fieldError struct {
	field string
	err   error
}

func (e *fieldError) Error() string { return e.field + ": " + e.err.Error() }
func (e *fieldError) Unwrap() error { return e.err }

func fieldErrorf(field, format string, a ...any) *fieldError {
	return &fieldError{field: field, err: fmt.Errorf(format, a...)}
}

// BadLineOf turns a parse error into a BadLine; an error that names no
// field is attributed to the whole line (field "line").
func BadLineOf(file string, line int, err error) BadLine {
	field := "line"
	var fe *fieldError
	if errors.As(err, &fe) {
		field = fe.field
		err = fe.err
	}
	return BadLine{File: file, Line: line, Field: field, Error: err.Error()}
}

// rawFields is one decoded JSON object with its values kept raw, so that
// numbers keep their literal text.
type rawFields map[string]json.RawMessage

// decodeObject splits one JSON object into its members without decoding
// the values (eachMember, shared with the forecast reader); a repeated key
// keeps its last value, as with encoding/json.
func decodeObject(line []byte) (rawFields, error) {
	return decodeObjectInto(line, nil)
}

// decodeObjectInto is decodeObject reusing raw (cleared first; a new map
// when nil). The values point into line.
func decodeObjectInto(line []byte, raw rawFields) (rawFields, error) {
	line = bytes.TrimSpace(line)
	if !validJSON(line) {
		var v any
		err := json.Unmarshal(line, &v) // for the syntax error's message
		if bytes.Contains(line, utf8BOM) {
			return nil, fmt.Errorf("not a JSON object: holds a UTF-8 byte-order mark (U+FEFF) outside a string: %w", err)
		}
		return nil, fmt.Errorf("not a JSON object: %w", err)
	}
	if line[0] != '{' {
		return nil, fmt.Errorf("not a JSON object: %s", excerpt(line))
	}
	if raw == nil {
		raw = make(rawFields, 16)
	} else {
		clear(raw)
	}
	err := eachMember(line, func(key []byte, v jsonValue) error {
		raw[knownKey(key)] = v.raw
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("not a JSON object: %w", err)
	}
	return raw, nil
}

// knownKey returns key as a string, without allocating for the field
// names the calls, prices, gate and prediction-log readers look up.
func knownKey(key []byte) string {
	switch string(key) {
	case "id":
		return "id"
	case "agent":
		return "agent"
	case "season":
		return "season"
	case "decider":
		return "decider"
	case "action":
		return "action"
	case "pool":
		return "pool"
	case "decided_at":
		return "decided_at"
	case "confidence":
		return "confidence"
	case "horizon_hours":
		return "horizon_hours"
	case "reference_price":
		return "reference_price"
	case "refused":
		return "refused"
	case "seal":
		return "seal"
	case "ts":
		return "ts"
	case "price":
		return "price"
	case "type":
		return "type"
	case "candidate":
		return "candidate"
	case "layer":
		return "layer"
	case "seq":
		return "seq"
	case "hit":
		return "hit"
	case "born_seq":
		return "born_seq"
	case "evidence":
		return "evidence"
	case "state":
		return "state"
	case "high_risk":
		return "high_risk"
	}
	return string(key)
}

// absent reports whether field key is missing or null.
func (raw rawFields) absent(key string) bool {
	v := bytes.TrimSpace(raw[key])
	return len(v) == 0 || string(v) == "null"
}

// str returns the string in field key; ok is false when it is missing or
// null. Any other type is an error.
func (raw rawFields) str(key string) (s string, ok bool, err error) {
	if raw.absent(key) {
		return "", false, nil
	}
	if s, ok := fastJSONString(bytes.TrimSpace(raw[key])); ok {
		return s, true, nil
	}
	if err := json.Unmarshal(raw[key], &s); err != nil {
		return "", false, fieldErrorf(key, "must be a string, got %s", excerpt(raw[key]))
	}
	return s, true, nil
}

// fastJSONString decodes a JSON string literal that needs no unescaping:
// quoted, without backslashes, control characters or invalid UTF-8 (for
// which encoding/json would substitute U+FFFD). ok is false otherwise,
// and the caller decodes it with encoding/json.
func fastJSONString(v []byte) (s string, ok bool) {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return "", false
	}
	body := v[1 : len(v)-1]
	for _, b := range body {
		if b == '\\' || b == '"' || b < 0x20 {
			return "", false
		}
	}
	if !utf8.Valid(body) {
		return "", false
	}
	return string(body), true
}

// required returns the non-empty string in field key.
func (raw rawFields) required(key string) (string, error) {
	s, ok, err := raw.str(key)
	if err != nil {
		return "", err
	}
	if !ok || s == "" {
		return "", fieldErrorf(key, "missing")
	}
	return s, nil
}

// label returns a string or number field as text ("" when missing), for
// grouping keys such as a season written as 3 or "2026-q3".
func (raw rawFields) label(key string) (string, error) {
	if raw.absent(key) {
		return "", nil
	}
	if v := bytes.TrimSpace(raw[key]); v[0] == '-' || (v[0] >= '0' && v[0] <= '9') {
		if _, ok, err := raw.number(key); ok && err == nil {
			return string(v), nil
		}
	}
	s, _, err := raw.str(key)
	if err != nil {
		return "", fieldErrorf(key, "must be a string or a number, got %s", excerpt(raw[key]))
	}
	return s, nil
}

// oneOf returns the required string in field key, which must be one of
// allowed.
func (raw rawFields) oneOf(key string, allowed ...string) (string, error) {
	v := bytes.TrimSpace(raw[key])
	if len(v) > 2 && v[0] == '"' && v[len(v)-1] == '"' {
		for _, a := range allowed {
			if string(v[1:len(v)-1]) == a {
				return a, nil // no allocation: a is one of the constants
			}
		}
	}
	s, err := raw.required(key)
	if err != nil {
		return "", err
	}
	for _, a := range allowed {
		if s == a {
			return s, nil
		}
	}
	return "", fieldErrorf(key, "%q is not one of %v", s, allowed)
}

// number returns the finite number in field key; ok is false when it is
// missing or null. Strings, booleans and non-finite values are errors.
func (raw rawFields) number(key string) (x float64, ok bool, err error) {
	if raw.absent(key) {
		return 0, false, nil
	}
	v := bytes.TrimSpace(raw[key])
	if c := v[0]; c != '-' && (c < '0' || c > '9') {
		return 0, false, fieldErrorf(key, "must be a number, got %s", excerpt(v))
	}
	x, err = strconv.ParseFloat(string(v), 64)
	if err != nil || math.IsInf(x, 0) || math.IsNaN(x) {
		return 0, false, fieldErrorf(key, "must be a finite number, got %s", excerpt(v))
	}
	return x, true, nil
}

// integer returns the integer in field key; ok is false when missing.
func (raw rawFields) integer(key string) (n int64, ok bool, err error) {
	if raw.absent(key) {
		return 0, false, nil
	}
	v := bytes.TrimSpace(raw[key])
	n, err = strconv.ParseInt(string(v), 10, 64)
	if err != nil {
		return 0, false, fieldErrorf(key, "must be an integer, got %s", excerpt(v))
	}
	return n, true, nil
}

// boolean returns the boolean in field key, false when missing or null.
func (raw rawFields) boolean(key string) (bool, error) {
	if raw.absent(key) {
		return false, nil
	}
	var b bool
	if err := json.Unmarshal(raw[key], &b); err != nil {
		return false, fieldErrorf(key, "must be true or false, got %s", excerpt(raw[key]))
	}
	return b, nil
}

// time parses the required RFC 3339 timestamp in field key.
func (raw rawFields) time(key string) (time.Time, error) {
	if v := bytes.TrimSpace(raw[key]); len(v) == 22 && v[0] == '"' {
		if t, ok := parseUTCSeconds(v[1:21]); ok {
			return t, nil
		}
	}
	s, err := raw.required(key)
	if err != nil {
		return time.Time{}, err
	}
	return parseTimestamp(key, s)
}

// Timestamps are limited to what int64 nanoseconds hold with room for
// horizons and windows, so that time arithmetic cannot overflow.
var (
	minTimestamp = time.Date(1700, 1, 1, 0, 0, 0, 0, time.UTC)
	maxTimestamp = time.Date(2200, 1, 1, 0, 0, 0, 0, time.UTC)
)

// parseTimestamp parses an RFC 3339 time in [1700, 2200) as UTC.
func parseTimestamp(field, s string) (time.Time, error) {
	if t, ok := parseUTCSeconds(s); ok {
		return t, nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, fieldErrorf(field, "not an RFC 3339 time: %q", s)
	}
	if t.Before(minTimestamp) || !t.Before(maxTimestamp) {
		return time.Time{}, fieldErrorf(field, "time %q outside years 1700-2199", s)
	}
	return t.UTC(), nil
}

// parseTimestampBytes is parseTimestamp of b, without copying b when it
// is in the common form (see parseUTCSeconds).
func parseTimestampBytes(field string, b []byte) (time.Time, error) {
	if t, ok := parseUTCSeconds(b); ok {
		return t, nil
	}
	return parseTimestamp(field, string(b))
}

// parseUTCSeconds parses the common timestamp form YYYY-MM-DDTHH:MM:SSZ
// with a year in [1700, 2200), giving the time that time.Parse with
// time.RFC3339 gives; ok is false for any other text (other forms,
// out-of-range fields, other years), which the caller hands to
// time.Parse and the range check. It spares the general parser and a
// copy on the readers' hot path.
func parseUTCSeconds[T string | []byte](s T) (t time.Time, ok bool) {
	if len(s) != 20 || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':' || s[19] != 'Z' {
		return time.Time{}, false
	}
	num := func(i, j int) int {
		n := 0
		for ; i < j; i++ {
			c := s[i]
			if c < '0' || c > '9' {
				return -1
			}
			n = n*10 + int(c-'0')
		}
		return n
	}
	year, month, day := num(0, 4), num(5, 7), num(8, 10)
	hour, minute, sec := num(11, 13), num(14, 16), num(17, 19)
	if year < 1700 || year >= 2200 || month < 1 || month > 12 || day < 1 || hour < 0 || hour > 23 ||
		minute < 0 || minute > 59 || sec < 0 || sec > 59 {
		return time.Time{}, false
	}
	if day > 28 && day > time.Date(year, time.Month(month+1), 0, 0, 0, 0, 0, time.UTC).Day() {
		return time.Time{}, false
	}
	return time.Date(year, time.Month(month), day, hour, minute, sec, 0, time.UTC), true
}

// excerpt shortens a value for an error message.
func excerpt(v []byte) string {
	const max = 40
	if len(v) > max {
		return string(v[:max]) + "..."
	}
	return string(v)
}
