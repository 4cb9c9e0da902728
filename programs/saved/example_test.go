package saved_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/evalcal/evalcal/programs/saved"
	"github.com/evalcal/evalcal/runner"
)

// Saved inspections feed the runner like any inspector; a run saved at
// one depth only becomes a failure, not an error.
func ExampleLoad() {
	dir, err := os.MkdirTemp("", "saved-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "inspections.jsonl")
	lines := `{"run_id":"r1","program":"alpha","depth":"light","runtime_fidelity":80,"task_effectiveness":70,"verdict":"pass"}
{"run_id":"r1","system":"alpha","depth":"deep","runtime_fidelity":50,"task_effectiveness":30,"verdict":"fail"}
{"run_id":"r2","system":"beta","depth":"light","runtime_fidelity":60,"task_effectiveness":60,"verdict":"partial"}
`
	if err := os.WriteFile(path, []byte(lines), 0o644); err != nil {
		fmt.Println(err)
		return
	}
	in, runs, err := saved.Load(path)
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := runner.Run(context.Background(), runs, in, runner.Options{Jobs: 1, Timeout: time.Second})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, p := range res.Pairs {
		fmt.Printf("%s (%s): light %s, deep %s\n", p.Run.ID, p.Run.System, p.Light.Verdict, p.Deep.Verdict)
	}
	for _, f := range res.Failures {
		fmt.Printf("failed: %s %s after %d attempt: %s\n", f.RunID, f.Depth, f.Attempts, f.Reason)
	}
	// Output:
	// r1 (alpha): light pass, deep fail
	// failed: r2 deep after 1 attempt: saved: run r2: no saved deep inspection
}
