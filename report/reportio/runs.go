package reportio

import (
	"context"
	"path/filepath"

	"github.com/evalcal/evalcal/report"
)

// ReadReportWithRuns is ReadReportContext that also puts back the
// per-run listings from the report's runs file (report.LoadRunsFile),
// relative to the report's directory.
func ReadReportWithRuns(ctx context.Context, path string) (*report.Report, error) {
	r, err := ReadReportContext(ctx, path)
	if err != nil {
		return nil, err
	}
	if err := report.LoadRunsFile(ctx, r, filepath.Dir(path)); err != nil {
		return nil, err
	}
	return r, nil
}
