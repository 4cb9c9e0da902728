package reportenc

// Exported for the external tests of this package (package
// reportenc_test), which build reports with report/reporttest or read
// them with report/reportio: both import this package, so only an
// external test package can use them.
var (
	CheckIdentity      = checkIdentity
	LineDiff           = lineDiff
	DecodeDocument     = decodeDocument
	LargeScoreDocument = largeScoreDocument
	ErrDiskFull        = errDiskFull
)

// FailingWriter fails every write with ErrDiskFull.
type FailingWriter = failingWriter
