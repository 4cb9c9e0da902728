package runner

import (
	"fmt"

	"github.com/evalcal/evalcal/inspection"
)

// conform checks an inspection returned for run at depth and fills an
// empty run_id, depth or system from the run. A mismatch or an invalid value is a permanent
// error: asking again would give the same answer.
func conform(insp inspection.Inspection, run inspection.Run, depth inspection.Depth) (inspection.Inspection, error) {
	switch insp.RunID {
	case "":
		insp.RunID = run.ID
	case run.ID:
	default:
		return insp, inspection.Permanent(&inspection.FieldError{Field: "run_id", Err: fmt.Errorf("%q, want %q", insp.RunID, run.ID)})
	}
	switch insp.Depth {
	case "":
		insp.Depth = depth
	case depth:
	default:
		return insp, inspection.Permanent(&inspection.FieldError{Field: "depth", Err: fmt.Errorf("%q, want %q", insp.Depth, depth)})
	}
	if insp.System == "" {
		insp.System = run.System
	}
	if err := inspection.CheckInspection(insp); err != nil {
		return insp, inspection.Permanent(err)
	}
	return insp, nil
}
