package forecast

import "github.com/evalcal/evalcal/gates"

// CallsSchemaVersion is the version of the calls document's layout.
const CallsSchemaVersion = 1

// CallsDocument is the output of evalcal calls: a CallReport with what it
// was computed from, the composite scores when weights were given, and
// the gates' outcomes.
type CallsDocument struct {
	SchemaVersion int    `yaml:"schema_version" json:"schema_version"`
	GeneratedBy   string `yaml:"generated_by" json:"generated_by"`
	// GatesFailed is gates.Summary of Gates, first so a reader sees it:
	// "GATES FAILED: ..."; absent when every gate passed.
	GatesFailed string `yaml:"gates_failed,omitempty" json:"gates_failed,omitempty"`
	// Inputs are the input files with the SHA-256 of their bytes, and
	// CommandLine the arguments (without -o), so the document can be
	// reproduced.
	Inputs      []ScoreInput `yaml:"inputs" json:"inputs"`
	CommandLine []string     `yaml:"command_line" json:"command_line"`
	AsOf        string       `yaml:"as_of" json:"as_of"`
	Calls       string       `yaml:"calls" json:"calls"`
	Prices      string       `yaml:"prices" json:"prices"`
	// Resolved counts the resolved calls over every group and
	// LowestCalibration names the group with the lowest measured
	// calibration (absent when none was measured); see Derive.
	Resolved          int          `yaml:"resolved" json:"resolved"`
	LowestCalibration *Lowest      `yaml:"lowest_calibration,omitempty" json:"lowest_calibration,omitempty"`
	Groups            []GroupScore `yaml:"groups" json:"groups"`
	Passports         []Passport   `yaml:"passports" json:"passports"`
	Tampered          []CallRef    `yaml:"tampered" json:"tampered"`
	Unsealed          int          `yaml:"unsealed" json:"unsealed"`
	// SealedV2 and SealedV1 count the calls by seal version;
	// UnsealedIgnored the unsealed calls that do not count.
	SealedV2        int              `yaml:"sealed_v2" json:"sealed_v2"`
	SealedV1        int              `yaml:"sealed_v1" json:"sealed_v1"`
	UnsealedIgnored int              `yaml:"unsealed_ignored" json:"unsealed_ignored"`
	Composite       []GroupComposite `yaml:"composite,omitempty" json:"composite,omitempty"`
	BadLines        []BadLine        `yaml:"bad_lines" json:"bad_lines"`
	Warnings        []string         `yaml:"warnings" json:"warnings"`
	// Gates records each requested gate (--require) and its outcome.
	Gates []gates.GateRecord `yaml:"gates,omitempty" json:"gates,omitempty"`
}

// GateSchemaVersion is the version of the gate document's layout.
const GateSchemaVersion = 1

// GateDocument is the output of evalcal gate: the decisions of
// DecideGate with the input paths, bad lines and warnings, and what
// wrote it, as every evalcal document says.
type GateDocument struct {
	SchemaVersion int            `yaml:"schema_version" json:"schema_version"`
	GeneratedBy   string         `yaml:"generated_by" json:"generated_by"`
	Events        string         `yaml:"events" json:"events"`
	History       string         `yaml:"history" json:"history"`
	Decisions     []GateDecision `yaml:"decisions" json:"decisions"`
	BadLines      []BadLine      `yaml:"bad_lines" json:"bad_lines"`
	Warnings      []string       `yaml:"warnings" json:"warnings"`
}
