package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"
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

// renderOptions are evalcal render's flags and argument.
type renderOptions struct {
	io   ioStreams
	args []string

	Output outputOptions
	Path   string // "-" is stdin
}

// renderOutputFormats are the formats render writes, markdown first (its
// default).
var renderOutputFormats = []string{"markdown", "md", "html", "json", "yaml"}

// newCmdRender builds `evalcal render DOC`: it reads a saved calibration
// report, score document or calls document (YAML or JSON) and writes it in
// another format, computing nothing. A document with a newer
// schema_version than this evalcal knows is refused (exit 2).
func newCmdRender(f *factory, runF func(context.Context, *renderOptions) error) *cobra.Command {
	o := &renderOptions{io: f.io}
	c := &cobra.Command{
		Use:   "render DOC [flags]",
		Short: "render a saved report as markdown, html, json or yaml",
		Long: `Write a saved document (the output of evalcal run, merge, score or calls, as YAML or
JSON) in another format, computing nothing. DOC - reads stdin. The format is
--format, else the -o extension, else markdown.`,
		Example: `  evalcal render testdata/run/corpus.golden --format markdown
  evalcal render testdata/run/corpus.golden -o report.html
  evalcal run --inspections saved.jsonl | evalcal render - --format html > report.html`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageErrorHint("Run 'evalcal render --help' for usage.", "render: want exactly one document (or - for stdin), got %d", len(args))
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			o.args, o.Path = f.args, args[0]
			o.Output.formatGiven = c.Flags().Changed("format")
			if err := o.validate(); err != nil {
				return err
			}
			if runF != nil {
				return runF(c.Context(), o)
			}
			return renderRun(c.Context(), o)
		},
	}
	o.Output.addFlags(c.Flags(), "document", "markdown", renderOutputFormats)
	return c
}

// validate checks the flags before any work.
func (o *renderOptions) validate() error {
	if err := o.Output.resolve("render", renderOutputFormats...); err != nil {
		return err
	}
	return o.Output.check("render", o.io.Out, o.Path)
}

// renderRun is evalcal render's body, after validate.
func renderRun(ctx context.Context, o *renderOptions) error {
	name := o.Path
	if name == "-" {
		name = "stdin"
	}
	data, err := readDocument(ctx, o.Path, o.io.In)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return inputError(fmt.Errorf("render: %w", err))
	}
	out, err := renderDocument(data, o.Output.Format)
	if err != nil {
		// A newer schema_version (report.ErrNewerSchema) is bad input too.
		return inputError(fmt.Errorf("render: %s: %w", name, err))
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := o.Output.write(o.io.Out, out); err != nil {
		return fmt.Errorf("render: %w", err)
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
