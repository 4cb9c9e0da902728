package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"

	"gopkg.in/yaml.v3"

	"github.com/evalcal/evalcal/forecast"
	"github.com/evalcal/evalcal/gates"
	"github.com/evalcal/evalcal/report"
	"github.com/evalcal/evalcal/statistician"
)

// scoreFlags are evalcal score's flags.
type scoreFlags struct {
	format   string
	out      string
	by       string
	minRes   int
	bins     int
	binning  string
	baseline string
	seed     uint64
	strict   bool
	sqlite   string
	window   int
	trend    int
	requires stringList
	previous string
}

// cmdScore is `evalcal score [flags] FILE|-`: it scores the JSONL
// forecasts in FILE (or stdin) per group and prints a YAML or JSON report.
func cmdScore(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	def := forecast.DefaultScoreOptions()
	var sf scoreFlags
	fs := newFlagSet("score", stderr)
	fs.StringVar(&sf.format, "format", "yaml", "output format: yaml or json")
	fs.StringVar(&sf.out, "o", "", "write the report to `FILE` (atomically) instead of stdout")
	fs.StringVar(&sf.by, "by", def.By, "group forecasts by this top-level `FIELD`")
	fs.IntVar(&sf.minRes, "min-resolved", def.MinResolved, "fewest resolved forecasts for a calibration score")
	fs.IntVar(&sf.bins, "bins", def.Bins, "number of bins of the binned Murphy decomposition")
	fs.StringVar(&sf.binning, "binning", string(def.Binning), "binning: equal-frequency or fixed")
	fs.StringVar(&sf.baseline, "baseline-rate", "", "frozen base rate in (0, 1) for the skill score (default: each group's own)")
	fs.Uint64Var(&sf.seed, "seed", def.Seed, "seed of the label's bootstrap")
	fs.BoolVar(&sf.strict, "strict", false, "fail on the first bad line instead of listing it")
	fs.StringVar(&sf.sqlite, "sqlite", "", "score the settled rows of task_prediction_log in this SQLite `DB` instead of a JSONL FILE")
	fs.IntVar(&sf.window, "window", forecast.DefaultSQLiteWindow, "with -sqlite: the newest `N` settled rows per agent")
	fs.IntVar(&sf.trend, "trend", 0, "add each group's learning trend over consecutive windows of `W` forecasts (by time)")
	fs.Var(&sf.requires, "require", "gate `EXPR` such as 'calibration >= 30' (every group must pass; repeatable); an unmet gate exits 3")
	fs.StringVar(&sf.previous, "baseline", "", "previous score document `FILE` to compare with (adds a trend section)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: evalcal score [flags] FILE|-")
		fmt.Fprintln(stderr, "       evalcal score [flags] --sqlite DB")
		fs.PrintDefaults()
	}
	// Flags may come before or after the file.
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	var files []string
	for fs.NArg() > 0 {
		files = append(files, fs.Arg(0))
		if err := parseFlags(fs, fs.Args()[1:]); err != nil {
			return err
		}
	}
	opts, err := sf.options(def)
	if err != nil {
		return err
	}
	switch {
	case sf.sqlite != "" && len(files) > 0:
		return usageErrorf("score: give a FILE or -sqlite DB, not both")
	case sf.sqlite == "" && len(files) != 1:
		return usageErrorf("score: want one FILE (or - for stdin, or -sqlite DB), got %d", len(files))
	case sf.window < 1:
		return usageErrorf("score: -window must be at least 1, got %d", sf.window)
	case sf.sqlite == "" && sf.window != forecast.DefaultSQLiteWindow:
		return usageErrorf("score: -window applies to -sqlite only")
	}
	gs, err := parseGates(sf.requires, forecast.ScoreReport{}, sf.previous != "")
	if err != nil {
		return err
	}
	var previous *forecast.ScoreReport
	if sf.previous != "" {
		if previous, err = readScoreDocument(sf.previous); err != nil {
			return inputError(fmt.Errorf("score: -baseline: %w", err))
		}
	}
	var rep forecast.ScoreReport
	if sf.sqlite != "" {
		rep, err = scoreSQLite(ctx, sf.sqlite, sf.window, opts)
	} else {
		rep, err = scoreFile(ctx, files[0], opts, sf.strict, os.Stdin)
	}
	if err != nil {
		return err
	}
	rep.CommandLine = withoutOutputFlag(args)
	if previous != nil {
		t := forecast.CompareScoreReports(previous, &rep)
		rep.Trend = &t
	}
	var results []gates.Result
	if len(gs) > 0 {
		results = gates.Check(gs, rep)
		rep.Gates = results
	}
	data, err := encodeScoreReport(rep, sf.format)
	if err != nil {
		return err
	}
	if err := writeDocument(stdout, sf.out, data); err != nil {
		return fmt.Errorf("score: %w", err)
	}
	return gateResult(results, stderr)
}

// scoreSQLite scores the settled rows of a task_prediction_log table, with
// each agent's composite_error distribution when grouping by agent.
func scoreSQLite(ctx context.Context, path string, window int, opts forecast.ScoreOptions) (forecast.ScoreReport, error) {
	res, err := forecast.ReadSQLiteResult(ctx, path, forecast.SQLiteOptions{Window: window})
	if err != nil {
		return forecast.ScoreReport{}, inputError(fmt.Errorf("score: %w", err))
	}
	rep, err := forecast.Score(res.Forecasts, opts)
	if err != nil {
		return forecast.ScoreReport{}, fmt.Errorf("score: %w", err)
	}
	if opts.By == "agent" {
		for i := range rep.Groups {
			if d, ok := res.Errors[rep.Groups[i].Key]; ok {
				rep.Groups[i].CompositeError = &d
			}
		}
	}
	sum, err := fileSHA256(path)
	if err != nil {
		return forecast.ScoreReport{}, inputError(fmt.Errorf("score: %w", err))
	}
	rep.GeneratedBy = "evalcal " + version
	rep.Inputs = []forecast.ScoreInput{{Path: path, SHA256: sum}}
	rep.BadLines = forecast.BadLines{Count: len(res.BadRows), Lines: res.BadRows}
	if rep.BadLines.Lines == nil {
		rep.BadLines.Lines = []forecast.BadLine{}
	}
	if res.Unsettled > 0 {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("%d rows are not settled yet and were not scored", res.Unsettled))
	}
	if res.Dropped > 0 {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("%d settled rows fall outside the newest %d per agent (-window) and were not scored", res.Dropped, window))
	}
	return rep, nil
}

// fileSHA256 is the lowercase hex SHA-256 of a file, read as a stream.
func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("read %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// readScoreDocument reads a score document (YAML or JSON), refusing a
// newer schema_version.
func readScoreDocument(path string) (*forecast.ScoreReport, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	doc, err := parseScoreDocument(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return doc, nil
}

// parseScoreDocument decodes a score document, refusing one that is not a
// score document or has a newer schema_version than this evalcal reads.
func parseScoreDocument(data []byte) (*forecast.ScoreReport, error) {
	var doc forecast.ScoreReport
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("decode score document: %w", err)
	}
	switch {
	case doc.SchemaVersion == 0 || doc.Groups == nil:
		return nil, fmt.Errorf("%w: not a score document", report.ErrNotReport)
	case doc.SchemaVersion > forecast.ScoreSchemaVersion:
		return nil, fmt.Errorf("%w: score document schema_version %d, this evalcal reads up to %d; upgrade evalcal to read it",
			report.ErrNewerSchema, doc.SchemaVersion, forecast.ScoreSchemaVersion)
	}
	return &doc, nil
}

// options validates the flags, naming the flag at fault.
func (sf scoreFlags) options(def forecast.ScoreOptions) (forecast.ScoreOptions, error) {
	if !validReportFormat(sf.format) {
		return def, usageErrorf("score: -format must be yaml, json, markdown or html, got %q", sf.format)
	}
	if sf.by == "" {
		return def, usageErrorf("score: -by must name a field")
	}
	if sf.minRes < 0 {
		return def, usageErrorf("score: -min-resolved must be >= 0, got %d", sf.minRes)
	}
	if sf.bins < 1 || sf.bins > 1000 {
		return def, usageErrorf("score: -bins must be in [1, 1000], got %d", sf.bins)
	}
	binning, err := statistician.ParseBinning(sf.binning)
	if err != nil {
		return def, usageErrorf("score: -binning must be equal-frequency or fixed, got %q", sf.binning)
	}
	opts := def
	opts.By, opts.MinResolved, opts.Bins, opts.Binning, opts.Seed = sf.by, sf.minRes, sf.bins, binning, sf.seed
	opts.TrendWindow = sf.trend
	if sf.baseline != "" {
		b, err := strconv.ParseFloat(sf.baseline, 64)
		if err != nil || !(b > 0 && b < 1) {
			return def, usageErrorf("score: -baseline-rate must be a number in (0, 1), got %q", sf.baseline)
		}
		opts.BaselineRate = &b
	}
	if err := opts.Validate(); err != nil {
		return def, usageErrorf("score: %v", err)
	}
	return opts, nil
}

// scoreFile reads path ("-" is stdin) as a stream, hashing it on the way,
// and scores its forecasts.
func scoreFile(ctx context.Context, path string, opts forecast.ScoreOptions, strict bool, stdin io.Reader) (forecast.ScoreReport, error) {
	in := stdin
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return forecast.ScoreReport{}, inputError(fmt.Errorf("score: %w", err))
		}
		defer f.Close()
		in = f
	}
	scorer, err := forecast.NewScorer(opts)
	if err != nil {
		return forecast.ScoreReport{}, usageErrorf("score: %v", err)
	}
	h := sha256.New()
	// Only the grouping field is kept per line; agent and id are fields
	// of Forecast already, so grouping by them keeps nothing (no map per
	// line).
	keep := []string{opts.By}
	if opts.By == "agent" || opts.By == "id" {
		keep = []string{}
	}
	jopts := forecast.JSONLOptions{Strict: strict, Fields: keep}
	res, err := forecast.ReadJSONL(ctx, io.TeeReader(in, h), path, jopts, scorer.Add)
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return forecast.ScoreReport{}, err
		}
		return forecast.ScoreReport{}, inputError(fmt.Errorf("score: %w", err))
	}
	rep, err := scorer.ScoreReport()
	if err != nil {
		return forecast.ScoreReport{}, fmt.Errorf("score: %w", err)
	}
	rep.GeneratedBy = "evalcal " + version
	rep.Inputs = []forecast.ScoreInput{{Path: path, SHA256: hex.EncodeToString(h.Sum(nil))}}
	rep.BadLines = forecast.BadLines{Count: res.BadCount, Lines: res.Bad}
	if rep.BadLines.Lines == nil {
		rep.BadLines.Lines = []forecast.BadLine{}
	}
	if res.BadCount > len(res.Bad) {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("%d bad lines, the first %d listed", res.BadCount, len(res.Bad)))
	}
	if res.Unresolved > 0 {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("%d forecasts have no outcome yet and were not scored", res.Unresolved))
	}
	return rep, nil
}

// encodeScoreReport renders the report as YAML, JSON, Markdown or HTML.
func encodeScoreReport(rep forecast.ScoreReport, format string) ([]byte, error) {
	switch format {
	case "markdown", "md":
		return report.ScoreMarkdown(&rep)
	case "html":
		return report.ScoreHTML(&rep)
	}
	data, err := encodeForecastDocument(rep, format)
	if err != nil {
		return nil, fmt.Errorf("score: %w", err)
	}
	return data, nil
}
