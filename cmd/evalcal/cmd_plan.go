package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/evalcal/evalcal/calibrate"
	"github.com/evalcal/evalcal/internal/reportenc"
)

// planOptions are evalcal plan's flags and argument.
type planOptions struct {
	io ioStreams

	HalfWidth       float64
	AgreementTarget float64
	LightRuns       int
	Assurance       float64
	Report          string
	Output          outputOptions
}

// planFormats are the formats of a plan document.
var planFormats = []string{"yaml", "json", "markdown", "md"}

// newCmdPlan builds `evalcal plan`: from a pilot report, how many deep
// inspections to pay for.
func newCmdPlan(f *factory, runF func(context.Context, *planOptions) error) *cobra.Command {
	o := &planOptions{io: f.io}
	c := &cobra.Command{
		Use:   "plan --half-width W [flags] PILOT_REPORT",
		Short: "plan how many deep inspections a pilot says you need",
		Long: `Read a pilot calibration report and answer: how many deep inspections give a 95%
interval of half-width W for the deep pass rate, by the classical estimator (deep
alone, at the pilot's rate and at its worst case) and by PPI++ (light on every run
helping); and how many paired runs make the agreement's Wilson lower bound clear
--agreement-target at the pilot's agreement rate. PILOT_REPORT of - is read from
stdin.`,
		Example: `  evalcal plan --half-width 0.05 pilot.yaml
  evalcal plan --half-width 0.03 --light-runs 5000 --agreement-target 85 --format markdown pilot.yaml
  evalcal plan --half-width 0.05 --assurance 0.9 pilot.yaml`,
		Args: exactlyOneArg("plan", "PILOT_REPORT"),
		RunE: func(c *cobra.Command, args []string) error {
			o.Report = args[0]
			o.Output.formatGiven = c.Flags().Changed("format")
			if err := o.validate(); err != nil {
				return err
			}
			if runF != nil {
				return runF(c.Context(), o)
			}
			return planRun(c.Context(), o)
		},
	}
	fs := c.Flags()
	fs.Float64Var(&o.HalfWidth, "half-width", 0, "wanted half-width `W` of the deep pass rate's 95% interval, a proportion in (0, 1) (required)")
	fs.Float64Var(&o.AgreementTarget, "agreement-target", 80, "`PERCENT` the agreement's Wilson lower bound should clear")
	fs.IntVar(&o.LightRuns, "light-runs", 0, "`N` runs light will inspect (default: the pilot's)")
	fs.Float64Var(&o.Assurance, "assurance", 0.5, "probability `P` in [0.5, 1) that the planned n reaches the half-width (0.5: on average)")
	o.Output.addFlags(fs, "plan", "yaml", planFormats)
	return c
}

// validate checks the flags before any work.
func (o *planOptions) validate() error {
	switch {
	case !(o.HalfWidth > 0 && o.HalfWidth < 1):
		return usageErrorHint("Run 'evalcal plan --help' for usage.", "plan: --half-width must be a proportion in (0, 1), got %v", o.HalfWidth)
	case !(o.AgreementTarget > 0 && o.AgreementTarget < 100):
		return usageErrorf("plan: --agreement-target must be a percentage in (0, 100), got %v", o.AgreementTarget)
	case o.LightRuns < 0:
		return usageErrorf("plan: --light-runs must be 0 (the pilot's) or more, got %d", o.LightRuns)
	case !(o.Assurance >= 0.5 && o.Assurance < 1):
		return usageErrorf("plan: --assurance must be a probability in [0.5, 1), got %v", o.Assurance)
	}
	if err := o.Output.resolve("plan", planFormats...); err != nil {
		return err
	}
	return o.Output.check("plan", o.io.Out, o.Report)
}

// planRun is evalcal plan's body, after validate.
func planRun(ctx context.Context, o *planOptions) error {
	rep, err := readShard(ctx, o.Report, o.io.In)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return inputError(fmt.Errorf("plan: %w", err))
	}
	doc, err := calibrate.Plan(rep, calibrate.PlanOptions{HalfWidth: o.HalfWidth, AgreementTarget: o.AgreementTarget,
		LightRuns: o.LightRuns, Assurance: o.Assurance, Report: o.Report}, "evalcal "+version)
	if err != nil {
		return inputError(err)
	}
	var data []byte
	switch o.Output.Format {
	case "markdown", "md":
		data = doc.Markdown()
	case "json":
		data, err = reportenc.EncodeJSON(doc)
	default:
		data, err = reportenc.EncodeYAML(doc)
	}
	if err != nil {
		return fmt.Errorf("plan: %w", err)
	}
	return o.Output.write(o.io.Out, data)
}
