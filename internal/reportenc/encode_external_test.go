package reportenc_test

// The encoder tests that need a report built by report/reporttest or read
// back by report/reportio: both import report, so these are external
// tests; the dot import keeps them as they read inside the package (the
// use the Go review comments allow for tests that cannot be in the package
// for an import cycle).

import (
	"errors"
	"io"
	"math"
	"strings"
	"testing"

	"github.com/evalcal/evalcal/forecast"
	. "github.com/evalcal/evalcal/internal/reportenc"
	. "github.com/evalcal/evalcal/report"
	"github.com/evalcal/evalcal/report/reportio"
	"github.com/evalcal/evalcal/report/reporttest"
)

// TestEncodersMatchReferenceOnTheFixtureReports: without rounding, the
// encoders write byte for byte what yaml.v3 and encoding/json write for
// the fixture report and a 300-run one (the golden documents are checked
// by TestEncodersMatchReferenceOnGoldenDocuments).
func TestEncodersMatchReferenceOnTheFixtureReports(t *testing.T) {
	CheckIdentity(t, "fixture report", reporttest.Fixture(0))
	CheckIdentity(t, "fixture report, 300 runs", reporttest.Large(300))
}

// TestEncodersRefuseNaNNamingTheField: an undefined figure must be null;
// NaN or ±Inf in a document is an error that names where it is.
func TestEncodersRefuseNaNNamingTheField(t *testing.T) {
	r := reporttest.Fixture(0)
	nan := math.NaN()
	r.Forecast.Brier = &nan
	for name, enc := range map[string]func(io.Writer, any) error{"yaml": WriteYAML, "json": WriteJSON} {
		err := enc(io.Discard, r)
		if err == nil || !strings.Contains(err.Error(), "forecast.brier") || !strings.Contains(err.Error(), "NaN") {
			t.Errorf("%s: error %v, want one naming forecast.brier and NaN", name, err)
		}
	}
	doc := forecast.ScoreReport{Groups: make([]forecast.ScoredGroup, 3)}
	inf := math.Inf(-1)
	doc.Groups[2].Brier = &inf
	for name, enc := range map[string]func(io.Writer, any) error{"yaml": WriteYAML, "json": WriteJSON} {
		err := enc(io.Discard, &doc)
		if err == nil || !strings.Contains(err.Error(), "groups[2].brier") {
			t.Errorf("%s: error %v, want one naming groups[2].brier", name, err)
		}
	}
}

// TestEncodersReportWriteErrors: a failing writer is an error, not a
// silent truncation.
func TestEncodersReportWriteErrors(t *testing.T) {
	for name, enc := range map[string]func(io.Writer, any) error{"yaml": WriteYAML, "json": WriteJSON} {
		err := enc(FailingWriter{}, reporttest.Large(50))
		if !errors.Is(err, ErrDiskFull) {
			t.Errorf("%s: error %v, want the writer's", name, err)
		}
	}
}

// TestExactTypesKeepEveryDigit: numbers inside per-run input data are
// written shortest-round-trip whatever their key, so merge recomputes
// from the same values.
func TestExactTypesKeepEveryDigit(t *testing.T) {
	r := reporttest.Fixture(3)
	r.Comparisons[0].Light.RuntimeFidelity = 66.66666666666667
	tenth, fifth := 0.1, 0.2
	r.Comparisons[0].RuntimeFidelityDelta = tenth + fifth
	for _, enc := range []func(any) ([]byte, error){EncodeYAML, EncodeJSON} {
		b, err := enc(r)
		if err != nil {
			t.Fatal(err)
		}
		back, err := reportio.ParseReport(b)
		if err != nil {
			t.Fatal(err)
		}
		if got := back.Comparisons[0].Light.RuntimeFidelity; got != 66.66666666666667 {
			t.Errorf("light runtime_fidelity read back as %v", got)
		}
		if got := back.Comparisons[0].RuntimeFidelityDelta; got != tenth+fifth {
			t.Errorf("runtime_fidelity_delta read back as %v", got)
		}
		if got := *back.AgreementRate.Percent; got != RoundFloat(*r.AgreementRate.Percent, Percent, 64) {
			t.Errorf("agreement percent read back as %v, want it rounded to 2 decimals", got)
		}
	}
}

// An empty reliability bin has no rate: the report writes null (as the
// README promises), never 0, which would read as a rate of 0% (issue 28).
func TestEmptyReliabilityBinsAreNull(t *testing.T) {
	r := reporttest.Fixture(0)
	var empty int
	for _, b := range r.Forecast.Reliability.Table {
		if b.Count == 0 {
			empty++
		}
	}
	if empty == 0 {
		t.Skip("the fixture has no empty bin")
	}
	y, err := EncodeYAML(r)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(y)
	_, table, _ := strings.Cut(doc, "    table:\n")
	bins := strings.Split(table, "      - lower:")
	nulls := 0
	for _, b := range bins {
		if strings.Contains(b, "count: 0\n") {
			if !strings.Contains(b, "mean_forecast: null") || !strings.Contains(b, "observed_rate: null") || !strings.Contains(b, "rate_ci95: null") {
				t.Errorf("an empty bin is not null:\n%s", b)
			}
			nulls++
		}
	}
	if nulls != empty {
		t.Errorf("%d empty bins written null, want %d", nulls, empty)
	}
}
