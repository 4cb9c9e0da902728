package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"

	"gopkg.in/yaml.v3"

	"github.com/evalcal/evalcal/forecast"
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
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: evalcal score [flags] FILE|-")
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
	if len(files) != 1 {
		return usageErrorf("score: want one FILE (or - for stdin), got %d", len(files))
	}
	rep, err := scoreFile(ctx, files[0], opts, sf.strict, os.Stdin)
	if err != nil {
		return err
	}
	data, err := encodeScoreReport(rep, sf.format)
	if err != nil {
		return err
	}
	return writeDocument(stdout, sf.out, data)
}

// options validates the flags, naming the flag at fault.
func (sf scoreFlags) options(def forecast.ScoreOptions) (forecast.ScoreOptions, error) {
	if sf.format != "yaml" && sf.format != "json" {
		return def, usageErrorf("score: -format must be yaml or json, got %q", sf.format)
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
	jopts := forecast.JSONLOptions{Strict: strict, Fields: []string{opts.By}}
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

// encodeScoreReport renders the report as YAML or JSON.
func encodeScoreReport(rep forecast.ScoreReport, format string) ([]byte, error) {
	if format == "json" {
		data, err := json.MarshalIndent(rep, "", "  ")
		if err != nil {
			return nil, fmt.Errorf("score: encode json: %w", err)
		}
		return append(data, '\n'), nil
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(rep); err != nil {
		return nil, fmt.Errorf("score: encode yaml: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("score: encode yaml: %w", err)
	}
	return buf.Bytes(), nil
}
