// Package reportio reads calibration reports back: YAML or JSON, bounded
// in size, checked against the committed JSON Schema
// (report/schema/report.schema.json) so that a missing or mistyped field
// is an error naming it, and refused when written by a newer schema.
package reportio
