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
// fidelity) and 80 (task effectiveness). The verdict follows docs/DESIGN.md:
// fail if the run did not complete or either score is below 40; pass if
// both are at least 70 and no flag is critical; partial otherwise.
package builtin

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/evalcal/evalcal/inspection"
)

// Identity is the inspector's cache identity; bump it whenever a check,
// a deduction or a flag text changes.
const Identity = "builtin/1"

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
	inspection.FlagRunFailed:         {inspection.SeverityCritical, 50, 40, "the run failed"},
	inspection.FlagRunIncomplete:     {inspection.SeverityCritical, 50, 40, "the run did not finish"},
	inspection.FlagMissingBinding:    {inspection.SeverityCritical, 20, 35, "missing binding"},
	inspection.FlagErrorFile:         {inspection.SeverityCritical, 35, 15, "error file"},
	inspection.FlagUnhandledError:    {inspection.SeverityCritical, 30, 10, "unhandled error"},
	inspection.FlagEmptyOutput:       {inspection.SeverityCritical, 10, 35, "empty output"},
	inspection.FlagOrderMismatch:     {inspection.SeverityWarning, 35, 0, "order mismatch"},
	inspection.FlagPlaceholder:       {inspection.SeverityCritical, 0, 35, "placeholder output"},
	inspection.FlagTruncated:         {inspection.SeverityWarning, 0, 35, "truncated output"},
	inspection.FlagBindingUnparsable: {inspection.SeverityWarning, 15, 20, "unparseable binding"},
	inspection.FlagBindingEnvelope:   {inspection.SeverityWarning, 10, 0, "binding envelope"},
	inspection.FlagPublishedMismatch: {inspection.SeverityWarning, 20, 0, "published output mismatch"},
	inspection.FlagLogUnreadable:     {inspection.SeverityCritical, 40, 0, "unreadable log"},
	inspection.FlagManifestBroken:    {inspection.SeverityWarning, 15, 0, "unreadable manifest"},
	inspection.FlagOutputUnreadable:  {inspection.SeverityWarning, 5, 10, "unreadable output"},
}

// Inspector is the builtin structural inspector. It holds no state and is
// safe for concurrent use.
type Inspector struct{}

// New returns the builtin inspector.
func New() *Inspector { return &Inspector{} }

// Identity implements inspection.Inspector.
func (*Inspector) Identity() string { return Identity }

// Inspect implements inspection.Inspector: it reads run.Path and returns the
// inspection at depth. Same directory content and depth give the same
// inspection. Cost is a deterministic pseudo cost: tokens = bytes read
// / 4, seconds and USD zero, so reports are byte-identical across
// machines. Errors: an unknown depth, a run without a directory, or a
// cancelled ctx.
func (in *Inspector) Inspect(ctx context.Context, run inspection.Run, depth inspection.Depth) (inspection.Inspection, error) {
	if depth != inspection.Light && depth != inspection.Deep {
		return inspection.Inspection{}, fmt.Errorf("builtin: inspect %s: unknown depth %q", run.ID, depth)
	}
	if run.Path == "" {
		return inspection.Inspection{}, fmt.Errorf("builtin: inspect %s: the run has no directory (era %s)", run.ID, run.Era)
	}
	c := newCheck(ctx, run, depth)
	if err := c.inspect(); err != nil {
		return inspection.Inspection{}, fmt.Errorf("builtin: inspect %s at %s: %w", run.ID, depth, err)
	}
	return c.inspection(), nil
}

// score computes both scores from flags and applies the light caps.
func score(flags []inspection.Flag, depth inspection.Depth) (runtime, task float64) {
	runtime, task = 100, 100
	for _, f := range flags {
		d := deductions[f.ID]
		runtime -= d.runtime
		task -= d.task
	}
	runtime = math.Max(0, math.Min(100, runtime))
	task = math.Max(0, math.Min(100, task))
	if depth == inspection.Light {
		runtime = math.Min(runtime, inspection.LightRuntimeCap)
		task = math.Min(task, inspection.LightTaskCap)
	}
	return runtime, task
}

func sortFlags(flags []inspection.Flag) {
	sort.SliceStable(flags, func(i, j int) bool {
		if flags[i].ID != flags[j].ID {
			return flags[i].ID < flags[j].ID
		}
		return flags[i].Evidence < flags[j].Evidence
	})
}

func summary(run inspection.Run, depth inspection.Depth, flags []inspection.Flag, rf, te float64, verdict string) string {
	crit := 0
	ids := map[string]bool{}
	for _, f := range flags {
		ids[f.ID] = true
		if f.Severity == inspection.SeverityCritical {
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
