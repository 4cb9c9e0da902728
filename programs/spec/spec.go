// Package spec is the registry of inspector spec kinds: what --inspector,
// --light and --deep accept (builtin, exec:COMMAND, saved:FILE, ...). Each
// kind is declared once, in its program's package, as a Kind; the list of
// built-in kinds is programs/all. A command parses and opens specs through
// a Registry and holds no switch on kind names, so adding a provider or an
// importer is its package plus one line in programs/all/all.go.
package spec

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/evalcal/evalcal/inspection"
)

// Kind is one kind of spec: NAME alone, or NAME:ARG.
type Kind struct {
	// Name is what comes before the colon ("exec").
	Name string
	// Usage is the form shown in help and errors ("exec:COMMAND"). A kind
	// whose Usage is its Name takes no argument: the spec is the name
	// alone. Any other kind needs a non-empty ARG after the colon.
	Usage string
	// Check, when not nil, checks ARG's form before any work (an
	// importer's #SCORER?OPTIONS); its error is a usage error.
	Check func(arg string) error
	// Open builds the inspector of ARG.
	Open func(ctx context.Context, arg string, env Env) (Opened, error)
	// File, when not nil, returns the file ARG reads that brings its own
	// runs (saved inspections, imported results), so that no run PATH is
	// needed; "" when it reads none. The command checks that it is a
	// regular file (or, with Dir, a directory) before Open.
	File func(arg string) string
	// Dir is true when File may also name a directory of such files (an
	// inspect_ai log directory).
	Dir bool
	// Members, when not nil, makes the kind a composite of other specs (a
	// panel): it returns the member specs of ARG, which Parse checks in
	// turn; a member may not itself be a composite. Open opens them with
	// Env.Open.
	Members func(arg string) ([]string, error)
}

// takesArg reports whether the kind's spec has an argument.
func (k Kind) takesArg() bool { return k.Usage != k.Name }

// Env is what Open may use besides ARG: how the spec is used and the
// settings of the LLM judge on its side.
type Env struct {
	// Both is true when the one spec is the inspector at both depths
	// (--inspector, or the same --light and --deep).
	Both bool
	// Judge is the LLM judge settings of the spec's side.
	Judge Judge
	// Member, when not nil, tells whether a run id belongs to this job's
	// shard (run --shard i/n): a source that brings its own runs may skip
	// decoding the lines of other shards' runs. nil: every run.
	Member func(runID string) bool
	// MemberOnly is true when the job needs no other shard's runs (every
	// valid run is sampled and no deep subset is drawn over the whole
	// sample): a source that brings its own runs then brings Member's
	// only, and reads no more of another shard's line than its run_id.
	MemberOnly bool
	// Open opens a member spec of a composite kind (Kind.Members) as the
	// command opens any spec, so that one spec used twice is one
	// inspector.
	Open func(spec string) (inspection.Inspector, error)
}

// Opened is an opened spec.
type Opened struct {
	Inspector inspection.Inspector
	// Runs are the runs a source brings (saved inspections, imported
	// results); nil for an inspector that inspects run directories.
	Runs []inspection.Run
	// Imported is true when the runs are another tool's results on one
	// task: a sample from one system is then expected.
	Imported bool
}

// Input is a file a flag names, with the flag, so that an error reading
// it names the flag.
type Input struct {
	Path string
	Flag string // without the dashes: "light-key-file"
}

// Judge is one side's LLM judge settings, as the command's flags give
// them. Zero values select the provider's or the judge's defaults.
type Judge struct {
	// BaseURL overrides the provider's API base from the environment.
	BaseURL string
	// KeyFile, when its Path is set, holds the API key (instead of the
	// environment's).
	KeyFile Input
	// LightPrompt and DeepPrompt are prompt template files ("" Path: the
	// built-in prompt of that depth).
	LightPrompt, DeepPrompt Input
	// Temperature, MaxOutputTokens and PromptTokens are the generation
	// parameters (ranges: see programs/llm's Check functions).
	Temperature                   float64
	MaxOutputTokens, PromptTokens int64
	// Seed is sent to the provider when not nil.
	Seed *int64
}

// FlagError is an error about another flag than the spec's own (a key
// file, a prompt file): the command names Flag.
type FlagError struct {
	Flag string
	Err  error
}

func (e *FlagError) Error() string { return "--" + e.Flag + ": " + e.Err.Error() }
func (e *FlagError) Unwrap() error { return e.Err }

// Registry holds the kinds a command accepts, in the order its help lists
// them.
type Registry struct {
	kinds []Kind
}

// NewRegistry returns the registry of kinds, in order.
func NewRegistry(kinds ...Kind) *Registry { return &Registry{kinds: kinds} }

// Validate checks the kinds: each has a name without a colon, given once,
// an Open, and a Usage that starts with its name. A failure is a
// programming error in the kinds' list (programs/all tests it).
func (r *Registry) Validate() error {
	seen := map[string]bool{}
	for _, k := range r.kinds {
		switch {
		case k.Name == "" || strings.Contains(k.Name, ":"):
			return fmt.Errorf("spec: kind name %q is empty or holds a colon", k.Name)
		case seen[k.Name]:
			return fmt.Errorf("spec: kind %q registered twice", k.Name)
		case k.Open == nil:
			return fmt.Errorf("spec: kind %q has no Open", k.Name)
		case !strings.HasPrefix(k.Usage, k.Name):
			return fmt.Errorf("spec: kind %q: usage %q does not start with the name", k.Name, k.Usage)
		}
		seen[k.Name] = true
	}
	return nil
}

// Usage lists the kinds' forms: "a, b, c or d".
func (r *Registry) Usage() string {
	forms := make([]string, len(r.kinds))
	for i, k := range r.kinds {
		forms[i] = k.Usage
	}
	if len(forms) < 2 {
		return strings.Join(forms, "")
	}
	return strings.Join(forms[:len(forms)-1], ", ") + " or " + forms[len(forms)-1]
}

// Prefixes are what a spec of each kind starts with, in order: the name
// alone for a kind without an argument, else the name and a colon
// ("builtin", "exec:", ...), for shell completion.
func (r *Registry) Prefixes() []string {
	out := make([]string, len(r.kinds))
	for i, k := range r.kinds {
		out[i] = k.Name
		if k.takesArg() {
			out[i] += ":"
		}
	}
	return out
}

// ErrForm is matched (errors.Is) by Parse's error for a spec of no known
// form; the command names the forms (Usage).
var ErrForm = errors.New("spec: not a known form")

// Parse splits spec into its kind and argument and checks its form: a
// known name, an argument when the kind takes one (none when it does not),
// and the kind's Check. A spec of no known form is an error wrapping
// ErrForm; a Check failure is returned as it is.
func (r *Registry) Parse(spec string) (Kind, string, error) {
	name, arg, hasArg := strings.Cut(spec, ":")
	for _, k := range r.kinds {
		if k.Name != name {
			continue
		}
		if k.takesArg() != hasArg || (hasArg && arg == "") {
			break
		}
		if k.Check != nil {
			if err := k.Check(arg); err != nil {
				return k, arg, err
			}
		}
		if k.Members != nil {
			if err := r.parseMembers(k, arg); err != nil {
				return k, arg, err
			}
		}
		return k, arg, nil
	}
	return Kind{}, "", ErrForm
}

// File is the file spec reads that brings its own runs, or "" (also for a
// spec Parse rejects).
func (r *Registry) File(spec string) string {
	k, arg, err := r.Parse(spec)
	if err != nil || k.File == nil {
		return ""
	}
	return k.File(arg)
}

// parseMembers checks each member spec of the composite kind k's ARG: a
// known form, and not a composite itself.
func (r *Registry) parseMembers(k Kind, arg string) error {
	members, err := k.Members(arg)
	if err != nil {
		return err
	}
	for _, m := range members {
		mk, _, err := r.Parse(m)
		switch {
		case errors.Is(err, ErrForm):
			return fmt.Errorf("%s member %q must be %s", k.Name, m, r.Usage())
		case err != nil:
			return fmt.Errorf("%s member %q: %w", k.Name, m, err)
		case mk.Members != nil:
			return fmt.Errorf("a %s member cannot be a %s, got %q", k.Name, mk.Name, m)
		}
	}
	return nil
}
