package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/evalcal/evalcal/runner"
	"github.com/evalcal/evalcal/sampler"
)

// FlagPromptTruncated is the id of the info flag a judge adds when the
// run did not fit the prompt: its evidence lists the files cut or left
// out (see Pack).
const FlagPromptTruncated = runner.FlagInputTruncated

// maxEvidenceBytes bounds the prompt-truncated flag's evidence.
const maxEvidenceBytes = 1000

// Inspect implements runner.Inspector: it packs run at depth (see Pack),
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
// usage (runner.WithUsage).
func (j *Judge) Inspect(ctx context.Context, run sampler.Run, depth runner.Depth) (runner.Inspection, error) {
	name := j.Name()
	system, ok := j.system[depth]
	if !ok {
		return runner.Inspection{}, runner.Permanent(fmt.Errorf("%s: inspect %s: unknown depth %q", name, run.ID, depth))
	}
	packed, err := Pack(ctx, run, depth, j.budget)
	if err != nil {
		if ctx.Err() != nil {
			return runner.Inspection{}, fmt.Errorf("%s: inspect %s: %w", name, run.ID, err)
		}
		return runner.Inspection{}, runner.Permanent(fmt.Errorf("%s: pack %s: %w", name, run.ID, err))
	}
	start := time.Now()
	usage := runner.Usage{Model: j.model}
	fail := func(err error) (runner.Inspection, error) {
		if usage.Calls > 0 {
			err = runner.WithUsage(err, usage)
		}
		return runner.Inspection{}, err
	}

	req := request{model: j.model, system: system, user: packed.Message, maxTokens: j.maxOutput}
	if j.seed != nil {
		s := *j.seed + int64(runner.RepeatOf(ctx))
		req.seed = &s
	}
	ans, err := j.send(ctx, req)
	usage = usage.Add(ans.usage)
	if err != nil {
		return fail(j.classify(err))
	}
	if ans.refused {
		return fail(runner.Permanent(j.refusalError(ans, run, depth)))
	}
	insp, perr := parseAnswer(ans.text, run, depth)
	if perr != nil {
		problem := problemText(perr, ans)
		req.repair = &repairTurn{previous: ans, problem: problem}
		ans, err = j.send(ctx, req)
		usage = usage.Add(ans.usage)
		if err != nil {
			return fail(j.classify(err))
		}
		if ans.refused {
			return fail(runner.Permanent(j.refusalError(ans, run, depth)))
		}
		if insp, perr = parseAnswer(ans.text, run, depth); perr != nil {
			return fail(runner.Permanent(fmt.Errorf("%s: answer for %s at %s is not a valid inspection after a repair request: %s; raw answer: %q",
				name, run.ID, depth, j.redact(problemText(perr, ans)), j.redact(clip(ans.text, maxRawBytes)))))
		}
	}
	insp.Cost = runner.Cost{
		Seconds: time.Since(start).Seconds(),
		Tokens:  usage.Input + usage.Output,
		Usage:   &usage,
	}
	if len(packed.Cut) > 0 {
		insp.Flags = append(insp.Flags, truncationFlag(packed))
	}
	return insp, nil
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
		req.structured = !j.textOnly.Load()
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

func (j *Judge) refusalError(ans answer, run sampler.Run, depth runner.Depth) error {
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

// maxCandidates bounds the JSON objects tried in one text answer.
const maxCandidates = 64

// parseAnswer reads the inspection in a model's answer: the answer
// itself when it is one JSON object, else the first JSON object in the
// text (inside a ```json fence or prose) that runner.ParseInspection
// accepts; the error is the first candidate's. run_id, depth and system
// are set from the run, cost is cleared.
func parseAnswer(text string, run sampler.Run, depth runner.Depth) (runner.Inspection, error) {
	var firstErr error
	tried := 0
	for i := 0; i < len(text) && tried < maxCandidates; i++ {
		if text[i] != '{' {
			continue
		}
		dec := json.NewDecoder(strings.NewReader(text[i:]))
		var raw json.RawMessage
		if dec.Decode(&raw) != nil {
			continue
		}
		tried++
		insp, err := runner.ParseInspection(raw)
		if err == nil {
			insp.RunID, insp.Depth, insp.System = run.ID, depth, run.System
			insp.Cost = runner.Cost{}
			return insp, nil
		}
		if firstErr == nil {
			firstErr = err
		}
		i += len(raw) - 1 // the next candidate starts after this object
	}
	switch {
	case firstErr != nil:
		return runner.Inspection{}, firstErr
	case strings.TrimSpace(text) == "":
		return runner.Inspection{}, errors.New("empty answer")
	default:
		return runner.Inspection{}, errors.New("no JSON object in the answer")
	}
}

// truncationFlag records what Pack cut.
func truncationFlag(p Packed) runner.Flag {
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
	return runner.Flag{
		ID:       FlagPromptTruncated,
		Severity: runner.SeverityInfo,
		Description: fmt.Sprintf("the prompt held %d of the %d bytes of the run's files shown at this depth; %d cut or left out",
			p.ShownBytes, p.InScopeBytes, len(p.Cut)),
		Evidence: ev.String(),
	}
}
