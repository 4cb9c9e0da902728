package pairwise

import "github.com/evalcal/evalcal/internal/lines"

// SchemaVersion is the position document's schema version.
const SchemaVersion = 1

// Document is the position document evalcal position writes.
type Document struct {
	SchemaVersion int      `yaml:"schema_version" json:"schema_version"`
	GeneratedBy   string   `yaml:"generated_by" json:"generated_by"`
	Judges        []string `yaml:"judge_inputs" json:"judge_inputs"`
	Deep          string   `yaml:"deep_input" json:"deep_input"`
	CommandLine   []string `yaml:"command_line" json:"command_line"`
	// MinConsistencyLower is the consistency lower bound under which the
	// trust verdict is capped at monitor (a proportion).
	MinConsistencyLower float64    `yaml:"min_consistency_lower" json:"min_consistency_lower"`
	Positions           []Position `yaml:"judges" json:"judges"`
	BadLines            BadLines   `yaml:"bad_lines" json:"bad_lines"`
}

// BadLines are the input lines that could not be read.
type BadLines = lines.BadLines
