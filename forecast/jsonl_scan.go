package forecast

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"unicode/utf8"
)

// eachMember calls fn with every member of the JSON object in line, which
// must be valid JSON (validJSON) starting with '{'. A key that appears
// twice is passed twice; the last wins, as with encoding/json.
func eachMember(line []byte, fn func(key []byte, v jsonValue) error) error {
	i := skipSpace(line, 1)
	if line[i] == '}' {
		return nil
	}
	for {
		end := stringEnd(line, i)
		key := line[i+1 : end-1]
		if needsDecoding(key) {
			s, err := stringValue(line[i:end])
			if err != nil {
				return err
			}
			key = []byte(s)
		}
		i = skipSpace(line, end)
		i = skipSpace(line, i+1) // ':'
		vend := valueEnd(line, i)
		if err := fn(key, jsonValue{kind: line[i], raw: line[i:vend]}); err != nil {
			return err
		}
		i = skipSpace(line, vend)
		if line[i] == '}' {
			return nil
		}
		i = skipSpace(line, i+1) // ','
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// stringEnd returns the index just past the string starting at b[i] = '"'.
func stringEnd(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(b)
}

// valueEnd returns the index just past the (valid) value starting at b[i].
func valueEnd(b []byte, i int) int {
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				j = stringEnd(b, j) - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return len(b)
	}
	j := i
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' && b[j] != '\t' && b[j] != '\n' && b[j] != '\r' {
		j++
	}
	return j
}

// needsDecoding reports whether a string literal's contents differ from
// its bytes: escapes, or invalid UTF-8 (which encoding/json turns into
// U+FFFD).
func needsDecoding(b []byte) bool {
	return bytes.IndexByte(b, '\\') >= 0 || !utf8.Valid(b)
}

// stringValue decodes a JSON string literal (with its quotes) as
// encoding/json does.
func stringValue(raw []byte) (string, error) {
	if !needsDecoding(raw) {
		return string(raw[1 : len(raw)-1]), nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", err
	}
	return s, nil
}

// numberValue returns a finite JSON number.
func numberValue(v jsonValue) (float64, error) {
	if v.kind != '-' && (v.kind < '0' || v.kind > '9') {
		return 0, errors.New("not a number")
	}
	if x, ok := plainDecimal(v.raw); ok {
		return x, nil
	}
	x, err := strconv.ParseFloat(string(v.raw), 64)
	if err != nil || math.IsInf(x, 0) {
		return 0, fmt.Errorf("not a finite number: %s", excerpt(v.raw))
	}
	return x, nil
}

// pow10 holds the powers of ten that float64 represents exactly.
var pow10 = [...]float64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15}

// plainDecimal reads a number written as [-]digits[.digits] with at most
// 15 digits in all (what confidences look like) as m / 10^d: m < 2^53 and
// 10^d are exact, and IEEE division rounds correctly, so the result is
// the correctly rounded value strconv.ParseFloat returns (Clinger's fast
// path). ok is false for any other form.
func plainDecimal(b []byte) (x float64, ok bool) {
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	if len(b) == 0 || len(b) > 16 || b[0] < '0' || b[0] > '9' {
		return 0, false
	}
	var m uint64
	digits, frac, point := 0, 0, false
	for _, c := range b {
		switch {
		case c >= '0' && c <= '9':
			m = m*10 + uint64(c-'0')
			digits++
			if point {
				frac++
			}
		case c == '.' && !point:
			point = true
		default:
			return 0, false
		}
	}
	if digits == 0 || digits > 15 || (point && frac == 0) {
		return 0, false
	}
	x = float64(m) / pow10[frac]
	if neg {
		x = -x
	}
	return x, true
}

// numberArray reads the "probs" array of finite numbers.
func numberArray(v jsonValue) ([]float64, error) {
	if v.kind != '[' {
		return nil, fieldErrorf("probs", "must be an array of numbers, got %s", excerpt(v.raw))
	}
	var out []float64
	b := v.raw
	i := skipSpace(b, 1)
	for i < len(b) && b[i] != ']' {
		end := valueEnd(b, i)
		x, err := numberValue(jsonValue{kind: b[i], raw: b[i:end]})
		if err != nil {
			return nil, fieldErrorf("probs", "entry %d: %v", len(out), err)
		}
		out = append(out, x)
		i = skipSpace(b, end)
		if i < len(b) && b[i] == ',' {
			i = skipSpace(b, i+1)
		}
	}
	return out, nil
}

// labelValue reads id or agent: a string, or a number kept as written.
func labelValue(field string, v jsonValue) (string, error) {
	switch {
	case v.kind == 'n':
		return "", nil
	case v.kind == '"':
		s, err := stringText(v)
		if err != nil {
			return "", fieldErrorf(field, "%v", err)
		}
		return s, nil
	case v.kind == '-' || (v.kind >= '0' && v.kind <= '9'):
		return v.str(v.raw), nil
	}
	return "", fieldErrorf(field, "must be a string, got %s", excerpt(v.raw))
}

// stringText decodes a string value; a plain one is its bytes.
func stringText(v jsonValue) (string, error) {
	if body := v.raw[1 : len(v.raw)-1]; v.plain || !needsDecoding(body) {
		return v.str(body), nil
	}
	return stringValue(v.raw)
}

// scalarText returns a scalar value as text: a string decoded, a number
// as written, true or false; null, arrays and objects have none.
func scalarText(v jsonValue) (string, bool) {
	switch v.kind {
	case '"':
		s, err := stringText(v)
		return s, err == nil
	case 'n', '[', '{':
		return "", false
	}
	return v.str(v.raw), true
}
