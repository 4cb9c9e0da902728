package forecast

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/evalcal/evalcal/internal/english"
)

// Seals let the engine that writes trading calls commit to a call's
// fields before its outcome exists; a later edit of a sealed field no
// longer matches. Two versions are verified:
//
//   - Version 1 (a bare 64-digit hex SHA-256, SealOf) covers id, agent,
//     decided_at, action, confidence, horizon_hours and reference_price.
//     It does not cover season, decider, pool or refused, so a call can be
//     relabelled (e.g. a losing llm call as a protective exit, which is
//     not counted) without breaking its seal.
//   - Version 2 ("v2:" and a 64-digit hex SHA-256, SealV2Of) covers every
//     field that decides whether a call counts, how it resolves or where
//     it is reported: id, agent, season, decider, action, pool,
//     decided_at, confidence, horizon_hours, reference_price and refused.

// sealedFields are the fields a version 1 seal covers, in the order they
// are joined (issue 4).
var sealedFields = [...]string{"id", "agent", "decided_at", "action", "confidence", "horizon_hours", "reference_price"}

// sealedFieldsV2 are the fields a version 2 seal covers, in order
// (issue 13 item 16).
var sealedFieldsV2 = [...]string{"id", "agent", "season", "decider", "action", "pool", "decided_at", "confidence", "horizon_hours", "reference_price", "refused"}

// sealV2Prefix starts every version 2 seal.
const sealV2Prefix = "v2:"

// SealStatus says whether a call carried a seal and whether it matched.
type SealStatus int

const (
	// Unsealed calls carry no seal.
	Unsealed SealStatus = iota
	// SealValid calls carry a seal equal to SealOf (version 1) or
	// SealV2Of (version 2) of their fields.
	SealValid
	// SealTampered calls carry a seal that does not match: a sealed field
	// was changed after sealing (or the seal's version is unknown).
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

// SealOf returns the version 1 seal of a call's sealed fields: the
// lowercase hex SHA-256 of
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

// SealFields are the fields of a call as a version 2 seal sees them, each
// as text: a string's decoded value, a number's or boolean's literal text
// in the line ("100.0" and "100" differ, as do "false" and a missing
// refused), and "" for a missing or null field.
type SealFields struct {
	ID, Agent, Season, Decider, Action, Pool string
	DecidedAt                                string
	Confidence, HorizonHours, ReferencePrice string
	Refused                                  string
}

// SealV2Of returns the version 2 seal of a call: "v2:" followed by the
// lowercase hex SHA-256 of, for each field in the order id, agent,
// season, decider, action, pool, decided_at, confidence, horizon_hours,
// reference_price, refused:
//
//	name "=" len(value) ":" value "\n"
//
// where len is the value's length in bytes, in decimal. The lengths make
// the encoding unambiguous whatever the values contain (version 1 joins
// with "\n", which an id may contain).
func SealV2Of(f SealFields) string {
	vals := [len(sealedFieldsV2)]string{f.ID, f.Agent, f.Season, f.Decider, f.Action, f.Pool,
		f.DecidedAt, f.Confidence, f.HorizonHours, f.ReferencePrice, f.Refused}
	return sealV2(vals)
}

func sealV2(vals [len(sealedFieldsV2)]string) string {
	h := sha256.New()
	var buf []byte
	for i, name := range sealedFieldsV2 {
		buf = append(buf[:0], name...)
		buf = append(buf, '=')
		buf = strconv.AppendInt(buf, int64(len(vals[i])), 10)
		buf = append(buf, ':')
		buf = append(buf, vals[i]...)
		buf = append(buf, '\n')
		h.Write(buf)
	}
	return sealV2Prefix + hex.EncodeToString(h.Sum(nil))
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

// sealV2OfRaw computes SealV2Of from a decoded line.
func sealV2OfRaw(raw map[string]json.RawMessage) string {
	var vals [len(sealedFieldsV2)]string
	for i, k := range sealedFieldsV2 {
		vals[i] = sealText(raw[k])
	}
	return sealV2(vals)
}

// sealText is a raw JSON value as the seal sees it: a string's decoded
// value, null or absent as "", anything else as its literal text.
func sealText(v json.RawMessage) string {
	v = bytes.TrimSpace(v)
	if len(v) == 0 || string(v) == "null" {
		return ""
	}
	if v[0] == '"' {
		if s, ok := fastJSONString(v); ok {
			return s
		}
		var s string
		if err := json.Unmarshal(v, &s); err == nil {
			return s
		}
	}
	return string(v)
}

// sealVersionOf returns the version a stated seal claims: 2 for "v2:...",
// -1 for another "vN:" prefix, 1 otherwise (a bare digest).
func sealVersionOf(stated string) int {
	if strings.HasPrefix(stated, sealV2Prefix) {
		return 2
	}
	if i := strings.IndexByte(stated, ':'); i > 1 && stated[0] == 'v' {
		if _, err := strconv.Atoi(stated[1:i]); err == nil {
			return -1
		}
	}
	return 1
}

// sealVersionName is how a report names a seal version.
func sealVersionName(v int) string {
	switch v {
	case 0:
		return ""
	case 1:
		return "v1"
	case 2:
		return "v2"
	}
	return "unknown"
}

// checkSeal compares a call's stated seal with the seal of its fields
// for the version the seal claims, and returns the status and that
// version (0 when unsealed). The comparison is exact: the digest must be
// lowercase hex. A seal of an unknown version is tampered.
func checkSeal(stated string, raw map[string]json.RawMessage) (SealStatus, int) {
	if strings.TrimSpace(stated) == "" {
		return Unsealed, 0
	}
	v := sealVersionOf(stated)
	var want string
	switch v {
	case 1:
		want = sealOfRaw(raw)
	case 2:
		want = sealV2OfRaw(raw)
	default:
		return SealTampered, v
	}
	if stated == want {
		return SealValid, v
	}
	return SealTampered, v
}

// ErrSealsRequired is returned (wrapped) by CallReport.CheckSeals.
var ErrSealsRequired = errors.New("seals required")

// CheckSeals is the rule of calls --require-seals: every call, counted or
// not, carries a valid version 2 seal. It returns nil when that holds,
// else an error wrapping ErrSealsRequired that counts the calls breaking
// it: unsealed (counted, and not counted), sealed with version 1 (which
// lets season, decider, pool and refused be changed unnoticed), and
// tampered. Calls that do not count must be sealed too: otherwise a
// losing call could lose its seal and be relabelled as a protective exit,
// which is not scored.
func (r CallReport) CheckSeals() error {
	if r.Unsealed == 0 && r.UnsealedIgnored == 0 && r.SealedV1 == 0 && len(r.Tampered) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %d counted and %s unsealed, %d with a version 1 seal (does not cover season, decider, pool, refused), %d tampered",
		ErrSealsRequired, r.Unsealed, english.Count(r.UnsealedIgnored, "other call", "other calls"), r.SealedV1, len(r.Tampered))
}
