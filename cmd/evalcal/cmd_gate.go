package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/evalcal/evalcal/forecast"
)

// gateDocument is the output of evalcal gate.
type gateDocument struct {
	Events    string                  `yaml:"events" json:"events"`
	History   string                  `yaml:"history" json:"history"`
	Decisions []forecast.GateDecision `yaml:"decisions" json:"decisions"`
	BadLines  []forecast.BadLine      `yaml:"bad_lines" json:"bad_lines"`
	Warnings  []string                `yaml:"warnings" json:"warnings"`
}

// cmdGate decides candidate lessons on held-out evidence (issue 4). It
// exits 0 whatever the decisions: a retired or shadowed lesson is a
// result, not a failure.
func cmdGate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("gate", stderr)
	eventsPath := fs.String("events", "", "candidates and their outcomes, a JSON object a line (required)")
	historyPath := fs.String("history", "", "history records {layer, high_risk} for the per-layer baseline (default: baseline 0.5)")
	format := fs.String("format", "yaml", "output format: yaml or json")
	outPath := fs.String("o", "", "write the document to this file (default stdout)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErrorf("gate: unexpected argument %q", fs.Arg(0))
	}
	if *eventsPath == "" {
		return usageErrorf("gate: -events is required")
	}
	if err := checkForecastFormat(*format); err != nil {
		return err
	}
	in, bad, err := readGateEventsFile(ctx, *eventsPath)
	if err != nil {
		return inputError(err)
	}
	var history []forecast.GateHistory
	if *historyPath != "" {
		h, hbad, err := readGateHistoryFile(ctx, *historyPath)
		if err != nil {
			return inputError(err)
		}
		history = h
		bad = append(bad, hbad...)
	}
	rep, err := forecast.DecideGate(in, history)
	if err != nil {
		return fmt.Errorf("gate: %w", err)
	}
	doc := gateDocument{
		Events: *eventsPath, History: *historyPath,
		Decisions: orEmpty(rep.Decisions), BadLines: orEmpty(bad), Warnings: orEmpty(rep.Warnings),
	}
	data, err := encodeForecastDocument(doc, *format)
	if err != nil {
		return fmt.Errorf("gate: %w", err)
	}
	if err := writeDocument(stdout, *outPath, data); err != nil {
		return fmt.Errorf("gate: %w", err)
	}
	return nil
}

func readGateEventsFile(ctx context.Context, path string) (forecast.GateInput, []forecast.BadLine, error) {
	f, err := os.Open(path)
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
	f, err := os.Open(path)
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
