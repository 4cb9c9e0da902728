package forecast

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"time"

	"github.com/evalcal/evalcal/statistician"
)

// BadLine is an input line (or database row) that could not be used:
// where it is and which field was wrong. Bad lines are reported, never
// fatal.
type BadLine struct {
	File  string `yaml:"file" json:"file"`
	Line  int    `yaml:"line" json:"line"`
	Field string `yaml:"field" json:"field"`
	Error string `yaml:"error" json:"error"`
}

// Call is one trading call: a direction, a confidence and a horizon
// stated by an agent's decider before the outcome exists.
type Call struct {
	ID      string
	Agent   string
	Season  string
	Decider string // llm, deterministic, protective or system
	Action  string // buy, sell or hold
	Pool    string
	// DecidedAt is when the call was made (UTC).
	DecidedAt time.Time
	// Confidence is the stated probability that the call is right, in
	// [0, 1]; HasConfidence is false when the line had none.
	Confidence    float64
	HasConfidence bool
	// HorizonHours is how long after DecidedAt the call is checked (> 0).
	HorizonHours float64
	HasHorizon   bool
	// ReferencePrice is the price the direction is measured against (> 0).
	ReferencePrice    float64
	HasReferencePrice bool
	// Refused calls were stated but blocked (e.g. by a limit); they count.
	Refused bool
	Seal    SealStatus
	Line    int
}

// maxHorizonHours bounds horizons so that due times cannot overflow
// (ten years).
const maxHorizonHours = 24 * 366 * 10

// Counts reports whether the call is scored: a buy or sell by the agent's
// own decider (llm or deterministic) with a confidence, a horizon and a
// reference price. Holds, protective exits and system holds do not count;
// refused calls do.
func (c Call) Counts() bool {
	return (c.Action == "buy" || c.Action == "sell") &&
		(c.Decider == "llm" || c.Decider == "deterministic") &&
		c.HasConfidence && c.HasHorizon && c.HasReferencePrice
}

// Due returns DecidedAt + HorizonHours.
func (c Call) Due() time.Time {
	return c.DecidedAt.Add(time.Duration(math.Round(c.HorizonHours * float64(time.Hour))))
}

// ParseCall decodes one JSONL call line. Numbers keep their literal text
// for the seal check (see SealOf). It returns an error naming the field
// (as "field: problem") when the line is not a valid call: id, agent,
// decider, action and decided_at are required; confidence must lie in
// [0, 1], horizon_hours in (0, 87840], reference_price > 0; decider must
// be llm, deterministic, protective or system; action buy, sell or hold;
// a buy or sell by llm or deterministic needs a pool.
func ParseCall(line []byte) (Call, error) {
	raw, err := decodeObject(line)
	if err != nil {
		return Call{}, err
	}
	var c Call
	if c.ID, err = raw.required("id"); err != nil {
		return Call{}, err
	}
	if c.Agent, err = raw.required("agent"); err != nil {
		return Call{}, err
	}
	if c.Season, err = raw.label("season"); err != nil {
		return Call{}, err
	}
	if c.Decider, err = raw.oneOf("decider", "llm", "deterministic", "protective", "system"); err != nil {
		return Call{}, err
	}
	if c.Action, err = raw.oneOf("action", "buy", "sell", "hold"); err != nil {
		return Call{}, err
	}
	if c.DecidedAt, err = raw.time("decided_at"); err != nil {
		return Call{}, err
	}
	if c.Confidence, c.HasConfidence, err = raw.number("confidence"); err != nil {
		return Call{}, err
	}
	if c.HasConfidence && (c.Confidence < 0 || c.Confidence > 1) {
		return Call{}, fieldErrorf("confidence", "%v outside [0, 1]", c.Confidence)
	}
	if c.HorizonHours, c.HasHorizon, err = raw.number("horizon_hours"); err != nil {
		return Call{}, err
	}
	if c.HasHorizon && !(c.HorizonHours > 0 && c.HorizonHours <= maxHorizonHours) {
		return Call{}, fieldErrorf("horizon_hours", "%v outside (0, %d]", c.HorizonHours, maxHorizonHours)
	}
	if c.ReferencePrice, c.HasReferencePrice, err = raw.number("reference_price"); err != nil {
		return Call{}, err
	}
	if c.HasReferencePrice && !(c.ReferencePrice > 0) {
		return Call{}, fieldErrorf("reference_price", "%v must be > 0", c.ReferencePrice)
	}
	if c.Pool, _, err = raw.str("pool"); err != nil {
		return Call{}, err
	}
	if c.Refused, err = raw.boolean("refused"); err != nil {
		return Call{}, err
	}
	seal, _, err := raw.str("seal")
	if err != nil {
		return Call{}, err
	}
	c.Seal = checkSeal(seal, raw)
	if c.Counts() && c.Pool == "" {
		return Call{}, fieldErrorf("pool", "missing")
	}
	return c, nil
}

// CallOptions configures ResolveCalls.
type CallOptions struct {
	// AsOf is the time the calls are resolved at: windows that have not
	// passed by then are pending. It must be set.
	AsOf time.Time
	// File names the calls input in bad-line reports.
	File string
}

// CloseAfter is how long after its due time an unresolved call is closed
// with no outcome (issue 4: seven days).
const CloseAfter = 7 * 24 * time.Hour

// minResolvedForCalibration is the fewest resolved calls for which the
// calibration term is measured (issue 4).
const minResolvedForCalibration = 5

// Status is what became of a counted call at the as-of time.
type Status int

const (
	// Pending: the price window [due, due+2h) has not passed.
	Pending Status = iota
	// Right and Wrong: resolved against the first price in the window.
	Right
	Wrong
	// Unresolved: the window passed with no price; not yet closed.
	Unresolved
	// ClosedWithoutOutcome: unresolved 7 days after due.
	ClosedWithoutOutcome
)

// ResolveCall resolves a counted call against prices at asOf. The price
// used is the first price of the call's pool with due <= ts < due + 2h
// and ts <= asOf. A buy is right when that price is above the reference
// price, a sell when below; equal is wrong. With no price and the window
// passed, the call is unresolved, and closed without outcome from
// due + 7 days on. It returns the status and the price used (zero unless
// Right or Wrong).
func ResolveCall(c Call, prices *Prices, asOf time.Time) (Status, PricePoint) {
	due := c.Due()
	end := due.Add(PriceWindow)
	if p, ok := prices.First(c.Pool, due, end); ok && !p.At.After(asOf) {
		right := (c.Action == "buy" && p.Price > c.ReferencePrice) ||
			(c.Action == "sell" && p.Price < c.ReferencePrice)
		if right {
			return Right, p
		}
		return Wrong, p
	}
	switch {
	case asOf.Before(end):
		return Pending, PricePoint{}
	case !asOf.Before(due.Add(CloseAfter)):
		return ClosedWithoutOutcome, PricePoint{}
	}
	return Unresolved, PricePoint{}
}

// GroupScore is the record of one agent in one season.
type GroupScore struct {
	Agent  string `yaml:"agent" json:"agent"`
	Season string `yaml:"season" json:"season"`
	// Counted calls are scored buys and sells; Ignored are holds,
	// protective exits, system calls and calls lacking a confidence,
	// horizon or reference price. Refused counts the counted calls that
	// were refused.
	Counted              int `yaml:"counted" json:"counted"`
	Ignored              int `yaml:"ignored" json:"ignored"`
	Refused              int `yaml:"refused" json:"refused"`
	Resolved             int `yaml:"resolved" json:"resolved"`
	Right                int `yaml:"right" json:"right"`
	Wrong                int `yaml:"wrong" json:"wrong"`
	Pending              int `yaml:"pending" json:"pending"`
	Unresolved           int `yaml:"unresolved" json:"unresolved"`
	ClosedWithoutOutcome int `yaml:"closed_without_outcome" json:"closed_without_outcome"`
	// Brier is the mean of (confidence - outcome)^2 over resolved calls;
	// Calibration is clamp01(1 - Brier/0.25) x 100. Both are nil, with
	// Reason, under 5 resolved calls.
	Brier       *float64 `yaml:"brier" json:"brier"`
	Calibration *float64 `yaml:"calibration" json:"calibration"`
	Reason      string   `yaml:"reason,omitempty" json:"reason,omitempty"`

	// scores accumulates (confidence, outcome) of the resolved calls.
	scores *statistician.DistinctAccumulator
}

// Passport is an agent's record over all seasons.
type Passport struct {
	Agent    string `yaml:"agent" json:"agent"`
	Resolved int    `yaml:"resolved" json:"resolved"`
	Correct  int    `yaml:"correct" json:"correct"`
}

// CallRef names a call in the input.
type CallRef struct {
	ID    string `yaml:"id" json:"id"`
	Agent string `yaml:"agent" json:"agent"`
	File  string `yaml:"file" json:"file"`
	Line  int    `yaml:"line" json:"line"`
}

// CallReport is the result of resolving a calls file.
type CallReport struct {
	AsOf      time.Time    `yaml:"-" json:"-"`
	Groups    []GroupScore `yaml:"groups" json:"groups"`
	Passports []Passport   `yaml:"passports" json:"passports"`
	// Tampered calls carry a seal that does not match their fields; they
	// are excluded from every count.
	Tampered []CallRef `yaml:"tampered" json:"tampered"`
	// Unsealed is the number of counted calls without a seal.
	Unsealed int       `yaml:"unsealed" json:"unsealed"`
	BadLines []BadLine `yaml:"bad_lines" json:"bad_lines"`
	Warnings []string  `yaml:"warnings" json:"warnings"`
}

// ResolveCalls streams JSONL calls from r, resolves each counted call
// against prices at opts.AsOf (ResolveCall) and scores them per agent and
// season. Memory is O(groups + distinct call ids), time O(calls log
// prices). Bad lines, including a repeated id of the same agent (the
// first one stands), are reported in the result and skipped. Groups and
// passports are sorted by agent then season. It returns an error only
// when r cannot be read, ctx is done, or opts.AsOf is zero.
func ResolveCalls(ctx context.Context, r io.Reader, prices *Prices, opts CallOptions) (CallReport, error) {
	if opts.AsOf.IsZero() {
		return CallReport{}, errors.New("forecast: resolve calls: as-of time not set")
	}
	if prices == nil {
		prices = NewPrices()
	}
	rep := CallReport{AsOf: opts.AsOf.UTC()}
	groups := map[[2]string]*GroupScore{}
	seen := map[[2]string]int{}
	noPrices := map[string]int{} // counted calls per pool that has no prices at all
	err := eachLine(ctx, r, func(line []byte, n int) error {
		c, err := ParseCall(line)
		if err != nil {
			rep.BadLines = append(rep.BadLines, badLineOf(opts.File, n, err))
			return nil
		}
		key := [2]string{c.Agent, c.ID}
		if first, dup := seen[key]; dup {
			rep.BadLines = append(rep.BadLines, BadLine{File: opts.File, Line: n, Field: "id",
				Error: fmt.Sprintf("repeats id %q of agent %q first seen on line %d", c.ID, c.Agent, first)})
			return nil
		}
		seen[key] = n
		ref := CallRef{ID: c.ID, Agent: c.Agent, File: opts.File, Line: n}
		if c.Seal == SealTampered {
			rep.Tampered = append(rep.Tampered, ref)
			return nil
		}
		g := groups[[2]string{c.Agent, c.Season}]
		if g == nil {
			g = &GroupScore{Agent: c.Agent, Season: c.Season, scores: statistician.NewDistinctAccumulator()}
			groups[[2]string{c.Agent, c.Season}] = g
		}
		if !c.Counts() {
			g.Ignored++
			return nil
		}
		if c.Seal == Unsealed {
			rep.Unsealed++
		}
		g.Counted++
		if c.Refused {
			g.Refused++
		}
		if len(prices.pools[c.Pool]) == 0 {
			noPrices[c.Pool]++
		}
		status, _ := ResolveCall(c, prices, rep.AsOf)
		switch status {
		case Right, Wrong:
			g.Resolved++
			outcome := 0
			if status == Right {
				g.Right++
				outcome = 1
			} else {
				g.Wrong++
			}
			if err := g.scores.Add(c.Confidence, outcome); err != nil {
				return fmt.Errorf("line %d: %w", n, err) // unreachable: ParseCall checked the confidence
			}
		case Pending:
			g.Pending++
		case Unresolved:
			g.Unresolved++
		case ClosedWithoutOutcome:
			g.ClosedWithoutOutcome++
		}
		return nil
	})
	if err != nil {
		return CallReport{}, fmt.Errorf("forecast: read calls %s: %w", opts.File, err)
	}
	keys := make([][2]string, 0, len(groups))
	for k := range groups {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i][0] != keys[j][0] {
			return keys[i][0] < keys[j][0]
		}
		return keys[i][1] < keys[j][1]
	})
	for _, k := range keys {
		g := groups[k]
		if err := g.finish(); err != nil {
			return CallReport{}, err
		}
		rep.Groups = append(rep.Groups, *g)
		if len(rep.Passports) == 0 || rep.Passports[len(rep.Passports)-1].Agent != g.Agent {
			rep.Passports = append(rep.Passports, Passport{Agent: g.Agent})
		}
		p := &rep.Passports[len(rep.Passports)-1]
		p.Resolved += g.Resolved
		p.Correct += g.Right
	}
	pools := make([]string, 0, len(noPrices))
	for pool := range noPrices {
		pools = append(pools, pool)
	}
	sort.Strings(pools)
	for _, pool := range pools {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("pool %q of %d counted call(s) has no prices at all", pool, noPrices[pool]))
	}
	if len(rep.Tampered) > 0 {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("%d call(s) excluded: seal does not match the sealed fields", len(rep.Tampered)))
	}
	return rep, nil
}

// finish computes the group's Brier and calibration terms.
func (g *GroupScore) finish() error {
	if g.Resolved < minResolvedForCalibration {
		g.Reason = fmt.Sprintf("%d resolved call(s); calibration needs at least %d", g.Resolved, minResolvedForCalibration)
		return nil
	}
	b, err := g.scores.Brier()
	if err != nil {
		return fmt.Errorf("forecast: brier of %s/%s: %w", g.Agent, g.Season, err)
	}
	cal := statistician.CalibrationScore(b)
	g.Brier, g.Calibration = &b, &cal
	return nil
}

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

// badLineOf turns a parse error into a BadLine; an error that names no
// field is attributed to the whole line (field "line").
func badLineOf(file string, line int, err error) BadLine {
	field := "line"
	var fe *fieldError
	if errors.As(err, &fe) {
		field = fe.field
		err = fe.err
	}
	return BadLine{File: file, Line: line, Field: field, Error: err.Error()}
}

// eachLine calls fn with every non-blank line of r and its 1-based
// number. Lines may be of any length. It stops at the first error fn
// returns, at a read error, or when ctx is done.
func eachLine(ctx context.Context, r io.Reader, fn func(line []byte, n int) error) error {
	br := bufio.NewReaderSize(r, 1<<16)
	for n := 1; ; n++ {
		if n%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			buf := append([]byte(nil), line...)
			for errors.Is(err, bufio.ErrBufferFull) {
				line, err = br.ReadSlice('\n')
				buf = append(buf, line...)
			}
			line = buf
		}
		if len(bytes.TrimSpace(line)) > 0 {
			if ferr := fn(line, n); ferr != nil {
				return ferr
			}
		}
		if err == io.EOF {
			return ctx.Err()
		}
		if err != nil {
			return err
		}
	}
}

// rawFields is one decoded JSON object with its values kept raw, so that
// numbers keep their literal text.
type rawFields map[string]json.RawMessage

// decodeObject splits one JSON object into its members without decoding
// the values (eachMember, shared with the forecast reader); a repeated key
// keeps its last value, as with encoding/json.
func decodeObject(line []byte) (rawFields, error) {
	line = bytes.TrimSpace(line)
	if !validJSON(line) {
		var v any
		err := json.Unmarshal(line, &v) // for the syntax error's message
		return nil, fmt.Errorf("not a JSON object: %w", err)
	}
	if line[0] != '{' {
		return nil, fmt.Errorf("not a JSON object: %s", excerpt(line))
	}
	raw := make(rawFields, 16)
	err := eachMember(line, func(key []byte, v jsonValue) error {
		raw[string(key)] = v.raw
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("not a JSON object: %w", err)
	}
	return raw, nil
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
	if err := json.Unmarshal(raw[key], &s); err != nil {
		return "", false, fieldErrorf(key, "must be a string, got %s", excerpt(raw[key]))
	}
	return s, true, nil
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
	if _, ok, err := raw.number(key); ok && err == nil {
		return string(bytes.TrimSpace(raw[key])), nil
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
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, fieldErrorf(field, "not an RFC 3339 time: %q", s)
	}
	if t.Before(minTimestamp) || !t.Before(maxTimestamp) {
		return time.Time{}, fieldErrorf(field, "time %q outside years 1700-2199", s)
	}
	return t.UTC(), nil
}

// excerpt shortens a value for an error message.
func excerpt(v []byte) string {
	const max = 40
	if len(v) > max {
		return string(v[:max]) + "..."
	}
	return string(v)
}
