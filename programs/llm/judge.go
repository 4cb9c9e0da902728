package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/evalcal/evalcal/inspection"
)

// FlagPromptTruncated is the id of the info flag a judge adds when the
// run did not fit the prompt: its evidence lists the files cut or left
// out (see Pack).
const FlagPromptTruncated = inspection.FlagInputTruncated

// maxEvidenceBytes bounds the prompt-truncated flag's evidence.
const maxEvidenceBytes = 1000

// Inspect implements inspection.Inspector: it packs run at depth (see Pack),
// asks the model for the inspection, and gives a malformed or invalid
// answer one repair request. The inspection's run_id, depth and system
// are the run's (whatever the model wrote); its Cost has the wall time of
// the requests, Tokens = input + output, and Usage summed over them. When
// the run was cut to fit, a FlagPromptTruncated info flag lists the cuts.
//
// Errors (see classify for the HTTP ones): an unknown depth, a run
// without a readable directory, a refusal, and an answer still invalid
// after the repair (its reason ends with the raw answer, cut to 500
// bytes) are permanent; a failure after a billed answer carries that
// usage (inspection.WithUsage).
func (j *Judge) Inspect(ctx context.Context, run inspection.Run, depth inspection.Depth) (inspection.Inspection, error) {
	return j.inspect(ctx, run, depth, nil)
}

// inspect is Inspect with the run's files in the order shuffle leaves
// them (nil: path order; see ShuffledFiles).
func (j *Judge) inspect(ctx context.Context, run inspection.Run, depth inspection.Depth, shuffle func([]*entry)) (inspection.Inspection, error) {
	name := j.Name()
	system, ok := j.system[depth]
	if !ok {
		return inspection.Inspection{}, inspection.Permanent(fmt.Errorf("%s: inspect %s: unknown depth %q", name, run.ID, depth))
	}
	packed, err := pack(ctx, run, depth, j.budget, shuffle)
	if err != nil {
		if ctx.Err() != nil {
			return inspection.Inspection{}, fmt.Errorf("%s: inspect %s: %w", name, run.ID, err)
		}
		return inspection.Inspection{}, inspection.Permanent(fmt.Errorf("%s: pack %s: %w", name, run.ID, err))
	}
	start := time.Now()
	usage := inspection.Usage{Model: j.model}
	fail := func(err error) (inspection.Inspection, error) {
		if usage.Calls > 0 {
			err = inspection.WithUsage(err, usage)
		}
		return inspection.Inspection{}, err
	}

	req := request{model: j.model, system: system, user: packed.Message, maxTokens: j.maxOutput}
	if j.seed != nil {
		s := *j.seed + int64(inspection.RepeatOf(ctx))
		req.seed = &s
	}
	ans, err := j.send(ctx, req)
	if ans.badUsage != "" {
		return j.impossibleUsage(ans, usage, run, depth)
	}
	usage = usage.Add(ans.usage)
	if err != nil {
		return fail(j.classify(err))
	}
	if ans.refused {
		return fail(inspection.Permanent(j.refusalError(ans, run, depth)))
	}
	insp, perr := parseAnswer(ctx, ans.text, run, depth)
	if ctx.Err() != nil {
		return fail(fmt.Errorf("%s: reading the answer for %s: %w", name, run.ID, ctx.Err()))
	}
	if perr != nil {
		problem := problemText(perr, ans)
		req.repair = &repairTurn{previous: ans, problem: problem}
		ans, err = j.send(ctx, req)
		if ans.badUsage != "" {
			return j.impossibleUsage(ans, usage, run, depth)
		}
		usage = usage.Add(ans.usage)
		if err != nil {
			return fail(j.classify(err))
		}
		if ans.refused {
			return fail(inspection.Permanent(j.refusalError(ans, run, depth)))
		}
		insp, perr = parseAnswer(ctx, ans.text, run, depth)
		if ctx.Err() != nil {
			return fail(fmt.Errorf("%s: reading the answer for %s: %w", name, run.ID, ctx.Err()))
		}
		if perr != nil {
			return fail(inspection.Permanent(fmt.Errorf("%s: answer for %s at %s is not a valid inspection after a repair request: %s; raw answer: %q",
				name, run.ID, depth, j.redact(problemText(perr, ans)), j.redact(clip(ans.text, maxRawBytes)))))
		}
	}
	j.redactInspection(&insp)
	insp.Cost = inspection.Cost{
		Seconds: time.Since(start).Seconds(),
		Tokens:  usage.Input + usage.Output,
		Usage:   &usage,
	}
	if len(packed.Cut) > 0 {
		insp.Flags = append(insp.Flags, truncationFlag(packed))
	}
	return insp, nil
}

// impossibleUsage fails a call whose answer reported usage no request can
// have (see checkTokens): the figures are not believed, and the call is
// booked at its bound (MaxRunTokens, at least what the --max-cost budget reserved
// for it), never at less, so a lying server can neither overflow a count
// nor credit the budget.
func (j *Judge) impossibleUsage(ans answer, sofar inspection.Usage, run inspection.Run, depth inspection.Depth) (inspection.Inspection, error) {
	in, out := j.MaxRunTokens(run, depth)
	u := inspection.Usage{Model: j.model, Calls: sofar.Calls + 1, Input: in, Output: out, Missing: true}
	err := inspection.Permanent(fmt.Errorf("%s: the answer for %s at %s reports impossible usage (%s); the call is booked at its bound of %d input and %d output tokens",
		j.Name(), run.ID, depth, j.redact(ans.badUsage), in, out))
	return inspection.Inspection{}, inspection.WithUsage(err, u)
}

// redactInspection removes the key from every text of a valid answer
// (summary, services, flags) before it reaches the cache or a report: a
// judge may quote a run's file holding it, or be a hostile server.
func (j *Judge) redactInspection(insp *inspection.Inspection) {
	insp.Summary = j.redact(insp.Summary)
	for i := range insp.Services {
		s := &insp.Services[i]
		s.Name, s.Status = j.redact(s.Name), j.redact(s.Status)
	}
	for i := range insp.Flags {
		f := &insp.Flags[i]
		f.ID, f.Description, f.Evidence = j.redact(f.ID), j.redact(f.Description), j.redact(f.Evidence)
	}
}

// send sends req once, adapting to a server that rejects the temperature
// or structured output (a 400 or 422 naming them): the request is sent
// again without it, and the judge's later requests never carry it. A call
// thus costs at most two extra requests, and only until the judge has
// learnt (calls already in flight may each pay once).
func (j *Judge) send(ctx context.Context, req request) (answer, error) {
	for {
		req.temperature = nil
		if !j.noTemperature.Load() {
			t := j.temperature
			req.temperature = &t
		}
		req.structured = !j.textOnly.Load() && !req.plain
		ans, err := j.client.complete(ctx, req)
		var pe *providerError
		if !errors.As(err, &pe) || !pe.badRequest() {
			return ans, err
		}
		switch {
		case req.temperature != nil && pe.mentions("temperature"):
			j.noTemperature.Store(true) // each adaptation is taken once: the loop ends
		case req.structured && pe.mentions("response_format", "json_schema", "structured output", "tool_choice", "tools"):
			j.textOnly.Store(true)
		default:
			return ans, err
		}
	}
}

func (j *Judge) refusalError(ans answer, run inspection.Run, depth inspection.Depth) error {
	msg := fmt.Sprintf("%s: the model refused to inspect %s at %s", j.Name(), run.ID, depth)
	if r := strings.TrimSpace(ans.refusal); r != "" {
		msg += ": " + j.redact(clip(r, maxRawBytes))
	}
	return errors.New(msg)
}

// problemText says what is wrong with an answer, for the repair request
// and the failure's reason.
func problemText(err error, ans answer) string {
	s := err.Error()
	if ans.cutShort {
		s += " (the answer stopped at the output token limit)"
	}
	return s
}

// repairPrompt asks for a corrected answer.
func repairPrompt(problem string) string {
	return "Your answer is not a valid inspection: " + clip(problem, maxRawBytes) +
		". Answer again with the corrected inspection: one JSON object matching the schema, and nothing else."
}

// Bounds on the work of reading one answer (see parseAnswer).
const (
	// maxCandidates bounds the JSON objects tried in one text answer.
	maxCandidates = 64
	// maxDecodeAttempts bounds the decodes started, failed ones included:
	// an answer of 200,000 '{' is not decoded 200,000 times.
	maxDecodeAttempts = 256
	// decodeSlack is the decoder's read-ahead allowed beyond the work
	// bound of decodeWork bytes per answer byte.
	decodeSlack = 64 << 10
	decodeWork  = 4
)

// parseAnswer reads the inspection in a model's answer: the answer
// itself when it is one JSON object, else the first JSON object in the
// text (inside a ```json fence or prose) that inspection.ParseInspection
// accepts; the error is the first candidate's. run_id, depth and system
// are set from the run, cost is cleared.
//
// Its work is linear in the answer: at most maxDecodeAttempts decodes are
// started (a failed one counts), the decodes together read at most
// decodeWork*len(text)+decodeSlack bytes, and ctx is checked before
// every decode and every read (its error is returned as is).
func parseAnswer(ctx context.Context, text string, run inspection.Run, depth inspection.Depth) (inspection.Inspection, error) {
	var firstErr error
	work := &workReader{ctx: ctx, left: decodeWork*int64(len(text)) + decodeSlack}
	tried, attempts := 0, 0
	for i := 0; i < len(text) && tried < maxCandidates && attempts < maxDecodeAttempts; i++ {
		if text[i] != '{' {
			continue
		}
		if err := ctx.Err(); err != nil {
			return inspection.Inspection{}, err
		}
		if work.left <= 0 {
			break
		}
		attempts++
		work.r = strings.NewReader(text[i:])
		dec := json.NewDecoder(work)
		var raw json.RawMessage
		if dec.Decode(&raw) != nil {
			if work.err != nil {
				break
			}
			continue
		}
		tried++
		insp, err := inspection.ParseInspection(raw)
		if err == nil {
			insp.RunID, insp.Depth, insp.System = run.ID, depth, run.System
			insp.Cost = inspection.Cost{}
			return insp, nil
		}
		if firstErr == nil {
			firstErr = err
		}
		i += len(raw) - 1 // the next candidate starts after this object
	}
	if err := ctx.Err(); err != nil {
		return inspection.Inspection{}, err
	}
	switch {
	case firstErr != nil:
		return inspection.Inspection{}, firstErr
	case strings.TrimSpace(text) == "":
		return inspection.Inspection{}, errors.New("empty answer")
	default:
		return inspection.Inspection{}, errors.New("no JSON object in the answer")
	}
}

// errDecodeWork ends a decode once parseAnswer's work bound is spent.
var errDecodeWork = errors.New("llm: the answer's decode work bound is spent")

// workReader reads r while left > 0 and ctx is live; its first failure
// is kept in err.
type workReader struct {
	ctx  context.Context
	r    io.Reader
	left int64
	err  error
}

func (w *workReader) Read(p []byte) (int, error) {
	if w.err == nil {
		if cerr := w.ctx.Err(); cerr != nil {
			w.err = cerr
		} else if w.left <= 0 {
			w.err = errDecodeWork
		}
	}
	if w.err != nil {
		return 0, w.err
	}
	if int64(len(p)) > w.left {
		p = p[:w.left]
	}
	n, err := w.r.Read(p)
	w.left -= int64(n)
	return n, err
}

// truncationFlag records what Pack cut.
func truncationFlag(p Packed) inspection.Flag {
	var ev strings.Builder
	for i, c := range p.Cut {
		s := c.String()
		if ev.Len()+len(s)+2 > maxEvidenceBytes {
			fmt.Fprintf(&ev, "; and %d more", len(p.Cut)-i)
			break
		}
		if i > 0 {
			ev.WriteString("; ")
		}
		ev.WriteString(s)
	}
	return inspection.Flag{
		ID:       FlagPromptTruncated,
		Severity: inspection.SeverityInfo,
		Description: fmt.Sprintf("the prompt held %d of the %d bytes of the run's files shown at this depth; %d cut or left out",
			p.ShownBytes, p.InScopeBytes, len(p.Cut)),
		Evidence: ev.String(),
	}
}
