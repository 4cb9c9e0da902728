package forecast

// validJSON reports whether b is one valid JSON value with optional
// surrounding whitespace, exactly as encoding/json's Valid does (RFC 8259;
// invalid UTF-8 inside strings is accepted, nesting deeper than 10,000
// levels is not), in one pass without encoding/json's per-byte state
// function calls. The forecast and call readers validate every line, and
// json.Valid was a fifth of evalcal score's CPU time. A differential fuzz
// test holds it equal to json.Valid.
func validJSON(b []byte) bool {
	ok, _ := validJSONText(b)
	return ok
}

// validJSONText is validJSON that also reports whether every string in b
// is plain: no escape and no byte above 0x7F, so that its bytes are its
// decoded text and it needs no decoding.
func validJSONText(b []byte) (ok, plain bool) {
	return validJSONMembers(b, nil)
}

// member is where one member of the top-level object sits in the input:
// its key from the opening quote to just past the closing one, its value
// from its first byte to just past its last.
type member struct {
	key0, key1, val0, val1 int
}

// validJSONMembers is validJSONText that also appends the members of a
// top-level object to *members (when members is not nil), so that a
// reader needs no second scan to find them.
func validJSONMembers(b []byte, members *[]member) (ok, plain bool) {
	v := validator{b: b, members: members}
	v.space()
	if !v.value(0) {
		return false, false
	}
	v.space()
	return v.i == len(v.b), !v.fancy
}

// maxJSONDepth is encoding/json's nesting limit.
const maxJSONDepth = 10000

type validator struct {
	b []byte
	i int
	// fancy is set when a string holds an escape or a non-ASCII byte.
	fancy bool
	// members, when not nil, collects the top-level object's members.
	members *[]member
}

// plainStringByte marks the bytes a string may hold as they are: not a
// control character, not '"', not '\\', not above 0x7F.
var plainStringByte = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

func (v *validator) space() {
	for v.i < len(v.b) {
		switch v.b[v.i] {
		case ' ', '\t', '\n', '\r':
			v.i++
		default:
			return
		}
	}
}

func (v *validator) value(depth int) bool {
	if v.i >= len(v.b) {
		return false
	}
	switch c := v.b[v.i]; {
	case c == '"':
		return v.str()
	case c == '{':
		return v.object(depth + 1)
	case c == '[':
		return v.array(depth + 1)
	case c == 't':
		return v.literal("true")
	case c == 'f':
		return v.literal("false")
	case c == 'n':
		return v.literal("null")
	case c == '-' || c >= '0' && c <= '9':
		return v.number()
	}
	return false
}

func (v *validator) literal(word string) bool {
	if len(v.b)-v.i < len(word) || string(v.b[v.i:v.i+len(word)]) != word {
		return false
	}
	v.i += len(word)
	return true
}

func (v *validator) object(depth int) bool {
	if depth > maxJSONDepth {
		return false
	}
	v.i++ // '{'
	v.space()
	if v.i < len(v.b) && v.b[v.i] == '}' {
		v.i++
		return true
	}
	for {
		key0 := v.i
		if v.i >= len(v.b) || v.b[v.i] != '"' || !v.str() {
			return false
		}
		key1 := v.i
		v.space()
		if v.i >= len(v.b) || v.b[v.i] != ':' {
			return false
		}
		v.i++
		v.space()
		val0 := v.i
		if !v.value(depth) {
			return false
		}
		if depth == 1 && v.members != nil {
			*v.members = append(*v.members, member{key0, key1, val0, v.i})
		}
		v.space()
		if v.i >= len(v.b) {
			return false
		}
		switch v.b[v.i] {
		case ',':
			v.i++
			v.space()
		case '}':
			v.i++
			return true
		default:
			return false
		}
	}
}

func (v *validator) array(depth int) bool {
	if depth > maxJSONDepth {
		return false
	}
	v.i++ // '['
	v.space()
	if v.i < len(v.b) && v.b[v.i] == ']' {
		v.i++
		return true
	}
	for {
		if !v.value(depth) {
			return false
		}
		v.space()
		if v.i >= len(v.b) {
			return false
		}
		switch v.b[v.i] {
		case ',':
			v.i++
			v.space()
		case ']':
			v.i++
			return true
		default:
			return false
		}
	}
}

// str checks a string literal starting at the opening quote: no control
// characters below 0x20, only the escapes \" \\ \/ \b \f \n \r \t \uXXXX.
func (v *validator) str() bool {
	b := v.b
	i := v.i + 1
	for i < len(b) {
		c := b[i]
		if plainStringByte[c] {
			i++
			continue
		}
		switch {
		case c == '"':
			v.i = i + 1
			return true
		case c >= 0x80:
			v.fancy = true
			i++
		case c < 0x20:
			return false
		default: // '\\'
			v.fancy = true
			i++
			if i >= len(b) {
				return false
			}
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if len(b)-i < 5 {
					return false
				}
				for _, h := range b[i+1 : i+5] {
					if !(h >= '0' && h <= '9' || h >= 'a' && h <= 'f' || h >= 'A' && h <= 'F') {
						return false
					}
				}
				i += 4
			default:
				return false
			}
			i++
		}
	}
	return false
}

// number checks -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?.
func (v *validator) number() bool {
	if v.b[v.i] == '-' {
		v.i++
	}
	switch {
	case v.i >= len(v.b):
		return false
	case v.b[v.i] == '0':
		v.i++
	case v.b[v.i] >= '1' && v.b[v.i] <= '9':
		v.digits()
	default:
		return false
	}
	if v.i < len(v.b) && v.b[v.i] == '.' {
		v.i++
		if v.digits() == 0 {
			return false
		}
	}
	if v.i < len(v.b) && (v.b[v.i] == 'e' || v.b[v.i] == 'E') {
		v.i++
		if v.i < len(v.b) && (v.b[v.i] == '+' || v.b[v.i] == '-') {
			v.i++
		}
		if v.digits() == 0 {
			return false
		}
	}
	return true
}

func (v *validator) digits() int {
	start := v.i
	for v.i < len(v.b) && v.b[v.i] >= '0' && v.b[v.i] <= '9' {
		v.i++
	}
	return v.i - start
}
