package importers

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/evalcal/evalcal/inspection"
)

// sampleWire is the part of an EvalSample a load reads; every field is
// decoded on its own, so that a bad one is named.
type sampleWire struct {
	ID           json.RawMessage `json:"id"`
	Epoch        json.RawMessage `json:"epoch"`
	Scores       json.RawMessage `json:"scores"`
	Score        json.RawMessage `json:"score"`
	Error        json.RawMessage `json:"error"`
	Limit        json.RawMessage `json:"limit"`
	Invalidation json.RawMessage `json:"invalidation"`
}

// addSample reads one sample's JSON. member, in a .eval log, is the
// member's name, from which the id and epoch of an unreadable sample are
// taken.
func (l *inspectLog) addSample(raw []byte, where, label string, sum []byte, member string) {
	clean := raw // a .json log's samples come clean and checked from its stream
	var err error
	if member != "" {
		clean, err = cleanJSON(raw)
	}
	var s inspectSample
	if err == nil {
		s, err = parseSample(clean)
	}
	s.where, s.label, s.size = where, label, int64(len(raw))
	s.hash = hex.EncodeToString(sum)
	if err != nil {
		l.reject(s, member, err)
		return
	}
	l.samples = append(l.samples, s)
}

// reject records a sample that could not be read: as its run's failure
// when its id and epoch are known (from a .eval member's name at least),
// else as unattributed.
func (l *inspectLog) reject(s inspectSample, member string, err error) {
	if s.id == "" || s.epoch < 1 {
		m := samplesMember.FindStringSubmatch(member)
		if m == nil {
			l.unattributed = append(l.unattributed, fmt.Sprintf("%s: %s%v", s.where, s.label, err))
			return
		}
		s.id, s.epoch, _ = m[1], 0, 0
		s.epoch, _ = strconv.Atoi(m[2])
		if s.epoch < 1 {
			l.unattributed = append(l.unattributed, fmt.Sprintf("%s: %s%v", s.where, s.label, err))
			return
		}
	}
	s.failure = sampleError(s, err)
	l.samples = append(l.samples, s)
}

// sampleError is an error about sample s, naming where it is.
func sampleError(s inspectSample, err error) error {
	return fmt.Errorf("inspect: %s: %ssample %s epoch %d: %w", s.where, s.label, s.id, s.epoch, err)
}

// parseSample reads the fields of an EvalSample that mapping needs; raw
// must be clean (see cleanReader) and valid JSON. On an error, the id and
// epoch are still returned when they could be read.
func parseSample(raw []byte) (inspectSample, error) {
	var s inspectSample
	var w sampleWire
	var metadata json.RawMessage
	err := eachField(raw, func(key, value []byte) { // a later duplicate key wins, as in encoding/json
		switch string(key) {
		case "id":
			w.ID = value
		case "epoch":
			w.Epoch = value
		case "scores":
			w.Scores = value
		case "score":
			w.Score = value
		case "error":
			w.Error = value
		case "limit":
			w.Limit = value
		case "invalidation":
			w.Invalidation = value
		case "metadata":
			metadata = value
		}
	})
	if err != nil {
		return s, err
	}
	id, err := sampleID(w.ID)
	if err != nil {
		return s, &inspection.FieldError{Field: "id", Err: err}
	}
	epoch, err := sampleEpoch(w.Epoch)
	if err != nil {
		return s, &inspection.FieldError{Field: "epoch", Err: err}
	}
	s.id, s.epoch = id, epoch
	if s.scores, err = sampleScores(w.Scores, w.Score); err != nil {
		return s, err
	}
	if s.hasError, s.errMessage, err = sampleErrorMessage(w.Error); err != nil {
		return s, &inspection.FieldError{Field: "error", Err: err}
	}
	if s.limit, err = sampleLimit(w.Limit); err != nil {
		return s, &inspection.FieldError{Field: "limit", Err: err}
	}
	s.invalidated = !isNull(w.Invalidation)
	s.metadata, s.metaSkips = runMetadata("metadata", metadata)
	return s, nil
}

func isNull(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) == 0 || string(t) == "null"
}

// sampleID reads a sample id: a string as is (not empty), a number as
// written ("1", not "1.0" unless written so).
func sampleID(raw json.RawMessage) (string, error) {
	t := bytes.TrimSpace(raw)
	switch {
	case isNull(t):
		return "", errors.New("missing")
	case t[0] == '"':
		var id string
		if err := json.Unmarshal(t, &id); err != nil {
			return "", err
		}
		if id == "" {
			return "", errors.New("empty")
		}
		return id, nil
	case t[0] == '-' || t[0] >= '0' && t[0] <= '9':
		return string(t), nil
	}
	return "", fmt.Errorf("%s is not a string or a number", truncate(string(t), 40))
}

// sampleEpoch reads an epoch: an integer, 1 or more.
func sampleEpoch(raw json.RawMessage) (int, error) {
	if isNull(raw) {
		return 0, errors.New("missing")
	}
	var n json.Number
	if err := json.Unmarshal(raw, &n); err != nil {
		return 0, fmt.Errorf("%s is not a number", truncate(string(bytes.TrimSpace(raw)), 40))
	}
	e, err := strconv.Atoi(string(n))
	if err != nil || e < 1 {
		return 0, fmt.Errorf("%s is not an integer of 1 or more", n)
	}
	return e, nil
}

// scoreWire is the part of a Score a load reads.
type scoreWire struct {
	Value       json.RawMessage `json:"value"`
	Answer      *string         `json:"answer"`
	Explanation *string         `json:"explanation"`
}

// scoreSet is a sample's scores by scorer name: a few, so a list (a map
// costs some 700 bytes a sample more); each name once.
type scoreSet []namedScore

type namedScore struct {
	name  string
	score inspectScore
}

// get returns the score of scorer name.
func (ss scoreSet) get(name string) (inspectScore, bool) {
	for _, n := range ss {
		if n.name == name {
			return n.score, true
		}
	}
	return inspectScore{}, false
}

// set gives scorer name the score sc, in place of the one it had.
func (ss *scoreSet) set(name string, sc inspectScore) {
	for i := range *ss {
		if (*ss)[i].name == name {
			(*ss)[i].score = sc
			return
		}
	}
	*ss = append(*ss, namedScore{name, sc})
}

// remove removes scorer name's score.
func (ss *scoreSet) remove(name string) {
	*ss = slices.DeleteFunc(*ss, func(n namedScore) bool { return n.name == name })
}

// sampleScores reads a sample's scores (or the single score of old logs,
// under legacyScorer). A score that cannot be read fails only that
// scorer's mapping. A scorer named twice has its last score, as
// encoding/json would decode it into a map.
func sampleScores(scores, legacy json.RawMessage) (scoreSet, error) {
	out := scoreSet{}
	switch {
	case !isNull(scores):
		err := eachField(scores, func(key, value []byte) { out.set(string(key), scoreOf(string(key), value)) })
		if err != nil {
			return nil, &inspection.FieldError{Field: "scores", Err: errors.New("not an object of scorer name to score")}
		}
	case !isNull(legacy):
		out.set(legacyScorer, scoreOf(legacyScorer, legacy))
	}
	return out, nil
}

// scoreOf reads scorer name's Score; a Score that cannot be read is the
// score's error.
func scoreOf(name string, r json.RawMessage) inspectScore {
	w, ok := scoreFields(r)
	var err error
	if !ok {
		w = scoreWire{}
		err = json.Unmarshal(r, &w)
	}
	sc := inspectScore{}
	if err != nil {
		sc.err = &inspection.FieldError{Field: "scores." + name, Err: errors.New("not a Score object")}
	} else if w.Value == nil {
		sc.err = &inspection.FieldError{Field: "scores." + name + ".value", Err: errors.New("missing")}
	}
	sc.value = w.Value
	if w.Answer != nil {
		sc.answer = truncate(oneLine(*w.Answer), SummaryRunes)
	}
	if w.Explanation != nil {
		sc.explanation = truncate(oneLine(*w.Explanation), SummaryRunes)
	}
	return sc
}

// scoreFields reads a Score as json.Unmarshal into a scoreWire would,
// without decoding what it skips, when that is plain: an object whose
// value, answer and explanation keys are written so (not in another
// case, which encoding/json would match too) and whose answer and
// explanation are strings or null. ok is false otherwise, and the caller
// decodes it with encoding/json. raw must be valid JSON.
func scoreFields(raw json.RawMessage) (w scoreWire, ok bool) {
	plain := true
	var value, answer, explanation []byte
	err := eachField(raw, func(key, v []byte) {
		switch string(key) {
		case "value":
			value = v
		case "answer":
			answer = v
		case "explanation":
			explanation = v
		default:
			if bytes.EqualFold(key, []byte("value")) || bytes.EqualFold(key, []byte("answer")) ||
				bytes.EqualFold(key, []byte("explanation")) {
				plain = false
			}
		}
	})
	if err != nil || !plain {
		return scoreWire{}, false
	}
	if value != nil {
		w.Value = bytes.Clone(value) // raw is the whole sample: keep the value only
	}
	if w.Answer, ok = jsonString(answer); !ok {
		return scoreWire{}, false
	}
	if w.Explanation, ok = jsonString(explanation); !ok {
		return scoreWire{}, false
	}
	return w, true
}

// jsonString decodes a JSON string as encoding/json does into a *string:
// nil for an absent value or null. ok is false when raw is another value.
func jsonString(raw []byte) (s *string, ok bool) {
	switch {
	case raw == nil || string(raw) == "null":
		return nil, true
	case raw[0] != '"':
		return nil, false
	}
	var str string
	if inner := raw[1 : len(raw)-1]; bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		str = string(inner) // nothing to unescape or replace
	} else if json.Unmarshal(raw, &str) != nil {
		return nil, false
	}
	return &str, true
}

// sampleErrorMessage reads a sample's error: an EvalError object (its
// message) or, in summaries, a string.
func sampleErrorMessage(raw json.RawMessage) (bool, string, error) {
	if isNull(raw) {
		return false, "", nil
	}
	var msg string
	if json.Unmarshal(raw, &msg) == nil {
		return true, truncate(oneLine(msg), SummaryRunes), nil
	}
	var e struct {
		Message *string `json:"message"`
	}
	if err := json.Unmarshal(raw, &e); err != nil {
		return false, "", errors.New("not an EvalError object or a string")
	}
	if e.Message == nil {
		return true, "(no message)", nil
	}
	return true, truncate(oneLine(*e.Message), SummaryRunes), nil
}

// sampleLimit reads the limit that halted a sample: an EvalSampleLimit
// ({type, limit}) or, in summaries, its type.
func sampleLimit(raw json.RawMessage) (string, error) {
	if isNull(raw) {
		return "", nil
	}
	var typ string
	if json.Unmarshal(raw, &typ) == nil {
		return typ + " limit", nil
	}
	var l struct {
		Type  string   `json:"type"`
		Limit *float64 `json:"limit"`
	}
	if err := json.Unmarshal(raw, &l); err != nil {
		return "", errors.New("not an EvalSampleLimit object or a string")
	}
	if l.Limit == nil {
		return l.Type + " limit", nil
	}
	return fmt.Sprintf("%s limit %s", l.Type, strconv.FormatFloat(*l.Limit, 'g', -1, 64)), nil
}
