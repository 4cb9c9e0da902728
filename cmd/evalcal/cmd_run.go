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

	"github.com/evalcal/evalcal/advisor"
	"github.com/evalcal/evalcal/comparator"
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
	paths            []string
}

// volatileRunFlags cannot change a report's content, so they are left out
// of the command line it records (the report is byte-identical whatever
// --jobs is). The bool says whether the flag takes a value.
var volatileRunFlags = map[string]bool{"jobs": true, "cache": true, "no-cache": false, "o": true}

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
	fs.StringVar(&f.format, "format", "yaml", "report format: yaml or json")
	fs.IntVar(&f.bins, "bins", 10, "bins of the light-score reliability table")
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
	res, err := runner.Run(ctx, sample.Runs, insp, opts)
	if err != nil {
		if errors.Is(err, context.Canceled) {
			fmt.Fprintf(stderr, "evalcal: interrupted; %d finished inspections are kept in the cache\n", 2*len(res.Pairs)+len(res.Unpaired))
		}
		return fmt.Errorf("run: %w", err)
	}

	comparisons := comparator.Compare(res.Pairs)
	stats := aggregate.Compute(comparisons, aggregate.Options{Bins: f.bins})
	rep := buildRunReport(f, args, insp.Identity(), sample, res, comparisons, stats)

	var data []byte
	switch f.format {
	case "json":
		data, err = rep.JSON()
	default:
		data, err = rep.YAML()
	}
	if err != nil {
		return err
	}
	if err := writeDocument(stdout, f.out, data); err != nil {
		return fmt.Errorf("run: %w", err)
	}
	if f.out != "" && f.out != "-" {
		fmt.Fprintf(stderr, "evalcal: report written to %s\n", f.out)
	}
	fmt.Fprintf(stderr, "evalcal: %d runs, agreement %.1f%% [%.1f, %.1f], confidence %s, bias %s; %d inspector calls, %d from cache, %d failures\n",
		rep.SampleSize, rep.AgreementRate.Percent, rep.AgreementRate.Wilson95.Lower, rep.AgreementRate.Wilson95.Upper,
		rep.Confidence, rep.BiasDirection, res.Calls, res.CacheHits, len(res.Failures))
	if len(res.Pairs) == 0 {
		return fmt.Errorf("run: no run got both inspections (%d failures; see the report)", len(res.Failures))
	}
	return nil
}

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
	case f.bins < 1:
		return usageErrorf("run: -bins must be at least 1, got %d", f.bins)
	case f.format != "yaml" && f.format != "json":
		return usageErrorf("run: -format must be yaml or json, got %q", f.format)
	case f.noCache && f.cacheDir != "":
		return usageErrorf("run: give --cache or --no-cache, not both")
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

func buildRunReport(f runFlags, args []string, identity string, sample sampler.Sample, res runner.Result,
	cs []comparator.Comparison, st aggregate.Stats) *report.Report {
	rep := &report.Report{
		SchemaVersion: report.SchemaVersion,
		GeneratedBy:   "evalcal " + version,
		Inputs: report.Inputs{
			Paths:       nonNilStrings(f.paths),
			Inspections: strings.TrimPrefix(f.inspector, "saved:"),
			Inspector:   identity,
			Seed:        uint64(f.seed),
			SampleLimit: f.sample,
			ContentHash: sampleHash(sample.Runs),
			CommandLine: recordedArgs(args),
		},
		SampleSize:            st.SampleSize,
		AgreementRate:         st.AgreementRate,
		ScoreCorrelation:      st.ScoreCorrelation,
		MeanScoreDelta:        st.MeanScoreDelta,
		BiasDirection:         st.BiasDirection,
		DisagreementBreakdown: st.DisagreementBreakdown,
		Confidence:            st.Confidence,
		Preliminary:           st.Preliminary,
		Kappa:                 st.Kappa,
		Confusion:             st.Confusion,
		Forecast:              st.Forecast,
		Disagreements:         st.Disagreements,
		Comparisons:           nonNilComparisons(cs),
		Failures:              res.Failures,
		Partial:               len(res.Failures) > 0,
		Recommendations:       advisor.Advise(cs, st),
		Warnings:              append([]string{}, st.Warnings...),
	}
	if !strings.HasPrefix(f.inspector, "saved:") {
		rep.Inputs.Inspections = ""
	}
	if rep.Failures == nil {
		rep.Failures = []runner.Failure{}
	}
	rep.Sample = report.Sample{Composition: sample.Composition, Runs: []report.SampleRun{}, Invalid: []report.Invalid{}}
	for _, r := range sample.Runs {
		rep.Sample.Runs = append(rep.Sample.Runs, report.SampleRun{
			ID: r.ID, System: r.System, Era: string(r.Era), Status: string(r.Status),
			Services: len(r.ServicesDeclared), SizeBytes: r.SizeBytes, Path: filepath.ToSlash(r.Path),
		})
	}
	for _, r := range sample.Invalid {
		rep.Sample.Invalid = append(rep.Sample.Invalid, report.Invalid{ID: r.ID, Path: filepath.ToSlash(r.Path), Reason: r.Invalid})
	}
	if rep.Partial {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("partial: %d inspections failed; statistics cover %d of %d sampled runs",
			len(res.Failures), len(res.Pairs), len(sample.Runs)))
	}
	rep.Warnings = append(rep.Warnings, res.Warnings...)
	for _, r := range sample.Runs {
		for _, w := range r.Warnings {
			rep.Warnings = append(rep.Warnings, r.ID+": "+w)
		}
	}
	return rep
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
func recordedArgs(args []string) []string {
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
			if takesValue, ok := volatileRunFlags[key]; ok {
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
