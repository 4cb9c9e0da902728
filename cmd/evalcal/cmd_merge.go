package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/evalcal/evalcal/calibrate"
	"github.com/evalcal/evalcal/report"
	"github.com/evalcal/evalcal/report/reportio"
)

// mergeOptions are evalcal merge's flags and arguments.
type mergeOptions struct {
	io   ioStreams
	args []string

	Requires []string
	Baseline string
	Output   outputOptions
	Shards   []string // paths; "-" is stdin
}

// newCmdMerge builds `evalcal merge`: it combines the reports of all
// shards of one calibration into the report one unsharded run would have
// written, from the union of the per-run comparisons and failures (no
// statistic is averaged across shards).
func newCmdMerge(f *factory, runF func(context.Context, *mergeOptions) error) *cobra.Command {
	o := &mergeOptions{io: f.io}
	c := &cobra.Command{
		Use:   "merge [flags] SHARD_REPORT...",
		Short: "combine the reports of the shards of one run (run --shard i/n) exactly",
		Long: `Check that the reports are the shards 1..n of one job (same inputs, each shard
once) and recompute every statistic from the union of their per-run comparisons:
the merged report is byte-identical to the report of one unsharded run. A
SHARD_REPORT of - is read from stdin.`,
		Example: `  evalcal merge -o report.yaml shard-*.yaml
  evalcal merge --require 'agreement.lower >= 60' --baseline last.yaml shard-*.yaml`,
		RunE: func(c *cobra.Command, args []string) error {
			o.args, o.Shards = f.args, args
			o.Output.formatGiven = c.Flags().Changed("format")
			if err := o.validate(); err != nil {
				return err
			}
			if runF != nil {
				return runF(c.Context(), o)
			}
			return mergeRun(c.Context(), o)
		},
	}
	fs := c.Flags()
	fs.StringArrayVar(&o.Requires, "require", nil, "gate `EXPR` on the merged report (repeatable); an unmet gate exits 3")
	fs.StringVar(&o.Baseline, "baseline", "", "previous report `FILE` to compare the merged report with")
	o.Output.addFlags(fs, "merged report", "yaml", reportFormats)
	o.Output.addRunsFlag(fs)
	return c
}

// validate checks the flags and arguments before any work.
func (o *mergeOptions) validate() error {
	if len(o.Shards) == 0 {
		return usageErrorHint("Run 'evalcal merge --help' for usage.", "merge: no shard report given")
	}
	stdin := 0
	for _, s := range o.Shards {
		if s == "-" {
			stdin++
		}
	}
	if stdin > 1 {
		return usageErrorf("merge: stdin (-) given %d times; it holds one report", stdin)
	}
	if err := o.Output.resolve("merge", reportFormats...); err != nil {
		return err
	}
	inputs := append([]string{o.Baseline}, o.Shards...)
	return o.Output.checkWithRuns("merge", o.io.Out, inputs...)
}

// mergeRun is evalcal merge's body, after validate.
func mergeRun(ctx context.Context, o *mergeOptions) error {
	defer tuneGC(os.Getenv, rootFS())() // merge holds every run as run does
	gs, err := parseGates(o.Requires, report.Report{}, o.Baseline != "")
	if err != nil {
		return err
	}
	var baseline *report.Report
	if o.Baseline != "" {
		if baseline, err = readReportFile(o.Baseline); err != nil {
			return inputError(fmt.Errorf("merge: --baseline: %w", err))
		}
	}
	shards := make([]*report.Report, len(o.Shards))
	for i, path := range o.Shards {
		if err := ctx.Err(); err != nil {
			return err
		}
		r, err := readShard(ctx, path, o.io.In)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return inputError(fmt.Errorf("merge: %w", err))
		}
		shards[i] = r
	}
	names := make([]string, len(o.Shards))
	for i, p := range o.Shards {
		names[i] = p
		if p == "-" {
			names[i] = "stdin"
		}
	}
	merged, err := calibrate.Merge(shards, names, calibrate.Finish{Baseline: baseline, Gates: gs})
	if err != nil {
		return inputError(err)
	}
	fmt.Fprintf(o.io.ErrOut, "evalcal: merged %d shards\n", len(shards))
	return finishReport(ctx, merged, &o.Output, o.io, func() error { return nil })
}

// readShard reads one shard report from a regular file or, for "-", from
// stdin.
func readShard(ctx context.Context, path string, stdin io.Reader) (*report.Report, error) {
	if path != "-" {
		return readReportFile(path)
	}
	data, err := readDocument(ctx, path, stdin)
	if err != nil {
		return nil, err
	}
	r, err := reportio.ParseReport(data)
	if err != nil {
		return nil, fmt.Errorf("stdin: %w", err)
	}
	// A runs file named relative to a report read from stdin is relative
	// to the working directory.
	if err := report.LoadRunsFile(ctx, r, "."); err != nil {
		return nil, fmt.Errorf("stdin: %w", err)
	}
	return r, nil
}
