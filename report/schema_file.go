package report

import (
	"bytes"
	_ "embed"
)

// schemaJSON is report/schema/report.schema.json, the JSON Schema of the
// calibration report, generated from the Go types by GenerateSchema
// (schema_gen.go; go test ./report -run TestSchemaFileIsCurrent -update).
//
//go:embed schema/report.schema.json
var schemaJSON []byte

// SchemaJSON returns a copy of the committed JSON Schema of the calibration
// report, which the report reader (report/reportio) validates against.
func SchemaJSON() []byte { return bytes.Clone(schemaJSON) }
