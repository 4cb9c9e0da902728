package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/evalcal/evalcal/inspection"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/evalcal/evalcal/drift"
	"github.com/evalcal/evalcal/programs/llm"
	"github.com/evalcal/evalcal/report"
	"github.com/evalcal/evalcal/runner"
	"github.com/evalcal/evalcal/sampler"
)

// judgeFlags are the flags of evalcal run that choose and configure the
// inspectors; anchor freeze and drift take them with the same meaning
// (drift takes them but --cache and --no-cache: it always asks the judge).
var judgeFlags = []string{"inspector", "light", "deep", "inspections",
	"base-url", "light-base-url", "deep-base-url", "light-key-file", "deep-key-file", "light-prompt", "deep-prompt",
	"temperature", "max-output-tokens", "prompt-tokens", "judge-seed", "rpm", "price", "price-file", "max-cost", "max-retry-wait",
	"jobs", "retries", "timeout", "cache", "no-cache", "quiet"}

// addJudgeFlags defines the named flags of evalcal run on fs, bound to
// o's fields: run's own definitions, so the two commands cannot drift
// apart.
func addJudgeFlags(fs *pflag.FlagSet, o *runOptions, names []string) {
	all := pflag.NewFlagSet("run", pflag.ContinueOnError)
	o.addFlags(all)
	for _, name := range names {
		fs.AddFlag(all.Lookup(name))
	}
}

// anchorFormats are the formats of an anchor file.
var anchorFormats = []string{"yaml", "json"}

// anchorOptions are evalcal anchor freeze's flags and arguments.
type anchorOptions struct {
	run    runOptions
	Output outputOptions
}

// newCmdAnchor builds `evalcal anchor` and its subcommand freeze.
// runF, when not nil, replaces freeze's body.
func newCmdAnchor(f *factory, runF func(context.Context, *anchorOptions) error) *cobra.Command {
	parent := &cobra.Command{
		Use:   "anchor COMMAND",
		Short: "freeze a set of anchor runs for nightly drift checks",
		Long: `anchor freeze inspects a set of runs once and writes an anchor file: the runs by
content hash, each side's verdicts and scores, and who the judges were. evalcal
drift later inspects exactly these runs again and says whether a judge changed.`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) > 0 {
				return unknownCommandError(c, args[0])
			}
			return usageErrorHint("Run 'evalcal anchor freeze --help' for usage.", "anchor: no command given (want freeze)")
		},
		RunE: func(*cobra.Command, []string) error { return nil },
	}
	parent.SuggestionsMinimumDistance = 2
	o := &anchorOptions{run: runOptions{io: f.io}}
	c := &cobra.Command{
		Use:   "freeze [flags] -o ANCHORS PATH...",
		Short: "inspect anchor runs once and freeze the verdicts and judges",
		Long: `Inspect each run at light then deep depth, as evalcal run does, and write the anchor
file: each run's id and content hash, each side's verdict and scores, the deep labels
when there are any, and each judge's identity (provider, base URL, model, generation
parameters, prompt hash). PATHs are run directories or folders holding them; saved
or imported results on both sides bring their runs (no PATH). A run whose inspection
failed is left out and listed on stderr.`,
		Example: `  evalcal anchor freeze -o anchors.yaml testdata/runs
  evalcal anchor freeze --light saved:judge-june.jsonl --deep saved:human.jsonl -o anchors.yaml`,
		RunE: func(c *cobra.Command, args []string) error {
			o.run.args, o.run.Paths = f.args, args
			o.Output.formatGiven = c.Flags().Changed("format")
			o.run.retriesGiven = c.Flags().Changed("retries")
			o.run.LLM.seedGiven = c.Flags().Changed("judge-seed")
			if err := o.validate(); err != nil {
				return err
			}
			if runF != nil {
				return runF(c.Context(), o)
			}
			return anchorFreeze(c.Context(), o)
		},
	}
	c.Annotations = map[string]string{usageAnnotation: "evalcal anchor freeze [flags] -o ANCHORS PATH...   (run dirs, or folders holding them)\nevalcal anchor freeze [flags] -o ANCHORS --inspections FILE"}
	addJudgeFlags(c.Flags(), &o.run, judgeFlags)
	o.Output.addFlags(c.Flags(), "anchor file", "yaml", anchorFormats)
	parent.AddCommand(c)
	return parent
}

// validate checks the flags as evalcal run does, then the anchor file.
func (o *anchorOptions) validate() error {
	if err := o.run.validate(); err != nil {
		return asCommand(err, "anchor freeze")
	}
	if err := o.Output.resolve("anchor freeze", anchorFormats...); err != nil {
		return err
	}
	inputs := []string{o.run.PriceFile, o.run.LLM.LightPrompt, o.run.LLM.DeepPrompt}
	for _, spec := range []string{o.run.Light, o.run.Deep} {
		if path := specFile(spec); path != "" {
			inputs = append(inputs, path)
		}
	}
	return o.Output.check("anchor freeze", o.run.io.Out, inputs...)
}

// asCommand names cmd instead of run in a usage error of run's flag
// checks, which anchor freeze and drift share.
func asCommand(err error, cmd string) error {
	var ee *exitError
	if errors.As(err, &ee) {
		if rest, ok := strings.CutPrefix(ee.err.Error(), "run: "); ok {
			ee.err = errors.New(cmd + ": " + rest)
		}
	}
	return err
}

// anchorFreeze is evalcal anchor freeze's body, after validate.
func anchorFreeze(ctx context.Context, o *anchorOptions) error {
	r := &o.run
	stderr := r.io.ErrOut
	s, err := openSides(ctx, r)
	if err != nil {
		return err
	}
	defer s.Close()
	runs := s.runs
	if len(r.Paths) > 0 {
		d, err := sampler.DiscoverContext(ctx, r.Paths, sampler.DiscoverOptions{})
		if err != nil {
			return inputError(fmt.Errorf("anchor freeze: %w", err))
		}
		runs = validRuns(d.Runs, stderr)
	}
	if cov, ok := s.light.(inspection.Coverage); ok {
		runs = slices.DeleteFunc(runs, func(run inspection.Run) bool { return !cov.Covers(run.ID, inspection.Light) })
	}
	opts, err := r.runnerOptions(s)
	if err != nil {
		return err
	}
	if !r.NoCache {
		opts.Cache = openCache(r.CacheDir, stderr)
	}
	var deepSource inspection.Inspector = s.deep
	if sv, ok := inspection.As[fingerprinted](s.deep); ok && s.deep == s.light {
		// One saved file on both sides: the runs without a deep line have
		// no deep label, which an anchor run may lack.
		deepSource = sv
	}
	if cov, ok := deepSource.(inspection.Coverage); ok {
		opts.DeepRuns = map[string]bool{}
		for _, run := range runs {
			if cov.Covers(run.ID, inspection.Deep) {
				opts.DeepRuns[run.ID] = true
			}
		}
	}
	res, err := inspectAnchors(ctx, runs, s, opts, stderr)
	if err != nil {
		return err
	}
	a := &drift.Anchors{SchemaVersion: drift.AnchorSchemaVersion, Kind: drift.AnchorKind, GeneratedBy: "evalcal " + version,
		CommandLine: append([]string{"evalcal", "anchor", "freeze"}, dropFlags(r.args, volatileRunFlags...)...),
		Paths:       slashPaths(r.Paths), Light: judgeOf(r.Light, s.light, inspection.Light), Runs: []drift.AnchorRun{}}
	byID := map[string]inspection.Run{}
	for _, run := range runs {
		byID[run.ID] = run
	}
	fromSource := len(r.Paths) == 0
	for _, p := range res.Pairs {
		d := observation(p.Deep)
		a.Runs = append(a.Runs, drift.AnchorRun{ID: p.Run.ID, ContentHash: p.Run.ContentHash, FromSource: fromSource,
			Light: observation(p.Light), Deep: &d})
	}
	for _, l := range res.LightOnly {
		a.Runs = append(a.Runs, drift.AnchorRun{ID: l.Run.ID, ContentHash: l.Run.ContentHash, FromSource: fromSource, Light: observation(l.Light)})
	}
	slices.SortFunc(a.Runs, func(x, y drift.AnchorRun) int { return strings.Compare(x.ID, y.ID) })
	if a.HasDeep() {
		dj := judgeOf(r.Deep, s.deep, inspection.Deep)
		a.Deep = &dj
	}
	a.Hash = drift.AnchorsHash(a.Runs)
	if len(a.Runs) == 0 {
		return fmt.Errorf("anchor freeze: no run got a light inspection (%d failures)", len(res.Failures))
	}
	data, err := encodeAnchorsAs(a, o.Output.Format)
	if err != nil {
		return err
	}
	if err := o.Output.write(r.io.Out, data); err != nil {
		return err
	}
	deep := 0
	for _, run := range a.Runs {
		if run.Deep != nil {
			deep++
		}
	}
	where := "stdout"
	if o.Output.toFile() {
		where = o.Output.Path
	}
	fmt.Fprintf(stderr, "evalcal: froze %d anchor runs (%d with deep labels) to %s\n", len(a.Runs), deep, where)
	return nil
}

// validRuns keeps the valid runs, listing the others on stderr.
func validRuns(runs []inspection.Run, stderr io.Writer) []inspection.Run {
	var valid, invalid []inspection.Run
	for _, run := range runs {
		if run.Valid {
			valid = append(valid, run)
		} else {
			invalid = append(invalid, run)
		}
	}
	listOnStderr(stderr, "invalid run", invalidRunItems(invalid), len(invalid))
	return valid
}

// listOnStderr prints a count line and the first listedOnStderr items of
// a kind, and how many more there are: anchor freeze has no document that
// lists them all.
func listOnStderr(w io.Writer, kind string, items []string, total int) {
	if total == 0 {
		return
	}
	fmt.Fprintf(w, "evalcal: %d %s:\n", total, plural(kind, total))
	for i := 0; i < len(items) && i < listedOnStderr; i++ {
		fmt.Fprintf(w, "evalcal:   %s\n", oneLine(items[i]))
	}
	if total > listedOnStderr {
		fmt.Fprintf(w, "evalcal:   and %d more\n", total-listedOnStderr)
	}
}

// plural adds an s to noun unless n is 1.
func plural(noun string, n int) string {
	if n == 1 {
		return noun
	}
	return noun + "s"
}

// inspectAnchors inspects runs with both sides (deep as opts says) and
// summarises the failures on stderr. A misconfigured side stops it (exit
// 2); an interrupt is returned as is.
func inspectAnchors(ctx context.Context, runs []inspection.Run, s sides, opts runner.Options, stderr io.Writer) (runner.Result, error) {
	res, err := runner.RunSides(ctx, runs, runner.Sides{Light: s.light, Deep: s.deep}, opts)
	var stop *runner.StopError
	switch {
	case errors.As(err, &stop):
		return res, inputError(fmt.Errorf("stopped: %w", err))
	case err != nil:
		return res, err
	}
	fmt.Fprintf(stderr, "evalcal: %d inspector calls, %d from cache, %d failures\n", res.Calls, res.CacheHits, len(res.Failures))
	listOnStderr(stderr, "failed inspection", failureItems(res.Failures), len(res.Failures))
	if res.BudgetStopped {
		return res, budgetError(errors.New("the --max-cost budget stopped the calls"))
	}
	return res, nil
}

// observation is an inspection's verdict and scores.
func observation(in inspection.Inspection) drift.Observation {
	return drift.Observation{Verdict: in.Verdict, RuntimeFidelity: in.RuntimeFidelity, TaskEffectiveness: in.TaskEffectiveness}
}

// judgeOf describes a side's judge: the spec, the identity, and for an
// LLM judge what the identity is a hash of (the prompt of its depth).
func judgeOf(spec string, in inspection.Inspector, depth inspection.Depth) drift.Judge {
	j := drift.Judge{Spec: spec, Identity: in.Identity()}
	if d, ok := in.(interface{ Describe() llm.Description }); ok {
		desc := d.Describe()
		j.Provider, j.BaseURL, j.Model, j.Parameters = desc.Provider, desc.BaseURL, desc.Model, desc.Parameters
		j.PromptSHA256 = desc.PromptSHA256[depth]
	}
	return j
}

// describeSides records in a report's sides what each LLM judge's
// identity is a hash of, so that run --baseline can name what changed.
func describeSides(light, deep *report.Side, lightIn, deepIn inspection.Inspector) {
	for _, s := range []struct {
		side  *report.Side
		in    inspection.Inspector
		depth inspection.Depth
	}{{light, lightIn, inspection.Light}, {deep, deepIn, inspection.Deep}} {
		j := judgeOf(s.side.Spec, s.in, s.depth)
		s.side.Provider, s.side.BaseURL, s.side.Model, s.side.Parameters, s.side.PromptSHA256 = j.Provider, j.BaseURL, j.Model, j.Parameters, j.PromptSHA256
	}
}

// encodeAnchorsAs encodes the anchor file as YAML or JSON, numbers exact.
func encodeAnchorsAs(a *drift.Anchors, format string) ([]byte, error) {
	if format == "json" {
		data, err := json.MarshalIndent(a, "", "  ")
		if err != nil {
			return nil, fmt.Errorf("anchor freeze: %w", err)
		}
		return append(data, '\n'), nil
	}
	return drift.EncodeAnchors(a)
}

func slashPaths(paths []string) []string {
	out := make([]string, 0, len(paths))
	for _, p := range paths {
		out = append(out, filepath.ToSlash(p))
	}
	return out
}
