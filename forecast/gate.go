package forecast

import (
	"context"
	"fmt"
	"io"
	"sort"

	"github.com/evalcal/evalcal/internal/english"
	"github.com/evalcal/evalcal/statistician"
)

// Gate constants (issue 4).
const (
	// GateMinOutcomes is the fewest held-out outcomes a candidate needs
	// before it can be injected or retired; it is also the length of the
	// recent window that can demote an injected lesson.
	GateMinOutcomes = 8
	// GateMinHistory is the fewest history records for a layer's baseline
	// to come from its history; with fewer the baseline is 0.5.
	GateMinHistory = 8
	// GateZ is the two-sided 95% quantile as the issue states it, before
	// the Bonferroni adjustment.
	GateZ = 1.96
	// DefaultBaseline is the baseline of a layer with too little history.
	DefaultBaseline = 0.5
)

// Gate decisions.
const (
	DecisionAdopt  = "adopt"  // tool-record or audit evidence: adopted directly
	DecisionInject = "inject" // Wilson lower bound above the baseline
	DecisionShadow = "shadow" // not enough evidence either way
	DecisionDemote = "demote" // injected, but its last 8 outcomes no longer clear the baseline
	DecisionRetire = "retire" // Wilson upper bound at or below the baseline
)

// GateCandidate is a candidate lesson: a line with "type": "candidate".
type GateCandidate struct {
	Candidate string
	Layer     string // task or conversation
	BornSeq   int64
	Evidence  string // tool_record, audit or none
	State     string // shadow or injected
	Line      int
}

// GateEvent is one held-out outcome of a candidate: hit when the risk the
// candidate predicted happened.
type GateEvent struct {
	Candidate string
	Layer     string
	Seq       int64
	Hit       bool
	Line      int
}

// GateHistory is one history record of a layer: whether the outcome was
// high-risk.
type GateHistory struct {
	Layer    string
	HighRisk bool
}

// GateInput is what an events file holds.
type GateInput struct {
	Candidates []GateCandidate
	Events     []GateEvent
}

// ParseGateLine decodes one line of an events file: a candidate
// {"type": "candidate", "candidate", "layer", "born_seq", "evidence",
// "state"} or an event {"candidate", "layer", "seq", "hit"} ("type"
// absent or "event"). layer must be task or conversation; evidence
// tool_record, audit or none; state shadow (default) or injected;
// born_seq is required unless the evidence is tool_record or audit. It
// returns exactly one of the candidate and the event, or an error naming
// the field.
func ParseGateLine(line []byte) (*GateCandidate, *GateEvent, error) {
	raw, err := decodeObject(line)
	if err != nil {
		return nil, nil, err
	}
	typ, _, err := raw.str("type")
	if err != nil {
		return nil, nil, err
	}
	name, err := raw.required("candidate")
	if err != nil {
		return nil, nil, err
	}
	layer, err := raw.oneOf("layer", "task", "conversation")
	if err != nil {
		return nil, nil, err
	}
	switch typ {
	case "candidate":
		c := GateCandidate{Candidate: name, Layer: layer, State: "shadow"}
		if c.Evidence, err = raw.oneOf("evidence", "tool_record", "audit", "none"); err != nil {
			return nil, nil, err
		}
		if !raw.absent("state") {
			if c.State, err = raw.oneOf("state", "shadow", "injected"); err != nil {
				return nil, nil, err
			}
		}
		born, ok, err := raw.integer("born_seq")
		if err != nil {
			return nil, nil, err
		}
		if !ok && c.Evidence == "none" {
			return nil, nil, fieldErrorf("born_seq", "missing")
		}
		c.BornSeq = born
		return &c, nil, nil
	case "", "event":
		e := GateEvent{Candidate: name, Layer: layer}
		seq, ok, err := raw.integer("seq")
		if err != nil {
			return nil, nil, err
		}
		if !ok {
			return nil, nil, fieldErrorf("seq", "missing")
		}
		e.Seq = seq
		if raw.absent("hit") {
			return nil, nil, fieldErrorf("hit", "missing")
		}
		if e.Hit, err = raw.boolean("hit"); err != nil {
			return nil, nil, err
		}
		return nil, &e, nil
	}
	return nil, nil, fieldErrorf("type", "%q is not candidate or event", typ)
}

// ReadGateEvents is ReadGateEventsWithLimits with the default limits.
func ReadGateEvents(ctx context.Context, r io.Reader, file string) (GateInput, []BadLine, error) {
	return ReadGateEventsWithLimits(ctx, r, file, ReadLimits{})
}

// ReadGateEventsFile reads an events file (ReadGateEventsWithLimits) at
// path, which must be a regular file (a FIFO or device is refused before
// it is opened) no larger than lim.MaxFileBytes.
func ReadGateEventsFile(ctx context.Context, path string, lim ReadLimits) (GateInput, []BadLine, error) {
	l, err := lim.resolve()
	if err != nil {
		return GateInput{}, nil, fmt.Errorf("forecast: read events %s: %w", path, err)
	}
	f, err := OpenRegular(path, l.MaxFileBytes)
	if err != nil {
		return GateInput{}, nil, fmt.Errorf("forecast: read events: %w", err)
	}
	defer f.Close()
	return ReadGateEventsWithLimits(ctx, f, path, lim)
}

// gateLine is one parsed line of an events file.
type gateLine struct {
	n   int
	err error
	c   *GateCandidate
	e   *GateEvent
}

// ReadGateEventsWithLimits reads an events file (ParseGateLine a line).
// A UTF-8 byte-order mark at the start of r is skipped; CRLF line ends
// are accepted. Bad lines are reported and skipped: lines that do not
// parse, lines longer than lim.MaxLineBytes, holding a NUL byte or
// starting with a byte-order mark, a second candidate line with the same
// layer and name, and a second outcome of a candidate at the same seq
// (an outcome is identified by layer, candidate and seq, so a repeated
// line cannot count twice); a repeat names the line it repeats. It
// returns an error only when r cannot be read, holds more than
// lim.MaxFileBytes bytes (ErrInputTooLarge), or ctx is done.
func ReadGateEventsWithLimits(ctx context.Context, r io.Reader, file string, lim ReadLimits) (GateInput, []BadLine, error) {
	lim, err := lim.resolve()
	if err != nil {
		return GateInput{}, nil, fmt.Errorf("forecast: read events %s: %w", file, err)
	}
	var in GateInput
	var bad []BadLine
	seen := map[[2]string]int{}
	type eventKey struct {
		layer, candidate string
		seq              int64
	}
	seenEvent := map[eventKey]int{}
	work := func(c *lineChunk) []gateLine {
		var out []gateLine
		c.each(lim.MaxLineBytes, func(line []byte, n int) {
			gc, ge, err := ParseGateLine(line)
			out = append(out, gateLine{n: n, err: err, c: gc, e: ge})
		}, func(n int, err error) {
			out = append(out, gateLine{n: n, err: err})
		})
		return out
	}
	err = forEachChunk(ctx, newChunkReader(r, lim, 1), readWorkers(), work, func(lines []gateLine) error {
		for _, l := range lines {
			switch {
			case l.err != nil:
				bad = append(bad, BadLineOf(file, l.n, l.err))
			case l.c != nil:
				c := l.c
				key := [2]string{c.Layer, c.Candidate}
				if first, dup := seen[key]; dup {
					bad = append(bad, BadLine{File: file, Line: l.n, Field: "candidate",
						Error: fmt.Sprintf("candidate %q of layer %s already defined on line %d", c.Candidate, c.Layer, first)})
					continue
				}
				seen[key] = l.n
				c.Line = l.n
				in.Candidates = append(in.Candidates, *c)
			default:
				e := l.e
				key := eventKey{e.Layer, e.Candidate, e.Seq}
				if first, dup := seenEvent[key]; dup {
					bad = append(bad, BadLine{File: file, Line: l.n, Field: "seq",
						Error: fmt.Sprintf("outcome seq %d of candidate %q of layer %s already given on line %d", e.Seq, e.Candidate, e.Layer, first)})
					continue
				}
				seenEvent[key] = l.n
				e.Line = l.n
				in.Events = append(in.Events, *e)
			}
		}
		return nil
	})
	if err != nil {
		return GateInput{}, nil, fmt.Errorf("forecast: read events %s: %w", file, err)
	}
	return in, bad, nil
}

// ReadGateHistory is ReadGateHistoryWithLimits with the default limits.
func ReadGateHistory(ctx context.Context, r io.Reader, file string) ([]GateHistory, []BadLine, error) {
	return ReadGateHistoryWithLimits(ctx, r, file, ReadLimits{})
}

// ReadGateHistoryFile reads history records (ReadGateHistoryWithLimits)
// from the file at path, which must be a regular file no larger than
// lim.MaxFileBytes.
func ReadGateHistoryFile(ctx context.Context, path string, lim ReadLimits) ([]GateHistory, []BadLine, error) {
	l, err := lim.resolve()
	if err != nil {
		return nil, nil, fmt.Errorf("forecast: read history %s: %w", path, err)
	}
	f, err := OpenRegular(path, l.MaxFileBytes)
	if err != nil {
		return nil, nil, fmt.Errorf("forecast: read history: %w", err)
	}
	defer f.Close()
	return ReadGateHistoryWithLimits(ctx, f, path, lim)
}

// historyLine is one parsed history line.
type historyLine struct {
	n   int
	err error
	h   GateHistory
}

// ReadGateHistoryWithLimits reads history records, a JSON object a line:
// {"layer": "task|conversation", "high_risk": bool}. A byte-order mark
// at the start and CRLF line ends are accepted. Bad lines (as for
// ReadGateEventsWithLimits) are reported and skipped. It returns an
// error only when r cannot be read, holds more than lim.MaxFileBytes
// bytes (ErrInputTooLarge), or ctx is done.
func ReadGateHistoryWithLimits(ctx context.Context, r io.Reader, file string, lim ReadLimits) ([]GateHistory, []BadLine, error) {
	lim, err := lim.resolve()
	if err != nil {
		return nil, nil, fmt.Errorf("forecast: read history %s: %w", file, err)
	}
	var hs []GateHistory
	var bad []BadLine
	work := func(c *lineChunk) []historyLine {
		var out []historyLine
		c.each(lim.MaxLineBytes, func(line []byte, n int) {
			h, err := parseGateHistory(line)
			out = append(out, historyLine{n: n, err: err, h: h})
		}, func(n int, err error) {
			out = append(out, historyLine{n: n, err: err})
		})
		return out
	}
	err = forEachChunk(ctx, newChunkReader(r, lim, 1), readWorkers(), work, func(lines []historyLine) error {
		for _, l := range lines {
			if l.err != nil {
				bad = append(bad, BadLineOf(file, l.n, l.err))
				continue
			}
			hs = append(hs, l.h)
		}
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("forecast: read history %s: %w", file, err)
	}
	return hs, bad, nil
}

func parseGateHistory(line []byte) (GateHistory, error) {
	raw, err := decodeObject(line)
	if err != nil {
		return GateHistory{}, err
	}
	layer, err := raw.oneOf("layer", "task", "conversation")
	if err != nil {
		return GateHistory{}, err
	}
	if raw.absent("high_risk") {
		return GateHistory{}, fieldErrorf("high_risk", "missing")
	}
	hr, err := raw.boolean("high_risk")
	if err != nil {
		return GateHistory{}, err
	}
	return GateHistory{Layer: layer, HighRisk: hr}, nil
}

// Baseline is the rate a candidate's hit rate must beat in its layer.
type Baseline struct {
	Rate float64 `yaml:"rate" json:"rate"`
	// Source is "history" (the share of high-risk records) or "default"
	// (fewer than 8 history records: 0.5).
	Source   string `yaml:"source" json:"source"`
	Records  int    `yaml:"records" json:"records"`
	HighRisk int    `yaml:"high_risk" json:"high_risk"`
}

// LayerBaseline returns the baseline of layer: the share of high-risk
// records in its history, or 0.5 with fewer than 8 records.
func LayerBaseline(history []GateHistory, layer string) Baseline {
	b := Baseline{Rate: DefaultBaseline, Source: "default"}
	for _, h := range history {
		if h.Layer != layer {
			continue
		}
		b.Records++
		if h.HighRisk {
			b.HighRisk++
		}
	}
	if b.Records >= GateMinHistory {
		b.Rate = float64(b.HighRisk) / float64(b.Records)
		b.Source = "history"
	}
	return b
}

// GateDecision is the decision on one candidate.
type GateDecision struct {
	Candidate string `yaml:"candidate" json:"candidate"`
	Layer     string `yaml:"layer" json:"layer"`
	Evidence  string `yaml:"evidence" json:"evidence"`
	// State is the candidate's state before, NewState after the decision
	// (adopted, injected, shadow or retired).
	State    string `yaml:"state" json:"state"`
	Decision string `yaml:"decision" json:"decision"`
	NewState string `yaml:"new_state" json:"new_state"`
	Reason   string `yaml:"reason" json:"reason"`
	// N and Hits count the held-out outcomes (seq > born_seq).
	N    int `yaml:"n" json:"n"`
	Hits int `yaml:"hits" json:"hits"`
	// K is the number of candidates of the layer decided together and Z
	// the Bonferroni-adjusted quantile BonferroniZ(1.96, K).
	K int     `yaml:"k" json:"k"`
	Z float64 `yaml:"z" json:"z"`
	// Wilson is the Wilson interval of Hits/N at Z (nil when N = 0).
	Wilson *statistician.Interval `yaml:"wilson" json:"wilson"`
	// RecentHits and RecentLower are the hits among the last 8 outcomes
	// and their Wilson lower bound at z = 1.96 (nil under 8 outcomes).
	RecentHits  *int     `yaml:"recent_hits" json:"recent_hits"`
	RecentLower *float64 `yaml:"recent_lower" json:"recent_lower"`
	Baseline    Baseline `yaml:"baseline" json:"baseline"`
}

// GateReport is the result of DecideGate.
type GateReport struct {
	Decisions []GateDecision `yaml:"decisions" json:"decisions"`
	Warnings  []string       `yaml:"warnings" json:"warnings"`
}

// DecideGate decides every candidate of in (issue 4). A candidate with
// tool_record or audit evidence is adopted. For the others only events
// with seq > born_seq count, ordered by seq; k is the
// number of such candidates in the layer, z = BonferroniZ(1.96, k), and
// (lo, hi) the Wilson interval of hits at z. In this order:
//
//	n < 8                       -> shadow
//	hi <= baseline              -> retire
//	lo > baseline, and the last 8 outcomes' Wilson lower bound at
//	  z = 1.96 <= baseline      -> demote (injected) / shadow (shadow)
//	lo > baseline               -> inject
//	otherwise                   -> shadow
//
// Decisions are sorted by layer, then candidate. Events for unknown
// candidates are counted in a warning. An outcome is identified by
// layer, candidate and seq: a repeat (which ReadGateEvents reports as a
// bad line) is ignored here with a warning, so it can never count twice.
func DecideGate(in GateInput, history []GateHistory) (GateReport, error) {
	type key = [2]string
	type eventKey struct {
		layer, candidate string
		seq              int64
	}
	events := map[key][]GateEvent{}
	seenEvent := make(map[eventKey]bool, len(in.Events))
	repeats := 0
	for _, e := range in.Events {
		ek := eventKey{e.Layer, e.Candidate, e.Seq}
		if seenEvent[ek] {
			repeats++
			continue
		}
		seenEvent[ek] = true
		k := key{e.Layer, e.Candidate}
		events[k] = append(events[k], e)
	}
	k := map[string]int{}
	known := map[key]bool{}
	for _, c := range in.Candidates {
		known[key{c.Layer, c.Candidate}] = true
		if !directEvidence(c.Evidence) {
			k[c.Layer]++
		}
	}
	var rep GateReport
	for _, c := range in.Candidates {
		d, err := decideCandidate(c, events[key{c.Layer, c.Candidate}], k[c.Layer], LayerBaseline(history, c.Layer))
		if err != nil {
			return GateReport{}, err
		}
		rep.Decisions = append(rep.Decisions, d)
	}
	sort.SliceStable(rep.Decisions, func(i, j int) bool {
		a, b := rep.Decisions[i], rep.Decisions[j]
		if a.Layer != b.Layer {
			return a.Layer < b.Layer
		}
		return a.Candidate < b.Candidate
	})
	orphans := 0
	for k, es := range events {
		if !known[k] {
			orphans += len(es)
		}
	}
	if orphans > 0 {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("%s no candidate of their layer and were ignored", english.Count(orphans, "event names", "events name")))
	}
	if repeats > 0 {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("%s the layer, candidate and seq of an earlier one and were ignored", english.Count(repeats, "event repeats", "events repeat")))
	}
	return rep, nil
}

func directEvidence(e string) bool { return e == "tool_record" || e == "audit" }

func decideCandidate(c GateCandidate, events []GateEvent, k int, base Baseline) (GateDecision, error) {
	d := GateDecision{Candidate: c.Candidate, Layer: c.Layer, Evidence: c.Evidence, State: c.State, Baseline: base}
	if directEvidence(c.Evidence) {
		d.Decision, d.NewState = DecisionAdopt, "adopted"
		d.Reason = "backed by " + c.Evidence + " evidence"
		return d, nil
	}
	var held []GateEvent
	for _, e := range events {
		if e.Seq > c.BornSeq {
			held = append(held, e)
		}
	}
	sort.SliceStable(held, func(i, j int) bool { return held[i].Seq < held[j].Seq })
	d.N = len(held)
	for _, e := range held {
		if e.Hit {
			d.Hits++
		}
	}
	d.K = k
	d.Z = statistician.BonferroniZ(GateZ, k)
	if d.N > 0 {
		iv, err := statistician.WilsonInterval(d.Hits, d.N, d.Z)
		if err != nil {
			return GateDecision{}, fmt.Errorf("forecast: gate %s: %w", c.Candidate, err)
		}
		d.Wilson = &iv
	}
	if d.N >= GateMinOutcomes {
		recent := 0
		for _, e := range held[d.N-GateMinOutcomes:] {
			if e.Hit {
				recent++
			}
		}
		lo, err := statistician.WilsonLowerBound(recent, GateMinOutcomes, GateZ)
		if err != nil {
			return GateDecision{}, fmt.Errorf("forecast: gate %s: %w", c.Candidate, err)
		}
		d.RecentHits, d.RecentLower = &recent, &lo
	}
	b := base.Rate
	switch {
	case d.N < GateMinOutcomes:
		d.Decision, d.NewState = DecisionShadow, "shadow"
		d.Reason = fmt.Sprintf("%s; needs at least %d", english.Count(d.N, "held-out outcome", "held-out outcomes"), GateMinOutcomes)
	case d.Wilson.Upper <= b:
		d.Decision, d.NewState = DecisionRetire, "retired"
		d.Reason = fmt.Sprintf("Wilson upper bound %.4f <= baseline %.4f", d.Wilson.Upper, b)
	case d.Wilson.Lower > b && *d.RecentLower <= b:
		d.NewState = "shadow"
		d.Reason = fmt.Sprintf("Wilson lower bound %.4f > baseline %.4f, but the last %d outcomes (%d hits) have lower bound %.4f <= baseline",
			d.Wilson.Lower, b, GateMinOutcomes, *d.RecentHits, *d.RecentLower)
		d.Decision = DecisionShadow
		if c.State == "injected" {
			d.Decision = DecisionDemote
			d.Reason += "; record kept"
		}
	case d.Wilson.Lower > b:
		d.Decision, d.NewState = DecisionInject, "injected"
		d.Reason = fmt.Sprintf("Wilson lower bound %.4f > baseline %.4f", d.Wilson.Lower, b)
	default:
		d.Decision, d.NewState = DecisionShadow, "shadow"
		d.Reason = fmt.Sprintf("Wilson interval [%.4f, %.4f] contains baseline %.4f", d.Wilson.Lower, d.Wilson.Upper, b)
	}
	return d, nil
}
