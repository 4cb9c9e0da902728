//go:build unix

package importers

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// A log given through a named pipe (a shell's <(...)) is read: a .eval
// archive into memory, within its limit, a .json log streamed.
func TestLoadFromPipe(t *testing.T) {
	for _, tc := range []struct{ name, src string }{
		{"eval", ""},
		{"json", logJSON("t", 1, sample("1", 1, `{"s": {"value": "C"}}`))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			content := []byte(tc.src)
			if tc.name == "eval" {
				var err error
				content, err = os.ReadFile(writeEval(t, []member{{name: "header.json", data: evalHeader}, evalSample(1, 1, `"C"`)}))
				if err != nil {
					t.Fatal(err)
				}
			}
			fifo := filepath.Join(t.TempDir(), "log")
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Skip(err)
			}
			go func() {
				w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
				if err != nil {
					return
				}
				w.Write(content)
				w.Close()
			}()
			src, runs, err := LoadInspect(context.Background(), fifo, "s")
			if err != nil || len(runs) != 1 {
				t.Fatalf("%v %v", runs, err)
			}
			if got := inspectAll(t, src, runs); got["1"].Verdict != "pass" {
				t.Errorf("%v", got)
			}
			if want := "inspect:" + sha256Hex(content)[:16] + "#s"; src.Identity() != want {
				t.Errorf("identity %q, want %q", src.Identity(), want)
			}
		})
	}
}
