package reporttest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/evalcal/evalcal/gates"
	"github.com/evalcal/evalcal/internal/reportenc"
	"github.com/evalcal/evalcal/report"
)

// WriteNightly writes three synthetic nightly reports into dir: night 1
// on 8 runs with a gate that passes, night 2 on 11 runs with a gate that
// fails, night 3 on 14 runs with a deep pass-rate estimate (an
// illustrative figure: the history only shows it) and no gate.
func WriteNightly(t testing.TB, dir string) {
	t.Helper()
	write := func(name string, r *report.Report, json bool) {
		var b []byte
		var err error
		if json {
			b, err = reportenc.EncodeJSON(r)
		} else {
			b, err = reportenc.EncodeYAML(r)
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	check := func(r *report.Report, exprs ...string) {
		gs, err := gates.Parse(exprs)
		if err != nil {
			t.Fatal(err)
		}
		r.Gates = gates.Check(gs, r)
		report.Summarize(r)
	}
	n1 := Fixture(8)
	check(n1, "confidence >= low")
	n2 := Fixture(11)
	check(n2, "agreement.lower >= 80", "confidence >= low")
	n3 := Fixture(0)
	n3.Estimate = &report.Estimate{NLight: 20, NDeep: 14, Best: &report.BestEstimate{Method: "ppi", Point: 0.4523, Lower: 0.31, Upper: 0.6}}
	report.Summarize(n3)
	write("2026-03-01.yaml", n1, false)
	write("2026-03-02.json", n2, true)
	write("2026-03-03.yaml", n3, false)
}
