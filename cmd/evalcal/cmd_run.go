package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/evalcal/evalcal/calibrate"
	"github.com/evalcal/evalcal/gates"
	"github.com/evalcal/evalcal/inspection"
	"github.com/evalcal/evalcal/report"
	"github.com/evalcal/evalcal/report/reportio"
	"github.com/evalcal/evalcal/runner"
	"github.com/evalcal/evalcal/sampler"
)

// runOptions are evalcal run's flags and arguments. To add a flag: a
// field here, its definition in addFlags, its check in validate, and, if
// it cannot change the report, its name in volatileRunFlags (and in
// valueFlags when it takes a value).
type runOptions struct {
	io   ioStreams
	args []string // as given after "run", for inputs.command_line

	Inspector        string
	Light            string
	Deep             string
	Inspections      string
	Sample           int
	Seed             int64
	AllowHomogeneous bool
	Jobs             int
	Retries          int
	Timeout          time.Duration
	CacheDir         string
	NoCache          bool
	Quiet            bool
	Bins             int
	By               []string
	Shard            string
	Requires         []string
	Baseline         string
	Output           outputOptions
	Paths            []string

	// Deep on a subset (issue 9).
	DeepSample   int
	DeepFraction float64
	DeepPolicy   string
	DeepSubset   string
	Repeat       int

	// Clusters and bias attribution (issue 29).
	Cluster      string
	Families     []string
	JudgeFamily  string
	families     map[string]string // from Families
	jfGiven      bool              // --judge-family was given
	clusterGiven bool              // --cluster was given

	// Trust or escalate (issue 24): cmd_run_escalation.go.
	Escalation escalationFlags
	// Pairwise and perturbation tests (issue 25): cmd_run_position.go.
	Position positionFlags

	// LLM judges and cost (issue 8).
	LLM          llmOptions
	RPM          float64
	Prices       []string
	PriceFile    string
	MaxCost      float64
	MaxRetryWait time.Duration

	shardIndex, shardCount int    // from Shard, 1-based
	shardSource            string // where Shard came from (shardFromFlag)
	// ownRuns is set by run when a shard needs no other shard's runs
	// (shardReadsOwnRuns): a saved file then brings the shard's runs only.
	ownRuns      bool
	retriesGiven bool
}

// maxBins bounds --bins, checked before any allocation (--shard is
// bounded by calibrate.MaxShards).
const maxBins = 1000

// volatileRunFlags cannot change a report's content, so they are left out
// of the command line it records (the report is byte-identical whatever
// --jobs is; --shard is recorded in inputs.shard instead, and dropped so
// that merged shards equal one unsharded run).
var volatileRunFlags = []string{"jobs", "cache", "no-cache", "quiet", "output", "shard", "format", "rpm",
	"light-key-file", "deep-key-file", "runs-out"}

// Bounds checked before any work.
const (
	maxRepeat = 100
	// llmRetries is the default --retries when a side is an LLM judge:
	// rate limits and overloads are routine there.
	llmRetries = 4
)

// newCmdRun builds `evalcal run`. runF, when not nil, replaces the
// command's body (tests check flag parsing with it).
func newCmdRun(f *factory, runF func(context.Context, *runOptions) error) *cobra.Command {
	o := &runOptions{io: f.io}
	c := &cobra.Command{
		Use:   "run [flags] PATH...",
		Short: "calibrate a light eval against a deep eval on completed runs",
		Long: `Inspect each run at light then deep depth, compare the verdicts run by run, and
write the calibration report. PATHs are run directories or folders holding them at
any depth; --inspections FILE calibrates saved inspections instead (one JSON a line).

Every finished inspection is cached by content (inspector identity, depth, run
content hash): a rerun pays only for new or changed runs, and Ctrl-C loses nothing
that finished. Progress goes to stderr: a bar on a terminal, a plain line every 10%
or 30 s otherwise (CI logs), nothing with --quiet.`,
		Example: `  evalcal run -o report.yaml testdata/runs
  evalcal run --inspections testdata/inspections/twelve.jsonl --format json
  evalcal run --inspector 'exec:sh testdata/inspectors/good.sh {run} {depth}' --jobs 8 --sample 6 testdata/runs
  evalcal run --require 'agreement.lower >= 60' --baseline last.yaml -o tonight.yaml runs/`,
		RunE: func(c *cobra.Command, args []string) error {
			o.args, o.Paths = f.args, args
			o.Output.formatGiven = c.Flags().Changed("format")
			o.retriesGiven = c.Flags().Changed("retries")
			o.LLM.seedGiven = c.Flags().Changed("judge-seed")
			o.jfGiven = c.Flags().Changed("judge-family")
			o.clusterGiven = c.Flags().Changed("cluster")
			o.Escalation.riskGiven = c.Flags().Changed("risk")
			if c.Flags().Changed("deep-fraction") && o.DeepFraction == 0 {
				// 0 is the unset default; given, it is outside 0 < F <= 1.
				return usageErrorf("run: --deep-fraction must be in (0, 1], got 0")
			}
			if err := o.validate(); err != nil {
				return err
			}
			if runF != nil {
				return runF(c.Context(), o)
			}
			return runRun(c.Context(), o)
		},
	}
	c.Annotations = map[string]string{usageAnnotation: "evalcal run [flags] PATH...              (run dirs, or folders holding them)\nevalcal run [flags] --inspections FILE   (saved inspections, one JSON a line)"}
	o.addFlags(c.Flags())
	o.Output.addRunsFlag(c.Flags())
	return c
}

// addFlags defines run's flags on fs.
func (o *runOptions) addFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.Inspector, "inspector", "builtin", "`SPEC` of the inspector at both depths: "+specKinds())
	fs.StringVar(&o.Light, "light", "", "`SPEC` of the light inspector (default: --inspector)")
	fs.StringVar(&o.Deep, "deep", "", "`SPEC` of the deep inspector (default: --inspector); saved:FILE calibrates against your labels")
	fs.StringVar(&o.Inspections, "inspections", "", "saved inspections `FILE` (JSONL); same as --inspector saved:FILE")
	fs.IntVar(&o.Sample, "sample", 0, "calibrate on a diverse subset of `N` runs (0 = all valid runs)")
	fs.Int64Var(&o.Seed, "seed", 1, "`SEED` of the diverse subset (0 or more)")
	fs.BoolVar(&o.AllowHomogeneous, "allow-homogeneous", false, "accept runs that all come from one system")
	fs.IntVar(&o.Jobs, "jobs", runtime.NumCPU(), "`N` runs inspected at once (at least 1)")
	fs.Lookup("jobs").DefValue = "number of CPUs" // the help shows no machine's count
	fs.IntVar(&o.Retries, "retries", runner.DefaultRetries, fmt.Sprintf("`N` retries of a transiently failing inspector call (%d for an LLM side unless given)", llmRetries))
	fs.DurationVar(&o.Timeout, "timeout", runner.DefaultTimeout, "time limit (`DURATION`) of one inspector call")
	fs.StringVar(&o.CacheDir, "cache", "", "inspection cache `DIR` (default: the user cache dir's evalcal/inspections)")
	fs.BoolVar(&o.NoCache, "no-cache", false, "neither read nor write the inspection cache")
	fs.BoolVar(&o.Quiet, "quiet", false, "no progress on stderr (warnings and the summary still print)")
	fs.IntVar(&o.Bins, "bins", 10, fmt.Sprintf("`N` bins of the light-score reliability table (1..%d)", maxBins))
	fs.StringArrayVar(&o.By, "by", nil, "slice the report by `FIELD`: system or a run metadata field (repeatable; default system)")
	fs.StringVar(&o.Shard, "shard", "", fmt.Sprintf("inspect only shard `i/n` of the sample (1 <= i <= n <= %d), or auto (auto/N) to read it from the CI or Kubernetes environment; combine the shard reports with evalcal merge", calibrate.MaxShards))
	fs.StringArrayVar(&o.Requires, "require", nil, "gate `EXPR` such as 'agreement.lower >= 80' (repeatable); an unmet gate exits 3")
	fs.StringVar(&o.Baseline, "baseline", "", "previous report `FILE` to compare with (adds a trend section)")
	fs.IntVar(&o.DeepSample, "deep-sample", 0, "inspect only `N` runs at depth deep (a seeded subset); light inspects every run")
	fs.Float64Var(&o.DeepFraction, "deep-fraction", 0, "inspect this `FRACTION` (0 < F <= 1) of the runs at depth deep")
	fs.StringVar(&o.DeepPolicy, "deep-policy", "uniform", "`POLICY` of the deep subset: uniform, uncertain (more deep where light is least sure), stratified (by light verdict x system or the --by fields, Neyman allocation) or cluster (whole clusters of --cluster)")
	fs.StringVar(&o.Cluster, "cluster", "", "cluster the runs by `FIELD` (system, or a metadata field such as task): the clustered agreement interval, the trust verdict and the estimates use it")
	fs.StringArrayVar(&o.Families, "family", nil, "`SYSTEM=FAMILY` model family of a system's runs, for the bias section's same-family flag (repeatable)")
	fs.StringVar(&o.JudgeFamily, "judge-family", "", "model `FAMILY` of the light judge (default: from an openai:/anthropic: model name)")
	fs.StringVar(&o.DeepSubset, "deep-subset", "", "how a deep source covering some runs only chose them: random (`HOW`); unset, random is assumed and the report says so")
	fs.IntVar(&o.Repeat, "repeat", 1, fmt.Sprintf("call each side `K` times per run (1..%d) to measure its repeatability", maxRepeat))
	o.LLM.addFlags(fs)
	fs.Float64Var(&o.RPM, "rpm", 0, "at most `N` requests per minute to each side (0 = no limit)")
	fs.StringArrayVar(&o.Prices, "price", nil, "`MODEL=IN/OUT[/CACHED]` price in USD per million tokens (repeatable)")
	fs.StringVar(&o.PriceFile, "price-file", "", "YAML `FILE` of prices: MODEL: {input: X, output: Y, cached_input: Z}")
	fs.Float64Var(&o.MaxCost, "max-cost", 0, "budget in `USD` over both sides: no call starts whose reservation (its bound, then 1.5x what finished calls like it cost) could exceed it; exit 4 when it stopped calls")
	fs.DurationVar(&o.MaxRetryWait, "max-retry-wait", runner.DefaultMaxRetryWait, "longest `DURATION` a server may ask to wait (Retry-After) before a call is failed instead")
	o.Escalation.addFlags(fs)
	o.Position.addFlags(fs)
	o.Output.addFlags(fs, "report", "yaml", reportFormats)
}

// validate checks every flag and argument before any work, naming the
// flag at fault.
func (o *runOptions) validate() error {
	if o.Inspections != "" {
		if o.Inspector != "builtin" {
			return usageErrorf("run: give --inspections or --inspector, not both")
		}
		o.Inspector = "saved:" + o.Inspections
	}
	if o.Light == "" {
		o.Light = o.Inspector
	}
	if o.Deep == "" {
		o.Deep = o.Inspector
	}
	for _, c := range []struct{ flag, spec string }{{"inspector", o.Inspector}, {"light", o.Light}, {"deep", o.Deep}} {
		if err := checkSpec(c.flag, c.spec); err != nil {
			return err
		}
	}
	bothSaved := bringsRuns(o.Light) && bringsRuns(o.Deep)
	switch {
	case o.Inspections != "" && len(o.Paths) > 0:
		return usageErrorf("run: give run PATHs or --inspections FILE, not both")
	case !bothSaved && len(o.Paths) == 0:
		return usageErrorHint("Run 'evalcal run --help' for usage.", "run: no run PATH given (or use --inspections FILE)")
	case bothSaved && len(o.Paths) > 0:
		return usageErrorf("run: saved or imported results on both sides bring their runs: give no run PATH")
	case o.Jobs < 1:
		return usageErrorf("run: --jobs must be at least 1, got %d", o.Jobs)
	case o.Retries < 0:
		return usageErrorf("run: --retries must be 0 or more, got %d", o.Retries)
	case o.Timeout <= 0:
		return usageErrorf("run: --timeout must be positive, got %s", o.Timeout)
	case o.Sample < 0:
		return usageErrorf("run: --sample must be 0 (all) or more, got %d", o.Sample)
	case o.Seed < 0:
		return usageErrorf("run: --seed must be 0 or more, got %d", o.Seed)
	case o.Bins < 1 || o.Bins > maxBins:
		return usageErrorf("run: --bins must be in [1, %d], got %d", maxBins, o.Bins)
	case o.Shard != "" && (len(o.Requires) > 0 || o.Baseline != ""):
		return usageErrorf("run: --require and --baseline apply to the whole sample: give them to evalcal merge, not to a shard")
	case o.NoCache && o.CacheDir != "":
		return usageErrorf("run: give --cache or --no-cache, not both")
	case o.DeepSample < 0:
		return usageErrorf("run: --deep-sample must be 0 (every run) or more, got %d", o.DeepSample)
	case math.IsNaN(o.DeepFraction) || o.DeepFraction < 0 || o.DeepFraction > 1:
		return usageErrorf("run: --deep-fraction must be in (0, 1], got %v", o.DeepFraction)
	case o.DeepSample > 0 && o.DeepFraction > 0:
		return usageErrorf("run: give --deep-sample or --deep-fraction, not both")
	case o.DeepPolicy != calibrate.PolicyUniform && o.DeepPolicy != calibrate.PolicyUncertain && o.DeepPolicy != calibrate.PolicyStratified &&
		o.DeepPolicy != calibrate.PolicyCluster:
		return usageErrorf("run: --deep-policy must be uniform, uncertain, stratified or cluster, got %q", o.DeepPolicy)
	case o.DeepSubset != "" && o.DeepSubset != "random":
		return usageErrorf("run: --deep-subset must be random, got %q", o.DeepSubset)
	case o.Repeat < 1 || o.Repeat > maxRepeat:
		return usageErrorf("run: --repeat must be in [1, %d], got %d", maxRepeat, o.Repeat)
	case math.IsNaN(o.RPM) || o.RPM < 0 || math.IsInf(o.RPM, 0):
		return usageErrorf("run: --rpm must be 0 (no limit) or more, got %v", o.RPM)
	case math.IsNaN(o.MaxCost) || o.MaxCost < 0 || math.IsInf(o.MaxCost, 0):
		return usageErrorf("run: --max-cost must be a finite amount of USD, got %v", o.MaxCost)
	case o.MaxRetryWait <= 0:
		return usageErrorf("run: --max-retry-wait must be positive, got %s", o.MaxRetryWait)
	}
	if err := checkBy(o.By); err != nil {
		return err
	}
	if err := o.validateClusters(); err != nil {
		return err
	}
	if err := o.Escalation.validate(o); err != nil {
		return err
	}
	if err := o.Position.validate(o); err != nil {
		return err
	}
	if err := o.LLM.validate(); err != nil {
		return err
	}
	for _, p := range o.Prices {
		if _, _, err := parsePrice(p); err != nil {
			return usageErrorf("run: --price: %v", err)
		}
	}
	if err := o.Output.resolve("run", reportFormats...); err != nil {
		return err
	}
	if o.Shard != "" {
		i, n, source, err := shardFromFlag(o.Shard, os.Getenv)
		if err != nil {
			return usageErrorf("run: --shard: %w", err)
		}
		o.shardIndex, o.shardCount, o.shardSource = i, n, source
	}
	inputs := append([]string{o.Baseline, o.PriceFile, o.LLM.LightPrompt, o.LLM.DeepPrompt, o.Escalation.Escalate}, o.Position.inputs()...)
	for _, spec := range []string{o.Light, o.Deep} {
		if path := specFile(spec); path != "" {
			inputs = append(inputs, path)
		}
	}
	return o.Output.checkWithRuns("run", o.io.Out, inputs...)
}

// reportFormats are the formats of a calibration report.
var reportFormats = []string{"yaml", "json", "markdown", "md", "html"}

// runRun is evalcal run's body, after validate: it builds the two
// inspectors and calls the pipeline (calibrate.Run), then writes the report.
func runRun(ctx context.Context, o *runOptions) error {
	defer tuneGC(os.Getenv, rootFS())()
	stderr := o.io.ErrOut
	gs, err := parseGates(o.Requires, report.Report{}, o.Baseline != "")
	if err != nil {
		return err
	}
	var baseline *report.Report
	if o.Baseline != "" {
		if baseline, err = readReportFile(o.Baseline); err != nil {
			return inputError(fmt.Errorf("run: --baseline: %w", err))
		}
	}
	o.ownRuns = o.shardReadsOwnRuns()
	s, err := openSides(ctx, o)
	if err != nil {
		return err
	}
	defer func() { s.Close() }() // s as it ends: configure may add closers
	opts, err := o.runnerOptions(s)
	if err != nil {
		return err
	}
	if !o.NoCache {
		opts.Cache = openCache(o.CacheDir, stderr)
	}
	cfg := calibrate.Config{
		Paths: o.Paths, Runs: s.runs, Light: s.light, Deep: s.deep, LightSpec: o.Light, DeepSpec: o.Deep,
		Sample:     sampler.SelectOptions{N: o.Sample, Seed: o.Seed, AllowHomogeneous: o.AllowHomogeneous || s.imported},
		ShardIndex: o.shardIndex, ShardCount: o.shardCount, ShardSource: o.shardSource, ShardOwnRuns: o.ownRuns, LastUse: true,
		Subset: calibrate.Subset{N: o.DeepSample, Fraction: o.DeepFraction, Policy: o.DeepPolicy,
			Seed: uint64(o.Seed), Chosen: o.DeepSubset},
		Cluster: o.Cluster, Families: o.families, JudgeFamily: o.JudgeFamily,
		Runner: opts, Bins: o.Bins, By: o.By, GeneratedBy: "evalcal " + version, CommandLine: recordedArgs(o.args),
		Finish: calibrate.Finish{Baseline: baseline, Gates: gs},
		Judges: func(light, deep *report.Side) { describeSides(light, deep, s.light, s.deep) },
		Notify: func(msg string) { fmt.Fprintf(stderr, "evalcal: %s\n", msg) },
	}
	if err := o.Position.configure(ctx, o, &s, &cfg); err != nil {
		return err
	}
	if cfg.Escalation, err = o.Escalation.inputs(); err != nil {
		return inputError(err)
	}
	if opts.Cache != nil {
		cfg.DescribeCache = filepath.Join(opts.Cache.Dir(), "describe")
	}
	s.runs = nil // cfg.Runs has them, and calibrate lets them go once the report lists them
	rep, err := calibrate.Run(ctx, cfg)
	var sampleErr *calibrate.SampleError
	var stop *runner.StopError
	switch {
	case errors.As(err, &sampleErr):
		summarise(stderr, len(sampleErr.Invalid), "invalid run", "sample.invalid", invalidRunItems(sampleErr.Invalid))
		return inputError(sampleErr.Err)
	case errors.As(err, &stop) && rep != nil:
		// Stopped after some good calls: the report of what finished is
		// written, as after a budget stop; still exit 2.
		return finishReport(ctx, rep, &o.Output, o.io, func() error {
			return inputError(fmt.Errorf("run stopped: %w; the report covers the %d runs that finished", err, len(rep.Comparisons)))
		})
	case errors.As(err, &stop):
		// One clear line, exit 2: a misconfiguration, not N failures.
		return inputError(fmt.Errorf("run stopped: %w", err))
	case errors.Is(err, context.Canceled):
		kept := 0
		if rep != nil {
			kept = rep.Cost.Light.Inspections - rep.Cost.Light.CacheHits + rep.Cost.Deep.Inspections - rep.Cost.Deep.CacheHits
		}
		if opts.Cache != nil {
			fmt.Fprintf(stderr, "evalcal: interrupted; %d finished inspections are kept in the cache\n", kept)
		} else {
			fmt.Fprintf(stderr, "evalcal: interrupted; no cache in use, so the %d finished inspections are not kept\n", kept)
		}
		return fmt.Errorf("run: %w", err)
	case err != nil:
		return inputError(err)
	}
	summarise(stderr, len(rep.Sample.Invalid), "invalid run", "sample.invalid", reportInvalidItems(rep.Sample.Invalid))
	fmt.Fprintf(stderr, "evalcal: %d inspector calls, %d from cache, %d failures\n",
		rep.Cost.Light.Calls+rep.Cost.Deep.Calls, rep.Cost.Light.CacheHits+rep.Cost.Deep.CacheHits, len(rep.Failures))
	summarise(stderr, len(rep.Failures), "failed inspection", "failures", failureItems(rep.Failures))

	return finishReport(ctx, rep, &o.Output, o.io, func() error {
		if rep.Cost.BudgetStopped {
			return budgetError(fmt.Errorf("run: the --max-cost budget of $%s stopped the calls (spent $%s); the report covers what was inspected",
				strconv.FormatFloat(o.MaxCost, 'f', -1, 64), strconv.FormatFloat(rep.SpentUSD(), 'f', 4, 64)))
		}
		if len(rep.Comparisons) == 0 && !cascadeDecidedAll(rep) {
			return fmt.Errorf("run: no run got both inspections (%d failures; see the report)", len(rep.Failures))
		}
		return nil
	})
}

// runnerOptions are the runner's options from the flags: jobs, retries
// (more by default for LLM judges), timeouts, rate limits, prices and the
// budget. --max-cost needs a price for every billed model, so that an
// unpriced model can never slip past it.
func (o *runOptions) runnerOptions(s sides) (runner.Options, error) {
	opts := runner.DefaultOptions()
	opts.Jobs, opts.Retries, opts.Timeout = o.Jobs, o.Retries, o.Timeout
	if s.llm && !o.retriesGiven {
		opts.Retries = llmRetries
	}
	opts.MaxRetryWait = o.MaxRetryWait
	opts.Repeat = o.Repeat
	if !o.Quiet {
		opts.Progress = o.io.ErrOut
	}
	pr := prices{}
	if o.PriceFile != "" {
		var err error
		if pr, err = readPriceFile(o.PriceFile); err != nil {
			return opts, inputError(fmt.Errorf("run: --price-file: %w", err))
		}
	}
	for _, p := range o.Prices {
		model, price, _ := parsePrice(p) // checked by validate
		pr[model] = price
	}
	opts.Light = runner.SideOptions{RPM: o.RPM, Price: pr.priceOf(s.light), Name: o.Light}
	opts.Deep = runner.SideOptions{RPM: o.RPM, Price: pr.priceOf(s.deep), Name: o.Deep}
	if o.MaxCost > 0 {
		for _, side := range []struct {
			name string
			in   inspection.Inspector
			p    *runner.Price
		}{{"light", s.light, opts.Light.Price}, {"deep", s.deep, opts.Deep.Price}} {
			if b, ok := inspection.As[inspection.Billed](side.in); ok && side.p == nil {
				return opts, usageErrorf("run: --max-cost needs the price of every model used; the %s side's model %s has none (give --price %s=IN/OUT)",
					side.name, b.Model(), b.Model())
			}
		}
		opts.MaxUSD = o.MaxCost
	}
	return opts, nil
}

// openCache opens the inspection cache in dir, or in the user cache
// dir's evalcal/inspections when dir is "". One rule for every cache that
// cannot be had (no user cache dir, a directory that cannot be created,
// one that cannot be written: a file is created and removed there to
// know): one warning on stderr, and the run goes on without a cache (nil).
func openCache(dir string, stderr io.Writer) *runner.Cache {
	if dir == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			fmt.Fprintf(stderr, "evalcal: warning: no user cache dir (%v); going on without a cache (give --cache DIR to keep inspections)\n", err)
			return nil
		}
		dir = filepath.Join(base, "evalcal", "inspections")
	}
	c, err := runner.OpenCache(dir)
	if err == nil {
		var probe *os.File
		if probe, err = os.CreateTemp(dir, ".probe-*"); err == nil {
			name := probe.Name()
			_ = probe.Close()
			_ = os.Remove(name)
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "evalcal: warning: cache %s cannot be used (%v); going on without a cache\n", dir, unwrapPathError(err))
		return nil
	}
	return c
}

// invalidRunItems formats invalid runs as "path: reason".
func invalidRunItems(runs []inspection.Run) []string {
	var items []string
	for i := 0; i < len(runs) && i < listedOnStderr; i++ {
		items = append(items, fmt.Sprintf("%s: %s", displayPath(runs[i]), runs[i].Invalid))
	}
	return items
}

// reportInvalidItems formats a report's invalid runs as "path: reason".
func reportInvalidItems(runs []report.Invalid) []string {
	var items []string
	for i := 0; i < len(runs) && i < listedOnStderr; i++ {
		p := runs[i].Path
		if p == "" {
			p = runs[i].ID
		}
		items = append(items, fmt.Sprintf("%s: %s", p, runs[i].Reason))
	}
	return items
}

// failureItems formats failed inspections as "run depth: reason".
func failureItems(fs []inspection.Failure) []string {
	var items []string
	for i := 0; i < len(fs) && i < listedOnStderr; i++ {
		items = append(items, fmt.Sprintf("%s %s: %s", fs[i].RunID, fs[i].Depth, fs[i].Reason))
	}
	return items
}

// readReportFile reads a calibration report from a regular file.
func readReportFile(path string) (*report.Report, error) {
	if err := checkRegular(path); err != nil {
		return nil, err
	}
	return reportio.ReadReportWithRuns(context.Background(), path)
}

// finishReport writes a finished report (calibrate.Run or Merge added the
// trend, the gates and the summary): it summarises the report's warnings
// on stderr, writes it (streamed as it is encoded, see
// outputOptions.stream), prints one summary line and one line per failed
// gate on stderr, and returns the error that decides the exit code: an
// interrupt (exit 130, the -o file untouched), then after, the work's own
// verdict (exit 1), then an unmet gate (exit 3).
func finishReport(ctx context.Context, rep *report.Report, out *outputOptions, streams ioStreams, after func() error) error {
	stderr := streams.ErrOut
	if err := ctx.Err(); err != nil {
		return err
	}
	summarise(stderr, len(rep.Warnings), "warning", "warnings", rep.Warnings)
	rep, err := out.splitRuns(ctx, rep)
	if err != nil {
		return err
	}
	// Streamed: a report of 20,000 runs is 21 MB of YAML that is never
	// held in memory whole.
	if err := out.stream(streams.Out, reportEncoder(ctx, out.Format, rep)); err != nil {
		return err
	}
	if out.toFile() {
		fmt.Fprintf(stderr, "evalcal: report written to %s\n", out.Path)
	}
	// The answer, in the one line a CI log shows.
	fmt.Fprintf(stderr, "evalcal: %s: %s\n", rep.Summary.Trust, rep.Summary.Sentence)
	if err := after(); err != nil {
		return err
	}
	return gateResult(rep.Gates, stderr)
}

// gateResult prints one stderr line per gate that failed and returns the
// exit-3 error when any did.
func gateResult(results []gates.Result, stderr io.Writer) error {
	failed := gates.Failed(results)
	for _, r := range failed {
		fmt.Fprintf(stderr, "evalcal: gate failed: %s\n", r.Message)
	}
	if len(failed) > 0 {
		return gateError(gates.Unmet(results))
	}
	return nil
}

// parseGates parses and validates --require expressions against the
// document kind doc (a zero value), before any work: a malformed
// expression, an unknown field, or a trend field without a baseline to
// compare with is a usage error.
func parseGates(exprs []string, doc any, hasBaseline bool) ([]gates.Gate, error) {
	if len(exprs) == 0 {
		return nil, nil
	}
	gs, err := gates.Parse(exprs)
	if err != nil {
		return nil, usageErrorf("--require: %v", err)
	}
	if err := gates.Validate(gs, doc); err != nil {
		return nil, usageErrorf("--require: %v", err)
	}
	for _, g := range gs {
		if !hasBaseline && (g.Field == "trend" || strings.HasPrefix(g.Field, "trend.")) {
			return nil, usageErrorf("--require %q names a trend field, which needs --baseline PREVIOUS_REPORT", g.Expr)
		}
	}
	return gs, nil
}

// recordedArgs is the command line as it can be run again: "evalcal run"
// and the arguments without the flags that cannot change the report's
// content.
func recordedArgs(args []string) []string {
	return append([]string{"evalcal", "run"}, dropFlags(args, volatileRunFlags...)...)
}

// valueFlags are the long flags of every command that take a value, and
// shorthands maps each shorthand to its long flag: dropFlags needs both.
var (
	valueFlags = map[string]bool{"jobs": true, "cache": true, "output": true, "shard": true, "format": true,
		"rpm": true, "light-key-file": true, "deep-key-file": true, "runs-out": true}
	shorthands = map[string]string{"o": "output"}
)

// dropFlags returns args without the named long flags, in --name,
// --name=v and --name v form, and without their shorthands (-o v, -ov,
// -o=v). args are as runIO leaves them: single-dash long flags already
// rewritten. "--" ends the flags.
func dropFlags(args []string, names ...string) []string {
	drop := map[string]bool{}
	for _, n := range names {
		drop[n] = true
	}
	out := []string{}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return append(out, args[i:]...)
		case strings.HasPrefix(a, "--"):
			name, _, inline := strings.Cut(a[2:], "=")
			if drop[name] {
				if valueFlags[name] && !inline {
					i++
				}
				continue
			}
		case len(a) >= 2 && a[0] == '-' && drop[shorthands[a[1:2]]]:
			if len(a) == 2 {
				i++ // -o v
			}
			continue // -ov, -o=v
		}
		out = append(out, a)
	}
	return out
}

func displayPath(r inspection.Run) string {
	if r.Path != "" {
		return r.Path
	}
	return r.ID
}

// checkBy checks the --by fields: each a non-empty name without surrounding
// space, none given twice.
func checkBy(by []string) error {
	seen := map[string]bool{}
	for _, f := range by {
		switch {
		case f == "" || strings.TrimSpace(f) != f:
			return usageErrorf("run: --by must name a field (system or a metadata field), got %q", f)
		case seen[f]:
			return usageErrorf("run: --by %s given twice", f)
		}
		seen[f] = true
	}
	return nil
}
