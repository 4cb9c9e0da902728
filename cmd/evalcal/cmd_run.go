package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/evalcal/evalcal/advisor"
	"github.com/evalcal/evalcal/calibrate"
	"github.com/evalcal/evalcal/comparator"
	"github.com/evalcal/evalcal/gates"
	"github.com/evalcal/evalcal/programs/builtin"
	execinspector "github.com/evalcal/evalcal/programs/exec"
	"github.com/evalcal/evalcal/programs/saved"
	"github.com/evalcal/evalcal/report"
	"github.com/evalcal/evalcal/runner"
	"github.com/evalcal/evalcal/sampler"
	"github.com/evalcal/evalcal/statistician/aggregate"
)

// runOptions are evalcal run's flags and arguments. To add a flag: a
// field here, its definition in addFlags, its check in validate, and, if
// it cannot change the report, its name in volatileRunFlags (and in
// valueFlags when it takes a value).
type runOptions struct {
	io   ioStreams
	args []string // as given after "run", for inputs.command_line

	Inspector        string
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
	Shard            string
	Requires         []string
	Baseline         string
	Output           outputOptions
	Paths            []string

	shardIndex, shardCount int // from Shard, 1-based
}

// maxBins bounds --bins, checked before any allocation (--shard is
// bounded by calibrate.MaxShards).
const maxBins = 1000

// volatileRunFlags cannot change a report's content, so they are left out
// of the command line it records (the report is byte-identical whatever
// --jobs is; --shard is recorded in inputs.shard instead, and dropped so
// that merged shards equal one unsharded run).
var volatileRunFlags = []string{"jobs", "cache", "no-cache", "quiet", "output", "shard"}

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
	return c
}

// addFlags defines run's flags on fs.
func (o *runOptions) addFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.Inspector, "inspector", "builtin", "`INSPECTOR`: builtin, exec:COMMAND or saved:FILE")
	fs.StringVar(&o.Inspections, "inspections", "", "saved inspections `FILE` (JSONL); same as --inspector saved:FILE")
	fs.IntVar(&o.Sample, "sample", 0, "calibrate on a diverse subset of `N` runs (0 = all valid runs)")
	fs.Int64Var(&o.Seed, "seed", 1, "`SEED` of the diverse subset (0 or more)")
	fs.BoolVar(&o.AllowHomogeneous, "allow-homogeneous", false, "accept runs that all come from one system")
	fs.IntVar(&o.Jobs, "jobs", runtime.NumCPU(), "`N` runs inspected at once (at least 1)")
	fs.Lookup("jobs").DefValue = "number of CPUs" // the help shows no machine's count
	fs.IntVar(&o.Retries, "retries", runner.DefaultRetries, "`N` retries of a transiently failing inspector call")
	fs.DurationVar(&o.Timeout, "timeout", runner.DefaultTimeout, "time limit (`DURATION`) of one inspector call")
	fs.StringVar(&o.CacheDir, "cache", "", "inspection cache `DIR` (default: the user cache dir's evalcal/inspections)")
	fs.BoolVar(&o.NoCache, "no-cache", false, "neither read nor write the inspection cache")
	fs.BoolVar(&o.Quiet, "quiet", false, "no progress on stderr (warnings and the summary still print)")
	fs.IntVar(&o.Bins, "bins", 10, fmt.Sprintf("`N` bins of the light-score reliability table (1..%d)", maxBins))
	fs.StringVar(&o.Shard, "shard", "", fmt.Sprintf("inspect only shard `i/n` of the sample (1 <= i <= n <= %d); combine the shard reports with evalcal merge", calibrate.MaxShards))
	fs.StringArrayVar(&o.Requires, "require", nil, "gate `EXPR` such as 'agreement.lower >= 80' (repeatable); an unmet gate exits 3")
	fs.StringVar(&o.Baseline, "baseline", "", "previous report `FILE` to compare with (adds a trend section)")
	o.Output.addFlags(fs, "report", "yaml", reportFormats)
}

// validate checks every flag and argument before any work, naming the
// flag at fault.
func (o *runOptions) validate() error {
	switch {
	case o.Inspections != "" && o.Inspector != "builtin":
		return usageErrorf("run: give --inspections or --inspector, not both")
	case o.Inspections != "" && len(o.Paths) > 0:
		return usageErrorf("run: give run PATHs or --inspections FILE, not both")
	case o.Inspections == "" && !strings.HasPrefix(o.Inspector, "saved:") && len(o.Paths) == 0:
		return usageErrorHint("Run 'evalcal run --help' for usage.", "run: no run PATH given (or use --inspections FILE)")
	case strings.HasPrefix(o.Inspector, "saved:") && len(o.Paths) > 0:
		return usageErrorf("run: --inspector saved:FILE takes no run PATHs")
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
	}
	if err := o.Output.resolve("run", reportFormats...); err != nil {
		return err
	}
	if o.Shard != "" {
		i, n, err := calibrate.ParseShard(o.Shard)
		if err != nil {
			return usageErrorf("run: --shard: %v", err)
		}
		o.shardIndex, o.shardCount = i, n
	}
	if o.Inspections != "" {
		o.Inspector = "saved:" + o.Inspections
	}
	switch {
	case o.Inspector == "builtin", strings.HasPrefix(o.Inspector, "exec:") && len(o.Inspector) > 5,
		strings.HasPrefix(o.Inspector, "saved:") && len(o.Inspector) > 6:
	default:
		return usageErrorf("run: --inspector must be builtin, exec:COMMAND or saved:FILE, got %q", o.Inspector)
	}
	return o.Output.check("run", o.io.Out, strings.TrimPrefix(o.Inspector, "saved:"), o.Baseline)
}

// reportFormats are the formats of a calibration report.
var reportFormats = []string{"yaml", "json", "markdown", "md", "html"}

// runRun is evalcal run's body, after validate.
func runRun(ctx context.Context, o *runOptions) error {
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

	insp, runs, err := o.openInspector()
	if err != nil {
		return err
	}
	if len(o.Paths) > 0 {
		runs, err = untilDone(ctx, func() ([]sampler.Run, error) { return sampler.Discover(o.Paths) })
		if err != nil {
			if ctx.Err() != nil {
				return fmt.Errorf("run: discover: %w", ctx.Err())
			}
			return inputError(err)
		}
	}
	sample, err := sampler.Select(runs, sampler.SelectOptions{N: o.Sample, Seed: o.Seed, AllowHomogeneous: o.AllowHomogeneous})
	summarise(stderr, len(sample.Invalid), "invalid run", "sample.invalid", invalidRunItems(sample.Invalid))
	if err != nil {
		return inputError(err)
	}

	opts := runner.DefaultOptions()
	opts.Jobs, opts.Retries, opts.Timeout = o.Jobs, o.Retries, o.Timeout
	if !o.Quiet {
		opts.Progress = stderr
	}
	if !o.NoCache {
		opts.Cache = openCache(o.CacheDir, stderr)
	}
	res, err := runner.Run(ctx, shardRuns(sample.Runs, o.shardIndex, o.shardCount), insp, opts)
	if err != nil {
		if errors.Is(err, context.Canceled) {
			finished := 2*len(res.Pairs) + len(res.Unpaired)
			if opts.Cache != nil {
				fmt.Fprintf(stderr, "evalcal: interrupted; %d finished inspections are kept in the cache\n", finished)
			} else {
				fmt.Fprintf(stderr, "evalcal: interrupted; no cache in use, so the %d finished inspections are not kept\n", finished)
			}
		}
		return fmt.Errorf("run: %w", err)
	}

	for _, w := range res.Warnings {
		fmt.Fprintf(stderr, "evalcal: %s\n", w)
	}
	fmt.Fprintf(stderr, "evalcal: %d inspector calls, %d from cache, %d failures\n", res.Calls, res.CacheHits, len(res.Failures))
	rep := newRunReport(o, insp.Identity(), sample)
	if u, ok := insp.(interface{ Unattributed() []string }); ok {
		rep.Sample.Rejected = u.Unattributed()
	}
	fillResults(rep, comparator.Compare(res.Pairs), res.Failures, o.Bins)
	summarise(stderr, len(rep.Failures), "failed inspection", "failures", failureItems(rep.Failures))

	return finishReport(ctx, rep, baseline, gs, &o.Output, o.io, func() error {
		if len(res.Pairs) == 0 {
			return fmt.Errorf("run: no run got both inspections (%d failures; see the report)", len(res.Failures))
		}
		return nil
	})
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
func invalidRunItems(runs []sampler.Run) []string {
	var items []string
	for i := 0; i < len(runs) && i < listedOnStderr; i++ {
		items = append(items, fmt.Sprintf("%s: %s", displayPath(runs[i]), runs[i].Invalid))
	}
	return items
}

// failureItems formats failed inspections as "run depth: reason".
func failureItems(fs []runner.Failure) []string {
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
	return report.ReadReport(path)
}

// finishReport adds the trend against baseline (when given), checks the
// gates on the finished report and records them in it, summarises its
// warnings on stderr, writes it, prints one summary line and one line per
// failed gate on stderr, and returns the error that decides the exit
// code: an interrupt (exit 130, nothing written), then after, the work's
// own verdict (exit 1), then an unmet gate (exit 3).
func finishReport(ctx context.Context, rep *report.Report, baseline *report.Report, gs []gates.Gate, out *outputOptions, streams ioStreams, after func() error) error {
	stderr := streams.ErrOut
	if baseline != nil {
		t := report.CompareReports(baseline, rep)
		rep.Trend = &t
	}
	var results []gates.Result
	if len(gs) > 0 {
		results = gates.Check(gs, rep)
		rep.Gates = results
	}
	data, err := renderFormats[out.Format](rep)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	summarise(stderr, len(rep.Warnings), "warning", "warnings", rep.Warnings)
	if err := out.write(streams.Out, data); err != nil {
		return err
	}
	if out.toFile() {
		fmt.Fprintf(stderr, "evalcal: report written to %s\n", out.Path)
	}
	if rep.SampleSize == 0 {
		fmt.Fprintf(stderr, "evalcal: 0 runs compared: agreement undefined, confidence %s\n", rep.Confidence)
	} else {
		fmt.Fprintf(stderr, "evalcal: %d runs, agreement %.1f%% [%.1f, %.1f], confidence %s, bias %s\n",
			rep.SampleSize, rep.AgreementRate.Value(), rep.AgreementRate.Interval().Lower, rep.AgreementRate.Interval().Upper,
			rep.Confidence, rep.BiasDirection)
	}
	if len(rep.Recommendations) > 0 {
		top := rep.Recommendations[0]
		fmt.Fprintf(stderr, "evalcal: priority 1: %s (agreement %.1f%% if resolved)\n", top.Target, top.ExpectedImpact.AgreementPercent)
	}
	if err := after(); err != nil {
		return err
	}
	return gateResult(results, stderr)
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

// openInspector builds the inspector; a saved one also yields its runs.
func (o *runOptions) openInspector() (runner.Inspector, []sampler.Run, error) {
	switch {
	case strings.HasPrefix(o.Inspector, "exec:"):
		in, err := execinspector.New(strings.TrimPrefix(o.Inspector, "exec:"))
		if err != nil {
			return nil, nil, usageErrorf("run: --inspector: %v", err)
		}
		return in, nil, nil
	case strings.HasPrefix(o.Inspector, "saved:"):
		path := strings.TrimPrefix(o.Inspector, "saved:")
		if err := checkRegular(path); err != nil {
			return nil, nil, inputError(fmt.Errorf("run: %w", err))
		}
		in, runs, err := saved.Load(path)
		if err != nil {
			return nil, nil, inputError(err)
		}
		return in, runs, nil
	}
	return builtin.New(), nil, nil
}

// newRunReport starts a report: what it was computed from and the whole
// sample (also in a shard's report, so that shards merge exactly).
func newRunReport(o *runOptions, identity string, sample sampler.Sample) *report.Report {
	rep := &report.Report{
		SchemaVersion: report.SchemaVersion,
		GeneratedBy:   "evalcal " + version,
		Inputs: report.Inputs{
			Paths:       nonNilStrings(o.Paths),
			Inspector:   identity,
			Seed:        uint64(o.Seed),
			SampleLimit: o.Sample,
			Bins:        o.Bins,
			Shard:       o.Shard,
			ContentHash: sampleHash(sample.Runs),
			CommandLine: recordedArgs(o.args),
		},
	}
	if strings.HasPrefix(o.Inspector, "saved:") {
		rep.Inputs.Inspections = strings.TrimPrefix(o.Inspector, "saved:")
	}
	rep.Sample = report.Sample{Composition: sample.Composition, Runs: []report.SampleRun{}, Invalid: []report.Invalid{}}
	for _, r := range sample.Runs {
		rep.Sample.Runs = append(rep.Sample.Runs, report.SampleRun{
			ID: r.ID, System: r.System, Era: string(r.Era), Status: string(r.Status),
			Services: len(r.ServicesDeclared), SizeBytes: r.SizeBytes, Path: filepath.ToSlash(r.Path),
			ContentHash: r.ContentHash, Warnings: r.Warnings,
		})
	}
	for _, r := range sample.Invalid {
		rep.Sample.Invalid = append(rep.Sample.Invalid, report.Invalid{ID: r.ID, Path: filepath.ToSlash(r.Path), Reason: r.Invalid})
	}
	return rep
}

// fillResults computes everything that follows from the comparisons and
// failures: statistics, recommendations and warnings. run and merge both
// use it, which is why merged shards equal one unsharded run.
func fillResults(rep *report.Report, cs []comparator.Comparison, failures []runner.Failure, bins int) {
	st := aggregate.Compute(cs, aggregate.Options{Bins: bins})
	rep.SampleSize = st.SampleSize
	rep.AgreementRate = st.AgreementRate
	rep.AgreementBySystem = st.AgreementBySystem
	rep.ScoreCorrelation = st.ScoreCorrelation
	rep.MeanScoreDelta = st.MeanScoreDelta
	rep.BiasDirection = st.BiasDirection
	rep.DisagreementBreakdown = st.DisagreementBreakdown
	rep.Confidence = st.Confidence
	rep.Preliminary = st.Preliminary
	rep.Kappa = st.Kappa
	rep.Confusion = st.Confusion
	rep.Forecast = st.Forecast
	rep.Disagreements = st.Disagreements
	rep.Comparisons = nonNilComparisons(cs)
	rep.Failures = failures
	if rep.Failures == nil {
		rep.Failures = []runner.Failure{}
	}
	rep.Partial = len(failures) > 0
	rep.Recommendations = advisor.Advise(cs, st)
	rep.Warnings = append([]string{}, st.Warnings...)
	if rep.Partial {
		failed := map[string]bool{}
		for _, f := range failures {
			failed[f.RunID] = true
		}
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("partial: %d inspections of %d runs failed; statistics cover %d runs",
			len(failures), len(failed), len(cs)))
	}
	if rep.Inputs.Shard != "" {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("shard %s: statistics cover this shard only; combine all shards with evalcal merge", rep.Inputs.Shard))
	}
	withWarnings := 0
	for _, r := range rep.Sample.Runs {
		if len(r.Warnings) > 0 {
			withWarnings++
		}
	}
	if withWarnings > 0 {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("%d sampled runs could be read only in part; see sample.runs[].warnings", withWarnings))
	}
	if n := rep.Inputs.SampleLimit; n > len(rep.Sample.Runs) {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("--sample %d asked for more runs than the %d valid ones; all were taken", n, len(rep.Sample.Runs)))
	}
	for _, line := range rep.Sample.Rejected {
		rep.Warnings = append(rep.Warnings, "rejected line with no readable run_id and depth: "+line)
	}
}

// shardRuns keeps the runs of shard i of n: the runs at positions
// i-1, i-1+n, i-1+2n, ... of the sample (sorted by id), so shards differ
// in size by at most one run. n = 0 keeps every run.
func shardRuns(runs []sampler.Run, i, n int) []sampler.Run {
	if n <= 1 {
		return runs
	}
	var out []sampler.Run
	for k := i - 1; k < len(runs); k += n {
		out = append(out, runs[k])
	}
	return out
}

// sampleHash is the SHA-256 over the runs' ids and content hashes in id
// order: it changes when any sampled run changes.
func sampleHash(runs []sampler.Run) string {
	lines := make([]string, 0, len(runs))
	for _, r := range runs {
		lines = append(lines, r.ID+"\x00"+r.ContentHash)
	}
	sort.Strings(lines)
	h := sha256.New()
	for _, l := range lines {
		io.WriteString(h, l+"\n")
	}
	return hex.EncodeToString(h.Sum(nil))
}

// recordedArgs drops the flags that cannot change the report's content.
func recordedArgs(args []string) []string { return dropFlags(args, volatileRunFlags...) }

// valueFlags are the long flags of every command that take a value, and
// shorthands maps each shorthand to its long flag: dropFlags needs both.
var (
	valueFlags = map[string]bool{"jobs": true, "cache": true, "output": true, "shard": true}
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

func displayPath(r sampler.Run) string {
	if r.Path != "" {
		return r.Path
	}
	return r.ID
}

func nonNilStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func nonNilComparisons(cs []comparator.Comparison) []comparator.Comparison {
	if cs == nil {
		return []comparator.Comparison{}
	}
	return cs
}
