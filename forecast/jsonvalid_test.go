package forecast

import (
	"encoding/json"
	"strings"
	"testing"
)

var jsonValidCases = []string{
	`{}`, ` { } `, `{"a":1}`, `{"a":1,}`, `{"a" 1}`, `{"a":}`, `{a:1}`, `[]`, `[1,]`, `[1 2]`, `[[[]]]`,
	`"x"`, `"\u00e9\n\"\\\/\b\f\r\t"`, `"\u00g0"`, `"\x"`, "\"a\tb\"", "\"a\x01b\"", "\"\xff\xfe\"",
	`0`, `-0`, `01`, `-`, `1.`, `.5`, `1.5e`, `1.5e+`, `1.5E-07`, `-12.5e10`, `1e400`, `+1`,
	`true`, `tru`, `truex`, `null`, `nul`, `false `, ` false`, `{"a":[1,{"b":null}],"c":"d"}`,
	`{"a":1}{}`, `{"a":1} x`, "", " ", "\x00", `{"a":"b"`, `"unterminated`, `[`, `{"\ud800":1}`,
	strings.Repeat("[", 10000) + strings.Repeat("]", 10000),
	strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
	strings.Repeat(`{"a":`, 10001) + "1" + strings.Repeat("}", 10001),
}

func TestValidJSONAgreesWithEncodingJSON(t *testing.T) {
	for _, c := range jsonValidCases {
		if got, want := validJSON([]byte(c)), json.Valid([]byte(c)); got != want {
			t.Errorf("validJSON(%.60q) = %v, json.Valid = %v", c, got, want)
		}
	}
}

// FuzzValidJSONAgreesWithEncodingJSON is a differential test: for any
// input, validJSON and encoding/json's Valid must agree.
func FuzzValidJSONAgreesWithEncodingJSON(f *testing.F) {
	for _, c := range jsonValidCases {
		if len(c) < 1000 {
			f.Add([]byte(c))
		}
	}
	f.Add([]byte(`{"id":"f1","agent":"a","confidence":0.7,"outcome":1,"at":"2026-11-01T12:00:00Z"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := validJSON(b), json.Valid(b); got != want {
			t.Errorf("validJSON(%q) = %v, json.Valid = %v", b, got, want)
		}
	})
}

func BenchmarkValidJSON(b *testing.B) {
	line := []byte(`{"id": "f123456", "agent": "agent-17", "confidence": 0.73, "outcome": 1, "at": "2026-11-01T12:00:00Z"}`)
	b.Run("evalcal", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			validJSON(line)
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			json.Valid(line)
		}
	})
}
