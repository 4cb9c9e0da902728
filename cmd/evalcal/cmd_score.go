package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"strconv"

	"github.com/spf13/cobra"
	"gopkg.in/yaml.v3"

	"github.com/evalcal/evalcal/forecast"
	"github.com/evalcal/evalcal/forecast/predictionlog"
	"github.com/evalcal/evalcal/gates"
	"github.com/evalcal/evalcal/report/render"
	"github.com/evalcal/evalcal/report/reportio"
	"github.com/evalcal/evalcal/statistician"
)

// scoreOptions are evalcal score's flags and arguments.
type scoreOptions struct {
	io   ioStreams
	args []string

	By           string
	MinResolved  int
	Bins         int
	Binning      string
	BaselineRate string
	Seed         uint64
	Strict       bool
	SQLite       string
	Window       int
	windowGiven  bool
	Trend        int
	Requires     []string
	Baseline     string
	Output       outputOptions
	Files        []string

	score forecast.ScoreOptions // from the flags, by validate
}

// Bounds of score's numeric flags, checked before any allocation.
const (
	maxScoreBins  = 1000
	maxTrendWidth = 1_000_000
	maxWindow     = 100_000_000
)

// newCmdScore builds `evalcal score [flags] FILE|-`: it scores the JSONL
// forecasts in FILE (or stdin), or the settled rows of an SQLite
// prediction log, per group.
func newCmdScore(f *factory, runF func(context.Context, *scoreOptions) error) *cobra.Command {
	def := forecast.DefaultScoreOptions()
	o := &scoreOptions{io: f.io}
	c := &cobra.Command{
		Use:   "score [flags] FILE|-",
		Short: "score probability forecasts (Brier, calibration, Murphy, CORP, RPS)",
		Long: `Score the forecasts in FILE (JSONL, one forecast a line; - is stdin) or the
settled rows of an agent's task_prediction_log (--sqlite DB), per group (--by).
Bad lines are listed in the document with file, line and field, and summarised on
stderr. Nothing scored (an empty file, every line bad, a --by field no line has)
exits 1 with the reason, after writing the document.`,
		Example: `  evalcal score testdata/score/worked.jsonl
  evalcal score --by team --binning fixed --bins 5 --format json testdata/score/worked.jsonl
  evalcal score --sqlite testdata/sqlite/prediction.db --window 5000 --trend 10
  evalcal score --require 'calibration >= 30' -o scores.md testdata/score/worked.jsonl`,
		RunE: func(c *cobra.Command, args []string) error {
			o.args, o.Files = f.args, args
			o.Output.formatGiven = c.Flags().Changed("format")
			o.windowGiven = c.Flags().Changed("window")
			if err := o.validate(def); err != nil {
				return err
			}
			if runF != nil {
				return runF(c.Context(), o)
			}
			return scoreRun(c.Context(), o)
		},
	}
	c.Annotations = map[string]string{usageAnnotation: "evalcal score [flags] FILE|-\nevalcal score [flags] --sqlite DB"}
	fs := c.Flags()
	fs.StringVar(&o.By, "by", def.By, "group forecasts by this top-level `FIELD`")
	fs.IntVar(&o.MinResolved, "min-resolved", def.MinResolved, "fewest resolved forecasts (`N`) for a calibration score")
	fs.IntVar(&o.Bins, "bins", def.Bins, fmt.Sprintf("`N` bins of the binned Murphy decomposition (1..%d)", maxScoreBins))
	fs.StringVar(&o.Binning, "binning", string(def.Binning), "`MODE` of binning: equal-frequency or fixed")
	fs.StringVar(&o.BaselineRate, "baseline-rate", "", "frozen base `RATE` in (0, 1) for the skill score (default: each group's own)")
	fs.Uint64Var(&o.Seed, "seed", def.Seed, "`SEED` of the label's bootstrap")
	fs.BoolVar(&o.Strict, "strict", false, "fail on the first bad line instead of listing it")
	fs.StringVar(&o.SQLite, "sqlite", "", "score the settled rows of task_prediction_log in this SQLite `DB` instead of a JSONL FILE")
	fs.IntVar(&o.Window, "window", predictionlog.DefaultWindow, fmt.Sprintf("with --sqlite: the newest `N` settled rows per agent (1..%d)", maxWindow))
	fs.IntVar(&o.Trend, "trend", 0, fmt.Sprintf("add each group's learning trend over consecutive windows of `W` forecasts by time (0 = off, else 2..%d)", maxTrendWidth))
	fs.StringArrayVar(&o.Requires, "require", nil, "gate `EXPR` such as 'calibration >= 30' (every group must pass; repeatable); an unmet gate exits 3")
	fs.StringVar(&o.Baseline, "baseline", "", "previous score document `FILE` to compare with (adds a trend section)")
	o.Output.addFlags(fs, "score document", "yaml", reportFormats)
	return c
}

// validate checks the flags and arguments, naming the flag at fault,
// and fills o.score.
func (o *scoreOptions) validate(def forecast.ScoreOptions) error {
	switch {
	case o.SQLite != "" && len(o.Files) > 0:
		return usageErrorf("score: give a FILE or --sqlite DB, not both")
	case o.SQLite == "" && len(o.Files) != 1:
		return usageErrorHint("Run 'evalcal score --help' for usage.", "score: want one FILE (or - for stdin, or --sqlite DB), got %d", len(o.Files))
	case o.Window < 1 || o.Window > maxWindow:
		return usageErrorf("score: --window must be in [1, %d], got %d", maxWindow, o.Window)
	case o.SQLite == "" && o.windowGiven:
		return usageErrorf("score: --window applies to --sqlite only")
	case o.Trend != 0 && (o.Trend < 2 || o.Trend > maxTrendWidth):
		return usageErrorf("score: --trend must be 0 (off) or in [2, %d], got %d", maxTrendWidth, o.Trend)
	case o.By == "":
		return usageErrorf("score: --by must name a field")
	case o.MinResolved < 0:
		return usageErrorf("score: --min-resolved must be >= 0, got %d", o.MinResolved)
	case o.Bins < 1 || o.Bins > maxScoreBins:
		return usageErrorf("score: --bins must be in [1, %d], got %d", maxScoreBins, o.Bins)
	}
	if err := o.Output.resolve("score", reportFormats...); err != nil {
		return err
	}
	binning, err := statistician.ParseBinning(o.Binning)
	if err != nil {
		return usageErrorf("score: --binning must be equal-frequency or fixed, got %q", o.Binning)
	}
	opts := def
	opts.By, opts.MinResolved, opts.Bins, opts.Binning, opts.Seed = o.By, o.MinResolved, o.Bins, binning, o.Seed
	opts.TrendWindow = o.Trend
	if o.BaselineRate != "" {
		b, err := strconv.ParseFloat(o.BaselineRate, 64)
		if err != nil || !(b > 0 && b < 1) {
			return usageErrorf("score: --baseline-rate must be a number in (0, 1), got %q", o.BaselineRate)
		}
		opts.BaselineRate = &b
	}
	if err := opts.Validate(); err != nil {
		return usageErrorf("score: %v", err)
	}
	o.score = opts
	return o.Output.check("score", o.io.Out, append([]string{o.SQLite, o.Baseline}, o.Files...)...)
}

// scoreRun is evalcal score's body, after validate.
func scoreRun(ctx context.Context, o *scoreOptions) error {
	gs, err := parseGates(o.Requires, forecast.ScoreReport{}, o.Baseline != "")
	if err != nil {
		return err
	}
	var previous *forecast.ScoreReport
	if o.Baseline != "" {
		if previous, err = readScoreDocument(ctx, o.Baseline); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return inputError(fmt.Errorf("score: --baseline: %w", err))
		}
	}
	var rep forecast.ScoreReport
	var nothing error
	if o.SQLite != "" {
		rep, nothing, err = scoreSQLite(ctx, o.SQLite, o.Window, o.score)
	} else {
		rep, nothing, err = scoreFile(ctx, o.Files[0], o.score, o.Strict, o.io.In)
	}
	if err != nil {
		return err
	}
	rep.CommandLine = withoutOutputFlag(o.args)
	if previous != nil {
		t := forecast.CompareScoreReports(previous, &rep)
		rep.Trend = &t
	}
	var results []gates.Result
	if len(gs) > 0 {
		results = gates.Check(gs, rep)
		rep.Gates = results
		rep.GatesFailed = gates.Summary(results)
	}
	data, err := encodeScoreReport(rep, o.Output.Format)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	stderr := o.io.ErrOut
	summarise(stderr, rep.BadLines.Count, "bad line", "bad_lines", badLineItems(rep.BadLines.Lines))
	summarise(stderr, len(rep.Warnings), "warning", "warnings", rep.Warnings)
	if err := o.Output.write(o.io.Out, data); err != nil {
		return fmt.Errorf("score: %w", err)
	}
	if nothing != nil {
		return nothing
	}
	return gateResult(results, stderr)
}

// scoreSQLite scores the settled rows of a task_prediction_log table, with
// each agent's composite_error distribution when grouping by agent. The
// second error is errNothingScored (wrapped, with the reason) when no
// settled row could be scored; the document is still made.
func scoreSQLite(ctx context.Context, path string, window int, opts forecast.ScoreOptions) (forecast.ScoreReport, error, error) {
	if err := checkRegular(path); err != nil {
		return forecast.ScoreReport{}, nil, inputError(fmt.Errorf("score: %w", err))
	}
	res, err := predictionlog.ReadResult(ctx, path, predictionlog.Options{Window: window})
	if err != nil {
		if ctx.Err() != nil {
			return forecast.ScoreReport{}, nil, ctx.Err()
		}
		return forecast.ScoreReport{}, nil, inputError(fmt.Errorf("score: %w", err))
	}
	rep, err := forecast.ScoreContext(ctx, res.Forecasts, opts)
	if err != nil {
		if ctx.Err() != nil {
			return forecast.ScoreReport{}, nil, ctx.Err()
		}
		return forecast.ScoreReport{}, nil, fmt.Errorf("score: %w", err)
	}
	if opts.By == "agent" {
		for i := range rep.Groups {
			if d, ok := res.Errors[rep.Groups[i].Key]; ok {
				rep.Groups[i].CompositeError = &d
			}
		}
	}
	sum, err := fileSHA256(ctx, path)
	if err != nil {
		return forecast.ScoreReport{}, nil, inputError(fmt.Errorf("score: %w", err))
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
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("%d settled rows fall outside the newest %d per agent (--window) and were not scored", res.Dropped, window))
	}
	var nothing error
	if scoredForecasts(rep) == 0 {
		nothing = fmt.Errorf("score: %w from %s: %d settled rows read (%d bad, %d not settled yet) gave no group by --by %q",
			errNothingScored, path, len(res.Forecasts)+len(res.BadRows), len(res.BadRows), res.Unsettled, opts.By)
	}
	return rep, nothing, nil
}

// scoredForecasts is the number of forecasts the groups of rep scored.
func scoredForecasts(rep forecast.ScoreReport) int {
	n := 0
	for _, g := range rep.Groups {
		n += g.N
	}
	return n
}

// fileSHA256 is the lowercase hex SHA-256 of a regular file, read as a
// stream that stops when ctx is done.
func fileSHA256(ctx context.Context, path string) (string, error) {
	f, err := openRegular(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	buf := make([]byte, 1<<20)
	for {
		if err := ctx.Err(); err != nil {
			return "", err
		}
		n, err := f.Read(buf)
		h.Write(buf[:n])
		if err == io.EOF {
			return hex.EncodeToString(h.Sum(nil)), nil
		}
		if err != nil {
			return "", fmt.Errorf("read %s: %w", path, err)
		}
	}
}

// readScoreDocument reads a score document (YAML or JSON) from a regular
// file, refusing a newer schema_version.
func readScoreDocument(ctx context.Context, path string) (*forecast.ScoreReport, error) {
	data, err := readDocument(ctx, path, nil)
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
		return nil, fmt.Errorf("decode score document: %w", yamlError(err))
	}
	switch {
	case doc.SchemaVersion == 0 || doc.Groups == nil:
		return nil, fmt.Errorf("%w: not a score document", reportio.ErrNotReport)
	case doc.SchemaVersion > forecast.ScoreSchemaVersion:
		return nil, fmt.Errorf("%w: score document schema_version %d, this evalcal reads up to %d; upgrade evalcal to read it",
			reportio.ErrNewerSchema, doc.SchemaVersion, forecast.ScoreSchemaVersion)
	}
	doc.Derive() // a document written before lowest_calibration gains it here
	return &doc, nil
}

// scoreFile reads path ("-" is stdin) as a stream, hashing it on the way,
// and scores its forecasts. The second error is errNothingScored
// (wrapped, with the reason) when no forecast could be scored; the
// document is still made.
func scoreFile(ctx context.Context, path string, opts forecast.ScoreOptions, strict bool, stdin io.Reader) (forecast.ScoreReport, error, error) {
	var in io.Reader
	if path == "-" {
		in = cancelableReader(ctx, stdin)
	} else {
		f, err := openRegular(path)
		if err != nil {
			return forecast.ScoreReport{}, nil, inputError(fmt.Errorf("score: %w", err))
		}
		defer f.Close()
		in = f
	}
	scorer, err := forecast.NewScorer(opts)
	if err != nil {
		return forecast.ScoreReport{}, nil, usageErrorf("score: %v", err)
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
		if ctx.Err() != nil {
			return forecast.ScoreReport{}, nil, ctx.Err()
		}
		return forecast.ScoreReport{}, nil, inputError(fmt.Errorf("score: %w", err))
	}
	rep, err := scorer.ScoreReportContext(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return forecast.ScoreReport{}, nil, ctx.Err()
		}
		return forecast.ScoreReport{}, nil, fmt.Errorf("score: %w", err)
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
	var nothing error
	if scored := scoredForecasts(rep); scored == 0 {
		name := path
		if path == "-" {
			name = "stdin"
		}
		nothing = fmt.Errorf("score: %w from %s: %s", errNothingScored, name, nothingScoredReason(res, opts.By))
	}
	return rep, nothing, nil
}

// nothingScoredReason says why no forecast of a JSONL input was scored.
func nothingScoredReason(res forecast.JSONLResult, by string) string {
	switch {
	case res.Lines == 0:
		return "no forecast line (the input is empty or blank)"
	case res.BadCount == res.Lines:
		return fmt.Sprintf("every line is bad (%d)", res.BadCount)
	case res.Unresolved+res.BadCount == res.Lines:
		return fmt.Sprintf("no forecast has an outcome yet (%d lines: %d bad, %d without an outcome)", res.Lines, res.BadCount, res.Unresolved)
	}
	return fmt.Sprintf("no forecast has the --by field %q (%d lines: %d bad, %d without an outcome, %d without the field)",
		by, res.Lines, res.BadCount, res.Unresolved, res.Forecasts)
}

// encodeScoreReport renders the report as YAML, JSON, Markdown or HTML.
func encodeScoreReport(rep forecast.ScoreReport, format string) ([]byte, error) {
	switch format {
	case "markdown", "md":
		return render.ScoreMarkdown(&rep)
	case "html":
		return render.ScoreHTML(&rep)
	}
	data, err := encodeForecastDocument(rep, format)
	if err != nil {
		return nil, fmt.Errorf("score: %w", err)
	}
	return data, nil
}
