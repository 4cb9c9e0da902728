package report

import (
	"testing"
)

// Exported for the external tests of this package (package report_test),
// which build reports with report/reporttest or read them with
// report/reportio: both import report, so only an external test package
// can use them.
var (
	CheckIdentity      = checkIdentity
	LineDiff           = lineDiff
	DecodeDocument     = decodeDocument
	LargeScoreDocument = largeScoreDocument
	ErrDiskFull        = errDiskFull
)

// FailingWriter fails every write with ErrDiskFull.
type FailingWriter = failingWriter

// ValidateAgainstSchema validates a JSON document against the committed
// report schema.
func ValidateAgainstSchema(t *testing.T, b []byte) error {
	t.Helper()
	return compileSchema(t).Validate(instance(t, b))
}
