package inspection

// Depth is how thoroughly an inspector looks at a run.
type Depth string

// The two depths evalcal calibrates against each other.
const (
	Light Depth = "light"
	Deep  Depth = "deep"
)

// Verdicts, ordered fail < partial < pass (see VerdictRank).
const (
	VerdictFail    = "fail"
	VerdictPartial = "partial"
	VerdictPass    = "pass"
)

// Flag severities.
const (
	SeverityInfo     = "info"
	SeverityWarning  = "warning"
	SeverityCritical = "critical"
)

// Inspection is what an inspector returns for one run at one depth.
// Scores are 0..100.
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
	// Votes are a panel's member verdicts in member order ("abstained"
	// for a member whose call failed); absent for other inspectors. The
	// uncertain deep policy reads the vote split from them.
	Votes []string `yaml:"votes,omitempty" json:"votes,omitempty"`
}

// Service is one service's status as an inspector saw it.
type Service struct {
	Name   string `yaml:"name" json:"name"`
	Status string `yaml:"status" json:"status"`
}

// Flag is one finding. Its ID is what the comparator matches flags by
// across inspectors (see flags.go for the ids evalcal's own inspectors
// use).
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

// Failure records an inspection that could not be had after retries.
type Failure struct {
	RunID string `yaml:"run_id" json:"run_id"`
	Depth Depth  `yaml:"depth" json:"depth"`
	// Repeat is the 0-based repeat index (--repeat); 0 without repeats.
	Repeat   int    `yaml:"repeat,omitempty" json:"repeat,omitempty"`
	Attempts int    `yaml:"attempts" json:"attempts"`
	Reason   string `yaml:"reason" json:"reason"`
}
