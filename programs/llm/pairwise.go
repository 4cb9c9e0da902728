package llm

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/evalcal/evalcal/inspection"
)

// The slots a pairwise answer names: the run shown first, the run shown
// second, or neither.
const (
	SlotFirst  = "first"
	SlotSecond = "second"
	SlotTie    = "tie"
)

// PairwiseVersion is the version of the pairwise message layout and
// prompt; it is part of PairIdentity.
const PairwiseVersion = 1

// builtinPairwisePrompt is the system prompt of a pairwise judgement
// (README.md, "Pairwise judges on run").
//
//go:embed prompts/pairwise.tmpl
var builtinPairwisePrompt string

// PairIdentity is the identity of j's pairwise judgements: Identity, then
// "/pairwise@" and the first 16 hex digits of the SHA-256 of the pairwise
// prompt and PairwiseVersion. It keys the inspection cache of pairwise
// calls (with the pair and the order in the content hash).
func (j *Judge) PairIdentity() string {
	return j.identity + "/pairwise@" + sha256Hex(fmt.Sprintf("%d\x00%s", PairwiseVersion, builtinPairwisePrompt))[:16]
}

// JudgePair asks the model which of two runs did the task better, first
// shown first (as run A) and second shown second (as run B), and returns
// the slot it named: SlotFirst, SlotSecond or SlotTie. Each run is packed
// as at depth deep (outputs shown) within half the prompt token budget
// (see Pack). The request asks for a plain-text answer holding
// {"winner": "A" | "B" | "tie"}; ParsePairAnswer reads it.
//
// The cost has the request's wall time and usage. A run that cannot be
// packed, a refusal and an answer that names no winner are permanent
// errors (no repair request is sent: the call is recorded as failed and
// the others go on); provider errors are classified as for Inspect.
// A failure after a billed answer carries that usage (inspection.WithUsage).
func (j *Judge) JudgePair(ctx context.Context, first, second inspection.Run) (string, inspection.Cost, error) {
	name := j.Name()
	msg, err := pairMessage(ctx, first, second, j.budget)
	if err != nil {
		if ctx.Err() != nil {
			return "", inspection.Cost{}, fmt.Errorf("%s: compare %s and %s: %w", name, first.ID, second.ID, err)
		}
		return "", inspection.Cost{}, inspection.Permanent(fmt.Errorf("%s: pack the pair %s, %s: %w", name, first.ID, second.ID, err))
	}
	start := time.Now()
	req := request{model: j.model, system: builtinPairwisePrompt, user: msg, maxTokens: j.maxOutput, plain: true}
	if j.seed != nil {
		s := *j.seed + int64(inspection.RepeatOf(ctx))
		req.seed = &s
	}
	ans, err := j.send(ctx, req)
	usage := inspection.Usage{Model: j.model}
	if ans.badUsage != "" {
		in, out := j.MaxCallTokens()
		u := inspection.Usage{Model: j.model, Calls: 1, Input: in, Output: out, Missing: true}
		return "", inspection.Cost{}, inspection.WithUsage(inspection.Permanent(fmt.Errorf("%s: the answer for the pair %s, %s reports impossible usage (%s); the call is booked at its bound",
			name, first.ID, second.ID, j.redact(ans.badUsage))), u)
	}
	usage = usage.Add(ans.usage)
	fail := func(err error) (string, inspection.Cost, error) {
		if usage.Calls > 0 {
			err = inspection.WithUsage(err, usage)
		}
		return "", inspection.Cost{}, err
	}
	if err != nil {
		return fail(j.classify(err))
	}
	if ans.refused {
		return fail(inspection.Permanent(fmt.Errorf("%s: the model refused to compare %s and %s: %s",
			name, first.ID, second.ID, j.redact(clip(ans.refusal, maxRawBytes)))))
	}
	slot, perr := ParsePairAnswer(ans.text)
	if perr != nil {
		return fail(inspection.Permanent(fmt.Errorf("%s: the answer comparing %s (shown first) and %s names no winner: %s; raw answer: %q",
			name, first.ID, second.ID, problemText(perr, ans), j.redact(clip(ans.text, maxRawBytes)))))
	}
	return slot, inspection.Cost{Seconds: time.Since(start).Seconds(), Tokens: usage.Input + usage.Output, Usage: &usage}, nil
}

// pairMessage is the user message of a pairwise judgement: a header line
// carrying the message's tag, then each run's message (Pack at depth
// deep, half the budget each) between separator lines that end with the
// tag. The tag is the first 16 hex digits of the SHA-256 of the two run
// messages, so a run's file cannot forge a separator.
func pairMessage(ctx context.Context, first, second inspection.Run, budget int64) (string, error) {
	pa, err := Pack(ctx, first, inspection.Deep, budget/2)
	if err != nil {
		return "", err
	}
	pb, err := Pack(ctx, second, inspection.Deep, budget/2)
	if err != nil {
		return "", err
	}
	tag := "[pair " + sha256Hex(pa.Message + "\x00" + pb.Message)[:16] + "]"
	var b strings.Builder
	fmt.Fprintf(&b, "Pairwise comparison %s: two runs of the same task. Run A is shown first, run B second.\n", tag)
	fmt.Fprintf(&b, "Only lines that end with the tag %s separate the runs.\n\n", tag)
	fmt.Fprintf(&b, "===== Run A ===== %s\n%s\n===== Run B ===== %s\n%s\n===== End of the runs ===== %s\n\n", tag, pa.Message, tag, pb.Message, tag)
	b.WriteString(`Which run did the task better? Answer with one JSON object: {"winner": "A" | "B" | "tie", "reason": "..."}` + "\n")
	return b.String(), nil
}

// maxPairAnswerBytes bounds the answer ParsePairAnswer reads.
const maxPairAnswerBytes = 1 << 20

var (
	winnerField = regexp.MustCompile(`(?i)"winner"\s*:\s*"([^"]{0,40})"`)
	bracketed   = regexp.MustCompile(`\[\[\s*([A-Ca-c]|tie)\s*\]\]`)
)

// ParsePairAnswer reads the winner a pairwise answer names, as a slot.
// It takes, in order: the answer as one JSON object with a string
// "winner"; else the first "winner": "..." in the text (a JSON object in
// prose or a code fence); else MT-Bench's verdict markers, [[A]], [[B]]
// or [[C]] (a tie), when the answer holds exactly one kind of them. The
// winner is read case-insensitively: "A", "run A" or "first" is the first
// slot, "B", "run B" or "second" the second, "tie", "C", "draw", "equal"
// or "neither" a tie. Anything else is an error saying what was found.
func ParsePairAnswer(text string) (string, error) {
	if len(text) > maxPairAnswerBytes {
		text = text[:maxPairAnswerBytes]
	}
	var obj struct {
		Winner *string `json:"winner"`
	}
	if err := json.Unmarshal([]byte(strings.TrimSpace(text)), &obj); err == nil && obj.Winner != nil {
		return slotOf(*obj.Winner)
	}
	if m := winnerField.FindStringSubmatch(text); m != nil {
		return slotOf(m[1])
	}
	kinds := map[string]bool{}
	for _, m := range bracketed.FindAllStringSubmatch(text, 16) {
		kinds[strings.ToLower(m[1])] = true
	}
	if len(kinds) == 1 {
		for k := range kinds {
			return slotOf(k)
		}
	}
	if len(kinds) > 1 {
		return "", errors.New("the answer holds more than one verdict marker")
	}
	if strings.TrimSpace(text) == "" {
		return "", errors.New("empty answer")
	}
	return "", errors.New(`no "winner" in the answer`)
}

// slotOf maps a winner as a model wrote it to a slot.
func slotOf(w string) (string, error) {
	switch strings.ToLower(strings.TrimSpace(w)) {
	case "a", "run a", "first", "1":
		return SlotFirst, nil
	case "b", "run b", "second", "2":
		return SlotSecond, nil
	case "tie", "c", "draw", "equal", "neither", "both":
		return SlotTie, nil
	}
	return "", fmt.Errorf("winner %q is not A, B or tie", clip(w, 40))
}
