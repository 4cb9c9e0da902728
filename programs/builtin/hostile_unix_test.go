//go:build unix

package builtin

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/evalcal/evalcal/inspection"
	"github.com/evalcal/evalcal/sampler"
)

// inspectWithin inspects at both depths, failing if a call does not
// return within 5 s (a blocked open of a pipe).
func inspectWithin(t *testing.T, r inspection.Run) map[inspection.Depth]inspection.Inspection {
	t.Helper()
	out := map[inspection.Depth]inspection.Inspection{}
	for _, d := range []inspection.Depth{inspection.Light, inspection.Deep} {
		done := make(chan struct{})
		var insp inspection.Inspection
		var err error
		go func() {
			defer close(done)
			insp, err = New().Inspect(context.Background(), r, d)
		}()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatalf("Inspect at %s did not return within 5 s (blocked on a pipe?)", d)
		}
		if err != nil {
			t.Fatalf("Inspect at %s: %v", d, err)
		}
		out[d] = insp
	}
	return out
}

func flagIDs(insp inspection.Inspection) string {
	var ids []string
	for _, f := range insp.Flags {
		ids = append(ids, f.ID+"@"+f.Evidence)
	}
	return strings.Join(ids, " ")
}

// Issue 13.1: a pipe named forme.manifest.json, or a binding that is a
// pipe by the time the inspector reads it, must not block the inspector.
func TestInspectNeverOpensANamedPipe(t *testing.T) {
	files := baseRun()
	delete(files, "forme.manifest.json")
	r := writeRun(t, files)
	if err := syscall.Mkfifo(filepath.Join(r.Path, "forme.manifest.json"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	// The description was taken before the binding became a pipe.
	report := filepath.Join(r.Path, "bindings", "writer", "report.md")
	if err := os.Remove(report); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(report, 0o644); err != nil {
		t.Fatal(err)
	}
	got := inspectWithin(t, r)
	for d, insp := range got {
		flags := flagIDs(insp)
		if !strings.Contains(flags, inspection.FlagManifestBroken+"@") || !strings.Contains(flags, inspection.FlagOutputUnreadable+"@bindings/writer/report.md") {
			t.Errorf("%s flags %q: want the manifest and the piped output reported unreadable", d, flags)
		}
	}
}

// Issue 13.11: an output that a symlink leads to from outside the run is
// never read, even when a (stale or forged) description lists it.
func TestInspectReadsNothingOutsideTheRun(t *testing.T) {
	secret := filepath.Join(t.TempDir(), "secret.md")
	if err := os.WriteFile(secret, []byte("# x\n\nkind: output\n\n---\n\nTODO fill in\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := writeRun(t, baseRun())
	report := filepath.Join(r.Path, "bindings", "writer", "report.md")
	if err := os.Remove(report); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, report); err != nil {
		t.Skipf("symlinks unavailable: %v", err)
	}
	deep := inspectWithin(t, r)[inspection.Deep]
	flags := flagIDs(deep)
	if strings.Contains(flags, inspection.FlagPlaceholder) {
		t.Errorf("deep flags %q: the outside file was read", flags)
	}
	if !strings.Contains(flags, inspection.FlagOutputUnreadable+"@bindings/writer/report.md") {
		t.Errorf("deep flags %q: want the output reported unreadable", flags)
	}
	// Described afresh, the link is not a binding at all.
	fresh, err := sampler.Describe(r.Path)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range fresh.BindingsPresent {
		if b == "bindings/writer/report.md" {
			t.Errorf("a binding linked from outside is present: %q", fresh.BindingsPresent)
		}
	}
}
