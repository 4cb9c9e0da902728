package report_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/evalcal/evalcal/internal/reportenc"
	"github.com/evalcal/evalcal/report"
	"github.com/evalcal/evalcal/report/reporttest"
)

// Every comparison and sample run the writer writes is read by the
// runs file reader's fast decoders (report/runs_file_fast.go), to what
// encoding/json reads: none is left to the slow path.
func TestTheWritersLinesTakeTheFastDecoders(t *testing.T) {
	var b bytes.Buffer
	if _, err := reportenc.WriteRunsFile(context.Background(), &b, reporttest.Large(3000)); err != nil {
		t.Fatal(err)
	}
	took, left := report.FastAgrees(t, b.Bytes())
	if took < 3000 || left != 0 {
		t.Errorf("the fast decoders took %d lines and left %d, want every comparison and sample run", took, left)
	}
}
