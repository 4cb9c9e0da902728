package main

import (
	"context"
	"fmt"
	"io"

	"github.com/evalcal/evalcal/internal/reportenc"
	"github.com/evalcal/evalcal/report"
	"github.com/evalcal/evalcal/report/render"
)

// reportEncoder returns the function that writes rep in format: YAML and
// JSON as they are encoded (reportenc.WriteYAMLContext, WriteJSONContext:
// memory does not grow with the document, and ctx stops them), Markdown
// and HTML rendered first (they are a page, not the per-run listing). A
// ctx done before or while it writes is its error, so that an interrupted
// run never replaces the -o file.
func reportEncoder(ctx context.Context, format string, rep *report.Report) func(io.Writer) error {
	return func(w io.Writer) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := encodeReport(ctx, w, format, rep); err != nil {
			return err
		}
		// Interrupted while writing: the -o file is not replaced.
		return ctx.Err()
	}
}

func encodeReport(ctx context.Context, w io.Writer, format string, rep *report.Report) error {
	var page func(*report.Report) ([]byte, error)
	switch format {
	case "yaml":
		return reportenc.WriteYAMLContext(ctx, w, rep)
	case "json":
		return reportenc.WriteJSONContext(ctx, w, rep)
	case "markdown", "md":
		page = render.Markdown
	case "html":
		page = render.HTML
	default:
		return fmt.Errorf("report: unknown format %q", format)
	}
	data, err := page(rep)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	_, err = w.Write(data)
	return err
}

// stream writes the document encode produces: to stdout as it is
// produced, or to the -o file atomically (report.WriteFileAtomicFunc: a
// temporary file in the same directory, synced and renamed over the file
// once encode has returned without error). When encode fails the -o file
// is left as it was; on stdout the part already written stays (an encoder
// fails only when interrupted, or on a figure no document can hold).
func (o *outputOptions) stream(stdout io.Writer, encode func(io.Writer) error) error {
	if !o.toFile() {
		return encode(stdoutWriter{stdout})
	}
	return report.WriteFileAtomicFunc(o.Path, encode)
}

// stdoutWriter is stdout for a streamed document: a short write is an
// error, and errors say they were stdout's.
type stdoutWriter struct{ w io.Writer }

func (s stdoutWriter) Write(p []byte) (int, error) {
	n, err := s.w.Write(p)
	if err == nil && n < len(p) {
		err = io.ErrShortWrite
	}
	if err != nil {
		return n, fmt.Errorf("write stdout: %w", err)
	}
	return n, nil
}
