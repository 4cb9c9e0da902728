package builtin

import (
	"context"
	"strings"
	"testing"

	"github.com/evalcal/evalcal/inspection"
)

// FuzzOutputChecks feeds arbitrary output bytes to the deep substance
// checks: they must not panic, and every flag must be a known id whose
// evidence names the file.
func FuzzOutputChecks(f *testing.F) {
	for _, s := range []string{
		reportBody, "", "   \n", "# x\n\nkind: output\n\n---\n\n```go\nfunc", "TODO\n", "[{\"a\": \"TBD\"",
		"# x\nkind:\n---\n", "---\n---\n", "\x00binary",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		c := newCheck(context.Background(), inspection.Run{ID: "r", Path: t.TempDir()}, inspection.Deep)
		c.checkText("bindings/x/out.md", b, true)
		c.checkJSON("bindings/x/out.json", b, true)
		c.checkPublished("world-model/x/published.json", b)
		for _, fl := range c.flags {
			if _, ok := deductions[fl.ID]; !ok {
				t.Errorf("unknown flag id %q", fl.ID)
			}
			if !strings.Contains(fl.Evidence, "/") {
				t.Errorf("flag %s evidence %q names no file", fl.ID, fl.Evidence)
			}
		}
	})
}
