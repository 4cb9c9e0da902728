package report

import (
	"github.com/evalcal/evalcal/advisor"
	"github.com/evalcal/evalcal/comparator"
	"github.com/evalcal/evalcal/gates"
	"github.com/evalcal/evalcal/inspection"
	"github.com/evalcal/evalcal/runner"
	"github.com/evalcal/evalcal/sampler"
	"github.com/evalcal/evalcal/segment"
	"github.com/evalcal/evalcal/statistician/aggregate"
)

// SchemaVersion is the version of the report layout. It rises whenever a
// field is removed, moves or changes meaning; readers refuse newer versions.
//
// Version 2 (issues 8, 9, 10): a `summary` block after generated_by; the
// statistics, estimates, cost and recommendations come first and the
// per-run listings (disagreements, comparisons, light_only, inclusion,
// repeats, failures, sample) last; inputs name each side's inspector
// (light, deep), the repeat count and the deep subset; new sections
// agreement_clustered, leniency, estimate, repeatability and cost; figures
// that are not defined (agreement over no run) are null with a reason.
const SchemaVersion = 2

// ShardScopeOwn is inputs.shard_scope of a shard that read its own runs
// only (Inputs.ShardScope).
const ShardScopeOwn = "own"

// Report is the calibration report. Field order is the document's key
// order; every top-level key without omitempty is always present.
type Report struct {
	SchemaVersion int    `yaml:"schema_version" json:"schema_version"`
	GeneratedBy   string `yaml:"generated_by" json:"generated_by"`
	// Summary is the answer first: can light stand in for deep.
	Summary Summary `yaml:"summary" json:"summary"`
	// Gates records each requested gate (--require) and its outcome;
	// absent when none was requested.
	Gates                 []gates.GateRecord `yaml:"gates,omitempty" json:"gates,omitempty"`
	Inputs                Inputs             `yaml:"inputs" json:"inputs"`
	SampleSize            int                `yaml:"sample_size" json:"sample_size"`
	AgreementRate         AgreementRate      `yaml:"agreement_rate" json:"agreement_rate"`
	AgreementClustered    ClusteredRate      `yaml:"agreement_clustered" json:"agreement_clustered"`
	AgreementBySystem     []SystemAgreement  `yaml:"agreement_by_system" json:"agreement_by_system"`
	Kappa                 KappaSection       `yaml:"kappa" json:"kappa"`
	Leniency              Leniency           `yaml:"leniency" json:"leniency"`
	AgreementRobust       *RobustAgreement   `yaml:"agreement_robust,omitempty" json:"agreement_robust,omitempty"`
	Confusion             Confusion          `yaml:"confusion" json:"confusion"`
	Confidence            string             `yaml:"confidence" json:"confidence"`
	Preliminary           bool               `yaml:"preliminary" json:"preliminary"`
	BiasDirection         string             `yaml:"bias_direction" json:"bias_direction"`
	ScoreCorrelation      ScoreCorrelation   `yaml:"score_correlation" json:"score_correlation"`
	MeanScoreDelta        MeanScoreDelta     `yaml:"mean_score_delta" json:"mean_score_delta"`
	DisagreementBreakdown Breakdown          `yaml:"disagreement_breakdown" json:"disagreement_breakdown"`
	Forecast              Forecast           `yaml:"forecast" json:"forecast"`
	// Slices is the runs sliced by each --by field (system by default):
	// per-slice agreement, kappa, leniency and pass rates, and the
	// slices compared by deep's pass rate next to light's; absent only in
	// reports of earlier versions.
	Slices []segment.Field `yaml:"slices,omitempty" json:"slices,omitempty"`
	// Estimate is what deep would say on every sampled run, from light on
	// every run and deep on a subset; absent when deep ran on every run.
	Estimate *Estimate `yaml:"estimate,omitempty" json:"estimate,omitempty"`
	// Repeatability is each side's agreement with itself (--repeat K > 1);
	// absent otherwise.
	Repeatability *Repeatability `yaml:"repeatability,omitempty" json:"repeatability,omitempty"`
	// Bias attributes light's errors against deep to the judged output's
	// length, the judge's own model family and the slice; absent in
	// reports of evalcal versions before issue 29.
	Bias *Bias `yaml:"bias,omitempty" json:"bias,omitempty"`
	// Escalation is trust or escalate: where light may decide alone with
	// a guaranteed agreement (run --target-agreement, --escalate); absent
	// otherwise.
	Escalation *Escalation `yaml:"escalation,omitempty" json:"escalation,omitempty"`
	// Position is the pairwise judge's position section (run --pairwise);
	// absent otherwise.
	Position *Position `yaml:"position,omitempty" json:"position,omitempty"`
	// Perturbations are the light judge's perturbation tests (run
	// --perturb); absent otherwise.
	Perturbations []Perturbation `yaml:"perturbations,omitempty" json:"perturbations,omitempty"`
	// Cost is what each side's inspections cost.
	Cost Cost `yaml:"cost" json:"cost"`
	// Recommendations are in priority order (priority 1 first).
	Recommendations []advisor.Recommendation `yaml:"recommendations" json:"recommendations"`
	// RecommendationsNote says, when the recommendations carry expected
	// impacts of both kinds (tested estimates and upper bounds), which
	// carry which (advisor.RankingNote; see Derive); absent otherwise.
	RecommendationsNote string   `yaml:"recommendations_note,omitempty" json:"recommendations_note,omitempty"`
	Warnings            []string `yaml:"warnings" json:"warnings"`
	// Trend compares this report with a baseline report (run --baseline);
	// absent without one.
	Trend *Trend `yaml:"trend,omitempty" json:"trend,omitempty"`
	// Partial is true when some inspections failed, so the statistics
	// cover fewer runs than were sampled.
	Partial bool `yaml:"partial" json:"partial"`
	// RunsFile names the file that holds the per-run listings below
	// (run --runs-out); absent when the report holds them itself.
	RunsFile      *RunsFile                `yaml:"runs_file,omitempty" json:"runs_file,omitempty"`
	Disagreements []*comparator.Comparison `yaml:"disagreements" json:"disagreements"`
	Comparisons   []comparator.Comparison  `yaml:"comparisons" json:"comparisons"`
	// LightOnly lists the runs inspected at light depth only (not in the
	// deep subset); absent when deep ran on every run.
	LightOnly []LightOnlyRun `yaml:"light_only,omitempty" json:"light_only,omitempty"`
	// Inclusion lists each run's deep-inclusion probability; absent when
	// deep ran on every run.
	Inclusion []Inclusion `yaml:"inclusion,omitempty" json:"inclusion,omitempty"`
	// Repeats lists each run's repeated verdicts and scores (--repeat K >
	// 1); absent otherwise.
	Repeats  []RunRepeats         `yaml:"repeats,omitempty" json:"repeats,omitempty"`
	Failures []inspection.Failure `yaml:"failures" json:"failures"`
	Sample   Sample               `yaml:"sample" json:"sample"`
}

// Summary is the report's answer in a few fields and one sentence.
type Summary struct {
	// Trust is gate (light can gate CI), monitor (good for trends, not
	// for gating), explore (not yet a proxy) or insufficient_evidence; see
	// advisor.Trust for the rule.
	Trust string `yaml:"trust" json:"trust"`
	// Sentence says it in words, with the figures behind it.
	Sentence string `yaml:"sentence" json:"sentence"`
	// Advice is the priority-1 recommendation in one line: what to
	// change, the agreement it is expected to reach and on what basis,
	// and the test it passed; empty when there is none.
	Advice string `yaml:"advice,omitempty" json:"advice,omitempty"`
	// Why lists the rule's reasons, one line each, then, when light's
	// scores and its verdicts err different ways (pessimistic scores but
	// lenient at the pass line, or the reverse), one line saying why
	// (advisor.Direction.Why).
	Why []string `yaml:"why" json:"why"`
	// GatesFailed counts the --require gates that failed (0 when none was
	// asked for or all passed).
	GatesFailed int `yaml:"gates_failed" json:"gates_failed"`
}

// Inputs says what the report was computed from, so that it can be
// reproduced: the same inputs and flags give a byte-identical report.
type Inputs struct {
	Paths       []string `yaml:"paths" json:"paths"`
	Inspections string   `yaml:"inspections,omitempty" json:"inspections,omitempty"`
	// Inspector is the inspector identity when both sides are one
	// inspector, else "LIGHT | DEEP".
	Inspector string `yaml:"inspector" json:"inspector"`
	// Light and Deep name each side's inspector as given and its identity
	// (the cache key's inspector part).
	Light       Side   `yaml:"light" json:"light"`
	Deep        Side   `yaml:"deep" json:"deep"`
	Seed        uint64 `yaml:"seed" json:"seed"`
	SampleLimit int    `yaml:"sample_limit" json:"sample_limit"`
	// Bins is the number of bins of the light-score reliability table.
	Bins int `yaml:"bins" json:"bins"`
	// Repeat is how many times each side inspected each run.
	Repeat int `yaml:"repeat" json:"repeat"`
	// By are the fields the slices section slices the runs by (run --by,
	// in the order given); absent for the default, system alone.
	By []string `yaml:"by,omitempty" json:"by,omitempty"`
	// DeepSubset says how the runs inspected at depth deep were chosen;
	// absent when deep ran on every run.
	DeepSubset *SubsetInputs `yaml:"deep_subset,omitempty" json:"deep_subset,omitempty"`
	// Escalation holds the trust-or-escalate settings; absent without
	// --target-agreement or --escalate.
	Escalation *EscalationInputs `yaml:"escalation,omitempty" json:"escalation,omitempty"`
	// Cluster is the field the runs are clustered by (run --cluster);
	// absent when not named (the agreement is then clustered by system
	// and the trust verdict uses the unclustered interval).
	Cluster string `yaml:"cluster,omitempty" json:"cluster,omitempty"`
	// Families maps a system to its model family (run --family
	// SYSTEM=FAMILY), JudgeFamily is the light judge's family as given
	// (run --judge-family), for the bias section; absent when not given.
	Families    map[string]string `yaml:"families,omitempty" json:"families,omitempty"`
	JudgeFamily string            `yaml:"judge_family,omitempty" json:"judge_family,omitempty"`
	// Shard is "i/n" when this report covers shard i of n of the sample
	// (run --shard); merge recombines shards exactly.
	Shard string `yaml:"shard,omitempty" json:"shard,omitempty"`
	// ShardSource says where the shard came from: "flag" (--shard i/n),
	// "EVALCAL_SHARD", or the job runner's variables ("GitLab
	// CI_NODE_INDEX/CI_NODE_TOTAL", "Kubernetes
	// JOB_COMPLETION_INDEX/EVALCAL_SHARD_TOTAL", ...) for --shard auto;
	// absent with Shard. It is not an input of the job: merge accepts
	// shards from different sources.
	ShardSource string `yaml:"shard_source,omitempty" json:"shard_source,omitempty"`
	// ShardScope is "own" when the shard read its own runs only (a job
	// that samples every valid run and draws no deep subset over the
	// whole sample): content_hash and sample.composition then describe
	// the shard's runs, and merge recomputes both over the union. Absent
	// otherwise, and in every unsharded or merged report.
	ShardScope string `yaml:"shard_scope,omitempty" json:"shard_scope,omitempty"`
	// ContentHash is the SHA-256 over the sampled runs' ids and content
	// hashes, in id order: it changes when any input run changes. With
	// --shard it covers the whole sample, so shards of one job share it,
	// unless ShardScope is "own".
	ContentHash string `yaml:"content_hash" json:"content_hash"`
	// CommandLine is the command as it can be run again, without the
	// flags that cannot change the result (--jobs, --cache, --no-cache,
	// -o, --quiet).
	CommandLine []string `yaml:"command_line" json:"command_line"`
}

// Side is one side's inspector. For an LLM judge it also says what the
// identity is a hash of, so that a trend against a baseline can name what
// changed (issue 23); the other inspectors leave those fields out.
type Side struct {
	Spec         string            `yaml:"spec" json:"spec"`
	Identity     string            `yaml:"identity" json:"identity"`
	Provider     string            `yaml:"provider,omitempty" json:"provider,omitempty"`
	BaseURL      string            `yaml:"base_url,omitempty" json:"base_url,omitempty"`
	Model        string            `yaml:"model,omitempty" json:"model,omitempty"`
	Parameters   map[string]string `yaml:"parameters,omitempty" json:"parameters,omitempty"`
	PromptSHA256 string            `yaml:"prompt_sha256,omitempty" json:"prompt_sha256,omitempty"`
}

// SubsetInputs says how the deep subset was chosen.
type SubsetInputs struct {
	// Policy is uniform, uncertain or given (the deep source covers some
	// runs only).
	Policy string `yaml:"policy" json:"policy"`
	// Expected is the subset's expected size over the sample; Sampled the
	// number of sampled runs.
	Expected float64 `yaml:"expected" json:"expected"`
	Sampled  int     `yaml:"sampled" json:"sampled"`
	// MinPi is the smallest inclusion probability the design allows
	// (uncertain policy).
	MinPi     float64 `yaml:"min_pi,omitempty" json:"min_pi,omitempty"`
	HowChosen string  `yaml:"how_chosen" json:"how_chosen"`
	// Assumed is true when the estimates assume a uniform random subset
	// that nobody said was random.
	Assumed bool `yaml:"assumed" json:"assumed"`
}

// LightOnlyRun, RunRepeats and Repeat are the per-run listings of runs
// inspected at light depth only and of repeated inspections. They are
// statistician/aggregate's input records, published as they are (as
// comparator.Comparison is) rather than mapped like the statistics
// sections (from_stats.go): a mapped copy would double the memory of the
// largest listings of a million-run report.
type (
	LightOnlyRun = aggregate.LightOnlyRun
	RunRepeats   = aggregate.RunRepeats
	Repeat       = aggregate.Repeat
)

// Inclusion is one run's probability of a deep inspection and whether it
// got one.
type Inclusion struct {
	RunID string   `yaml:"run_id" json:"run_id"`
	Pi    *float64 `yaml:"pi" json:"pi"`
	Deep  bool     `yaml:"deep" json:"deep"`
}

// Cost is what the inspections of each side cost.
type Cost struct {
	Light SideCost `yaml:"light" json:"light"`
	Deep  SideCost `yaml:"deep" json:"deep"`
	// DeepToLightPerRun is deep's cost per run over light's; null when
	// either is unknown or light's is 0.
	DeepToLightPerRun *float64 `yaml:"deep_to_light_per_run" json:"deep_to_light_per_run"`
	// BudgetUSD is the --max-cost budget; BudgetStopped is true when it
	// stopped calls from starting.
	BudgetUSD     *float64 `yaml:"budget_usd" json:"budget_usd"`
	BudgetStopped bool     `yaml:"budget_stopped" json:"budget_stopped"`
}

// SideCost is one side's cost with its price and cost per run.
type SideCost struct {
	runner.SideCost `yaml:",inline" json:",inline"`
	// Price is the price the side's usage was priced at (USD per million
	// tokens); absent when unpriced or not billed.
	Price *runner.Price `yaml:"price,omitempty" json:"price,omitempty"`
	// PerRun is USD over the inspections had; null when USD is unknown or
	// nothing was inspected.
	PerRun *float64 `yaml:"per_run" json:"per_run"`
}

// Sample is the calibration sample: its composition, the runs calibrated
// on, and the runs set aside as invalid with the reason.
type Sample struct {
	Composition sampler.Composition `yaml:"composition" json:"composition"`
	// ReadInPart counts the sampled runs that could be read only in part
	// (a SampleRun with warnings; see Report.Derive); absent when none.
	ReadInPart int         `yaml:"read_in_part,omitempty" json:"read_in_part,omitempty"`
	Runs       []SampleRun `yaml:"runs" json:"runs"`
	Invalid    []Invalid   `yaml:"invalid" json:"invalid"`
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
