package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalcal/evalcal/drift"
)

// driftJudge is an exec judge for the nightly recipe: it fails a run
// whose id ends in 0-7 and passes the others, and passes every run once
// the file named by its third argument exists (a judge grown lenient
// behind the same command, as a model updated behind the same name).
const driftJudge = `#!/bin/sh
case "$EVALCAL_RUN_ID" in
*[0-7]) verdict=fail; score=30 ;;
*) verdict=pass; score=80 ;;
esac
if [ -f "$3" ]; then verdict=pass; score=80; fi
printf '{"run_id":"%s","depth":"%s","runtime_fidelity":%s,"task_effectiveness":%s,"verdict":"%s","flags":[],"summary":"x","cost":{"seconds":0}}\n' \
	"$EVALCAL_RUN_ID" "$2" "$score" "$score" "$verdict"
`

// TestNightlyDriftRecipe plays examples/nightly/drift.sh as cron would,
// on a copy of the bundled corpus: the first night freezes the anchors,
// three quiet nights exit 0 with a history growing by one look a night,
// and the night the judge grows lenient exits 3 with drift detected at
// that look. The README's excerpt of the recipe is in the file.
func TestNightlyDriftRecipe(t *testing.T) {
	skipShort(t)
	root := repoRoot(t)
	script, err := os.ReadFile(filepath.Join(root, "examples", "nightly", "drift.sh"))
	if err != nil {
		t.Fatal(err)
	}
	p := newRecipePlayer(t)
	ws := p.workspace(t, true)
	for name, data := range map[string]string{"drift.sh": string(script), "judge.sh": driftJudge} {
		if err := os.WriteFile(filepath.Join(ws, name), []byte(data), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	lenient := filepath.Join(ws, "lenient")
	env := []string{"EVALCAL_LIGHT=exec:sh " + filepath.Join(ws, "judge.sh") + " {run} {depth} " + lenient}
	night := func(n string) (*drift.Document, error) {
		err := p.exec(ws, append(env, "EVALCAL_NIGHT="+n), "sh", "drift.sh")
		data, rerr := os.ReadFile(filepath.Join(ws, "drift", n+".yaml"))
		if rerr != nil {
			t.Fatalf("night %s wrote no document (%v): %v", n, err, rerr)
		}
		doc, perr := drift.ParseDocument(data, n)
		if perr != nil {
			t.Fatal(perr)
		}
		return doc, err
	}
	for i, n := range []string{"2026-12-01", "2026-12-02", "2026-12-03"} {
		doc, err := night(n)
		if err != nil {
			t.Fatalf("quiet night %s: %v", n, err)
		}
		if doc.Detected || doc.History == nil || doc.History.Looks != i+1 || doc.Light.Flips.Count != 0 {
			t.Errorf("quiet night %s: detected %v, history %+v, flips %d", n, doc.Detected, doc.History, doc.Light.Flips.Count)
		}
	}
	if err := os.WriteFile(lenient, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	doc, err := night("2026-12-04")
	if err == nil || !strings.Contains(err.Error(), "exit status 3") || !strings.Contains(err.Error(), "drift.sh: the judge changed") {
		t.Fatalf("lenient night: %v, want exit 3 and the script's message", err)
	}
	if !doc.Detected || doc.History.FirstDetected != 4 || doc.Light.Flips.ToPass == 0 || doc.Light.Flips.ToNotPass != 0 {
		t.Errorf("lenient night: detected %v first %d flips %+v", doc.Detected, doc.History.FirstDetected, doc.Light.Flips)
	}

	// render --history shows the nights, the last one detected.
	r := runBinary(t, binOptions{dir: ws}, "render", "--history", "drift", "--format", "markdown")
	if r.code != 0 || !strings.Contains(r.stdout, "## Drift checks\n\n4 drift checks; the latest (2026-12-04): drift detected.") ||
		strings.Count(r.stdout, "| 2026-12-0") != 4 || !strings.Contains(r.stdout, "| **detected** |") {
		t.Errorf("render --history: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	r = runBinary(t, binOptions{dir: ws}, "render", "--history", "drift", "--format", "html")
	if r.code != 0 || !strings.Contains(r.stdout, `<section id="drift"><h2>Drift checks</h2>`) || !strings.Contains(r.stdout, "<strong>detected</strong>") {
		t.Errorf("render --history html: exit %d\n%s", r.code, r.stderr)
	}

	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, _ := strings.Cut(string(readme), "\n## Catching a judge that changed\n")
	_, block, _ := strings.Cut(section, "(examples/nightly/drift.sh)")
	_, block, _ = strings.Cut(block, "```sh\n")
	block, _, _ = strings.Cut(block, "```")
	checked := 0
	for _, l := range strings.Split(block, "\n") {
		if l = strings.TrimSpace(l); l == "" {
			continue
		}
		checked++
		if !strings.Contains(string(script), l) {
			t.Errorf("README recipe line %q is not in examples/nightly/drift.sh", l)
		}
	}
	if checked < 3 {
		t.Errorf("checked %d README recipe lines, want the recipe's", checked)
	}
}
