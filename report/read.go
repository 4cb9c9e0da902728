package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"gopkg.in/yaml.v3"
)

// ErrNewerSchema is returned (wrapped) when a report was written by a newer
// evalcal than this one: its schema_version is above SchemaVersion, so
// fields may have changed meaning and the report is not read.
var ErrNewerSchema = errors.New("report was written with a newer schema")

// ErrNotReport is returned (wrapped) when a document has no positive
// schema_version, so it is not an evalcal calibration report.
var ErrNotReport = errors.New("not an evalcal calibration report")

// ReadReport reads a calibration report from path, as YAML or JSON (a
// document whose first non-blank byte is '{' is JSON). It refuses a report
// whose schema_version is newer than SchemaVersion (ErrNewerSchema) or
// missing (ErrNotReport) before decoding the rest, and wraps every error
// with the path.
func ReadReport(path string) (*Report, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("report: read %s: %w", path, err)
	}
	r, err := ParseReport(data)
	if err != nil {
		return nil, fmt.Errorf("report: read %s: %w", path, err)
	}
	return r, nil
}

// ParseReport decodes a calibration report from YAML or JSON bytes, with
// the checks of ReadReport. Unknown keys are ignored so that a report
// carrying sections added within the same schema version still reads.
func ParseReport(data []byte) (*Report, error) {
	isJSON := bytes.HasPrefix(bytes.TrimLeft(data, " \t\r\n\ufeff"), []byte("{"))
	var head struct {
		SchemaVersion *int `yaml:"schema_version" json:"schema_version"`
	}
	if err := decode(data, isJSON, &head); err != nil {
		return nil, err
	}
	switch {
	case head.SchemaVersion == nil || *head.SchemaVersion < 1:
		return nil, fmt.Errorf("%w: no positive schema_version", ErrNotReport)
	case *head.SchemaVersion > SchemaVersion:
		return nil, fmt.Errorf("%w: schema_version %d, this evalcal reads up to %d; upgrade evalcal to read it",
			ErrNewerSchema, *head.SchemaVersion, SchemaVersion)
	}
	var r Report
	if err := decode(data, isJSON, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

func decode(data []byte, isJSON bool, v any) error {
	if isJSON {
		if err := json.Unmarshal(data, v); err != nil {
			return fmt.Errorf("decode json: %w", err)
		}
		return nil
	}
	if err := yaml.Unmarshal(data, v); err != nil {
		return fmt.Errorf("decode yaml: %w", err)
	}
	return nil
}
