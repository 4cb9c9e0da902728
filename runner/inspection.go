// Package runner calls an inspector at light then deep depth for each run,
// concurrently across runs with a bound, with retries, timeouts and an
// on-disk cache keyed by inspector identity, depth and run content.
package runner

import (
	"context"

	"github.com/evalcal/evalcal/sampler"
)

// Depth is how thoroughly an inspector looks at a run.
type Depth string

// The two depths evalcal calibrates against each other.
const (
	Light Depth = "light"
	Deep  Depth = "deep"
)

// Verdicts, ordered fail < partial < pass.
const (
	VerdictFail    = "fail"
	VerdictPartial = "partial"
	VerdictPass    = "pass"
)

// DESIGN.md's verdict lines on the 0-100 scores: a run fails when a score
// is under FailBelow and passes when both reach PassAt (and no critical
// flag stands), partial otherwise.
const (
	FailBelow = 40.0
	PassAt    = 70.0
)

// Flag severities.
const (
	SeverityInfo     = "info"
	SeverityWarning  = "warning"
	SeverityCritical = "critical"
)

// FlagInputTruncated is the id of an info flag an inspector adds when it
// could not show the judge the whole run (an LLM prompt's token budget).
// It is about the inspector's input, not about the run, so the comparator
// leaves it out of flag overlap and disagreement types.
const FlagInputTruncated = "prompt-truncated"

// Inspection is what an inspector returns for one run at one depth
// (schema in DESIGN.md). Scores are 0..100.
type Inspection struct {
	RunID             string    `yaml:"run_id" json:"run_id"`
	System            string    `yaml:"system" json:"system"`
	Depth             Depth     `yaml:"depth" json:"depth"`
	RuntimeFidelity   float64   `yaml:"runtime_fidelity" json:"runtime_fidelity"`
	TaskEffectiveness float64   `yaml:"task_effectiveness" json:"task_effectiveness"`
	Services          []Service `yaml:"services" json:"services"`
	Flags             []Flag    `yaml:"flags" json:"flags"`
	Verdict           string    `yaml:"verdict" json:"verdict"`
	Summary           string    `yaml:"summary" json:"summary"`
	Cost              Cost      `yaml:"cost" json:"cost"`
}

// Service is one service's status as an inspector saw it.
type Service struct {
	Name   string `yaml:"name" json:"name"`
	Status string `yaml:"status" json:"status"`
}

// Flag is one finding.
type Flag struct {
	ID          string `yaml:"id" json:"id"`
	Severity    string `yaml:"severity" json:"severity"`
	Description string `yaml:"description" json:"description"`
	Evidence    string `yaml:"evidence" json:"evidence"`
}

// Cost is what one inspection cost. Tokens is the total; an LLM judge
// also reports the split (Usage), which the runner prices per model.
type Cost struct {
	Seconds float64 `yaml:"seconds" json:"seconds"`
	Tokens  int64   `yaml:"tokens" json:"tokens"`
	USD     float64 `yaml:"usd" json:"usd"`
	// Usage is the token split of an LLM judge's calls for this
	// inspection (a repair attempt included); absent for other inspectors.
	Usage *Usage `yaml:"usage,omitempty" json:"usage,omitempty"`
}

// Usage is token usage as a provider reports it. Input counts every
// prompt token (cached ones included); CachedInput is the part served from
// the provider's prompt cache; Reasoning is the part of Output spent on
// hidden reasoning. Calls counts the HTTP requests that produced it.
type Usage struct {
	Model       string `yaml:"model" json:"model"`
	Calls       int64  `yaml:"calls" json:"calls"`
	Input       int64  `yaml:"input_tokens" json:"input_tokens"`
	Output      int64  `yaml:"output_tokens" json:"output_tokens"`
	CachedInput int64  `yaml:"cached_input_tokens" json:"cached_input_tokens"`
	Reasoning   int64  `yaml:"reasoning_tokens" json:"reasoning_tokens"`
	// Missing is true when a response carried no usage at all: the
	// figures are then a lower bound.
	Missing bool `yaml:"missing,omitempty" json:"missing,omitempty"`
}

// Add returns u plus v (Model is kept from u unless u has none).
func (u Usage) Add(v Usage) Usage {
	if u.Model == "" {
		u.Model = v.Model
	}
	u.Calls += v.Calls
	u.Input += v.Input
	u.Output += v.Output
	u.CachedInput += v.CachedInput
	u.Reasoning += v.Reasoning
	u.Missing = u.Missing || v.Missing
	return u
}

// Billed is implemented by inspectors whose calls are billed per token
// (the LLM judges). The runner uses it to price calls and to keep a
// --max-cost budget: it never starts a call whose worst case could take
// spending past the budget.
type Billed interface {
	// Model is the model name prices are looked up by.
	Model() string
	// MaxCallTokens bounds one Inspect call's tokens, its repair attempt
	// included: input and output.
	MaxCallTokens() (input, output int64)
}

// RunBound is implemented by Billed inspectors that can bound a call on
// one run more tightly than MaxCallTokens (an LLM judge: a small run makes
// a small prompt). The --max-cost budget then reserves that bound.
type RunBound interface {
	MaxRunTokens(run sampler.Run, depth Depth) (input, output int64)
}

// Inspector inspects one run at one depth. Implementations live in
// programs/ and must be safe for concurrent use.
type Inspector interface {
	// Identity names the inspector and its version or configuration
	// (e.g. "builtin/1", "exec:<sha256 of the command line>"); it is part
	// of the cache key, so it must change whenever results could.
	Identity() string
	// Inspect returns the inspection of run at depth. It must honour ctx.
	Inspect(ctx context.Context, run sampler.Run, depth Depth) (Inspection, error)
}

// Pair is a run's light and deep inspections.
type Pair struct {
	Run   sampler.Run `yaml:"-" json:"-"`
	Light Inspection  `yaml:"light" json:"light"`
	Deep  Inspection  `yaml:"deep" json:"deep"`
	// LightRepeats and DeepRepeats hold every repeat when --repeat K > 1;
	// Light and Deep are then their Consolidate.
	LightRepeats []Inspection `yaml:"light_repeats,omitempty" json:"light_repeats,omitempty"`
	DeepRepeats  []Inspection `yaml:"deep_repeats,omitempty" json:"deep_repeats,omitempty"`
}

// Failure records an inspection that could not be had after retries.
type Failure struct {
	RunID string `yaml:"run_id" json:"run_id"`
	Depth Depth  `yaml:"depth" json:"depth"`
	// Repeat is the 0-based repeat index (--repeat); 0 without repeats.
	Repeat   int    `yaml:"repeat,omitempty" json:"repeat,omitempty"`
	Attempts int    `yaml:"attempts" json:"attempts"`
	Reason   string `yaml:"reason" json:"reason"`
}
