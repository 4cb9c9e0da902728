package report

import (
	"path/filepath"
	"testing"

	"github.com/evalcal/evalcal/internal/testutil"
)

// checkGolden compares got with the golden file at path relative to the
// repository root (testutil.CheckGolden: -update rewrites it, a mismatch
// writes path+".got").
func checkGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	testutil.CheckGolden(t, filepath.Join("..", path), path, got)
}
