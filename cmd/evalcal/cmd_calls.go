package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/evalcal/evalcal/forecast"
)

// callsDocument is the output of evalcal calls.
type callsDocument struct {
	AsOf      string                    `yaml:"as_of" json:"as_of"`
	Calls     string                    `yaml:"calls" json:"calls"`
	Prices    string                    `yaml:"prices" json:"prices"`
	Groups    []forecast.GroupScore     `yaml:"groups" json:"groups"`
	Passports []forecast.Passport       `yaml:"passports" json:"passports"`
	Tampered  []forecast.CallRef        `yaml:"tampered" json:"tampered"`
	Unsealed  int                       `yaml:"unsealed" json:"unsealed"`
	Composite []forecast.GroupComposite `yaml:"composite,omitempty" json:"composite,omitempty"`
	BadLines  []forecast.BadLine        `yaml:"bad_lines" json:"bad_lines"`
	Warnings  []string                  `yaml:"warnings" json:"warnings"`
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
	format := fs.String("format", "yaml", "output format: yaml or json")
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
	if err := checkForecastFormat(*format); err != nil {
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

	doc := callsDocument{
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
	data, err := encodeForecastDocument(doc, *format)
	if err != nil {
		return fmt.Errorf("calls: %w", err)
	}
	if err := writeDocument(stdout, *outPath, data); err != nil {
		return fmt.Errorf("calls: %w", err)
	}
	if *requireSeals && (rep.Unsealed > 0 || len(rep.Tampered) > 0) {
		return gateError(fmt.Errorf("calls: -require-seals: %d counted call(s) unsealed, %d tampered", rep.Unsealed, len(rep.Tampered)))
	}
	return nil
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
		data, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			return nil, fmt.Errorf("encode json: %w", err)
		}
		return append(data, '\n'), nil
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("encode yaml: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("encode yaml: %w", err)
	}
	return buf.Bytes(), nil
}
