package reportio

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/evalcal/evalcal/internal/reportenc"
	"github.com/evalcal/evalcal/report"
	"github.com/evalcal/evalcal/report/reporttest"
	"github.com/google/go-cmp/cmp"
	"gopkg.in/yaml.v3"
)

const syntheticReport = "../../testdata/render/synthetic.yaml"

// editedReport returns the synthetic report as JSON after edit changed
// its decoded form.
func editedReport(t *testing.T, edit func(m map[string]any)) []byte {
	t.Helper()
	data, err := os.ReadFile(syntheticReport)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := yaml.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	edit(m)
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Issue 13.19: a report without agreement_rate rendered "0.0% (0/0)".
// Missing or wrong fields are errors that name them; nothing is read as
// zero.
func TestParseReportNamesMissingAndWrongFields(t *testing.T) {
	comparison0 := func(m map[string]any) map[string]any {
		return m["comparisons"].([]any)[0].(map[string]any)
	}
	for _, tt := range []struct {
		name string
		edit func(m map[string]any)
		want string
	}{
		{"missing agreement_rate", func(m map[string]any) { delete(m, "agreement_rate") }, "missing field agreement_rate"},
		{"missing nested", func(m map[string]any) { delete(m["agreement_rate"].(map[string]any), "n") }, "missing field agreement_rate.n"},
		{"missing in a list", func(m map[string]any) { delete(comparison0(m), "deep_verdict") }, "missing field comparisons[0].deep_verdict"},
		{"two missing", func(m map[string]any) { delete(m, "kappa"); delete(m, "confusion") }, "missing field confusion; missing field kappa"},
		{"wrong enum", func(m map[string]any) { comparison0(m)["deep_verdict"] = "maybe" }, "field comparisons[0].deep_verdict: value must be one of"},
		{"wrong type", func(m map[string]any) { m["sample_size"] = "fourteen" }, "field sample_size: got string, want integer"},
		{"out of range", func(m map[string]any) { m["agreement_rate"].(map[string]any)["percent"] = 140 }, "field agreement_rate.percent: maximum: got 140, want 100"},
		{"null where a value is due", func(m map[string]any) { m["kappa"] = nil }, "field kappa: got null, want object"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseReport(editedReport(t, tt.edit))
			if !errors.Is(err, ErrSchema) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want ErrSchema saying %q", err, tt.want)
			}
			if err != nil && strings.Contains(err.Error(), "truncated") {
				t.Errorf("err = %v: a field missing in the middle is no sign of truncation", err)
			}
		})
	}
}

// Unknown keys are read past (a section added within schema version 1),
// and the report reads as without them.
func TestParseReportAllowsUnknownKeys(t *testing.T) {
	plain, err := ParseReport(editedReport(t, func(map[string]any) {}))
	if err != nil {
		t.Fatal(err)
	}
	extra, err := ParseReport(editedReport(t, func(m map[string]any) {
		m["a_future_section"] = map[string]any{"usd": 1}
		m["agreement_rate"].(map[string]any)["note"] = "x"
	}))
	if err != nil {
		t.Fatalf("unknown keys: %v", err)
	}
	if d := cmp.Diff(plain, extra); d != "" {
		t.Errorf("(-plain +with unknown keys):\n%s", d)
	}
}

// Issue 13.19: a truncated report rendered with exit 0. Cut at any line
// before its last top-level key, a YAML report is refused as possibly
// truncated; cut anywhere, a JSON one is refused as truncated.
func TestParseReportRefusesTruncatedReports(t *testing.T) {
	data, err := os.ReadFile(syntheticReport)
	if err != nil {
		t.Fatal(err)
	}
	last := bytes.Index(data, []byte("\nwarnings:"))
	if last < 0 {
		t.Fatal("no warnings key in the synthetic report")
	}
	step := 10 // every tenth line (~60 cuts): each parse of the 25 KB report costs ~10 ms
	if testing.Short() {
		step = 41
	}
	lines := bytes.SplitAfter(data[:last+1], []byte("\n"))
	cut := 0
	for i, l := range lines {
		if i%step == 0 && cut > 0 {
			_, err := ParseReport(data[:cut])
			if err == nil || !(errors.Is(err, ErrSchema) || errors.Is(err, ErrNotReport) || strings.Contains(err.Error(), "decode yaml")) {
				t.Fatalf("cut after line %d: err = %v, want a refusal", i, err)
			}
			if errors.Is(err, ErrSchema) && !strings.Contains(err.Error(), "truncated") {
				t.Errorf("cut after line %d: %v, want it to suggest truncation", i, err)
			}
		}
		cut += len(l)
	}
	// Cut inside a line too.
	if _, err := ParseReport(data[:len(data)/2+7]); err == nil {
		t.Error("a YAML report cut mid-line was accepted")
	}

	js, err := os.ReadFile("../../testdata/run/corpus.golden")
	if err != nil {
		t.Fatal(err)
	}
	r, err := ParseReport(js)
	if err != nil {
		t.Fatal(err)
	}
	if js, err = reportenc.EncodeJSON(r); err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{1, 100, len(js) / 2, len(js) - 3} {
		if _, err := ParseReport(js[:n]); err == nil || !strings.Contains(err.Error(), "truncated") {
			t.Errorf("JSON cut at byte %d of %d: err = %v, want 'truncated'", n, len(js), err)
		}
	}
}

// Issue 11.4: a UTF-8 byte-order mark before a YAML or JSON report is
// accepted; a UTF-16 one is an error saying "byte-order mark".
func TestParseReportByteOrderMark(t *testing.T) {
	y, err := os.ReadFile(syntheticReport)
	if err != nil {
		t.Fatal(err)
	}
	want, err := ParseReport(y)
	if err != nil {
		t.Fatal(err)
	}
	j, err := reportenc.EncodeJSON(want)
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"yaml": y, "json": j} {
		got, err := ParseReport(append([]byte("\ufeff"), data...))
		if err != nil {
			t.Errorf("%s with a byte-order mark: %v", name, err)
			continue
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("%s with a byte-order mark (-without +with):\n%s", name, d)
		}
	}
	if _, err := ParseReport(append([]byte{0xFF, 0xFE}, y...)); err == nil || !strings.Contains(err.Error(), "byte-order mark") {
		t.Errorf("UTF-16: err = %v, want 'byte-order mark'", err)
	}
}

// Issue 13.7: every reader has a size limit; /dev/zero is an error after
// the limit, in bounded memory.
func TestReadDocumentLimit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.yaml")
	if err := os.WriteFile(path, []byte("0123456789"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := ReadDocument(context.Background(), path, 10); err != nil || string(b) != "0123456789" {
		t.Errorf("at the limit: %q, %v", b, err)
	}
	if _, err := ReadDocument(context.Background(), path, 9); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), path) {
		t.Errorf("over the limit: %v, want ErrTooLarge naming the file", err)
	}
	if _, err := os.Stat("/dev/zero"); err == nil {
		if _, err := ReadReport("/dev/zero"); !errors.Is(err, ErrTooLarge) {
			t.Errorf("/dev/zero: %v, want ErrTooLarge", err)
		}
	}
	if _, err := ParseReport(make([]byte, MaxReportBytes+1)); !errors.Is(err, ErrTooLarge) {
		t.Errorf("ParseReport over the limit: %v, want ErrTooLarge", err)
	}
	if _, err := ReadReport(t.TempDir()); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("a directory: %v", err)
	}
}

// A report given as a named pipe is read once its writer comes; without
// a writer the read ends with the context.
func TestReadReportFromANamedPipe(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "report.yaml")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	data, err := os.ReadFile(syntheticReport)
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		time.Sleep(50 * time.Millisecond)
		_ = os.WriteFile(fifo, data, 0o600)
	}()
	if _, err := ReadReport(fifo); err != nil {
		t.Fatalf("through the pipe: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	if _, err := ReadReportContext(ctx, fifo); !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 2*time.Second {
		t.Errorf("no writer: %v after %v, want the deadline", err, time.Since(start))
	}
}

// ParseReport decodes a YAML report through JSON: that reads the same
// fields only while every field's yaml and json names agree.
func TestReportFieldsHaveTheSameYAMLAndJSONNames(t *testing.T) {
	seen := map[reflect.Type]bool{}
	var walk func(reflect.Type, string)
	walk = func(ty reflect.Type, at string) {
		for ty.Kind() == reflect.Pointer || ty.Kind() == reflect.Slice || ty.Kind() == reflect.Array || ty.Kind() == reflect.Map {
			ty = ty.Elem()
		}
		if ty.Kind() != reflect.Struct || seen[ty] {
			return
		}
		seen[ty] = true
		for i := range ty.NumField() {
			f := ty.Field(i)
			if !f.IsExported() {
				continue
			}
			y, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
			j, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if y != j {
				t.Errorf("%s%s.%s: yaml name %q, json name %q", at, ty, f.Name, y, j)
			}
			walk(f.Type, "")
		}
	}
	walk(reflect.TypeOf(report.Report{}), "")
}

func FuzzParseReport(f *testing.F) {
	y, err := os.ReadFile(syntheticReport)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(y)
	f.Add(y[:len(y)/3])
	f.Add(append([]byte("\ufeff"), y...))
	f.Add([]byte(`{"schema_version": 1}`))
	f.Add([]byte("schema_version: 1\nagreement_rate: {n: 1}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := ParseReport(data)
		if err != nil {
			return
		}
		// What was accepted is a report: it writes and reads back.
		js, err := reportenc.EncodeJSON(r)
		if err != nil {
			t.Fatalf("accepted report does not encode: %v", err)
		}
		if _, err := ParseReport(js); err != nil {
			t.Fatalf("accepted report does not read back: %v", err)
		}
	})
}

func TestReadReportReadsYAMLAndJSON(t *testing.T) {
	r := reporttest.Fixture(0)
	dir := t.TempDir()
	y, _ := reportenc.EncodeYAML(r)
	j, _ := reportenc.EncodeJSON(r)
	// A document is read back as written: with the precision rule applied.
	rounded, err := reportenc.Rounded(r)
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"r.yaml": y, "r.json": j} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := ReadReport(path)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if cmp.Diff(got.AgreementRate, rounded.AgreementRate) != "" || len(got.Comparisons) != len(r.Comparisons) {
			t.Errorf("%s: read back %+v", name, got.AgreementRate)
		}
	}
}

func TestReadReportRefusesNewerSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "new.yaml")
	if err := os.WriteFile(path, []byte("schema_version: 99\nagreement_rate: {percent: \"changed meaning\"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := ReadReport(path)
	if !errors.Is(err, ErrNewerSchema) {
		t.Fatalf("err = %v, want ErrNewerSchema", err)
	}
	for _, want := range []string{"schema_version 99", "reads up to " + strconv.Itoa(report.SchemaVersion), "upgrade evalcal", path} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message %q lacks %q", err, want)
		}
	}
}

func TestReadReportRefusesDocumentsThatAreNotReports(t *testing.T) {
	for name, data := range map[string]string{
		"no version": "generated_by: x\n",
		"zero":       `{"schema_version": 0}`,
		"garbage":    "{{{",
		"empty":      "",
	} {
		if _, err := ParseReport([]byte(data)); err == nil {
			t.Errorf("%s: parsed", name)
		}
	}
	if _, err := ReadReport(filepath.Join(t.TempDir(), "missing.yaml")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}
