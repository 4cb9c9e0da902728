package forecast

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"time"

	"github.com/evalcal/evalcal/internal/english"
	"github.com/evalcal/evalcal/internal/lines"
	"github.com/evalcal/evalcal/statistician"
)

// BadLine is an input line (or database row) that could not be used
// (internal/lines, shared with the pairwise reader).
type BadLine = lines.BadLine

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
	// SealVersion is the version of the seal the line carried: 0 for
	// none, 1 or 2 (see SealV2Of), -1 for an unknown version (tampered).
	SealVersion int
	Line        int
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
	return parseCallInto(line, nil)
}

// parseCallInto is ParseCall decoding into raw (see decodeObjectInto).
func parseCallInto(line []byte, raw rawFields) (Call, error) {
	raw, err := decodeObjectInto(line, raw)
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
	c.Seal, c.SealVersion = checkSeal(seal, raw)
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
	// Limits bounds line and file sizes (zero value: the defaults).
	Limits ReadLimits
	// Workers is how many goroutines parse and resolve calls; 0 means
	// one per core (GOMAXPROCS). The result does not depend on it.
	Workers int
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
	// SealedV2, SealedV1 and Unsealed split the counted calls by the
	// seal they carry: a valid version 2 seal (covering every field that
	// decides eligibility and resolution), a valid version 1 seal
	// (covering id, agent, decided_at, action, confidence, horizon_hours
	// and reference_price only), or none.
	SealedV2 int `yaml:"sealed_v2" json:"sealed_v2"`
	SealedV1 int `yaml:"sealed_v1" json:"sealed_v1"`
	Unsealed int `yaml:"unsealed" json:"unsealed"`
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
	// SealVersion is the version the call's seal claims: "v1", "v2" or
	// "unknown" (empty for an unsealed call).
	SealVersion string `yaml:"seal_version,omitempty" json:"seal_version,omitempty"`
}

// CallReport is the result of resolving a calls file.
type CallReport struct {
	AsOf      time.Time    `yaml:"-" json:"-"`
	Groups    []GroupScore `yaml:"groups" json:"groups"`
	Passports []Passport   `yaml:"passports" json:"passports"`
	// Tampered calls carry a seal that does not match their fields; they
	// are excluded from every count.
	Tampered []CallRef `yaml:"tampered" json:"tampered"`
	// Unsealed is the number of counted calls without a seal, and
	// UnsealedIgnored the number of other calls (holds, protective and
	// system calls) without one.
	Unsealed        int `yaml:"unsealed" json:"unsealed"`
	UnsealedIgnored int `yaml:"unsealed_ignored" json:"unsealed_ignored"`
	// SealedV2 and SealedV1 count the calls (counted or not, tampered
	// ones excluded) with a valid seal of each version.
	SealedV2 int       `yaml:"sealed_v2" json:"sealed_v2"`
	SealedV1 int       `yaml:"sealed_v1" json:"sealed_v1"`
	BadLines []BadLine `yaml:"bad_lines" json:"bad_lines"`
	Warnings []string  `yaml:"warnings" json:"warnings"`
}

// ResolveCalls streams JSONL calls from r, resolves each counted call
// against prices at opts.AsOf (ResolveCall) and scores them per agent and
// season. Lines are parsed and resolved on opts.Workers goroutines and
// tallied in input order, so the result does not depend on the number
// of workers. Bad lines, including a repeated id of the same agent (the
// first one stands; see callIDSet for how ids are remembered), lines
// longer than opts.Limits.MaxLineBytes, lines holding a NUL byte and
// lines starting with a byte-order mark (one is allowed at the start of
// the input), are reported in the result and skipped. Groups and
// passports are sorted by agent then season.
//
// Memory is O(groups + distinct confidences per group) plus about 38
// bytes per distinct call id and a few chunks of input (at most about
// 3 x workers x (256 KiB + MaxLineBytes)); time is O(calls log prices).
// prices must not be changed while ResolveCalls runs. It returns an error
// when r cannot be read, holds more than opts.Limits.MaxFileBytes bytes
// (ErrInputTooLarge), ctx is done (ctx.Err()), or opts.AsOf is zero.
func ResolveCalls(ctx context.Context, r io.Reader, prices *Prices, opts CallOptions) (CallReport, error) {
	if opts.AsOf.IsZero() {
		return CallReport{}, errors.New("forecast: resolve calls: as-of time not set")
	}
	lim, err := opts.Limits.resolve()
	if err != nil {
		return CallReport{}, fmt.Errorf("forecast: resolve calls %s: %w", opts.File, err)
	}
	if prices == nil {
		prices = NewPrices()
	}
	workers := opts.Workers
	if workers <= 0 {
		workers = readWorkers()
	}
	rep := CallReport{AsOf: opts.AsOf.UTC()}
	t := newCallTally(opts.File)
	work := func(c *lineChunk) []resolvedLine {
		return resolveChunk(c, lim.MaxLineBytes, prices, rep.AsOf)
	}
	err = forEachChunk(ctx, newChunkReader(r, lim, 1), workers, work, func(lines []resolvedLine) error {
		for i := range lines {
			t.add(&rep, &lines[i])
		}
		return nil
	})
	if err != nil {
		return CallReport{}, fmt.Errorf("forecast: read calls %s: %w", opts.File, err)
	}
	if err := t.finish(&rep); err != nil {
		return CallReport{}, err
	}
	return rep, nil
}

// ResolveCallsFile is ResolveCalls on the file at path, which must be a
// regular file (a FIFO or device is refused before it is opened) no
// larger than opts.Limits.MaxFileBytes. opts.File defaults to path.
func ResolveCallsFile(ctx context.Context, path string, prices *Prices, opts CallOptions) (CallReport, error) {
	lim, err := opts.Limits.resolve()
	if err != nil {
		return CallReport{}, fmt.Errorf("forecast: resolve calls %s: %w", path, err)
	}
	f, err := OpenRegular(path, lim.MaxFileBytes)
	if err != nil {
		return CallReport{}, fmt.Errorf("forecast: read calls: %w", err)
	}
	defer f.Close()
	if opts.File == "" {
		opts.File = path
	}
	return ResolveCalls(ctx, f, prices, opts)
}

// resolvedLine is one line of a calls input after parsing and resolution
// (done in parallel); callTally counts it (in input order).
type resolvedLine struct {
	n        int
	err      error // the line is bad; nothing else is set
	call     Call
	key      callKey
	status   Status
	noPrices bool // the call's pool has no prices at all
}

// resolveChunk parses and resolves the lines of c.
func resolveChunk(c *lineChunk, maxLine int, prices *Prices, asOf time.Time) []resolvedLine {
	out := make([]resolvedLine, 0, bytes.Count(c.data, []byte{'\n'})+1)
	var keyBuf []byte
	raw := make(rawFields, 16)
	c.each(maxLine, func(line []byte, n int) {
		call, err := parseCallInto(line, raw)
		if err != nil {
			out = append(out, resolvedLine{n: n, err: err})
			return
		}
		call.Line = n
		r := resolvedLine{n: n, call: call}
		r.key, keyBuf = keyOfCall(keyBuf, call.Agent, call.ID)
		if call.Seal != SealTampered && call.Counts() {
			r.noPrices = len(prices.pools[call.Pool]) == 0
			r.status, _ = ResolveCall(call, prices, asOf)
		}
		out = append(out, r)
	}, func(n int, err error) {
		out = append(out, resolvedLine{n: n, err: err})
	})
	return out
}

// callTally accumulates resolved lines into a CallReport.
type callTally struct {
	file     string
	groups   map[[2]string]*GroupScore
	seen     callIDSet
	noPrices map[string]int // counted calls per pool that has no prices at all
}

func newCallTally(file string) *callTally {
	return &callTally{file: file, groups: map[[2]string]*GroupScore{}, seen: newCallIDSet(), noPrices: map[string]int{}}
}

// add counts one line.
func (t *callTally) add(rep *CallReport, r *resolvedLine) {
	if r.err != nil {
		rep.BadLines = append(rep.BadLines, BadLineOf(t.file, r.n, r.err))
		return
	}
	c := &r.call
	if first, dup := t.seen.add(r.key, r.n); dup {
		where := "on an earlier line"
		if first > 0 {
			where = fmt.Sprintf("on line %d", first)
		}
		rep.BadLines = append(rep.BadLines, BadLine{File: t.file, Line: r.n, Field: "id",
			Error: fmt.Sprintf("repeats id %q of agent %q first seen %s", c.ID, c.Agent, where)})
		return
	}
	if c.Seal == SealTampered {
		rep.Tampered = append(rep.Tampered, CallRef{ID: c.ID, Agent: c.Agent, File: t.file, Line: r.n, SealVersion: sealVersionName(c.SealVersion)})
		return
	}
	switch {
	case c.Seal == SealValid && c.SealVersion == 1:
		rep.SealedV1++
	case c.Seal == SealValid && c.SealVersion == 2:
		rep.SealedV2++
	}
	gk := [2]string{c.Agent, c.Season}
	g := t.groups[gk]
	if g == nil {
		g = &GroupScore{Agent: c.Agent, Season: c.Season, scores: statistician.NewDistinctAccumulator()}
		t.groups[gk] = g
	}
	if !c.Counts() {
		g.Ignored++
		if c.Seal == Unsealed {
			rep.UnsealedIgnored++
		}
		return
	}
	g.Counted++
	switch {
	case c.Seal == Unsealed:
		rep.Unsealed++
		g.Unsealed++
	case c.SealVersion == 1:
		g.SealedV1++
	default:
		g.SealedV2++
	}
	if c.Refused {
		g.Refused++
	}
	if r.noPrices {
		t.noPrices[c.Pool]++
	}
	switch r.status {
	case Right, Wrong:
		g.Resolved++
		outcome := 0
		if r.status == Right {
			g.Right++
			outcome = 1
		} else {
			g.Wrong++
		}
		// ParseCall checked the confidence, so Add cannot fail.
		_ = g.scores.Add(c.Confidence, outcome)
	case Pending:
		g.Pending++
	case Unresolved:
		g.Unresolved++
	case ClosedWithoutOutcome:
		g.ClosedWithoutOutcome++
	}
}

// finish sorts the groups into rep, sums the passports and adds the
// warnings.
func (t *callTally) finish(rep *CallReport) error {
	keys := make([][2]string, 0, len(t.groups))
	for k := range t.groups {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i][0] != keys[j][0] {
			return keys[i][0] < keys[j][0]
		}
		return keys[i][1] < keys[j][1]
	})
	for _, k := range keys {
		g := t.groups[k]
		if err := g.finish(); err != nil {
			return err
		}
		rep.Groups = append(rep.Groups, *g)
		if len(rep.Passports) == 0 || rep.Passports[len(rep.Passports)-1].Agent != g.Agent {
			rep.Passports = append(rep.Passports, Passport{Agent: g.Agent})
		}
		p := &rep.Passports[len(rep.Passports)-1]
		p.Resolved += g.Resolved
		p.Correct += g.Right
	}
	pools := make([]string, 0, len(t.noPrices))
	for pool := range t.noPrices {
		pools = append(pools, pool)
	}
	sort.Strings(pools)
	for _, pool := range pools {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("pool %q of %s has no prices at all", pool, english.Count(t.noPrices[pool], "counted call", "counted calls")))
	}
	if len(rep.Tampered) > 0 {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("%s excluded: seal does not match the sealed fields", english.Count(len(rep.Tampered), "call", "calls")))
	}
	if rep.SealedV1 > 0 {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("%s a version 1 seal, which does not cover season, decider, pool or refused", english.Count(rep.SealedV1, "call carries", "calls carry")))
	}
	return nil
}

// finish computes the group's Brier and calibration terms.
func (g *GroupScore) finish() error {
	if g.Resolved < minResolvedForCalibration {
		g.Reason = fmt.Sprintf("%s; calibration needs at least %d", english.Count(g.Resolved, "resolved call", "resolved calls"), minResolvedForCalibration)
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
