package sampler

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"github.com/evalcal/evalcal/inspection"
)

// Outcome is what a log event says happened to a step.
type Outcome string

// Event outcomes. OutcomeNote is a marker line (`N→ text`) that carries no
// outcome symbol; real logs use them for loops, blocks and commits.
const (
	OutcomeOK            Outcome = "ok"             // N→ name ✓
	OutcomeError         Outcome = "error"          // N→ name ✗ error
	OutcomeSkipped       Outcome = "skipped"        // N→ node ∅ skipped
	OutcomeParallelStart Outcome = "parallel-start" // N→ ∥start a,b
	OutcomeParallelDone  Outcome = "parallel-done"  // N→ ∥done
	OutcomeNote          Outcome = "note"           // N→ text without an outcome symbol
)

// Event kinds: the bracketed prefix of a marker (`[input]`, `[vm-action]`),
// KindNarrative for a status read from a narrative heading
// (`### searcher — failed (AllCallsFailed)`), empty for a service step.
const (
	KindInput     = "input"
	KindVMAction  = "vm-action"
	KindNarrative = "narrative"
)

// Event is one step of a run log.
type Event struct {
	// Line is the 1-based line number in the log.
	Line int `yaml:"line" json:"line"`
	// Index is the step number with its parallel branch letter ("4", "4a").
	Index string `yaml:"index" json:"index"`
	// Iteration is a `#N` loop-iteration prefix, without the '#'.
	Iteration string `yaml:"iteration,omitempty" json:"iteration,omitempty"`
	// Kind is "", KindInput, KindVMAction or KindNarrative.
	Kind string `yaml:"kind,omitempty" json:"kind,omitempty"`
	// Name is the text before the outcome symbol ("linus (scope)").
	Name string `yaml:"name" json:"name"`
	// Service is Name's first word: the service or binding the step ran.
	Service string  `yaml:"service" json:"service"`
	Outcome Outcome `yaml:"outcome" json:"outcome"`
	// Error is the text after ✗ (or after ∅).
	Error string `yaml:"error,omitempty" json:"error,omitempty"`
	// Annotation is the text after ✓, without its parentheses.
	Annotation string `yaml:"annotation,omitempty" json:"annotation,omitempty"`
	// Branches are the names listed by a ∥start marker.
	Branches []string `yaml:"branches,omitempty" json:"branches,omitempty"`
}

// Terminator is a log's closing line: `---end TIMESTAMP` or
// `---error TIMESTAMP message`.
type Terminator struct {
	Line      int               `yaml:"line" json:"line"`
	Status    inspection.Status `yaml:"status" json:"status"`
	Timestamp string            `yaml:"timestamp" json:"timestamp"`
	Message   string            `yaml:"message,omitempty" json:"message,omitempty"`
}

// ServiceSummary is what the service events of a log (see ServiceEvents)
// say about one service, over the whole log however long.
type ServiceSummary struct {
	Service string `yaml:"service" json:"service"`
	// First is the line of the service's first event.
	First int `yaml:"first" json:"first"`
	// OK, Error and Skipped are the first lines with each outcome, 0 when
	// the service has none.
	OK      int `yaml:"ok,omitempty" json:"ok,omitempty"`
	Error   int `yaml:"error,omitempty" json:"error,omitempty"`
	Skipped int `yaml:"skipped,omitempty" json:"skipped,omitempty"`
}

// Log is what ParseLog could read from a run log (state.md or vm.log.md).
// Its memory does not grow with the log's length: Events and Narrative
// keep a log's first events only (see MaxLogEvents), while Services,
// NarrativeServices, the terminator and the counts cover every line.
type Log struct {
	// RunID and Program come from the header `# run:{id} {program}`.
	RunID   string `yaml:"run_id,omitempty" json:"run_id,omitempty"`
	Program string `yaml:"program,omitempty" json:"program,omitempty"`
	// FrontMatter holds the scalar keys of a leading YAML front matter.
	FrontMatter map[string]string `yaml:"front_matter,omitempty" json:"front_matter,omitempty"`
	// Metadata is the front matter's `metadata:` map (frontMatterMetadata).
	Metadata inspection.Metadata `yaml:"metadata,omitempty" json:"metadata,omitempty"`
	// Meta holds `key: value` envelope lines (program, root, source,
	// system, run_id) seen before the first event, backquotes removed.
	Meta map[string]string `yaml:"meta,omitempty" json:"meta,omitempty"`
	// Events are the marker lines in log order: the first MaxLogEvents
	// of them, as long as their lines total at most MaxLogEventBytes;
	// EventsDropped counts the others.
	Events        []Event `yaml:"events" json:"events"`
	EventsDropped int     `yaml:"events_dropped,omitempty" json:"events_dropped,omitempty"`
	// Narrative are statuses read from narrative headings; they are used
	// only for services no marker mentions. Bounded as Events are;
	// NarrativeDropped counts the others.
	Narrative        []Event `yaml:"narrative,omitempty" json:"narrative,omitempty"`
	NarrativeDropped int     `yaml:"narrative_dropped,omitempty" json:"narrative_dropped,omitempty"`
	// Services summarises every service event of the markers, one entry
	// per service in order of first appearance; NarrativeServices does
	// the same for the narrative headings. At most MaxLogServices
	// services each, names of at most MaxServiceName bytes; the events of
	// other services are counted in ServicesDropped.
	Services          []ServiceSummary `yaml:"services,omitempty" json:"services,omitempty"`
	NarrativeServices []ServiceSummary `yaml:"narrative_services,omitempty" json:"narrative_services,omitempty"`
	ServicesDropped   int              `yaml:"services_dropped,omitempty" json:"services_dropped,omitempty"`
	// Terminator is the first terminator line, nil when there is none.
	Terminator *Terminator `yaml:"terminator,omitempty" json:"terminator,omitempty"`
	// Lines is the number of lines read; Bytes the number of bytes.
	Lines int   `yaml:"lines" json:"lines"`
	Bytes int64 `yaml:"bytes" json:"bytes"`
	// Warnings say what could not be read, each with its line number.
	Warnings []string `yaml:"warnings,omitempty" json:"warnings,omitempty"`
}

// Status is the log's completion status: StatusCompleted after `---end`,
// StatusFailed after `---error`, otherwise StatusIncomplete.
func (l Log) Status() inspection.Status {
	if l.Terminator == nil {
		return inspection.StatusIncomplete
	}
	return l.Terminator.Status
}

// MaxLogLine is the longest line ParseLog keeps; the rest of a longer line
// is skipped with a warning, so a huge single-line log still streams.
const MaxLogLine = 1 << 20

// maxWarnings bounds Log.Warnings; a log with thousands of odd lines says
// how many more there were instead of listing them.
const maxWarnings = 50

// Bounds on what a Log keeps, so that its memory is independent of the
// log's length (a 65 MB state.md costs what a 1 MB one does).
const (
	// MaxLogBytes is how much of a log ParseLog reads; the rest is not
	// read, with a warning.
	MaxLogBytes = 1 << 30
	// MaxLogEvents bounds Log.Events and Log.Narrative each.
	MaxLogEvents = 10_000
	// MaxLogEventBytes bounds the total length of the lines whose events
	// Log.Events and Log.Narrative keep.
	MaxLogEventBytes = 8 << 20
	// MaxLogServices bounds Log.Services and Log.NarrativeServices each.
	MaxLogServices = 10_000
	// MaxServiceName is the longest service name a summary is kept for.
	MaxServiceName = 1024
	// maxFrontMatterBytes bounds the YAML front matter read.
	maxFrontMatterBytes = 64 << 10
	// maxQuoted bounds the text a warning quotes from a line.
	maxQuoted = 200
)

var (
	headerRE     = regexp.MustCompile(`^#\s*run:\s*(\S+)(?:\s+(.*\S))?\s*$`)
	endRE        = regexp.MustCompile(`^---end(?:\s+(.*\S))?\s*$`)
	errorRE      = regexp.MustCompile(`^---error(?:\s+(\S+))?(?:\s+(.*\S))?\s*$`)
	metaRE       = regexp.MustCompile(`^(?:[-*]\s+)?(program|root|source|system|run_id):\s*(.+?)\s*$`)
	narrativeRE  = regexp.MustCompile(`^#{2,4}\s+([A-Za-z0-9_.-]+)\s+(?:—|–|-|→)\s+(completed|failed|skipped|errored)\b\s*(.*?)\s*$`)
	iterationRE  = regexp.MustCompile(`^#(\d+)\s+`)
	bracketKind  = regexp.MustCompile(`^\[([a-z-]+)\]\s*`)
	okSymbols    = []string{"✓", "✔"}
	errorSymbols = []string{"✗", "✘"}
	skipSymbols  = []string{"∅"}
	parallelMark = []string{"∥", "||"}
)

// ParseLog reads an OpenProse run log line by line and never panics: every
// marker of docs/DESIGN.md is an Event (`→` or `->`), the first `---end` or
// `---error` is the Terminator, and anything odd (a marker outside the
// spec, a repeated terminator, events after it, invalid UTF-8, an
// over-long line, a last line without newline) is a warning with its line
// number. It streams: at most MaxLogBytes are read (a longer log is a
// warning) and memory is bounded by the Max* constants above, not by the
// log's length. The error is non-nil only when r fails; the Log then
// holds what was read before the failure.
func ParseLog(r io.Reader) (Log, error) { return parseLog(r, MaxLogBytes) }

// parseLog is ParseLog reading at most limit bytes.
func parseLog(r io.Reader, limit int64) (Log, error) {
	p := logParser{log: Log{Events: []Event{}}}
	lr := &io.LimitedReader{R: r, N: limit}
	br := bufio.NewReaderSize(lr, 64*1024)
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		p.log.Bytes += int64(len(chunk))
		if room := MaxLogLine - len(line); len(chunk) > room {
			line = append(line, chunk[:max(room, 0)]...)
			p.overLong = true
		} else {
			line = append(line, chunk...)
		}
		switch {
		case err == nil:
			p.handle(bytes.TrimSuffix(line, []byte("\n")))
			line = line[:0]
			continue
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			if lr.N <= 0 && moreToRead(r) {
				p.warn("line %d: the log is longer than %d bytes; the rest is not read", p.log.Lines+1, limit)
			}
			if len(line) > 0 {
				p.lastNoNewline = true
				p.handle(line)
			}
		default:
			p.finish()
			return p.log, fmt.Errorf("sampler: read log line %d: %w", p.log.Lines+1, err)
		}
		break
	}
	p.finish()
	return p.log, nil
}

// moreToRead says whether r has at least one more byte.
func moreToRead(r io.Reader) bool {
	var b [1]byte
	n, _ := io.ReadFull(r, b[:])
	return n > 0
}

type logParser struct {
	log           Log
	overLong      bool
	lastNoNewline bool
	inFront       bool
	front         bytes.Buffer
	frontTooLong  bool
	frontStart    int
	dropped       int
	// events counts every marker event, kept or not.
	events int
	// keptBytes is the length of the lines whose events are kept.
	keptBytes int
	// svcIndex and narrIndex index Services and NarrativeServices.
	svcIndex, narrIndex map[string]int
	// text is the line being handled.
	text string
}

// keep appends ev to list when the bounds allow, else counts it.
func (p *logParser) keep(list *[]Event, dropped *int, ev Event) {
	cost := len(p.text)
	if len(*list) >= MaxLogEvents || p.keptBytes+cost > MaxLogEventBytes {
		if *dropped == 0 {
			p.warn("line %d: more events than a log keeps (%d, or %d bytes of lines); later ones are summarised, not kept", ev.Line, MaxLogEvents, MaxLogEventBytes)
		}
		*dropped++
		return
	}
	p.keptBytes += cost
	*list = append(*list, ev)
}

// summarise adds a service event to the summaries of list.
func (p *logParser) summarise(list *[]ServiceSummary, index *map[string]int, ev Event) {
	i, ok := (*index)[ev.Service]
	if !ok {
		if len(*list) >= MaxLogServices || len(ev.Service) > MaxServiceName {
			if p.log.ServicesDropped == 0 {
				p.warn("line %d: service %q not summarised (more than %d services, or a name over %d bytes)", ev.Line, clip(ev.Service), MaxLogServices, MaxServiceName)
			}
			p.log.ServicesDropped++
			return
		}
		if *index == nil {
			*index = map[string]int{}
		}
		name := strings.Clone(ev.Service)
		i = len(*list)
		(*index)[name] = i
		*list = append(*list, ServiceSummary{Service: name, First: ev.Line})
	}
	s := &(*list)[i]
	switch ev.Outcome {
	case OutcomeOK:
		if s.OK == 0 {
			s.OK = ev.Line
		}
	case OutcomeError:
		if s.Error == 0 {
			s.Error = ev.Line
		}
	case OutcomeSkipped:
		if s.Skipped == 0 {
			s.Skipped = ev.Line
		}
	}
}

// clip shortens a quoted text to maxQuoted bytes (on a rune boundary).
func clip(s string) string {
	if len(s) <= maxQuoted {
		return s
	}
	cut := maxQuoted
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "..."
}

func (p *logParser) warn(format string, args ...any) {
	if len(p.log.Warnings) >= maxWarnings {
		p.dropped++
		return
	}
	p.log.Warnings = append(p.log.Warnings, fmt.Sprintf(format, args...))
}

func (p *logParser) finish() {
	if p.inFront {
		p.warn("line %d: front matter is not closed", p.frontStart)
		p.closeFront()
	}
	if p.lastNoNewline && p.log.Terminator == nil {
		p.warn("line %d: log ends without a newline (truncated?)", p.log.Lines)
	}
	if p.dropped > 0 {
		p.log.Warnings = append(p.log.Warnings, fmt.Sprintf("%d more warnings not listed", p.dropped))
	}
}

func (p *logParser) handle(raw []byte) {
	p.log.Lines++
	n := p.log.Lines
	if p.overLong {
		p.warn("line %d: longer than %d bytes, the rest is skipped", n, MaxLogLine)
		p.overLong = false
	}
	if !utf8.Valid(raw) {
		p.warn("line %d: invalid UTF-8", n)
		raw = bytes.ToValidUTF8(raw, []byte("\uFFFD"))
	}
	text := strings.TrimRight(string(raw), "\r")
	trimmed := strings.TrimSpace(text)
	p.text = text

	if n == 1 {
		text = strings.TrimPrefix(text, "\uFEFF")
		trimmed = strings.TrimSpace(text)
		if trimmed == "---" {
			p.inFront, p.frontStart = true, n
			return
		}
	}
	if p.inFront {
		if trimmed == "---" || trimmed == "..." {
			p.inFront = false
			p.closeFront()
			return
		}
		if p.front.Len()+len(text)+1 > maxFrontMatterBytes {
			p.frontTooLong = true
			return
		}
		p.front.WriteString(text)
		p.front.WriteByte('\n')
		return
	}

	switch {
	case strings.HasPrefix(trimmed, "---end"):
		if m := endRE.FindStringSubmatch(trimmed); m != nil {
			p.terminate(Terminator{Line: n, Status: inspection.StatusCompleted, Timestamp: m[1]})
			return
		}
	case strings.HasPrefix(trimmed, "---error"):
		if m := errorRE.FindStringSubmatch(trimmed); m != nil {
			p.terminate(Terminator{Line: n, Status: inspection.StatusFailed, Timestamp: m[1], Message: m[2]})
			return
		}
	}
	if strings.HasPrefix(trimmed, "#") {
		if m := headerRE.FindStringSubmatch(trimmed); m != nil {
			if p.log.RunID == "" {
				p.log.RunID, p.log.Program = m[1], m[2]
			} else {
				p.warn("line %d: repeated run header", n)
			}
			return
		}
	}
	if index, rest, ok := cutMarker(trimmed); ok {
		if p.log.Terminator != nil {
			p.warn("line %d: event after the terminator on line %d", n, p.log.Terminator.Line)
		}
		p.event(n, index, rest)
		return
	}
	if strings.HasPrefix(trimmed, "##") {
		if m := narrativeRE.FindStringSubmatch(trimmed); m != nil {
			p.narrative(n, m)
			return
		}
	}
	if p.events == 0 {
		if m := metaRE.FindStringSubmatch(trimmed); m != nil {
			if p.log.Meta == nil {
				p.log.Meta = map[string]string{}
			}
			if _, seen := p.log.Meta[m[1]]; !seen {
				p.log.Meta[m[1]] = cleanMeta(m[2])
			}
		}
	}
}

// narrative records a status heading `### name — status (detail)`.
func (p *logParser) narrative(n int, m []string) {
	ev := Event{Line: n, Kind: KindNarrative, Name: m[1], Service: m[1]}
	switch m[2] {
	case "completed":
		ev.Outcome = OutcomeOK
	case "skipped":
		ev.Outcome = OutcomeSkipped
	default:
		ev.Outcome = OutcomeError
		ev.Error = strings.Trim(m[3], "() ")
	}
	p.keep(&p.log.Narrative, &p.log.NarrativeDropped, ev)
	p.summarise(&p.log.NarrativeServices, &p.narrIndex, ev)
}

// cutMarker splits a marker line `N→ rest` (N digits then lower-case
// branch letters, `→` or `->`, spaces allowed around the arrow) into N and
// rest; ok is false for any other line. Hand-written because it runs on
// every line of every log.
func cutMarker(line string) (index, rest string, ok bool) {
	i := 0
	for i < len(line) && line[i] >= '0' && line[i] <= '9' {
		i++
	}
	if i == 0 {
		return "", "", false
	}
	for i < len(line) && line[i] >= 'a' && line[i] <= 'z' {
		i++
	}
	index = line[:i]
	tail := strings.TrimLeft(line[i:], " \t")
	switch {
	case strings.HasPrefix(tail, "→"):
		tail = tail[len("→"):]
	case strings.HasPrefix(tail, "->"):
		tail = tail[2:]
	default:
		return "", "", false
	}
	return index, strings.TrimSpace(tail), true
}

// cleanMeta strips backquotes and a trailing parenthesised remark from an
// envelope value: "`layoffs-discover` (`kind: system`)" -> "layoffs-discover".
func cleanMeta(v string) string {
	if i := strings.Index(v, " ("); i > 0 {
		v = v[:i]
	}
	return strings.TrimSpace(strings.Trim(v, "`\"' "))
}

func (p *logParser) closeFront() {
	if p.frontTooLong {
		p.warn("line %d: front matter longer than %d bytes, ignored", p.frontStart, maxFrontMatterBytes)
		return
	}
	var fm map[string]any
	if err := yaml.Unmarshal(p.front.Bytes(), &fm); err != nil {
		p.warn("line %d: front matter is not YAML: %v", p.frontStart, err)
		return
	}
	var mdWarn []string
	p.log.Metadata, mdWarn = frontMatterMetadata(p.front.Bytes(), p.frontStart+1)
	for _, w := range mdWarn {
		p.warn("%s", w)
	}
	for k, v := range fm {
		switch v.(type) {
		case map[string]any, []any, nil:
			continue
		}
		if p.log.FrontMatter == nil {
			p.log.FrontMatter = map[string]string{}
		}
		p.log.FrontMatter[k] = fmt.Sprint(v)
	}
}

func (p *logParser) terminate(t Terminator) {
	if p.log.Terminator != nil {
		p.warn("line %d: repeated terminator (first on line %d)", t.Line, p.log.Terminator.Line)
		return
	}
	p.log.Terminator = &t
}

// event parses the text after `N→`.
func (p *logParser) event(n int, index, rest string) {
	ev := Event{Line: n, Index: index}
	if m := iterationRE.FindStringSubmatch(rest); m != nil {
		ev.Iteration = m[1]
		rest = rest[len(m[0]):]
	}
	if m := bracketKind.FindStringSubmatch(rest); m != nil {
		ev.Kind = m[1]
		rest = rest[len(m[0]):]
		if ev.Kind != KindInput && ev.Kind != KindVMAction {
			p.warn("line %d: unknown marker prefix [%s]", n, clip(ev.Kind))
		}
	}
	for _, mark := range parallelMark {
		if tail, ok := strings.CutPrefix(rest, mark); ok {
			switch {
			case strings.HasPrefix(tail, "start"):
				ev.Outcome = OutcomeParallelStart
				ev.Name = "∥start"
				for _, b := range strings.Split(strings.TrimSpace(strings.TrimPrefix(tail, "start")), ",") {
					if b = strings.TrimSpace(b); b != "" {
						ev.Branches = append(ev.Branches, b)
					}
				}
			case strings.HasPrefix(tail, "done"):
				ev.Outcome = OutcomeParallelDone
				ev.Name = "∥done"
			default:
				ev.Outcome = OutcomeNote
				ev.Name = strings.TrimSpace(rest)
				p.warn("line %d: unknown parallel marker %q", n, clip(rest))
			}
			p.addEvent(ev)
			return
		}
	}
	name, outcome, tail := splitOutcome(rest)
	ev.Name = name
	ev.Service = firstWord(name)
	ev.Outcome = outcome
	switch outcome {
	case OutcomeOK:
		ev.Annotation = strings.TrimSpace(tail)
		if strings.HasPrefix(ev.Annotation, "(") && strings.HasSuffix(ev.Annotation, ")") {
			ev.Annotation = strings.TrimSpace(ev.Annotation[1 : len(ev.Annotation)-1])
		}
	case OutcomeError, OutcomeSkipped:
		ev.Error = strings.TrimSpace(tail)
	case OutcomeNote:
		p.warn("line %d: marker without an outcome: %q", n, clip(rest))
	}
	if ev.Name == "" {
		p.warn("line %d: marker without a name", n)
	}
	p.addEvent(ev)
}

// addEvent records a marker event: kept within bounds, always counted,
// and summarised when it is a service event.
func (p *logParser) addEvent(ev Event) {
	p.events++
	p.keep(&p.log.Events, &p.log.EventsDropped, ev)
	if isServiceEvent(ev) {
		p.summarise(&p.log.Services, &p.svcIndex, ev)
	}
}

// splitOutcome finds the first outcome symbol in s and returns the name
// before it, the outcome and the text after it.
func splitOutcome(s string) (name string, outcome Outcome, tail string) {
	best, bestLen := -1, 0
	outcome = OutcomeNote
	for _, set := range []struct {
		syms []string
		o    Outcome
	}{{okSymbols, OutcomeOK}, {errorSymbols, OutcomeError}, {skipSymbols, OutcomeSkipped}} {
		for _, sym := range set.syms {
			if i := strings.Index(s, sym); i >= 0 && (best < 0 || i < best) {
				best, bestLen, outcome = i, len(sym), set.o
			}
		}
	}
	if best < 0 {
		return strings.TrimSpace(s), OutcomeNote, ""
	}
	return strings.TrimSpace(s[:best]), outcome, s[best+bestLen:]
}

// firstWord is the service a step name refers to: "linus (scope)" ->
// "linus", "ready_tasks_iter3:" -> "ready_tasks_iter3".
func firstWord(name string) string {
	f := strings.Fields(name)
	if len(f) == 0 {
		return ""
	}
	return strings.TrimRight(f[0], ":,;")
}
