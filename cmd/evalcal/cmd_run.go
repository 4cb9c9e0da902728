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
	"strconv"
	"strings"
	"time"

	"github.com/evalcal/evalcal/advisor"
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

// runFlags are evalcal run's flags after parsing.
type runFlags struct {
	inspector        string
	inspections      string
	sample           int
	seed             int64
	allowHomogeneous bool
	jobs             int
	retries          int
	timeout          time.Duration
	cacheDir         string
	noCache          bool
	out              string
	format           string
	bins             int
	shard            string
	requires         stringList
	baseline         string
	shardIndex       int // 1-based
	shardCount       int
	paths            []string
}

// volatileRunFlags cannot change a report's content, so they are left out
// of the command line it records (the report is byte-identical whatever
// --jobs is; --shard is recorded in inputs.shard instead, and dropped so
// that merged shards equal one unsharded run). The bool says whether the
// flag takes a value.
var volatileRunFlags = map[string]bool{"jobs": true, "cache": true, "no-cache": false, "o": true, "shard": true}

func cmdRun(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("run", stderr)
	var f runFlags
	fs.StringVar(&f.inspector, "inspector", "builtin", "inspector: builtin, exec:COMMAND or saved:FILE")
	fs.StringVar(&f.inspections, "inspections", "", "saved inspections (JSONL); same as --inspector saved:FILE")
	fs.IntVar(&f.sample, "sample", 0, "calibrate on a diverse subset of `N` runs (0 = all valid runs)")
	fs.Int64Var(&f.seed, "seed", 1, "seed for the diverse subset")
	fs.BoolVar(&f.allowHomogeneous, "allow-homogeneous", false, "accept runs that are all from one system")
	fs.IntVar(&f.jobs, "jobs", runtime.NumCPU(), "runs inspected at once")
	fs.IntVar(&f.retries, "retries", runner.DefaultRetries, "retries of a transiently failing inspector call")
	fs.DurationVar(&f.timeout, "timeout", runner.DefaultTimeout, "time limit of one inspector call")
	fs.StringVar(&f.cacheDir, "cache", "", "inspection cache `dir` (default: the user cache dir's evalcal/inspections)")
	fs.BoolVar(&f.noCache, "no-cache", false, "neither read nor write the inspection cache")
	fs.StringVar(&f.out, "o", "", "write the report to `file` (atomically) instead of stdout")
	fs.StringVar(&f.format, "format", "yaml", "report format: yaml, json, markdown or html")
	fs.Var(&f.requires, "require", "gate `EXPR` such as 'agreement.lower >= 80' (repeatable); an unmet gate exits 3")
	fs.StringVar(&f.baseline, "baseline", "", "previous report `FILE` to compare with (adds a trend section)")
	fs.IntVar(&f.bins, "bins", 10, "bins of the light-score reliability table")
	fs.StringVar(&f.shard, "shard", "", "inspect only shard `i/n` of the sample (1 <= i <= n); combine the shard reports with evalcal merge")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: evalcal run [flags] PATH...   (run dirs, or folders holding them)")
		fmt.Fprintln(stderr, "       evalcal run [flags] --inspections FILE")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	f.paths = fs.Args()
	if err := f.check(); err != nil {
		return err
	}

	gs, err := parseGates(f.requires, report.Report{}, f.baseline != "")
	if err != nil {
		return err
	}
	var baseline *report.Report
	if f.baseline != "" {
		if baseline, err = report.ReadReport(f.baseline); err != nil {
			return inputError(fmt.Errorf("run: -baseline: %w", err))
		}
	}

	insp, runs, err := f.openInspector()
	if err != nil {
		return err
	}
	if len(f.paths) > 0 {
		runs, err = sampler.Discover(f.paths)
		if err != nil {
			return inputError(err)
		}
	}
	sample, err := sampler.Select(runs, sampler.SelectOptions{N: f.sample, Seed: f.seed, AllowHomogeneous: f.allowHomogeneous})
	if err != nil {
		for _, r := range sample.Invalid {
			fmt.Fprintf(stderr, "evalcal: invalid run %s: %s\n", displayPath(r), r.Invalid)
		}
		return inputError(err)
	}

	opts := runner.DefaultOptions()
	opts.Jobs, opts.Retries, opts.Timeout = f.jobs, f.retries, f.timeout
	opts.Progress = stderr
	if !f.noCache {
		dir := f.cacheDir
		if dir == "" {
			base, err := os.UserCacheDir()
			if err != nil {
				return usageErrorf("run: no user cache dir (%v); give --cache DIR or --no-cache", err)
			}
			dir = filepath.Join(base, "evalcal", "inspections")
		}
		if opts.Cache, err = runner.OpenCache(dir); err != nil {
			return err
		}
	}
	res, err := runner.Run(ctx, shardRuns(sample.Runs, f.shardIndex, f.shardCount), insp, opts)
	if err != nil {
		if errors.Is(err, context.Canceled) {
			fmt.Fprintf(stderr, "evalcal: interrupted; %d finished inspections are kept in the cache\n", 2*len(res.Pairs)+len(res.Unpaired))
		}
		return fmt.Errorf("run: %w", err)
	}

	for _, w := range res.Warnings {
		fmt.Fprintf(stderr, "evalcal: %s\n", w)
	}
	fmt.Fprintf(stderr, "evalcal: %d inspector calls, %d from cache, %d failures\n", res.Calls, res.CacheHits, len(res.Failures))
	rep := newRunReport(f, args, insp.Identity(), sample)
	if u, ok := insp.(interface{ Unattributed() []string }); ok {
		rep.Sample.Rejected = u.Unattributed()
	}
	fillResults(rep, comparator.Compare(res.Pairs), res.Failures, f.bins)

	return finishReport(rep, baseline, gs, f.format, f.out, stdout, stderr, func() error {
		if len(res.Pairs) == 0 {
			return fmt.Errorf("run: no run got both inspections (%d failures; see the report)", len(res.Failures))
		}
		return nil
	})
}

// finishReport adds the trend against baseline (when given), checks the
// gates on the finished report and records them in it, writes it, prints
// one summary line and one line per failed gate on stderr, and returns
// the error that decides the exit code: after is the work's own verdict
// (exit 1), then an unmet gate (exit 3).
func finishReport(rep *report.Report, baseline *report.Report, gs []gates.Gate, format, out string, stdout, stderr io.Writer, after func() error) error {
	if baseline != nil {
		t := report.CompareReports(baseline, rep)
		rep.Trend = &t
	}
	var results []gates.Result
	if len(gs) > 0 {
		results = gates.Check(gs, rep)
		rep.Gates = results
	}
	data, err := renderFormats[format](rep)
	if err != nil {
		return err
	}
	if err := writeDocument(stdout, out, data); err != nil {
		return err
	}
	if out != "" && out != "-" {
		fmt.Fprintf(stderr, "evalcal: report written to %s\n", out)
	}
	fmt.Fprintf(stderr, "evalcal: %d runs, agreement %.1f%% [%.1f, %.1f], confidence %s, bias %s\n",
		rep.SampleSize, rep.AgreementRate.Value(), rep.AgreementRate.Interval().Lower, rep.AgreementRate.Interval().Upper,
		rep.Confidence, rep.BiasDirection)
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
		return nil, usageErrorf("-require: %v", err)
	}
	if err := gates.Validate(gs, doc); err != nil {
		return nil, usageErrorf("-require: %v", err)
	}
	for _, g := range gs {
		if !hasBaseline && (g.Field == "trend" || strings.HasPrefix(g.Field, "trend.")) {
			return nil, usageErrorf("-require %q names a trend field, which needs -baseline PREVIOUS_REPORT", g.Expr)
		}
	}
	return gs, nil
}

// stringList is a repeatable string flag.
type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, ", ") }
func (l *stringList) Set(v string) error { *l = append(*l, v); return nil }

func (f *runFlags) check() error {
	switch {
	case f.inspections != "" && f.inspector != "builtin":
		return usageErrorf("run: give --inspections or --inspector, not both")
	case f.inspections != "" && len(f.paths) > 0:
		return usageErrorf("run: give run PATHs or --inspections FILE, not both")
	case f.inspections == "" && !strings.HasPrefix(f.inspector, "saved:") && len(f.paths) == 0:
		return usageErrorf("run: no run PATH given (or use --inspections FILE)")
	case strings.HasPrefix(f.inspector, "saved:") && len(f.paths) > 0:
		return usageErrorf("run: --inspector saved:FILE takes no run PATHs")
	case f.jobs < 1:
		return usageErrorf("run: -jobs must be at least 1, got %d", f.jobs)
	case f.retries < 0:
		return usageErrorf("run: -retries must be 0 or more, got %d", f.retries)
	case f.timeout <= 0:
		return usageErrorf("run: -timeout must be positive, got %s", f.timeout)
	case f.sample < 0:
		return usageErrorf("run: -sample must be 0 (all) or more, got %d", f.sample)
	case f.seed < 0:
		return usageErrorf("run: -seed must be 0 or more, got %d", f.seed)
	case f.bins < 1:
		return usageErrorf("run: -bins must be at least 1, got %d", f.bins)
	case !validReportFormat(f.format):
		return usageErrorf("run: -format must be yaml, json, markdown or html, got %q", f.format)
	case f.shard != "" && (len(f.requires) > 0 || f.baseline != ""):
		return usageErrorf("run: -require and -baseline apply to the whole sample: give them to evalcal merge, not to a shard")
	case f.noCache && f.cacheDir != "":
		return usageErrorf("run: give --cache or --no-cache, not both")
	}
	if f.shard != "" {
		i, n, err := parseShard(f.shard)
		if err != nil {
			return usageErrorf("run: -shard: %v", err)
		}
		f.shardIndex, f.shardCount = i, n
	}
	if f.inspections != "" {
		f.inspector = "saved:" + f.inspections
	}
	switch {
	case f.inspector == "builtin", strings.HasPrefix(f.inspector, "exec:") && len(f.inspector) > 5,
		strings.HasPrefix(f.inspector, "saved:") && len(f.inspector) > 6:
		return nil
	}
	return usageErrorf("run: -inspector must be builtin, exec:COMMAND or saved:FILE, got %q", f.inspector)
}

// openInspector builds the inspector; a saved one also yields its runs.
func (f *runFlags) openInspector() (runner.Inspector, []sampler.Run, error) {
	switch {
	case strings.HasPrefix(f.inspector, "exec:"):
		in, err := execinspector.New(strings.TrimPrefix(f.inspector, "exec:"))
		if err != nil {
			return nil, nil, usageErrorf("run: -inspector: %v", err)
		}
		return in, nil, nil
	case strings.HasPrefix(f.inspector, "saved:"):
		in, runs, err := saved.Load(strings.TrimPrefix(f.inspector, "saved:"))
		if err != nil {
			return nil, nil, inputError(err)
		}
		return in, runs, nil
	}
	return builtin.New(), nil, nil
}

// newRunReport starts a report: what it was computed from and the whole
// sample (also in a shard's report, so that shards merge exactly).
func newRunReport(f runFlags, args []string, identity string, sample sampler.Sample) *report.Report {
	rep := &report.Report{
		SchemaVersion: report.SchemaVersion,
		GeneratedBy:   "evalcal " + version,
		Inputs: report.Inputs{
			Paths:       nonNilStrings(f.paths),
			Inspector:   identity,
			Seed:        uint64(f.seed),
			SampleLimit: f.sample,
			Bins:        f.bins,
			Shard:       f.shard,
			ContentHash: sampleHash(sample.Runs),
			CommandLine: recordedArgs(args),
		},
	}
	if strings.HasPrefix(f.inspector, "saved:") {
		rep.Inputs.Inspections = strings.TrimPrefix(f.inspector, "saved:")
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

func validReportFormat(format string) bool {
	_, ok := renderFormats[format]
	return ok
}

// parseShard reads "i/n" with 1 <= i <= n.
func parseShard(s string) (int, int, error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 1 || i > n {
		return 0, 0, fmt.Errorf("want i/n with 1 <= i <= n, got %q", s)
	}
	return i, n, nil
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
func recordedArgs(args []string) []string { return dropFlags(args, volatileRunFlags) }

// dropFlags returns args without the named flags (in -f, --f, -f=v or
// --f=v form) and, for a flag whose map value is true, the value that
// follows it. "--" ends the flags.
func dropFlags(args []string, flags map[string]bool) []string {
	out := []string{}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			out = append(out, args[i:]...)
			break
		}
		name := strings.TrimLeft(a, "-")
		if strings.HasPrefix(a, "-") && name != "" {
			key, _, hasValue := strings.Cut(name, "=")
			if takesValue, ok := flags[key]; ok {
				if takesValue && !hasValue {
					i++
				}
				continue
			}
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
