// Package builtin is evalcal's default inspector: a deterministic
// structural check of an OpenProse run directory at two depths.
//
// Light looks only at what the sampler's description and file sizes
// show: the log's terminator, declared services without bindings,
// zero-byte outputs and __error.md files. Deep adds what can be checked
// without a model: the log's order against the manifest's execution
// order, binding integrity, error handling, and output substance
// (whitespace-only, placeholder and truncated outputs). Light never runs
// the deep checks, so a defect only deep can see leaves light optimistic;
// that gap is what evalcal measures.
//
// Scores start at 100 and lose a fixed number of points per flag (see
// deductions), clamped to 0..100; light's are then capped at 85 (runtime
// fidelity) and 80 (task effectiveness). The verdict follows DESIGN.md:
// fail if the run did not complete or either score is below 40; pass if
// both are at least 70 and no flag is critical; partial otherwise.
package builtin

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/evalcal/evalcal/runner"
	"github.com/evalcal/evalcal/sampler"
)

// Identity is the inspector's cache identity; bump it whenever a check,
// a deduction or a flag text changes.
const Identity = "builtin/1"

// Light score caps (DESIGN.md).
const (
	LightRuntimeCap = 85
	LightTaskCap    = 80
)

// Flag ids. They are stable: the comparator matches flags by id and the
// advisor names them in recommendations.
const (
	FlagRunFailed         = "run-failed"          // log ends in ---error
	FlagRunIncomplete     = "run-incomplete"      // log has no terminator
	FlagMissingBinding    = "missing-binding"     // a service that should have published has no binding
	FlagErrorFile         = "error-file"          // workspace/{svc}/__error.md (deep: not recovered)
	FlagUnhandledError    = "unhandled-error"     // deep: an unrecovered error in a run that says it completed
	FlagEmptyOutput       = "empty-output"        // 0 bytes (deep: also whitespace or an empty envelope body)
	FlagOrderMismatch     = "order-mismatch"      // deep: log order contradicts the manifest's
	FlagPlaceholder       = "placeholder-output"  // deep: TODO / TBD / FIXME / lorem ipsum / <placeholder>
	FlagTruncated         = "truncated-output"    // deep: cut mid-sentence, open code fence, JSON cut short
	FlagBindingUnparsable = "binding-unparseable" // deep: a JSON output does not parse
	FlagBindingEnvelope   = "binding-envelope"    // deep: a Markdown binding lacks its `# name` / `kind:` envelope
	FlagPublishedMismatch = "published-mismatch"  // deep: published.json lists an output that is absent or differs
	FlagLogUnreadable     = "log-unreadable"      // the log could not be read
	FlagManifestBroken    = "manifest-unreadable" // the manifest could not be parsed
	FlagOutputUnreadable  = "output-unreadable"   // an output file could not be read
)

// deduction is what one flag of an id costs each score, and its severity.
type deduction struct {
	severity        string
	runtime, task   float64
	descriptionHead string
}

// deductions are the points each flag instance removes. Sized so that on
// a completed run one defect flag gives partial (a score below 70 or a
// critical flag) and two defects on the same score give fail (below 40).
var deductions = map[string]deduction{
	FlagRunFailed:         {runner.SeverityCritical, 50, 40, "the run failed"},
	FlagRunIncomplete:     {runner.SeverityCritical, 50, 40, "the run did not finish"},
	FlagMissingBinding:    {runner.SeverityCritical, 20, 35, "missing binding"},
	FlagErrorFile:         {runner.SeverityCritical, 35, 15, "error file"},
	FlagUnhandledError:    {runner.SeverityCritical, 30, 10, "unhandled error"},
	FlagEmptyOutput:       {runner.SeverityCritical, 10, 35, "empty output"},
	FlagOrderMismatch:     {runner.SeverityWarning, 35, 0, "order mismatch"},
	FlagPlaceholder:       {runner.SeverityCritical, 0, 35, "placeholder output"},
	FlagTruncated:         {runner.SeverityWarning, 0, 35, "truncated output"},
	FlagBindingUnparsable: {runner.SeverityWarning, 15, 20, "unparseable binding"},
	FlagBindingEnvelope:   {runner.SeverityWarning, 10, 0, "binding envelope"},
	FlagPublishedMismatch: {runner.SeverityWarning, 20, 0, "published output mismatch"},
	FlagLogUnreadable:     {runner.SeverityCritical, 40, 0, "unreadable log"},
	FlagManifestBroken:    {runner.SeverityWarning, 15, 0, "unreadable manifest"},
	FlagOutputUnreadable:  {runner.SeverityWarning, 5, 10, "unreadable output"},
}

// Inspector is the builtin structural inspector. It holds no state and is
// safe for concurrent use.
type Inspector struct{}

// New returns the builtin inspector.
func New() *Inspector { return &Inspector{} }

// Identity implements runner.Inspector.
func (*Inspector) Identity() string { return Identity }

// Inspect implements runner.Inspector: it reads run.Path and returns the
// inspection at depth. Same directory content and depth give the same
// inspection. Cost is a deterministic pseudo cost: tokens = bytes read
// / 4, seconds and USD zero, so reports are byte-identical across
// machines. Errors: an unknown depth, a run without a directory, or a
// cancelled ctx.
func (in *Inspector) Inspect(ctx context.Context, run sampler.Run, depth runner.Depth) (runner.Inspection, error) {
	if depth != runner.Light && depth != runner.Deep {
		return runner.Inspection{}, fmt.Errorf("builtin: inspect %s: unknown depth %q", run.ID, depth)
	}
	if run.Path == "" {
		return runner.Inspection{}, fmt.Errorf("builtin: inspect %s: the run has no directory (era %s)", run.ID, run.Era)
	}
	c := newCheck(ctx, run, depth)
	if err := c.inspect(); err != nil {
		return runner.Inspection{}, fmt.Errorf("builtin: inspect %s at %s: %w", run.ID, depth, err)
	}
	return c.inspection(), nil
}

// score computes both scores from flags and applies the light caps.
func score(flags []runner.Flag, depth runner.Depth) (runtime, task float64) {
	runtime, task = 100, 100
	for _, f := range flags {
		d := deductions[f.ID]
		runtime -= d.runtime
		task -= d.task
	}
	runtime = math.Max(0, math.Min(100, runtime))
	task = math.Max(0, math.Min(100, task))
	if depth == runner.Light {
		runtime = math.Min(runtime, LightRuntimeCap)
		task = math.Min(task, LightTaskCap)
	}
	return runtime, task
}

// Verdict applies DESIGN.md's rule: fail if the run did not complete or
// either score is below 40; pass if both are at least 70 and no flag is
// critical; partial otherwise.
func Verdict(completed bool, runtime, task float64, flags []runner.Flag) string {
	if !completed || runtime < runner.FailBelow || task < runner.FailBelow {
		return runner.VerdictFail
	}
	for _, f := range flags {
		if f.Severity == runner.SeverityCritical {
			return runner.VerdictPartial
		}
	}
	if runtime >= runner.PassAt && task >= runner.PassAt {
		return runner.VerdictPass
	}
	return runner.VerdictPartial
}

func sortFlags(flags []runner.Flag) {
	sort.SliceStable(flags, func(i, j int) bool {
		if flags[i].ID != flags[j].ID {
			return flags[i].ID < flags[j].ID
		}
		return flags[i].Evidence < flags[j].Evidence
	})
}

func summary(run sampler.Run, depth runner.Depth, flags []runner.Flag, rf, te float64, verdict string) string {
	crit := 0
	ids := map[string]bool{}
	for _, f := range flags {
		ids[f.ID] = true
		if f.Severity == runner.SeverityCritical {
			crit++
		}
	}
	var idList []string
	for id := range ids {
		idList = append(idList, id)
	}
	sort.Strings(idList)
	s := fmt.Sprintf("%s structural inspection of %s (%s, %s): %d flags (%d critical)",
		depth, run.ID, run.Era, run.Status, len(flags), crit)
	if len(idList) > 0 {
		s += " [" + strings.Join(idList, ", ") + "]"
	}
	return s + fmt.Sprintf("; runtime_fidelity %.0f, task_effectiveness %.0f; %s", rf, te, verdict)
}
