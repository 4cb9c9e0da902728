package report_test

import (
	"encoding/json"
	"testing"

	"github.com/evalcal/evalcal/calibrate"
	"github.com/evalcal/evalcal/gates"
	"github.com/evalcal/evalcal/internal/reportenc"
	"github.com/evalcal/evalcal/report"
	"github.com/evalcal/evalcal/report/reporttest"
)

func TestReportWithTrendAndGatesMatchesSchema(t *testing.T) {
	r := reporttest.Fixture(0)
	b, err := reportenc.EncodeJSON(r)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	tr := calibrate.CompareReports(reporttest.Fixture(8), r)
	gs, _ := gates.Parse([]string{"agreement.lower >= 80"})
	for k, v := range map[string]any{"trend": tr, "gates": gates.Check(gs, r)} {
		vb, _ := json.Marshal(v)
		var vv any
		_ = json.Unmarshal(vb, &vv)
		m[k] = vv
	}
	b, _ = json.Marshal(m)
	if err := report.ValidateAgainstSchema(t, b); err != nil {
		t.Error(err)
	}
}
