package report

import (
	"encoding/json"
	"strconv"
	"unicode/utf8"

	"github.com/evalcal/evalcal/comparator"
)

// The bulk of a runs file is its comparisons and sample runs, a million of
// each at a million runs, and encoding/json took a quarter of a merge's CPU
// reading them. fastComparison and fastSampleRun read the lines as the
// writer writes them (internal/reportenc: compact, the struct's keys in
// order, plain strings) in one pass; anything else (an unknown key, a null
// where a value is expected, a number that is not an integer where one is
// expected, invalid JSON) makes them give up, and the line is decoded by
// encoding/json as before, which also names what is wrong with it.
// Strings with escapes are decoded by encoding/json alone, so every
// string is what it would decode to. TestFastDecodersAgreeWithEncodingJSON
// and FuzzFastComparison hold them to encoding/json's result.

// itemScanner reads one JSON item. ok turns false at the first byte it
// does not expect, and every later read gives up.
type itemScanner struct {
	b      []byte
	i      int
	ok     bool
	intern map[string]string // the few values many lines repeat (verdicts, systems)
}

func (s *itemScanner) fail() { s.ok = false }

func (s *itemScanner) peek() byte {
	if !s.ok || s.i >= len(s.b) {
		s.ok = false
		return 0
	}
	return s.b[s.i]
}

// expect consumes byte c.
func (s *itemScanner) expect(c byte) {
	if s.peek() != c {
		s.fail()
		return
	}
	s.i++
}

// literal consumes lit ("true", "false", "null").
func (s *itemScanner) literal(lit string) bool {
	if !s.ok || len(s.b)-s.i < len(lit) || string(s.b[s.i:s.i+len(lit)]) != lit {
		return false
	}
	s.i += len(lit)
	return true
}

// str reads a string. A plain one (no escape, valid UTF-8, no control
// byte) is taken as it is; any other goes through encoding/json.
func (s *itemScanner) str() string {
	s.expect('"')
	if !s.ok {
		return ""
	}
	start, plain := s.i, true
	for ; s.i < len(s.b); s.i++ {
		switch c := s.b[s.i]; {
		case c == '"':
			raw := s.b[start:s.i]
			s.i++
			if plain && utf8.Valid(raw) {
				return string(raw)
			}
			var v string
			if json.Unmarshal(s.b[start-1:s.i], &v) != nil {
				s.fail()
			}
			return v
		case c == '\\':
			plain = false
			s.i++ // the escaped byte: a quote does not end the string
		case c < 0x20:
			s.fail() // encoding/json refuses a raw control byte
			return ""
		}
	}
	s.fail()
	return ""
}

// interned is str through the scanner's table of repeated values.
func (s *itemScanner) interned() string {
	v := s.str()
	if w, ok := s.intern[v]; ok {
		return w
	}
	if len(s.intern) < 1024 {
		s.intern[v] = v
	}
	return v
}

// number reads a JSON number as encoding/json does for a float64.
func (s *itemScanner) number() float64 {
	start := s.i
	for s.ok && s.i < len(s.b) {
		c := s.b[s.i]
		if c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E' {
			s.i++
			continue
		}
		break
	}
	tok := s.b[start:s.i]
	if !validNumber(tok) {
		s.fail()
		return 0
	}
	f, err := strconv.ParseFloat(string(tok), 64)
	if err != nil {
		s.fail()
	}
	return f
}

// integer reads a JSON number into an int64 as encoding/json does (no
// fraction, no exponent, in range).
func (s *itemScanner) integer() int64 {
	start := s.i
	for s.ok && s.i < len(s.b) && (s.b[s.i] >= '0' && s.b[s.i] <= '9' || s.b[s.i] == '-') {
		s.i++
	}
	tok := s.b[start:s.i]
	n, err := strconv.ParseInt(string(tok), 10, 64)
	if err != nil || !validNumber(tok) {
		s.fail()
	}
	return n
}

// validNumber is JSON's number grammar: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
func validNumber(t []byte) bool {
	i := 0
	if i < len(t) && t[i] == '-' {
		i++
	}
	switch {
	case i < len(t) && t[i] == '0':
		i++
	case i < len(t) && t[i] >= '1' && t[i] <= '9':
		for i < len(t) && t[i] >= '0' && t[i] <= '9' {
			i++
		}
	default:
		return false
	}
	if i < len(t) && t[i] == '.' {
		i++
		if i >= len(t) || t[i] < '0' || t[i] > '9' {
			return false
		}
		for i < len(t) && t[i] >= '0' && t[i] <= '9' {
			i++
		}
	}
	if i < len(t) && (t[i] == 'e' || t[i] == 'E') {
		i++
		if i < len(t) && (t[i] == '+' || t[i] == '-') {
			i++
		}
		if i >= len(t) || t[i] < '0' || t[i] > '9' {
			return false
		}
		for i < len(t) && t[i] >= '0' && t[i] <= '9' {
			i++
		}
	}
	return i == len(t)
}

func (s *itemScanner) boolean() bool {
	switch {
	case s.literal("true"):
		return true
	case s.literal("false"):
		return false
	}
	s.fail()
	return false
}

// strings reads an array of strings ([] is empty, not nil, as
// encoding/json gives).
func (s *itemScanner) strings() []string {
	s.expect('[')
	out := []string{}
	if s.peek() == ']' {
		s.i++
		return out
	}
	for s.ok {
		out = append(out, s.str())
		if s.peek() == ',' {
			s.i++
			continue
		}
		s.expect(']')
		break
	}
	return out
}

// object reads an object, calling field with each key (a plain string);
// field reads the value.
func (s *itemScanner) object(field func(key string)) {
	s.expect('{')
	if s.peek() == '}' {
		s.i++
		return
	}
	for s.ok {
		k := s.str()
		s.expect(':')
		if !s.ok {
			return
		}
		field(k)
		if s.peek() == ',' {
			s.i++
			continue
		}
		s.expect('}')
		return
	}
}

// done says whether the item was read whole.
func (s *itemScanner) done() bool { return s.ok && s.i == len(s.b) }

func (s *itemScanner) scores(sc *comparator.Scores) {
	s.object(func(k string) {
		switch k {
		case "runtime_fidelity":
			sc.RuntimeFidelity = s.number()
		case "task_effectiveness":
			sc.TaskEffectiveness = s.number()
		default:
			s.fail()
		}
	})
}

// fastComparison reads a comparisons line's item into c (see above);
// false: decode it with encoding/json.
func fastComparison(item []byte, c *comparator.Comparison, intern map[string]string) bool {
	s := &itemScanner{b: item, ok: true, intern: intern}
	s.object(func(k string) {
		switch k {
		case "run_id":
			c.RunID = s.str()
		case "system":
			c.System = s.interned()
		case "metadata":
			if c.Metadata == nil { // as encoding/json: a key given twice adds to the map
				c.Metadata = map[string]string{}
			}
			s.object(func(mk string) { c.Metadata[mk] = s.interned() })
		case "light_verdict":
			c.LightVerdict = s.interned()
		case "deep_verdict":
			c.DeepVerdict = s.interned()
		case "verdict_match":
			c.VerdictMatch = s.boolean()
		case "light_scores":
			s.scores(&c.Light)
		case "deep_scores":
			s.scores(&c.Deep)
		case "runtime_fidelity_delta":
			c.RuntimeFidelityDelta = s.number()
		case "task_effectiveness_delta":
			c.TaskEffectivenessDelta = s.number()
		case "flag_overlap":
			s.object(func(fk string) {
				switch fk {
				case "both":
					c.FlagOverlap.Both = s.strings()
				case "light_only":
					c.FlagOverlap.LightOnly = s.strings()
				case "deep_only":
					c.FlagOverlap.DeepOnly = s.strings()
				case "severity_mismatches":
					c.FlagOverlap.SeverityMismatches = s.strings()
				default:
					s.fail()
				}
			})
		case "disagreement_type":
			if s.literal("null") {
				c.DisagreementType = nil
				return
			}
			d := comparator.DisagreementType(s.interned())
			c.DisagreementType = &d
		case "minor_noise":
			c.MinorNoise = s.boolean()
		case "notes":
			c.Notes = s.strings()
		case "light_summary":
			c.LightSummary = s.str()
		case "deep_summary":
			c.DeepSummary = s.str()
		default:
			s.fail()
		}
	})
	return s.done()
}

// fastSampleRun reads a sample.runs line's item into r (see above);
// false: decode it with encoding/json.
func fastSampleRun(item []byte, r *SampleRun, intern map[string]string) bool {
	s := &itemScanner{b: item, ok: true, intern: intern}
	s.object(func(k string) {
		switch k {
		case "id":
			r.ID = s.str()
		case "system":
			r.System = s.interned()
		case "era":
			r.Era = s.interned()
		case "status":
			r.Status = s.interned()
		case "services":
			r.Services = int(s.integer())
		case "size_bytes":
			r.SizeBytes = s.integer()
		case "path":
			r.Path = s.str()
		case "content_hash":
			r.ContentHash = s.str()
		case "warnings":
			r.Warnings = s.strings()
		default:
			s.fail()
		}
	})
	return s.done()
}
