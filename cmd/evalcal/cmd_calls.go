package main

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/spf13/cobra"
	"gopkg.in/yaml.v3"

	"github.com/evalcal/evalcal/forecast"
	"github.com/evalcal/evalcal/gates"
	"github.com/evalcal/evalcal/internal/reportenc"
	"github.com/evalcal/evalcal/report/render"
)

// callsOptions are evalcal calls's flags.
type callsOptions struct {
	io   ioStreams
	args []string

	Calls        string
	Prices       string
	AsOf         string
	Weights      string
	Terms        string
	RequireSeals bool
	Requires     []string
	Output       outputOptions

	asOf    time.Time
	weights map[string]float64
}

// earliestAsOf is the earliest --as-of accepted: no trading call or price
// predates it, and the zero time (0001-01-01) would read as "not set".
var earliestAsOf = time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC)

// newCmdCalls builds `evalcal calls`: it resolves trading calls against
// prices and scores their stated confidence per agent and season.
func newCmdCalls(f *factory, runF func(context.Context, *callsOptions) error) *cobra.Command {
	o := &callsOptions{io: f.io}
	c := &cobra.Command{
		Use:   "calls --calls FILE --prices FILE [flags]",
		Short: "resolve trading calls against prices and score their confidence",
		Long: `Resolve each counted trading call (a buy or sell by the agent's own decider, with a
confidence, a horizon and a reference price) on the first price of its pool in
[due, due + 2h), and score the stated confidence per agent and season. Bad lines of
either input are listed in the document and summarised on stderr. No counted call
at all exits 1 with the reason, after writing the document.`,
		Example: `  evalcal calls --calls testdata/calls/calls.jsonl --prices testdata/calls/prices.csv --as-of 2026-03-10T00:00:00Z
  evalcal calls --calls calls.jsonl --prices prices.csv --weights calibration=0.10,returns=0.50,drawdown=0.40 --terms terms.yaml`,
		Args: noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			o.args = f.args
			o.Output.formatGiven = c.Flags().Changed("format")
			if err := o.validate(time.Now()); err != nil {
				return err
			}
			if runF != nil {
				return runF(c.Context(), o)
			}
			return callsRun(c.Context(), o)
		},
	}
	fs := c.Flags()
	fs.StringVar(&o.Calls, "calls", "", "trading calls `FILE`, a JSON object a line (required)")
	fs.StringVar(&o.Prices, "prices", "", "prices `FILE`: CSV with header pool,ts,price, or JSONL (required)")
	fs.StringVar(&o.AsOf, "as-of", "", "resolve as of this RFC 3339 `TIME`, 1970 or later (default now)")
	fs.StringVar(&o.Weights, "weights", "", "composite weights `TERM=W,...` (e.g. calibration=0.10,returns=0.50)")
	fs.StringVar(&o.Terms, "terms", "", "YAML or JSON `FILE`: agent -> term -> value (null = unmeasured), for the composite")
	fs.BoolVar(&o.RequireSeals, "require-seals", false, "exit 3 unless every call carries a valid version 2 seal (v1 seals do not cover season, decider, pool or refused)")
	fs.StringArrayVar(&o.Requires, "require", nil, "gate `EXPR` such as 'calibration >= 30' (every group must pass; repeatable); an unmet gate exits 3")
	o.Output.addFlags(fs, "document", "yaml", reportFormats)
	return c
}

// validate checks the flags before any work; now is the default --as-of.
func (o *callsOptions) validate(now time.Time) error {
	if o.Calls == "" || o.Prices == "" {
		return usageErrorHint("Run 'evalcal calls --help' for usage.", "calls: --calls and --prices are required")
	}
	if err := o.Output.resolve("calls", reportFormats...); err != nil {
		return err
	}
	o.asOf = now.UTC()
	if o.AsOf != "" {
		t, err := time.Parse(time.RFC3339, o.AsOf)
		if err != nil {
			return usageErrorf("calls: --as-of must be an RFC 3339 time such as 2026-03-10T00:00:00Z, got %q", o.AsOf)
		}
		if t.Before(earliestAsOf) {
			return usageErrorf("calls: --as-of %s is before 1970-01-01T00:00:00Z; give the time to resolve the calls at", o.AsOf)
		}
		o.asOf = t.UTC()
	}
	if o.Weights != "" {
		w, err := forecast.ParseWeights(o.Weights)
		if err != nil {
			return usageErrorf("calls: --weights: %v", err)
		}
		o.weights = w
	}
	if o.Terms != "" && o.weights == nil {
		return usageErrorf("calls: --terms needs --weights")
	}
	return o.Output.check("calls", o.io.Out, o.Calls, o.Prices, o.Terms)
}

// callsRun is evalcal calls's body, after validate.
func callsRun(ctx context.Context, o *callsOptions) error {
	stderr := o.io.ErrOut
	gs, err := parseGates(o.Requires, forecast.CallsDocument{}, false)
	if err != nil {
		return err
	}
	var terms map[string]map[string]*float64
	if o.Terms != "" {
		t, err := readTerms(ctx, o.Terms)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return inputError(err)
		}
		terms = t
	}

	prices, priceBad, err := readPricesFile(ctx, o.Prices)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return inputError(err)
	}
	f, err := openRegular(o.Calls)
	if err != nil {
		return inputError(fmt.Errorf("calls: %w", err))
	}
	defer f.Close()
	rep, err := forecast.ResolveCalls(ctx, f, prices, forecast.CallOptions{AsOf: o.asOf, File: o.Calls})
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return inputError(fmt.Errorf("calls: %w", err))
	}

	doc, err := o.document(ctx, rep, priceBad)
	if err != nil {
		return err
	}
	if o.weights != nil {
		doc.Composite, err = forecast.CompositeForGroups(rep, o.weights, terms)
		if err != nil {
			return inputError(fmt.Errorf("calls: %w", err))
		}
		doc.Warnings = append(doc.Warnings, termWarnings(rep, o.weights, terms)...)
	}
	var results []gates.Result
	if len(gs) > 0 {
		results = gates.Check(gs, doc)
		doc.Gates = results
		doc.GatesFailed = gates.Summary(results)
	}
	var data []byte
	switch o.Output.Format {
	case "markdown", "md":
		data, err = render.CallsMarkdown(render.CallsViewOf(&doc))
	case "html":
		data, err = render.CallsHTML(render.CallsViewOf(&doc))
	default:
		data, err = encodeForecastDocument(doc, o.Output.Format)
	}
	if err != nil {
		return fmt.Errorf("calls: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	summarise(stderr, len(doc.BadLines), "bad line", "bad_lines", badLineItems(doc.BadLines))
	summarise(stderr, len(doc.Warnings), "warning", "warnings", doc.Warnings)
	if err := o.Output.write(o.io.Out, data); err != nil {
		return fmt.Errorf("calls: %w", err)
	}
	if counted := countedCalls(doc.Groups); counted == 0 {
		return fmt.Errorf("calls: %w from %s: no counted call (%d bad lines; holds, protective exits and calls without a confidence, horizon or reference price do not count)",
			errNothingScored, o.Calls, len(rep.BadLines))
	}
	if o.RequireSeals {
		if err := rep.CheckSeals(); err != nil {
			fmt.Fprintf(stderr, "evalcal: gate failed: --require-seals: %v\n", err)
			if err := gateResult(results, stderr); err != nil {
				return err
			}
			return gateError(fmt.Errorf("calls: --require-seals: %w", err))
		}
	}
	return gateResult(results, stderr)
}

// document is the calls document of rep before the composite and the
// gates: the inputs with their SHA-256, the options and rep's figures.
func (o *callsOptions) document(ctx context.Context, rep forecast.CallReport, priceBad []forecast.BadLine) (forecast.CallsDocument, error) {
	inputs := []forecast.ScoreInput{}
	for _, p := range []string{o.Calls, o.Prices, o.Terms} {
		if p == "" {
			continue
		}
		sum, err := fileSHA256(ctx, p)
		if err != nil {
			if ctx.Err() != nil {
				return forecast.CallsDocument{}, ctx.Err()
			}
			return forecast.CallsDocument{}, inputError(fmt.Errorf("calls: %w", err))
		}
		inputs = append(inputs, forecast.ScoreInput{Path: p, SHA256: sum})
	}
	doc := forecast.CallsDocument{
		SchemaVersion: forecast.CallsSchemaVersion, GeneratedBy: "evalcal " + version, Inputs: inputs, CommandLine: withoutOutputFlag(o.args),
		AsOf: o.asOf.Format(time.RFC3339Nano), Calls: o.Calls, Prices: o.Prices,
		Groups: orEmpty(rep.Groups), Passports: orEmpty(rep.Passports), Tampered: orEmpty(rep.Tampered),
		Unsealed: rep.Unsealed, SealedV2: rep.SealedV2, SealedV1: rep.SealedV1, UnsealedIgnored: rep.UnsealedIgnored,
		BadLines: orEmpty(append(priceBad, rep.BadLines...)), Warnings: orEmpty(rep.Warnings),
	}
	doc.Derive()
	return doc, nil
}

// countedCalls is the number of counted calls over all groups.
func countedCalls(groups []forecast.GroupScore) int {
	n := 0
	for _, g := range groups {
		n += g.Counted
	}
	return n
}

// withoutOutputFlag is args without -o/--output and its value: where a
// document is written cannot change it.
func withoutOutputFlag(args []string) []string {
	return dropFlags(args, "output")
}

func readPricesFile(ctx context.Context, path string) (*forecast.Prices, []forecast.BadLine, error) {
	f, err := openRegular(path)
	if err != nil {
		return nil, nil, fmt.Errorf("calls: %w", err)
	}
	defer f.Close()
	p, bad, err := forecast.ReadPrices(ctx, f, path)
	if err != nil {
		return nil, nil, fmt.Errorf("calls: %w", err)
	}
	return p, bad, nil
}

// readTerms reads agent -> term -> value (null for unmeasured) from a
// YAML or JSON regular file.
func readTerms(ctx context.Context, path string) (map[string]map[string]*float64, error) {
	data, err := readDocument(ctx, path, nil)
	if err != nil {
		return nil, fmt.Errorf("calls: read terms: %w", err)
	}
	var terms map[string]map[string]*float64
	if err := yaml.Unmarshal(data, &terms); err != nil {
		return nil, fmt.Errorf("calls: terms %s: want a mapping agent -> term -> number or null: %w", path, yamlError(err))
	}
	return terms, nil
}

// termWarnings says which terms the composite could not use.
func termWarnings(rep forecast.CallReport, weights map[string]float64, terms map[string]map[string]*float64) []string {
	agents := map[string]bool{}
	for _, g := range rep.Groups {
		agents[g.Agent] = true
	}
	var w []string
	for _, agent := range sortedTermKeys(terms) {
		if !agents[agent] {
			w = append(w, fmt.Sprintf("terms for agent %q, who has no calls, were not used", agent))
			continue
		}
		for _, term := range sortedTermKeys(terms[agent]) {
			if _, ok := weights[term]; !ok {
				w = append(w, fmt.Sprintf("term %q of agent %q has no weight and was not used", term, agent))
			} else if term == forecast.CalibrationTerm {
				w = append(w, fmt.Sprintf("calibration of agent %q in the terms file was ignored; the measured one stands", agent))
			}
		}
	}
	return w
}

func sortedTermKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// orEmpty returns s, or an empty slice for nil, so that empty lists print
// as [] rather than null.
func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// encodeForecastDocument renders v as YAML (2-space indent) or indented JSON.
func encodeForecastDocument(v any, format string) ([]byte, error) {
	if format == "json" {
		return reportenc.EncodeJSON(v)
	}
	return reportenc.EncodeYAML(v)
}
