package saved

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalcal/evalcal/inspection"
)

// The file limit counts every byte, newlines and blank lines included;
// the line limit counts a line without its newline.
func TestLimitsAreExact(t *testing.T) {
	line := `{"run_id":"r","depth":"light","runtime_fidelity":1,"task_effectiveness":1,"verdict":"pass"}`
	path := filepath.Join(t.TempDir(), "f.jsonl")
	data := line + "\n\n"
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := load(context.Background(), path, limits{line: len(line), file: int64(len(data))}, selection{}); err != nil {
		t.Errorf("at both limits: %v", err)
	}
	if _, _, err := load(context.Background(), path, limits{line: len(line), file: int64(len(data) - 1)}, selection{}); err == nil ||
		!strings.Contains(err.Error(), fmt.Sprintf("longer than %d bytes", len(data)-1)) {
		t.Errorf("one byte over the file limit: %v", err)
	}
	in, _, err := load(context.Background(), path, limits{line: len(line) - 1, file: 1 << 20}, selection{})
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf(":1: line longer than %d bytes", len(line)-1)
	if _, ierr := in.Inspect(context.Background(), inspection.Run{ID: "r"}, inspection.Light); ierr == nil || !strings.Contains(ierr.Error(), want) {
		t.Errorf("one byte over the line limit: %v", ierr)
	}
}
