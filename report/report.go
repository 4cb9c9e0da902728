package report

import (
	"bytes"

	"github.com/evalcal/evalcal/advisor"
	"github.com/evalcal/evalcal/comparator"
	"github.com/evalcal/evalcal/gates"
	"github.com/evalcal/evalcal/runner"
	"github.com/evalcal/evalcal/sampler"
	"github.com/evalcal/evalcal/statistician/aggregate"
)

// SchemaVersion is the version of the report layout. It rises whenever a
// field is removed or changes meaning; readers refuse newer versions.
const SchemaVersion = 1

// Report is the calibration report. Field order is the document's key
// order; every top-level key is always present.
type Report struct {
	SchemaVersion         int                         `yaml:"schema_version" json:"schema_version"`
	GeneratedBy           string                      `yaml:"generated_by" json:"generated_by"`
	Inputs                Inputs                      `yaml:"inputs" json:"inputs"`
	SampleSize            int                         `yaml:"sample_size" json:"sample_size"`
	Sample                Sample                      `yaml:"sample" json:"sample"`
	AgreementRate         aggregate.AgreementRate     `yaml:"agreement_rate" json:"agreement_rate"`
	AgreementBySystem     []aggregate.SystemAgreement `yaml:"agreement_by_system" json:"agreement_by_system"`
	ScoreCorrelation      aggregate.ScoreCorrelation  `yaml:"score_correlation" json:"score_correlation"`
	MeanScoreDelta        aggregate.MeanScoreDelta    `yaml:"mean_score_delta" json:"mean_score_delta"`
	BiasDirection         string                      `yaml:"bias_direction" json:"bias_direction"`
	DisagreementBreakdown aggregate.Breakdown         `yaml:"disagreement_breakdown" json:"disagreement_breakdown"`
	Confidence            string                      `yaml:"confidence" json:"confidence"`
	Preliminary           bool                        `yaml:"preliminary" json:"preliminary"`
	Kappa                 aggregate.KappaSection      `yaml:"kappa" json:"kappa"`
	Confusion             aggregate.Confusion         `yaml:"confusion" json:"confusion"`
	Forecast              aggregate.Forecast          `yaml:"forecast" json:"forecast"`
	Disagreements         []comparator.Comparison     `yaml:"disagreements" json:"disagreements"`
	Comparisons           []comparator.Comparison     `yaml:"comparisons" json:"comparisons"`
	Failures              []runner.Failure            `yaml:"failures" json:"failures"`
	// Partial is true when some inspections failed, so the statistics
	// cover fewer runs than were sampled.
	Partial         bool                     `yaml:"partial" json:"partial"`
	Recommendations []advisor.Recommendation `yaml:"recommendations" json:"recommendations"`
	Warnings        []string                 `yaml:"warnings" json:"warnings"`
	// Trend compares this report with a baseline report (run --baseline);
	// absent without one.
	Trend *Trend `yaml:"trend,omitempty" json:"trend,omitempty"`
	// Gates records each requested gate (--require) and its outcome;
	// absent when none was requested.
	Gates []gates.GateRecord `yaml:"gates,omitempty" json:"gates,omitempty"`
}

// Inputs says what the report was computed from, so that it can be
// reproduced: the same inputs and flags give a byte-identical report.
type Inputs struct {
	Paths       []string `yaml:"paths" json:"paths"`
	Inspections string   `yaml:"inspections,omitempty" json:"inspections,omitempty"`
	Inspector   string   `yaml:"inspector" json:"inspector"`
	Seed        uint64   `yaml:"seed" json:"seed"`
	SampleLimit int      `yaml:"sample_limit" json:"sample_limit"`
	// Bins is the number of bins of the light-score reliability table.
	Bins int `yaml:"bins" json:"bins"`
	// Shard is "i/n" when this report covers shard i of n of the sample
	// (run --shard); merge recombines shards exactly.
	Shard string `yaml:"shard,omitempty" json:"shard,omitempty"`
	// ContentHash is the SHA-256 over the sampled runs' ids and content
	// hashes, in id order: it changes when any input run changes. With
	// --shard it covers the whole sample, so shards of one job share it.
	ContentHash string `yaml:"content_hash" json:"content_hash"`
	// CommandLine is the command's arguments without those that cannot
	// change the result (--jobs, --cache, --no-cache, -o, --progress).
	CommandLine []string `yaml:"command_line" json:"command_line"`
}

// Sample is the calibration sample: its composition, the runs calibrated
// on, and the runs set aside as invalid with the reason.
type Sample struct {
	Composition sampler.Composition `yaml:"composition" json:"composition"`
	Runs        []SampleRun         `yaml:"runs" json:"runs"`
	Invalid     []Invalid           `yaml:"invalid" json:"invalid"`
	// Rejected lists saved-inspection lines that name no readable run_id
	// and depth ("file:line: why"); lines that do name them fail that
	// inspection instead.
	Rejected []string `yaml:"rejected,omitempty" json:"rejected,omitempty"`
}

// SampleRun is one sampled run as the sampler described it.
type SampleRun struct {
	ID        string `yaml:"id" json:"id"`
	System    string `yaml:"system" json:"system"`
	Era       string `yaml:"era" json:"era"`
	Status    string `yaml:"status" json:"status"`
	Services  int    `yaml:"services" json:"services"`
	SizeBytes int64  `yaml:"size_bytes" json:"size_bytes"`
	Path      string `yaml:"path,omitempty" json:"path,omitempty"`
	// ContentHash is the SHA-256 over the run's files (sorted paths and
	// contents): the inspection cache's key and the run's identity.
	ContentHash string `yaml:"content_hash" json:"content_hash"`
	// Warnings are what could not be read in the run (a truncated log, a
	// marker outside the spec); the run was described anyway.
	Warnings []string `yaml:"warnings,omitempty" json:"warnings,omitempty"`
}

// Invalid is a run set aside, with the reason.
type Invalid struct {
	ID     string `yaml:"id" json:"id"`
	Path   string `yaml:"path,omitempty" json:"path,omitempty"`
	Reason string `yaml:"reason" json:"reason"`
}

// YAML renders the report as YAML with two-space indentation.
func (r *Report) YAML() ([]byte, error) { return EncodeYAML(r) }

// JSON renders the report as indented JSON.
func (r *Report) JSON() ([]byte, error) { return EncodeJSON(r) }

// EncodeYAML renders any document (the calibration report, a score,
// calls or gate document) as YAML with two-space indentation; key order
// is the structs' field order. It is WriteYAML into memory: the figures
// follow the precision rule (see Precision); prefer WriteYAML to a file
// or stdout for large documents.
func EncodeYAML(v any) ([]byte, error) {
	var buf bytes.Buffer
	if err := WriteYAML(&buf, v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// EncodeJSON renders any document as indented JSON with a final newline.
// It is WriteJSON into memory (see Precision for the figures).
func EncodeJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	if err := WriteJSON(&buf, v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
