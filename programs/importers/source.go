package importers

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/evalcal/evalcal/inspection"
)

// Size limits of an imported file.
const (
	// MaxFileBytes bounds the file read: a .json log or results file, or
	// a .eval archive (compressed). Files are streamed a sample or result
	// at a time, so the bound is not memory: 16 GiB (1 GiB refused a
	// million samples of more than 1 KB).
	MaxFileBytes = 16 << 30
	// MaxMemberBytes bounds one member of a .eval archive, uncompressed
	// (a sample with its whole transcript).
	MaxMemberBytes = 256 << 20
	// MaxUncompressedBytes bounds all the members of a .eval archive that
	// are read, uncompressed: what a zip bomb would blow up.
	MaxUncompressedBytes = 4 << 30
	// MaxMembers bounds the entries of a .eval archive's central
	// directory, checked before it is read.
	MaxMembers = 1 << 20
	// MaxLineBytes bounds one line of promptfoo's JSON Lines output (a
	// result with its response and grading prompts, usually kilobytes):
	// a longer line is listed by Unattributed, unread, and the rest read.
	MaxLineBytes = 64 << 20
	// SummaryRunes bounds an inspection's summary (the scorer's
	// explanation or the assertion's reason), and a flag's evidence.
	SummaryRunes = 500
)

// limits are the size limits a load applies; tests shrink them.
type limits struct {
	file    int64
	member  int64
	total   int64
	members int
	line    int
}

var defaultLimits = limits{file: MaxFileBytes, member: MaxMemberBytes, total: MaxUncompressedBytes, members: MaxMembers,
	line: MaxLineBytes}

// Errors a load or an inspection wraps.
var (
	// ErrNotCovered is wrapped by Inspect for a run the chosen scorer or
	// assertion gave no result (Covers is false).
	ErrNotCovered = errors.New("no result from")
	// ErrChooseScorer is wrapped by LoadInspect when the log holds
	// several scorers and none was named (a usage error).
	ErrChooseScorer = errors.New("name one scorer")
	// ErrUnknownSelector is wrapped by a load when the named scorer or
	// assertion gave a result on no sample of the file.
	ErrUnknownSelector = errors.New("not found")
	// ErrNothingToImport is wrapped by a load when the file holds no
	// sample or result at all.
	ErrNothingToImport = errors.New("nothing to import")
)

// Flag ids the importers set.
const (
	// FlagRunError: the tool recorded an error that halted the sample or
	// the test (critical; the verdict is then fail).
	FlagRunError = "run-error"
	// FlagNoAnswer: inspect_ai's scorer recorded no answer ("N").
	FlagNoAnswer = "no-answer"
	// FlagLimit: inspect_ai halted the sample at one of its limits
	// (messages, tokens, time, ...).
	FlagLimit = "sample-limit"
)

// Eras of the runs the importers return.
const (
	EraInspect   inspection.Era = "inspect"
	EraPromptfoo inspection.Era = "promptfoo"
)

// Source serves the results one scorer (inspect_ai) or assertion
// (promptfoo) gave in one file, as a inspection.Inspector: it is one judge, so
// Inspect returns the same inspection at either depth, with Depth set to
// the depth asked. It is read-only after its load and safe for concurrent
// use.
type Source struct {
	identity string
	selector string
	results  map[string]result
	// unattributed are the file's items that could not be read as a run
	// ("file:line: why"), and the items left out on purpose.
	unattributed []string
}

// result is one run's inspection, or why it has none.
type result struct {
	insp inspection.Inspection
	err  error
}

// Identity is "inspect:<first 16 hex digits of the file's SHA-256>#SCORER"
// or "promptfoo:<16 hex>[#ASSERTION]": it changes with the file and with
// the scorer or assertion chosen.
func (s *Source) Identity() string { return s.identity }

// Selector is the scorer or assertion the source serves, as resolved by
// the load ("" for promptfoo's overall result).
func (s *Source) Selector() string { return s.selector }

// Unattributed returns the file's items that could not be read as a run,
// or were left out (an invalidated inspect_ai sample), as "file:where:
// why", in file order; an item whose run id could be read fails that
// run's inspection instead.
func (s *Source) Unattributed() []string { return slices.Clone(s.unattributed) }

// Covers reports whether the chosen scorer or assertion gave a result for
// the run (at either depth): a value, an error the tool recorded, or a
// value that could not be mapped (its inspection then fails with the
// reason). Runs it does not cover are, on the deep side, the runs outside
// the deep subset.
func (s *Source) Covers(runID string, _ inspection.Depth) bool {
	_, ok := s.results[runID]
	return ok
}

// RunIDs returns the ids of the runs the source has a result for (those
// Covers reports, at either depth), sorted: calibrate checks them against
// the runs found before any call.
func (s *Source) RunIDs(inspection.Depth) []string {
	ids := make([]string, 0, len(s.results))
	for id := range s.results {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// InclusionProbability is always unknown: the tools do not record how
// the scored samples were chosen.
func (s *Source) InclusionProbability(string) (float64, bool) { return 0, false }

// Inspect returns the run's inspection at depth. A run the source does not
// cover, or whose result could not be mapped, is a permanent error (asking
// again gives the same answer); the first wraps ErrNotCovered.
func (s *Source) Inspect(ctx context.Context, run inspection.Run, depth inspection.Depth) (inspection.Inspection, error) {
	if err := ctx.Err(); err != nil {
		return inspection.Inspection{}, err
	}
	r, ok := s.results[run.ID]
	if !ok {
		return inspection.Inspection{}, inspection.Permanent(fmt.Errorf("%s: run %s: %w %s", s.identity, run.ID, ErrNotCovered, s.what()))
	}
	if r.err != nil {
		return inspection.Inspection{}, inspection.Permanent(r.err)
	}
	insp := r.insp
	insp.Depth = depth
	insp.Flags = append([]inspection.Flag{}, insp.Flags...)
	insp.Services = []inspection.Service{}
	return insp, nil
}

func (s *Source) what() string {
	if s.selector == "" {
		return "the file"
	}
	return s.selector
}

var _ inspection.Inspector = (*Source)(nil)

// SplitSpec splits the part of an inspector spec after "inspect:" or
// "promptfoo:" into the file and the scorer or assertion, at the last
// "#": "logs/x.eval#match" is ("logs/x.eval", "match"), "logs/x.eval" is
// ("logs/x.eval", ""). A path that holds a "#" needs a trailing one:
// "a#b.eval#" is ("a#b.eval", "").
func SplitSpec(rest string) (path, selector string) {
	i := strings.LastIndexByte(rest, '#')
	if i < 0 {
		return rest, ""
	}
	return rest[:i], rest[i+1:]
}

// Verdict thresholds on a value in [0, 1] (docs/DESIGN.md's verdict rule on
// the 0-100 score: pass at 70 or more, fail under 40), unless the options
// say otherwise (Options.Pass, Options.Fail).
const (
	passAt    = inspection.PassAt / 100
	failBelow = inspection.FailBelow / 100
)

// truncate cuts s to at most n runes, marking the cut with "…"; invalid
// UTF-8 is replaced so the result is always valid.
func truncate(s string, n int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// sortRuns returns runs sorted by id (unique): it sorts their positions
// and moves each run once, where sorting the runs themselves would move
// a few hundred bytes a swap, n log n times.
func sortRuns(runs []inspection.Run) []inspection.Run {
	if slices.IsSortedFunc(runs, func(a, b inspection.Run) int { return strings.Compare(a.ID, b.ID) }) {
		return runs
	}
	order := make([]int32, len(runs))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int { return strings.Compare(runs[a].ID, runs[b].ID) })
	out := make([]inspection.Run, len(runs))
	for i, k := range order {
		out[i] = runs[k]
	}
	return out
}

// oneLine folds white space runs to one space, for summaries.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
