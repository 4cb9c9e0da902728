package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/evalcal/evalcal/report"
)

// renderFormats are the formats evalcal render writes.
var renderFormats = map[string]func(*report.Report) ([]byte, error){
	"markdown": report.Markdown,
	"md":       report.Markdown,
	"html":     report.HTML,
	"json":     (*report.Report).JSON,
	"yaml":     (*report.Report).YAML,
}

// cmdRender is evalcal render REPORT --format markdown|html|json|yaml
// [-o FILE]: it reads a saved calibration report (YAML or JSON) and writes
// it in another format, computing nothing. A report with a newer
// schema_version than this evalcal knows is refused (exit 2).
func cmdRender(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("render", stderr)
	format := fs.String("format", "markdown", "output format: markdown, html, json or yaml")
	out := fs.String("o", "", "write to `file` (atomically) instead of stdout")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: evalcal render REPORT.yaml [--format markdown|html|json|yaml] [-o FILE]")
		fs.PrintDefaults()
	}
	paths, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	render, ok := renderFormats[*format]
	switch {
	case !ok:
		return usageErrorf("render: -format must be markdown, html, json or yaml, got %q", *format)
	case len(paths) != 1:
		return usageErrorf("render: want exactly one report file, got %d", len(paths))
	}
	r, err := report.ReadReport(paths[0])
	if err != nil {
		// A newer schema_version (report.ErrNewerSchema) is bad input too.
		return inputError(fmt.Errorf("render: %w", err))
	}
	data, err := render(r)
	if err != nil {
		return fmt.Errorf("render: %w", err)
	}
	if err := writeDocument(stdout, *out, data); err != nil {
		return fmt.Errorf("render: write %s: %w", *out, err)
	}
	return nil
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
