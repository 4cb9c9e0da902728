package gates

import (
	"fmt"
	"strings"

	"github.com/evalcal/evalcal/internal/english"
)

// FailedGate is one gate expression that failed, with the results it
// failed on (one per group of a score or calls document).
type FailedGate struct {
	Expr    string
	Results []Result
}

// Groups are the groups the gate failed on ("atlas/2026-q1", from the
// field "groups[atlas/2026-q1].calibration"), in order; empty for a gate
// on a calibration report, whose fields have no group.
func (f FailedGate) Groups() []string {
	var out []string
	for _, r := range f.Results {
		if g := GroupOf(r.Field); g != "" {
			out = append(out, g)
		}
	}
	return out
}

// GroupOf is the group a result's field names ("groups[KEY].field" ->
// KEY), or "" for a field outside the groups.
func GroupOf(field string) string {
	rest, ok := strings.CutPrefix(field, "groups[")
	if !ok {
		return ""
	}
	if i := strings.LastIndex(rest, "]."); i >= 0 {
		return rest[:i]
	}
	return strings.TrimSuffix(rest, "]")
}

// FailedByExpr groups the failed results by gate expression, in the order
// the expressions first appear, so that a gate failing on three groups is
// one entry naming them, not three lines that repeat it (issue 28).
func FailedByExpr(rs []Result) []FailedGate {
	var out []FailedGate
	at := map[string]int{}
	for _, r := range rs {
		if r.Pass {
			continue
		}
		i, ok := at[r.Expr]
		if !ok {
			i = len(out)
			at[r.Expr] = i
			out = append(out, FailedGate{Expr: r.Expr})
		}
		out[i].Results = append(out[i].Results, r)
	}
	return out
}

// Summary is the one line a document carries when a gate failed, "" when
// every gate passed (or none was asked for):
//
//	GATES FAILED: 1 of 2 gates: calibration >= 90 on 3 of 3 groups (atlas/2026-q1, birch/2026-q1, birch/2026-q2)
//
// Gates count distinct expressions; a gate on a report without groups is
// named alone.
func Summary(rs []Result) string {
	failed := FailedByExpr(rs)
	if len(failed) == 0 {
		return ""
	}
	total := map[string]int{}
	for _, r := range rs {
		total[r.Expr]++
	}
	parts := make([]string, len(failed))
	for i, f := range failed {
		parts[i] = f.Expr
		if groups := f.Groups(); len(groups) > 0 {
			parts[i] += fmt.Sprintf(" on %d of %s (%s)", len(groups), english.Count(total[f.Expr], "group", "groups"), strings.Join(groups, ", "))
		}
	}
	return fmt.Sprintf("GATES FAILED: %d of %s: %s", len(failed), english.Count(len(total), "gate", "gates"), strings.Join(parts, "; "))
}
