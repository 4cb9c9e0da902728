package inspection

// Status is how a run ended, read from its log terminator.
type Status string

// Run statuses. A log with `---end` is completed, one with `---error` is
// failed, one with neither is incomplete.
const (
	StatusCompleted  Status = "completed"
	StatusFailed     Status = "failed"
	StatusIncomplete Status = "incomplete"
	// StatusUnknown is a run known only from saved inspections: there is
	// no log to read its ending from.
	StatusUnknown Status = "unknown"
)

// Era names the OpenProse on-disk layout a run was written in.
type Era string

// The layouts of docs/DESIGN.md, oldest first.
const (
	EraStateMDv1  Era = "state-md-v1" // program.prose + state.md + bindings/{name}.md
	EraStateMDv2  Era = "state-md-v2" // program.md + manifest.md + state.md + services/ + workspace/ + bindings/{svc}/
	EraVMLogForme Era = "vmlog-forme" // root.prose.md + forme.manifest.json + vm.log.md + ...
	EraReactor    Era = "reactor"     // compiled-intent.json + root.prose.md + vm.log.md + world-model/ + receipts/
	EraUnknown    Era = "unknown"     // none of the above could be recognised
	EraSaved      Era = "saved"       // no directory: the run is known only from saved inspections
)

// Run describes one run directory. It is the sampler's output and the
// runner's input. Slices are sorted; a Run is a plain value.
type Run struct {
	ID     string `yaml:"id" json:"id"`
	Path   string `yaml:"path,omitempty" json:"path,omitempty"`
	Era    Era    `yaml:"era" json:"era"`
	System string `yaml:"system" json:"system"`
	Status Status `yaml:"status" json:"status"`
	// Metadata is the run's flat metadata (see Metadata); nil when its
	// source declares none.
	Metadata Metadata `yaml:"metadata,omitempty" json:"metadata,omitempty"`

	ServicesDeclared  []string `yaml:"services_declared" json:"services_declared"`
	ServicesCompleted []string `yaml:"services_completed" json:"services_completed"`
	ServicesErrored   []string `yaml:"services_errored" json:"services_errored"`
	// ServicesSkipped are services the log or receipts mark skipped (∅).
	ServicesSkipped []string `yaml:"services_skipped,omitempty" json:"services_skipped,omitempty"`
	BindingsPresent []string `yaml:"bindings_present" json:"bindings_present"`
	BindingsMissing []string `yaml:"bindings_missing" json:"bindings_missing"`
	ErrorFiles      []string `yaml:"error_files" json:"error_files"`

	SizeBytes int64 `yaml:"size_bytes" json:"size_bytes"`
	Files     int   `yaml:"files" json:"files"`
	// ContentHash is the lowercase hex SHA-256 over everything in the
	// run directory an inspector can see: every regular file's relative
	// path, size and content, every empty directory, every symlink's
	// target text and every special file's type (see contentHash for the
	// encoding). It keys the inspection cache.
	ContentHash string `yaml:"content_hash" json:"content_hash"`

	Valid bool `yaml:"valid" json:"valid"`
	// Invalid says why the run is not valid; empty when Valid.
	Invalid string `yaml:"invalid,omitempty" json:"invalid,omitempty"`
	// Warnings are things that could not be read but did not stop the
	// description (a truncated log, a marker outside the spec, ...).
	Warnings []string `yaml:"warnings,omitempty" json:"warnings,omitempty"`
}
