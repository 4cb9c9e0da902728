package reportenc_test

import (
	"bytes"
	"reflect"
	"testing"

	. "github.com/evalcal/evalcal/internal/reportenc"
	. "github.com/evalcal/evalcal/report"
	"github.com/evalcal/evalcal/report/render"
	"github.com/evalcal/evalcal/report/reportio"
	"github.com/evalcal/evalcal/report/reporttest"

	"github.com/evalcal/evalcal/forecast"
)

// TestRoundedDocumentsReadBackAndReencodeIdentically: a rounded report
// (YAML and JSON) reads back with the report reader, and re-encoding what
// was read gives the same bytes (rounding is idempotent), so merge and
// render see one set of figures however often a report is re-read.
func TestRoundedDocumentsReadBackAndReencodeIdentically(t *testing.T) {
	for name, r := range map[string]*Report{"fixture": reporttest.Fixture(0), "300 runs": reporttest.Large(300)} {
		for format, enc := range map[string]func(any) ([]byte, error){"yaml": EncodeYAML, "json": EncodeJSON} {
			first, err := enc(r)
			if err != nil {
				t.Fatal(err)
			}
			back, err := reportio.ParseReport(first)
			if err != nil {
				t.Fatalf("%s %s: %v", name, format, err)
			}
			second, err := enc(back)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(first, second) {
				t.Errorf("%s %s: re-encoding the read-back report differs:\n%s", name, format, LineDiff(second, first))
			}
		}
	}
	doc := LargeScoreDocument(t, 200)
	first, err := EncodeYAML(doc)
	if err != nil {
		t.Fatal(err)
	}
	var back forecast.ScoreReport
	if err := DecodeDocument(first, &back); err != nil {
		t.Fatal(err)
	}
	second, err := EncodeYAML(&back)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(first, second) {
		t.Errorf("score document: re-encoding differs:\n%s", LineDiff(second, first))
	}
}

// TestRenderersAgreeOnRoundedReport: Markdown and HTML of the report r as
// computed (what run --format markdown renders) equal those of r read back
// from its YAML or JSON file (what render does), digit for digit: both
// renderers round r by the precision rule first (Rounded), without which a
// 3-decimal display of 0.75750000001 and of its document value 0.7575
// would differ.
func TestRenderersAgreeOnRoundedReport(t *testing.T) {
	r := reporttest.Fixture(0)
	rounded, err := Rounded(r)
	if err != nil {
		t.Fatal(err)
	}
	for format, enc := range map[string]func(any) ([]byte, error){"yaml": EncodeYAML, "json": EncodeJSON} {
		data, err := enc(r)
		if err != nil {
			t.Fatal(err)
		}
		back, err := reportio.ParseReport(data)
		if err != nil {
			t.Fatal(err)
		}
		for name, render := range map[string]func(*Report) ([]byte, error){"markdown": render.Markdown, "html": render.HTML} {
			a, err := render(r)
			if err != nil {
				t.Fatal(err)
			}
			b, err := render(back)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(a, b) {
				t.Errorf("%s of the rounded report differs from %s of its %s file:\n%s", name, name, format, LineDiff(b, a))
			}
		}
		if !reflect.DeepEqual(back.AgreementRate, rounded.AgreementRate) || len(back.Comparisons) != len(r.Comparisons) {
			t.Errorf("%s: read back %+v, rounded %+v", format, back.AgreementRate, rounded.AgreementRate)
		}
	}
	if *r.AgreementRate.Percent == *rounded.AgreementRate.Percent {
		t.Errorf("Rounded left the agreement percent %v unrounded", *r.AgreementRate.Percent)
	}
}
