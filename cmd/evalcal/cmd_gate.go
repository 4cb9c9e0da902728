package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/evalcal/evalcal/forecast"
)

// gateOptions are evalcal gate's flags.
type gateOptions struct {
	io   ioStreams
	args []string

	Events  string
	History string
	Output  outputOptions
}

// gateFormats are the formats of a gate document.
var gateFormats = []string{"yaml", "json"}

// newCmdGate builds `evalcal gate`: it decides candidate lessons on
// held-out evidence. It exits 0 whatever the decisions (a retired or
// shadowed lesson is a result, not a failure), and 1 when the events hold
// no candidate to decide.
func newCmdGate(f *factory, runF func(context.Context, *gateOptions) error) *cobra.Command {
	o := &gateOptions{io: f.io}
	c := &cobra.Command{
		Use:   "gate --events FILE [--history FILE] [flags]",
		Short: "decide candidate lessons on held-out evidence",
		Long: `Decide each candidate lesson on the outcomes that came after it was born: shadow
under 8 held-out outcomes, else retired when the Wilson upper bound is at or below
the layer's baseline (from --history, else 0.5), injected when the lower bound is
above it (Bonferroni over the candidates of a layer decided together). Bad lines are
listed in the document and summarised on stderr; events with no candidate at all
exit 1 with the reason, after writing the document.`,
		Example: `  evalcal gate --events testdata/gate/events.jsonl --history testdata/gate/history.jsonl
  evalcal gate --events events.jsonl -o decisions.json`,
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
			return gateRun(c.Context(), o)
		},
	}
	fs := c.Flags()
	fs.StringVar(&o.Events, "events", "", "candidates and their outcomes `FILE`, a JSON object a line (required)")
	fs.StringVar(&o.History, "history", "", "history records `FILE` {layer, high_risk} for the per-layer baseline (default: baseline 0.5)")
	o.Output.addFlags(fs, "document", "yaml", gateFormats)
	return c
}

// validate checks the flags before any work.
func (o *gateOptions) validate() error {
	if o.Events == "" {
		return usageErrorHint("Run 'evalcal gate --help' for usage.", "gate: --events is required")
	}
	if err := o.Output.resolve("gate", gateFormats...); err != nil {
		return err
	}
	return o.Output.check("gate", o.io.Out, o.Events, o.History)
}

// gateRun is evalcal gate's body, after validate.
func gateRun(ctx context.Context, o *gateOptions) error {
	in, bad, err := readGateEventsFile(ctx, o.Events)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return inputError(err)
	}
	var history []forecast.GateHistory
	if o.History != "" {
		h, hbad, err := readGateHistoryFile(ctx, o.History)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return inputError(err)
		}
		history = h
		bad = append(bad, hbad...)
	}
	rep, err := untilDone(ctx, func() (forecast.GateReport, error) { return forecast.DecideGate(in, history) })
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("gate: %w", err)
	}
	doc := forecast.GateDocument{
		SchemaVersion: forecast.GateSchemaVersion, GeneratedBy: "evalcal " + version,
		Events: o.Events, History: o.History,
		Decisions: orEmpty(rep.Decisions), BadLines: orEmpty(bad), Warnings: orEmpty(rep.Warnings),
	}
	data, err := encodeForecastDocument(doc, o.Output.Format)
	if err != nil {
		return fmt.Errorf("gate: %w", err)
	}
	stderr := o.io.ErrOut
	summarise(stderr, len(doc.BadLines), "bad line", "bad_lines", badLineItems(doc.BadLines))
	summarise(stderr, len(doc.Warnings), "warning", "warnings", doc.Warnings)
	if err := o.Output.write(o.io.Out, data); err != nil {
		return fmt.Errorf("gate: %w", err)
	}
	if len(doc.Decisions) == 0 {
		return fmt.Errorf("gate: %w from %s: no candidate lesson to decide (%d bad lines)", errNothingScored, o.Events, len(bad))
	}
	return nil
}

func readGateEventsFile(ctx context.Context, path string) (forecast.GateInput, []forecast.BadLine, error) {
	f, err := openRegular(path)
	if err != nil {
		return forecast.GateInput{}, nil, fmt.Errorf("gate: %w", err)
	}
	defer f.Close()
	in, bad, err := forecast.ReadGateEvents(ctx, f, path)
	if err != nil {
		return forecast.GateInput{}, nil, fmt.Errorf("gate: %w", err)
	}
	return in, bad, nil
}

func readGateHistoryFile(ctx context.Context, path string) ([]forecast.GateHistory, []forecast.BadLine, error) {
	f, err := openRegular(path)
	if err != nil {
		return nil, nil, fmt.Errorf("gate: %w", err)
	}
	defer f.Close()
	h, bad, err := forecast.ReadGateHistory(ctx, f, path)
	if err != nil {
		return nil, nil, fmt.Errorf("gate: %w", err)
	}
	return h, bad, nil
}
