package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/spf13/cobra"
	"gopkg.in/yaml.v3"

	"github.com/evalcal/evalcal/forecast"
	"github.com/evalcal/evalcal/internal/reportenc"
	"github.com/evalcal/evalcal/report"
	"github.com/evalcal/evalcal/report/render"
	"github.com/evalcal/evalcal/report/reportio"
)

// renderFormats are the formats evalcal render writes a calibration
// report in.
var renderFormats = map[string]func(*report.Report) ([]byte, error){
	"markdown": render.Markdown,
	"md":       render.Markdown,
	"html":     render.HTML,
	"json":     func(r *report.Report) ([]byte, error) { return reportenc.EncodeJSON(r) },
	"yaml":     func(r *report.Report) ([]byte, error) { return reportenc.EncodeYAML(r) },
}

// renderOptions are evalcal render's flags and arguments.
type renderOptions struct {
	io   ioStreams
	args []string

	Output outputOptions
	Path   string // "-" is stdin
	// History renders the reports (or directories of reports) Paths as
	// one page of a nightly series.
	History bool
	Paths   []string
}

// historyFormats are the formats render --history writes.
var historyFormats = []string{"markdown", "md", "html"}

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
--format, else the -o extension, else markdown.

With --history, render REPORT... or a directory of reports (its *.yaml, *.yml
and *.json files, in file-name order) as one page of a nightly series:
agreement, linear kappa and the deep pass-rate estimate per report with
their intervals, the reports whose gates failed marked; Markdown (a table)
or HTML (charts and the table). A report that cannot be read is listed and
the rest go on.`,
		Example: `  evalcal render testdata/run/corpus.golden --format markdown
  evalcal render testdata/run/corpus.golden -o report.html
  evalcal run --inspections saved.jsonl | evalcal render - --format html > report.html
  evalcal render --history reports/ -o history.html`,
		Args: func(c *cobra.Command, args []string) error {
			history, _ := c.Flags().GetBool("history")
			switch {
			case history && len(args) == 0:
				return usageErrorHint("Run 'evalcal render --help' for usage.", "render --history: want one or more reports or directories of reports")
			case !history && len(args) != 1:
				return usageErrorHint("Run 'evalcal render --help' for usage.", "render: want exactly one document (or - for stdin), got %d", len(args))
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			o.args, o.Path, o.Paths = f.args, args[0], args
			o.Output.formatGiven = c.Flags().Changed("format")
			if err := o.validate(); err != nil {
				return err
			}
			if runF != nil {
				return runF(c.Context(), o)
			}
			if o.History {
				return renderHistoryRun(c.Context(), o)
			}
			return renderRun(c.Context(), o)
		},
	}
	o.Output.addFlags(c.Flags(), "document", "markdown", renderOutputFormats)
	c.Flags().BoolVar(&o.History, "history", false, "render the reports (or directories of reports) given as one page of a nightly series; markdown or html")
	return c
}

// validate checks the flags before any work.
func (o *renderOptions) validate() error {
	if o.History {
		if err := o.Output.resolve("render --history", historyFormats...); err != nil {
			return err
		}
		for _, p := range o.Paths {
			if p == "-" {
				return usageErrorf("render --history: reads report files or directories, not stdin (-)")
			}
		}
		return o.Output.check("render", o.io.Out, o.Paths...)
	}
	if err := o.Output.resolve("render", renderOutputFormats...); err != nil {
		return err
	}
	return o.Output.check("render", o.io.Out, o.Path)
}

// renderHistoryRun is evalcal render --history's body, after validate:
// it reads the series (a report that cannot be read is listed in the
// document and on stderr, and the rest go on; none read is exit 2) and
// writes its page.
func renderHistoryRun(ctx context.Context, o *renderOptions) error {
	drifts := readDriftSeries(o.Paths) // drift documents get their own section
	h, err := reportio.ReadHistory(ctx, o.Paths)
	h.Skipped = withoutDrift(h.Skipped, drifts)
	if err != nil && !(len(drifts) > 0 && errors.Is(err, reportio.ErrNoHistory)) {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		skippedOnStderr(o.io.ErrOut, h.Skipped)
		return inputError(fmt.Errorf("render --history: %w", err))
	}
	skippedOnStderr(o.io.ErrOut, h.Skipped)
	var out []byte
	htmlPage := canonicalFormat(o.Output.Format) == "html"
	switch {
	case len(h.Nights) == 0:
		err = nil
	case htmlPage:
		out, err = render.HistoryHTML(h)
	default:
		out, err = render.HistoryMarkdown(h)
	}
	if err != nil {
		return fmt.Errorf("render --history: %w", err)
	}
	out = withDriftSection(out, drifts, htmlPage)
	if err := o.Output.write(o.io.Out, out); err != nil {
		return fmt.Errorf("render --history: %w", err)
	}
	return nil
}

// skippedOnStderr summarises the reports of a series that were not read.
func skippedOnStderr(w io.Writer, skipped []reportio.HistorySkip) {
	items := make([]string, 0, len(skipped))
	for _, s := range skipped {
		items = append(items, s.Path+": "+s.Reason)
	}
	summarise(w, len(skipped), "unread report", `"Reports not read"`, items)
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
	// A report's runs file is relative to its directory (to the working
	// directory for stdin).
	dir := "."
	if o.Path != "-" {
		dir = filepath.Dir(o.Path)
	}
	out, err := renderDocument(ctx, data, dir, o.Output.Format)
	if err != nil {
		// A newer schema_version (reportio.ErrNewerSchema) is bad input too.
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
// calls) and renders it; a calibration report's runs file is read
// relative to dir.
func renderDocument(ctx context.Context, data []byte, dir, format string) ([]byte, error) {
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
		r, err := reportio.ParseReport(data)
		if err != nil {
			return nil, err
		}
		if err := report.LoadRunsFile(ctx, r, dir); err != nil {
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
		var doc forecast.CallsDocument
		if err := yaml.Unmarshal(data, &doc); err != nil {
			return nil, fmt.Errorf("decode calls document: %w", yamlError(err))
		}
		if doc.SchemaVersion > forecast.CallsSchemaVersion {
			return nil, fmt.Errorf("%w: calls document schema_version %d, this evalcal reads up to %d; upgrade evalcal to read it",
				reportio.ErrNewerSchema, doc.SchemaVersion, forecast.CallsSchemaVersion)
		}
		doc.Derive() // a document written before resolved and lowest_calibration gains them here
		v := render.CallsViewOf(&doc)
		switch format {
		case "markdown", "md":
			return render.CallsMarkdown(v)
		case "html":
			return render.CallsHTML(v)
		}
		return encodeForecastDocument(doc, format)
	}
	return nil, fmt.Errorf("%w: neither a calibration report nor a score or calls document", reportio.ErrNotReport)
}
