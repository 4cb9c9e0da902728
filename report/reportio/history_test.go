package reportio

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/evalcal/evalcal/report/reporttest"
)

func TestReadHistoryReadsADirectoryInNameOrder(t *testing.T) {
	dir := t.TempDir()
	reporttest.WriteNightly(t, dir)
	// Not reports: a subdirectory, a text file, a score-like document, and
	// a named pipe with a report's name (never opened).
	if err := os.Mkdir(filepath.Join(dir, "old.yaml"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "2026-03-02b.yaml"), []byte("schema_version: 1\ngroups: []\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "2026-03-04.yaml"), 0o644); err != nil {
		t.Fatal(err)
	}
	h, err := ReadHistory(context.Background(), []string{dir})
	if err != nil {
		t.Fatal(err)
	}
	var labels []string
	for _, n := range h.Nights {
		labels = append(labels, n.Label)
	}
	if got := strings.Join(labels, " "); got != "2026-03-01 2026-03-02 2026-03-03" {
		t.Errorf("nights %s", got)
	}
	var skipped []string
	for _, s := range h.Skipped {
		skipped = append(skipped, filepath.Base(s.Path)+": "+s.Reason)
	}
	// Files that are not regular are set aside while listing (in name
	// order), documents that are not reports when read.
	if len(skipped) != 3 || skipped[0] != "2026-03-04.yaml: not a regular file" || skipped[1] != "old.yaml: not a regular file" ||
		!strings.HasPrefix(skipped[2], "2026-03-02b.yaml: report: read ") || !strings.Contains(skipped[2], "does not match the report schema") {
		t.Errorf("skipped:\n%s", strings.Join(skipped, "\n"))
	}
	n2 := h.Nights[1]
	if n2.Gates != 2 || len(n2.GatesFailed) != 1 || n2.GatesFailed[0] != "agreement.lower >= 80" {
		t.Errorf("night 2 gates %d, failed %v", n2.Gates, n2.GatesFailed)
	}
	if h.Nights[2].Estimate == nil || h.Nights[0].Estimate != nil {
		t.Error("only night 3 has an estimate")
	}
}

// Explicit reports keep the order given; a file that cannot be read is
// listed and the rest go on; none read is ErrNoHistory; a cancelled
// context stops the loop.
func TestReadHistoryOrderErrorsAndCancel(t *testing.T) {
	dir := t.TempDir()
	reporttest.WriteNightly(t, dir)
	paths := []string{filepath.Join(dir, "2026-03-03.yaml"), filepath.Join(dir, "missing.yaml"), filepath.Join(dir, "2026-03-01.yaml")}
	h, err := ReadHistory(context.Background(), paths)
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Nights) != 2 || h.Nights[0].Label != "2026-03-03" || h.Nights[1].Label != "2026-03-01" {
		t.Errorf("nights %+v", h.Nights)
	}
	if len(h.Skipped) != 1 || !strings.Contains(h.Skipped[0].Reason, "no such file") {
		t.Errorf("skipped %+v", h.Skipped)
	}
	if _, err := ReadHistory(context.Background(), []string{filepath.Join(dir, "missing.yaml")}); !errors.Is(err, ErrNoHistory) {
		t.Errorf("err = %v, want ErrNoHistory", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ReadHistory(ctx, []string{dir}); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}
