package reporttest

import (
	"path/filepath"
	"testing"

	"github.com/evalcal/evalcal/internal/reportenc"
	"github.com/evalcal/evalcal/internal/testutil"
)

// TestSyntheticReportFileIsCurrent keeps testdata/render/synthetic.yaml,
// the input of the render golden tests, in step with the stages.
func TestSyntheticReportFileIsCurrent(t *testing.T) {
	b, err := reportenc.EncodeYAML(Fixture(0))
	if err != nil {
		t.Fatal(err)
	}
	const path = "testdata/render/synthetic.yaml"
	testutil.CheckGolden(t, filepath.Join("..", "..", path), path, b)
}
