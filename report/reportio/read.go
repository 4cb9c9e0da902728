package reportio

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/evalcal/evalcal/internal/inputfile"
	"github.com/evalcal/evalcal/report"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"gopkg.in/yaml.v3"
)

// ErrNewerSchema is returned (wrapped) when a report was written by a newer
// evalcal than this one: its schema_version is above SchemaVersion, so
// fields may have changed meaning and the report is not read.
var ErrNewerSchema = errors.New("report was written with a newer schema")

// ErrNotReport is returned (wrapped) when a document has no positive
// schema_version, so it is not an evalcal calibration report.
var ErrNotReport = errors.New("not an evalcal calibration report")

// ErrTooLarge is returned (wrapped) for a document longer than the limit
// it is read with.
var ErrTooLarge = errors.New("document too large")

// MaxReportBytes bounds a report (or score or calls document) read by
// render, merge or --baseline: 64 MiB is a report of about 30,000 runs,
// and decoding YAML takes some 30 times the document's size in memory.
const MaxReportBytes = 64 << 20

// utf8BOM is the UTF-8 byte-order mark some editors put at the start of
// a file; readers ignore it there.
var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// ReadReport is ReadReportContext with a context that never ends.
func ReadReport(path string) (*report.Report, error) {
	return ReadReportContext(context.Background(), path)
}

// ReadReportContext reads a calibration report from path (see
// ReadDocument) and parses it with ParseReport. Every error is wrapped
// with the path: "report: read PATH: ...".
func ReadReportContext(ctx context.Context, path string) (*report.Report, error) {
	data, err := ReadDocument(ctx, path, MaxReportBytes)
	if err != nil {
		return nil, err
	}
	r, err := ParseReport(data)
	if err != nil {
		return nil, fmt.Errorf("report: read %s: %w", path, err)
	}
	return r, nil
}

// ReadDocument reads a whole input document of at most max bytes from
// path: a regular file, a named pipe (waited for until ctx ends) or a
// character device such as /dev/stdin. More than max bytes (/dev/zero)
// is an error wrapping ErrTooLarge, after reading max+1 bytes at most; a
// directory or another special file is refused; the end of ctx stops the
// read (the error wraps ctx.Err()). Errors read "report: read PATH: ...".
// The bytes are returned as they are (a byte-order mark included:
// ParseReport skips it).
func ReadDocument(ctx context.Context, path string, max int64) ([]byte, error) {
	f, stop, err := inputfile.Open(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("report: read %s: %w", path, err)
	}
	defer f.Close()
	defer stop()
	var buf bytes.Buffer
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() <= max {
		buf.Grow(int(fi.Size()) + 1)
	}
	chunk := make([]byte, 64<<10)
	for {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("report: read %s: %w", path, err)
		}
		n, err := f.Read(chunk)
		buf.Write(chunk[:n])
		if int64(buf.Len()) > max {
			return nil, fmt.Errorf("report: read %s: %w: longer than %d bytes", path, ErrTooLarge, max)
		}
		if errors.Is(err, io.EOF) {
			return buf.Bytes(), nil
		}
		if err != nil {
			return nil, fmt.Errorf("report: read %s: %w", path, inputfile.ReadError(ctx, err))
		}
	}
}

// ParseReport decodes a calibration report from YAML or JSON bytes (a
// document whose first non-blank byte is '{' is JSON; a UTF-8 byte-order
// mark at the start is skipped, and a UTF-16 one is an error saying
// "byte-order mark"). It refuses, in this order:
//   - a document over MaxReportBytes (ErrTooLarge);
//   - one that does not decode: a JSON document cut short says
//     "truncated";
//   - one without a positive schema_version (ErrNotReport) or with one
//     newer than SchemaVersion (ErrNewerSchema);
//   - one that does not match report/schema/report.schema.json (ErrSchema,
//     naming the missing or wrong fields: a missing figure is never read
//     as zero). Unknown keys are allowed, so that a report carrying a
//     section added within the same schema version still reads.
//
// A YAML report cut at a line boundary inside its last list (warnings,
// gates) cannot be told from a shorter one; cut anywhere else, it lacks a
// required field and is refused.
func ParseReport(data []byte) (*report.Report, error) {
	if len(data) > MaxReportBytes {
		return nil, fmt.Errorf("%w: %d bytes, the limit is %d", ErrTooLarge, len(data), MaxReportBytes)
	}
	data, err := stripBOM(data)
	if err != nil {
		return nil, err
	}
	// The document is parsed once into the JSON value model; a YAML one
	// is then re-encoded as JSON, so that the schema check and the
	// decoding read the same values (yaml.v3 is also much slower than
	// encoding/json at filling the report).
	isJSON := bytes.HasPrefix(bytes.TrimLeft(data, " \t\r\n"), []byte("{"))
	doc, err := decodeValue(data, isJSON)
	if err != nil {
		return nil, err
	}
	top, ok := doc.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%w: the document is not a mapping", ErrNotReport)
	}
	v, ok := schemaVersionOf(top)
	switch {
	case !ok || v < 1:
		return nil, fmt.Errorf("%w: no positive schema_version", ErrNotReport)
	case v > report.SchemaVersion:
		return nil, fmt.Errorf("%w: schema_version %d, this evalcal reads up to %d; upgrade evalcal to read it",
			ErrNewerSchema, v, report.SchemaVersion)
	}
	if err := validateSchema(doc); err != nil {
		return nil, err
	}
	if !isJSON {
		if data, err = json.Marshal(doc); err != nil {
			return nil, fmt.Errorf("decode yaml: %w", err)
		}
	}
	var r report.Report
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("decode: %w", err)
	}
	r.Derive() // a report written before a derived field gains it here
	return &r, nil
}

// decodeValue parses a JSON or YAML document into the JSON value model
// (map[string]any, []any, string, json.Number or int or float64, bool,
// nil). A JSON document cut short says "truncated".
func decodeValue(data []byte, isJSON bool) (any, error) {
	if isJSON {
		v, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("decode json: truncated: %w", err)
		}
		if err != nil {
			return nil, fmt.Errorf("decode json: %w", err)
		}
		return v, nil
	}
	var v any
	if err := yaml.Unmarshal(data, &v); err != nil {
		return nil, fmt.Errorf("decode yaml: %w", err)
	}
	v, err := jsonValue(v, "")
	if err != nil {
		return nil, fmt.Errorf("decode yaml: %w", err)
	}
	return v, nil
}

// schemaVersionOf reads a whole-number schema_version.
func schemaVersionOf(top map[string]any) (int, bool) {
	switch v := top["schema_version"].(type) {
	case int:
		return v, true
	case json.Number:
		n, err := v.Int64()
		return int(n), err == nil && n == int64(int(n))
	case float64:
		return int(v), v == float64(int(v))
	}
	return 0, false
}

// stripBOM drops a UTF-8 byte-order mark at the start of data and refuses
// UTF-16 and UTF-32 ones (the document must be UTF-8).
func stripBOM(data []byte) ([]byte, error) {
	switch {
	case bytes.HasPrefix(data, utf8BOM):
		return data[len(utf8BOM):], nil
	case bytes.HasPrefix(data, []byte{0xFF, 0xFE}), bytes.HasPrefix(data, []byte{0xFE, 0xFF}),
		bytes.HasPrefix(data, []byte{0, 0, 0xFE, 0xFF}):
		return nil, errors.New("UTF-16 or UTF-32 byte-order mark: the document must be UTF-8")
	}
	return data, nil
}
