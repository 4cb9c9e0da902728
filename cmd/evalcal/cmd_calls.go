package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"sort"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/evalcal/evalcal/forecast"
	"github.com/evalcal/evalcal/gates"
	"github.com/evalcal/evalcal/report"
)

// callsSchemaVersion is the version of the calls document's layout.
const callsSchemaVersion = 1

// callsDocument is the output of evalcal calls.
type callsDocument struct {
	SchemaVersion int    `yaml:"schema_version" json:"schema_version"`
	GeneratedBy   string `yaml:"generated_by" json:"generated_by"`
	// Inputs are the input files with the SHA-256 of their bytes, and
	// CommandLine the arguments (without -o), so the document can be
	// reproduced.
	Inputs      []forecast.ScoreInput     `yaml:"inputs" json:"inputs"`
	CommandLine []string                  `yaml:"command_line" json:"command_line"`
	AsOf        string                    `yaml:"as_of" json:"as_of"`
	Calls       string                    `yaml:"calls" json:"calls"`
	Prices      string                    `yaml:"prices" json:"prices"`
	Groups      []forecast.GroupScore     `yaml:"groups" json:"groups"`
	Passports   []forecast.Passport       `yaml:"passports" json:"passports"`
	Tampered    []forecast.CallRef        `yaml:"tampered" json:"tampered"`
	Unsealed    int                       `yaml:"unsealed" json:"unsealed"`
	Composite   []forecast.GroupComposite `yaml:"composite,omitempty" json:"composite,omitempty"`
	BadLines    []forecast.BadLine        `yaml:"bad_lines" json:"bad_lines"`
	Warnings    []string                  `yaml:"warnings" json:"warnings"`
	// Gates records each requested gate (--require) and its outcome.
	Gates []gates.GateRecord `yaml:"gates,omitempty" json:"gates,omitempty"`
}

// cmdCalls resolves trading calls against prices and scores their stated
// confidence per agent and season (issue 4).
func cmdCalls(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("calls", stderr)
	callsPath := fs.String("calls", "", "trading calls, a JSON object a line (required)")
	pricesPath := fs.String("prices", "", "prices: CSV with header pool,ts,price, or JSONL (required)")
	asOfFlag := fs.String("as-of", "", "resolve as of this RFC 3339 time (default now)")
	weightsFlag := fs.String("weights", "", "composite weights term=weight,... (e.g. calibration=0.10,returns=0.50)")
	termsPath := fs.String("terms", "", "YAML or JSON file: agent -> term -> value (null = unmeasured), for the composite")
	requireSeals := fs.Bool("require-seals", false, "exit 3 when any counted call is unsealed or any call is tampered")
	format := fs.String("format", "yaml", "output format: yaml, json, markdown or html")
	var requires stringList
	fs.Var(&requires, "require", "gate `EXPR` such as 'calibration >= 30' (every group must pass; repeatable); an unmet gate exits 3")
	outPath := fs.String("o", "", "write the document to this file (default stdout)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErrorf("calls: unexpected argument %q", fs.Arg(0))
	}
	if *callsPath == "" || *pricesPath == "" {
		return usageErrorf("calls: -calls and -prices are required")
	}
	if !validReportFormat(*format) {
		return usageErrorf("calls: -format must be yaml, json, markdown or html, got %q", *format)
	}
	gs, err := parseGates(requires, callsDocument{}, false)
	if err != nil {
		return err
	}
	asOf := time.Now().UTC()
	if *asOfFlag != "" {
		t, err := time.Parse(time.RFC3339, *asOfFlag)
		if err != nil {
			return usageErrorf("calls: -as-of must be an RFC 3339 time, got %q", *asOfFlag)
		}
		asOf = t.UTC()
	}
	var weights map[string]float64
	if *weightsFlag != "" {
		w, err := forecast.ParseWeights(*weightsFlag)
		if err != nil {
			return usageErrorf("calls: -weights: %v", err)
		}
		weights = w
	}
	if *termsPath != "" && weights == nil {
		return usageErrorf("calls: -terms needs -weights")
	}
	var terms map[string]map[string]*float64
	if *termsPath != "" {
		t, err := readTerms(*termsPath)
		if err != nil {
			return inputError(err)
		}
		terms = t
	}

	prices, priceBad, err := readPricesFile(ctx, *pricesPath)
	if err != nil {
		return inputError(err)
	}
	f, err := os.Open(*callsPath)
	if err != nil {
		return inputError(fmt.Errorf("calls: %w", err))
	}
	defer f.Close()
	rep, err := forecast.ResolveCalls(ctx, f, prices, forecast.CallOptions{AsOf: asOf, File: *callsPath})
	if err != nil {
		return inputError(fmt.Errorf("calls: %w", err))
	}

	inputs := []forecast.ScoreInput{}
	for _, p := range []string{*callsPath, *pricesPath, *termsPath} {
		if p == "" {
			continue
		}
		sum, err := fileSHA256(p)
		if err != nil {
			return inputError(fmt.Errorf("calls: %w", err))
		}
		inputs = append(inputs, forecast.ScoreInput{Path: p, SHA256: sum})
	}
	doc := callsDocument{
		SchemaVersion: callsSchemaVersion, GeneratedBy: "evalcal " + version, Inputs: inputs, CommandLine: withoutOutputFlag(args),
		AsOf: asOf.Format(time.RFC3339Nano), Calls: *callsPath, Prices: *pricesPath,
		Groups: orEmpty(rep.Groups), Passports: orEmpty(rep.Passports), Tampered: orEmpty(rep.Tampered),
		Unsealed: rep.Unsealed, BadLines: orEmpty(append(priceBad, rep.BadLines...)), Warnings: orEmpty(rep.Warnings),
	}
	if weights != nil {
		doc.Composite, err = forecast.CompositeForGroups(rep, weights, terms)
		if err != nil {
			return inputError(fmt.Errorf("calls: %w", err))
		}
		doc.Warnings = append(doc.Warnings, termWarnings(rep, weights, terms)...)
	}
	var results []gates.Result
	if len(gs) > 0 {
		results = gates.Check(gs, doc)
		doc.Gates = results
	}
	var data []byte
	switch *format {
	case "markdown", "md":
		data, err = report.CallsMarkdown(doc.view())
	case "html":
		data, err = report.CallsHTML(doc.view())
	default:
		data, err = encodeForecastDocument(doc, *format)
	}
	if err != nil {
		return fmt.Errorf("calls: %w", err)
	}
	if err := writeDocument(stdout, *outPath, data); err != nil {
		return fmt.Errorf("calls: %w", err)
	}
	if *requireSeals && (rep.Unsealed > 0 || len(rep.Tampered) > 0) {
		fmt.Fprintf(stderr, "evalcal: gate failed: -require-seals: %d counted call(s) unsealed, %d tampered\n", rep.Unsealed, len(rep.Tampered))
		if err := gateResult(results, stderr); err != nil {
			return err
		}
		return gateError(fmt.Errorf("calls: -require-seals: %d counted call(s) unsealed, %d tampered", rep.Unsealed, len(rep.Tampered)))
	}
	return gateResult(results, stderr)
}

// view is the document as the calls renderers read it.
func (doc callsDocument) view() report.CallsView {
	return report.CallsView{AsOf: doc.AsOf, Calls: doc.Calls, Prices: doc.Prices, Groups: doc.Groups, Passports: doc.Passports,
		Tampered: doc.Tampered, Unsealed: doc.Unsealed, BadLines: doc.BadLines, Warnings: doc.Warnings,
		Composite: doc.Composite, Gates: doc.Gates}
}

// withoutOutputFlag is args without -o and its value: where a document is
// written cannot change it.
func withoutOutputFlag(args []string) []string {
	return dropFlags(args, map[string]bool{"o": true})
}

func readPricesFile(ctx context.Context, path string) (*forecast.Prices, []forecast.BadLine, error) {
	f, err := os.Open(path)
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
// YAML or JSON file.
func readTerms(path string) (map[string]map[string]*float64, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("calls: read terms: %w", err)
	}
	var terms map[string]map[string]*float64
	if err := yaml.Unmarshal(data, &terms); err != nil {
		return nil, fmt.Errorf("calls: terms %s: want a mapping agent -> term -> number or null: %w", path, err)
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

// checkForecastFormat validates a -format flag of a forecast command.
func checkForecastFormat(format string) error {
	if format != "yaml" && format != "json" {
		return usageErrorf("-format must be yaml or json, got %q", format)
	}
	return nil
}

// encodeForecastDocument renders v as YAML (2-space indent) or indented JSON.
func encodeForecastDocument(v any, format string) ([]byte, error) {
	if format == "json" {
		return report.EncodeJSON(v)
	}
	return report.EncodeYAML(v)
}
