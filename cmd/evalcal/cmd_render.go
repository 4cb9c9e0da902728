package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"

	"gopkg.in/yaml.v3"

	"github.com/evalcal/evalcal/report"
)

// renderFormats are the formats evalcal render writes a calibration
// report in.
var renderFormats = map[string]func(*report.Report) ([]byte, error){
	"markdown": report.Markdown,
	"md":       report.Markdown,
	"html":     report.HTML,
	"json":     (*report.Report).JSON,
	"yaml":     (*report.Report).YAML,
}

// cmdRender is evalcal render DOC --format markdown|html|json|yaml
// [-o FILE]: it reads a saved calibration report, score document or calls
// document (YAML or JSON) and writes it in another format, computing
// nothing. A document with a newer schema_version than this evalcal knows
// is refused (exit 2).
func cmdRender(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("render", stderr)
	format := fs.String("format", "markdown", "output format: markdown, html, json or yaml")
	out := fs.String("o", "", "write to `file` (atomically) instead of stdout")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: evalcal render REPORT.yaml [--format markdown|html|json|yaml] [-o FILE]")
		fmt.Fprintln(stderr, "REPORT is the output of evalcal run, score or calls, as YAML or JSON.")
		fs.PrintDefaults()
	}
	paths, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if _, ok := renderFormats[*format]; !ok {
		return usageErrorf("render: -format must be markdown, html, json or yaml, got %q", *format)
	}
	if len(paths) != 1 {
		return usageErrorf("render: want exactly one report file, got %d", len(paths))
	}
	data, err := os.ReadFile(paths[0])
	if err != nil {
		return inputError(fmt.Errorf("render: %w", err))
	}
	out1, err := renderDocument(data, *format)
	if err != nil {
		// A newer schema_version (report.ErrNewerSchema) is bad input too.
		return inputError(fmt.Errorf("render: %s: %w", paths[0], err))
	}
	if err := writeDocument(stdout, *out, out1); err != nil {
		return fmt.Errorf("render: write %s: %w", *out, err)
	}
	return nil
}

// renderDocument tells the document's kind by its keys (agreement_rate:
// calibration report; groups and options: score; groups and as_of:
// calls) and renders it.
func renderDocument(data []byte, format string) ([]byte, error) {
	var keys map[string]any
	if err := yaml.Unmarshal(data, &keys); err != nil {
		return nil, fmt.Errorf("decode: %w", err)
	}
	_, isRun := keys["agreement_rate"]
	_, hasGroups := keys["groups"]
	_, hasOptions := keys["options"]
	_, hasAsOf := keys["as_of"]
	switch {
	case isRun || !hasGroups:
		r, err := report.ParseReport(data)
		if err != nil {
			return nil, err
		}
		return renderFormats[format](r)
	case hasOptions:
		doc, err := parseScoreDocument(data)
		if err != nil {
			return nil, err
		}
		return encodeScoreReport(*doc, format)
	case hasAsOf:
		var doc callsDocument
		if err := yaml.Unmarshal(data, &doc); err != nil {
			return nil, fmt.Errorf("decode calls document: %w", err)
		}
		if doc.SchemaVersion > callsSchemaVersion {
			return nil, fmt.Errorf("%w: calls document schema_version %d, this evalcal reads up to %d; upgrade evalcal to read it",
				report.ErrNewerSchema, doc.SchemaVersion, callsSchemaVersion)
		}
		v := doc.view()
		switch format {
		case "markdown", "md":
			return report.CallsMarkdown(v)
		case "html":
			return report.CallsHTML(v)
		}
		return encodeForecastDocument(doc, format)
	}
	return nil, fmt.Errorf("%w: neither a calibration report nor a score or calls document", report.ErrNotReport)
}

// parseInterspersed parses flags that may come before or after the
// positional arguments (the standard flag package stops at the first
// positional one) and returns the positional arguments in order. "--"
// ends the flags.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := parseFlags(fs, args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if len(args) > len(rest) && args[len(args)-len(rest)-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}
