package forecast

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
)

// SealedFields are the fields of a trading call that its seal covers, in
// the order they are joined (issue 4). The engine seals them before the
// outcome exists, so a restated confidence, horizon or reference price no
// longer matches.
var sealedFields = [...]string{"id", "agent", "decided_at", "action", "confidence", "horizon_hours", "reference_price"}

// SealStatus says whether a call carried a seal and whether it matched.
type SealStatus int

const (
	// Unsealed calls carry no seal.
	Unsealed SealStatus = iota
	// SealValid calls carry a seal equal to SealOf their sealed fields.
	SealValid
	// SealTampered calls carry a seal that does not match: the sealed
	// fields were changed after sealing.
	SealTampered
)

// String returns "unsealed", "valid" or "tampered".
func (s SealStatus) String() string {
	switch s {
	case SealValid:
		return "valid"
	case SealTampered:
		return "tampered"
	}
	return "unsealed"
}

// SealOf returns the seal of a call's sealed fields: the lowercase hex
// SHA-256 of
//
//	id "\n" agent "\n" decided_at "\n" action "\n" confidence "\n" horizon_hours "\n" reference_price
//
// where each value is given as text: strings as their decoded value and
// numbers as their literal text in the line ("100.0" and "100" differ).
// A missing or null field is the empty string.
func SealOf(id, agent, decidedAt, action, confidence, horizonHours, referencePrice string) string {
	h := sha256.New()
	for i, s := range [...]string{id, agent, decidedAt, action, confidence, horizonHours, referencePrice} {
		if i > 0 {
			h.Write([]byte{'\n'})
		}
		h.Write([]byte(s))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// sealOfRaw computes SealOf from a decoded line, keeping the literal text
// of numbers (and of any other non-string value).
func sealOfRaw(raw map[string]json.RawMessage) string {
	var vals [len(sealedFields)]string
	for i, k := range sealedFields {
		vals[i] = sealText(raw[k])
	}
	return SealOf(vals[0], vals[1], vals[2], vals[3], vals[4], vals[5], vals[6])
}

// sealText is a raw JSON value as the seal sees it: a string's decoded
// value, null or absent as "", anything else as its literal text.
func sealText(v json.RawMessage) string {
	v = bytes.TrimSpace(v)
	if len(v) == 0 || string(v) == "null" {
		return ""
	}
	if v[0] == '"' {
		var s string
		if err := json.Unmarshal(v, &s); err == nil {
			return s
		}
	}
	return string(v)
}

// checkSeal compares a call's stated seal with the seal of its fields.
// The comparison is exact: the seal must be the lowercase hex digest.
func checkSeal(stated string, raw map[string]json.RawMessage) SealStatus {
	if strings.TrimSpace(stated) == "" {
		return Unsealed
	}
	if stated == sealOfRaw(raw) {
		return SealValid
	}
	return SealTampered
}
