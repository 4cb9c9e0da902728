package render

// Exported for the external tests of the renderers (package render_test),
// which build reports with calibrate.Fill.
var CheckGolden = checkGolden
