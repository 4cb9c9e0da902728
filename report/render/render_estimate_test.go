package render

import (
	"strings"
	"testing"

	"github.com/evalcal/evalcal/report"
	"github.com/evalcal/evalcal/statistician"
)

// A stratified PPI++ estimate that fell back to pooled PPI++ says so in
// its row; one that did not, does not.
func TestEstimateRowSaysPooled(t *testing.T) {
	p, se, lam := 0.4, 0.02, 0.8
	ci := statistician.Interval{Lower: 0.36, Upper: 0.44}
	m := report.MethodEstimate{Point: &p, SE: &se, CI95: &ci, Lambda: &lam, Pooled: true}
	if row := estimateRow("deep pass rate", "stratified_ppi", m, true); !strings.Contains(row[1], "pooled") {
		t.Errorf("pooled row %q", row)
	}
	m.Pooled = false
	if row := estimateRow("deep pass rate", "stratified_ppi", m, true); strings.Contains(row[1], "pooled") {
		t.Errorf("row %q says pooled", row)
	}
}
