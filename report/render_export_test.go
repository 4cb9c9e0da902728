package report

// Exported for the external tests of the renderers (package report_test),
// which build reports with calibrate.Fill: calibrate imports report, so
// only an external test package can use it.
var (
	CheckGolden    = checkGolden
	ShellQuote     = shellQuote
	CommandLineFor = commandLine
)
