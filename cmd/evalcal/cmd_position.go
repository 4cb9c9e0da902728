package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/evalcal/evalcal/forecast"
	"github.com/evalcal/evalcal/internal/reportenc"
	"github.com/evalcal/evalcal/pairwise"
)

// positionOptions are evalcal position's flags.
type positionOptions struct {
	io   ioStreams
	args []string

	Judges []string
	Deep   string
	Output outputOptions
}

// positionFormats are the formats of a position document.
var positionFormats = []string{"yaml", "json", "markdown", "md"}

// pairwiseFormats are the input formats a SPEC may name.
var pairwiseFormats = []string{"jsonl", "alpacaeval", "comp-res"}

// newCmdPosition builds `evalcal position`: a pairwise judge's position
// bias, from saved pairwise verdicts.
func newCmdPosition(f *factory, runF func(context.Context, *positionOptions) error) *cobra.Command {
	o := &positionOptions{io: f.io}
	c := &cobra.Command{
		Use:   "position --judge SPEC [--deep SPEC] [flags]",
		Short: "measure a pairwise judge's position bias",
		Long: `Read a pairwise judge's verdicts (which of two runs it preferred, and in which order
they were shown) and measure its position bias: how often the winner stays the same
when the two runs swap slots (with a Wilson interval), how often the first slot
wins (exact binomial p against 50%), and against a deep side the accuracy counting
only order-consistent pairs and counting an inconsistent pair as abstained, with
agreement and kappa on the consistent pairs. The trust verdict is capped at
monitor when the consistency's lower bound is under 80%.

A SPEC is FORMAT:PATH, FORMAT one of jsonl (evalcal's pairwise JSON Lines, the
default when PATH has no prefix), alpacaeval (an AlpacaEval annotations file) or
comp-res (a directory of X.result/X_toggle.result files that also carry the deep
side). A jsonl or alpacaeval --deep gives each pair the winner most of its
verdicts name (a tie when they split evenly).`,
		Example: `  evalcal position --judge comp-res:comp_res/gpt-3.5-turbo-0301
  evalcal position --judge judge.jsonl --deep humans.jsonl --format markdown -o position.md`,
		Args: noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			o.args = f.args
			o.Output.formatGiven = c.Flags().Changed("format")
			if err := o.validate(); err != nil {
				return err
			}
			if runF != nil {
				return runF(c.Context(), o)
			}
			return positionRun(c.Context(), o)
		},
	}
	fs := c.Flags()
	fs.StringArrayVar(&o.Judges, "judge", nil, "the judge's pairwise verdicts, `SPEC` = [FORMAT:]PATH (repeatable; required)")
	fs.StringVar(&o.Deep, "deep", "", "the deep side's pairwise verdicts, `SPEC` = [FORMAT:]PATH (default: the deep side a comp-res judge carries)")
	o.Output.addFlags(fs, "document", "yaml", positionFormats)
	return c
}

// validate checks the flags before any work.
func (o *positionOptions) validate() error {
	if len(o.Judges) == 0 {
		return usageErrorHint("Run 'evalcal position --help' for usage.", "position: --judge is required")
	}
	inputs := []string{}
	for _, s := range append(append([]string{}, o.Judges...), o.Deep) {
		if s == "" {
			continue
		}
		_, path, err := splitSpec(s)
		if err != nil {
			return usageErrorf("position: %v", err)
		}
		inputs = append(inputs, path)
	}
	if err := o.Output.resolve("position", positionFormats...); err != nil {
		return err
	}
	return o.Output.check("position", o.io.Out, inputs...)
}

// splitSpec splits [FORMAT:]PATH; a PATH without a known format prefix
// is jsonl.
func splitSpec(spec string) (format, path string, err error) {
	if spec == "" {
		return "", "", errors.New("empty SPEC")
	}
	if f, p, ok := strings.Cut(spec, ":"); ok {
		for _, known := range pairwiseFormats {
			if f == known {
				if p == "" {
					return "", "", fmt.Errorf("%q names no path", spec)
				}
				return f, p, nil
			}
		}
	}
	return "jsonl", spec, nil
}

// readSpec reads the verdicts a SPEC names; verdicts without a judge get
// the SPEC's path as judge. deep is nil unless the format carries one.
func readSpec(ctx context.Context, spec string) ([]pairwise.Verdict, pairwise.Deep, []pairwise.BadLine, error) {
	format, path, err := splitSpec(spec)
	if err != nil {
		return nil, nil, nil, err
	}
	if format == "comp-res" {
		return pairwise.ReadCompRes(ctx, path, pairwise.DefaultLimits)
	}
	fh, err := openRegular(path)
	if err != nil {
		return nil, nil, nil, err
	}
	defer fh.Close()
	read := pairwise.ReadJSONL
	if format == "alpacaeval" {
		read = pairwise.ReadAlpacaEval
	}
	vs, bad, err := read(ctx, fh, path, pairwise.DefaultLimits)
	for i := range vs {
		if vs[i].Judge == "" {
			vs[i].Judge = path
		}
	}
	return vs, nil, bad, err
}

// majorityDeep gives each pair the winner most of its verdicts name; a
// tie when the most named winners tie.
func majorityDeep(vs []pairwise.Verdict) pairwise.Deep {
	votes := map[string]map[string]int{}
	for _, v := range vs {
		if votes[v.PairID] == nil {
			votes[v.PairID] = map[string]int{}
		}
		votes[v.PairID][v.Winner]++
	}
	deep := pairwise.Deep{}
	for id, c := range votes {
		best, winner := -1, pairwise.WinnerTie
		for _, w := range []string{pairwise.WinnerA, pairwise.WinnerB, pairwise.WinnerTie} {
			switch {
			case c[w] > best:
				best, winner = c[w], w
			case c[w] == best:
				winner = pairwise.WinnerTie
			}
		}
		deep[id] = winner
	}
	return deep
}

// positionRun is evalcal position's body, after validate.
func positionRun(ctx context.Context, o *positionOptions) error {
	var verdicts []pairwise.Verdict
	var bad []pairwise.BadLine
	var deep pairwise.Deep
	for _, spec := range o.Judges {
		vs, d, bl, err := readSpec(ctx, spec)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return inputError(fmt.Errorf("position: reading --judge %s: %w", spec, err))
		}
		verdicts, bad = append(verdicts, vs...), append(bad, bl...)
		if d != nil && o.Deep == "" {
			if deep == nil {
				deep = pairwise.Deep{}
			}
			for id, w := range d {
				deep[id] = w
			}
		}
	}
	if o.Deep != "" {
		vs, d, bl, err := readSpec(ctx, o.Deep)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return inputError(fmt.Errorf("position: reading --deep %s: %w", o.Deep, err))
		}
		bad = append(bad, bl...)
		deep = d
		if deep == nil {
			deep = majorityDeep(vs)
		}
	}
	doc := pairwise.Document{SchemaVersion: pairwise.SchemaVersion, GeneratedBy: "evalcal " + version,
		Judges: o.Judges, Deep: o.Deep, CommandLine: withoutOutputFlag(o.args),
		MinConsistencyLower: pairwise.MinConsistencyLower, Positions: pairwise.Analyse(verdicts, deep),
		BadLines: pairwise.BadLines{Count: len(bad), Lines: orEmpty(bad)}}
	if doc.Deep == "" && deep != nil {
		doc.Deep = "carried by the judge's comp-res files (mean human scores)"
	}
	var data []byte
	var err error
	switch o.Output.Format {
	case "markdown", "md":
		data = positionMarkdown(&doc)
	case "json":
		data, err = reportenc.EncodeJSON(doc)
	default:
		data, err = reportenc.EncodeYAML(doc)
	}
	if err != nil {
		return fmt.Errorf("position: %w", err)
	}
	items := make([]forecast.BadLine, 0, min(len(bad), listedOnStderr))
	for i := 0; i < len(bad) && i < listedOnStderr; i++ {
		items = append(items, forecast.BadLine(bad[i]))
	}
	summarise(o.io.ErrOut, len(bad), "bad line", "bad_lines", badLineItems(items))
	if err := o.Output.write(o.io.Out, data); err != nil {
		return fmt.Errorf("position: %w", err)
	}
	if len(verdicts) == 0 {
		return fmt.Errorf("position: %w: no pairwise verdict read from %s", errNothingScored, strings.Join(o.Judges, ", "))
	}
	return nil
}
