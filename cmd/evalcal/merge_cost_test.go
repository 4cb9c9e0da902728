package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// savedWithCosts writes n runs of saved inspections whose cost.usd and
// cost.seconds have several decimals, so that a float64 sum depends on the
// order it is added in, and returns the file and the exact totals of each
// side in nano-dollars and microseconds.
func savedWithCosts(t *testing.T, n int) string {
	t.Helper()
	r := rand.New(rand.NewPCG(26, 64))
	var b strings.Builder
	verdicts := []string{"pass", "partial", "fail"}
	for i := range n {
		system := []string{"alpha", "beta", "gamma"}[i%3]
		for _, depth := range []string{"light", "deep"} {
			fmt.Fprintf(&b, `{"run_id":"run-%05d","system":%q,"depth":%q,"runtime_fidelity":%d,"task_effectiveness":%d,"verdict":%q,"cost":{"seconds":%v,"tokens":%d,"usd":%v}}`+"\n",
				i, system, depth, r.IntN(101), r.IntN(101), verdicts[r.IntN(3)],
				float64(r.IntN(30000))/1e3+0.1, 100+r.IntN(900), float64(r.IntN(20000))/1e6+0.01)
		}
	}
	// Bad lines: a shard only skims other shards' lines (saved.LoadShard),
	// and its sample must still be the unsharded one.
	b.WriteString(`{"run_id":"bad-1","system":"alpha","depth":"light","runtime_fidelity":1,"task_effectiveness":1,"verdict":"maybe"}
{"run_id":"bad-1","system":"alpha","depth":"deep","runtime_fidelity":1,"task_effectiveness":1,"verdict":"pass"}
{"run_id":"bad-2","system":"beta","depth":"light","runtime_fidelity":1,"task_effectiveness":1,"verdict":"maybe"}
{"run_id":"bad-2","system":"beta","depth":"deep","runtime_fidelity":1,"task_effectiveness":1,"verdict":"maybe"}
{"run_id":"bad-3","system":"alpha","depth":"light","runtime_fidelity":1,"task_effectiveness":1,"verdict":"pass"}
{"run_id":"bad-3","system":"gamma","depth":"deep","runtime_fidelity":1,"task_effectiveness":1,"verdict":"pass"}
{"depth":"light"}
`)
	p := filepath.Join(t.TempDir(), "saved.jsonl")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// The merge of 64 shards is byte-identical to the unsharded report, the
// cost section included: cost sums are integers (runner/exactsum.go), not
// float64 sums whose last digits depend on how the runs were grouped; and
// shards that skim other shards' lines (saved.LoadShard) still list the
// unsharded sample, bad lines included.
func TestMergeOf64ShardsEqualsUnshardedWithCosts(t *testing.T) {
	saved := savedWithCosts(t, 64*12)
	whole, stderr, code := runCLI(t, "run", "--no-cache", "--inspections", saved)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(whole, "usd:") || strings.Contains(whole, "usd: 0\n") {
		t.Fatalf("the report has no cost in USD to compare:\n%.2000s", whole)
	}
	dir := t.TempDir()
	var shards []string
	for i := 64; i >= 1; i-- { // any order merges to the same bytes
		p := filepath.Join(dir, fmt.Sprintf("shard-%02d.yaml", i))
		if _, stderr, code := runCLI(t, "run", "--no-cache", "--shard", fmt.Sprintf("%d/64", i), "-o", p, "--inspections", saved); code != 0 {
			t.Fatalf("shard %d: exit %d: %s", i, code, stderr)
		}
		shards = append(shards, p)
	}
	merged, stderr, code := runCLI(t, append([]string{"merge"}, shards...)...)
	if code != 0 {
		t.Fatalf("merge: exit %d: %s", code, stderr)
	}
	if merged != whole {
		w, m := strings.Split(whole, "\n"), strings.Split(merged, "\n")
		for i := range min(len(w), len(m)) {
			if w[i] != m[i] {
				t.Fatalf("merged report differs from the unsharded one at line %d:\n unsharded: %s\n merged:    %s", i+1, w[i], m[i])
			}
		}
		t.Fatalf("merged report differs in length: %d lines, unsharded %d", len(m), len(w))
	}
}

// Shards of a job that samples every run read their own runs only
// (inputs.shard_scope own): a shard with no run of its own still writes
// its report, merge checks each shard's runs against its own content
// hash, and refuses a whole sample under the minimum, as the unsharded
// run does.
func TestMergeOfShardsReadingOwnRuns(t *testing.T) {
	dir := t.TempDir()
	saved := filepath.Join(dir, "two.jsonl")
	two := `{"run_id":"a","system":"alpha","depth":"light","runtime_fidelity":80,"task_effectiveness":70,"verdict":"pass"}
{"run_id":"a","system":"alpha","depth":"deep","runtime_fidelity":80,"task_effectiveness":70,"verdict":"pass"}
{"run_id":"b","system":"beta","depth":"light","runtime_fidelity":80,"task_effectiveness":70,"verdict":"pass"}
{"run_id":"b","system":"beta","depth":"deep","runtime_fidelity":80,"task_effectiveness":70,"verdict":"fail"}
`
	if err := os.WriteFile(saved, []byte(two), 0o644); err != nil {
		t.Fatal(err)
	}
	var shards []string
	for i := 1; i <= 8; i++ {
		p := filepath.Join(dir, fmt.Sprintf("shard-%d.yaml", i))
		// Exit 1 is a shard none of whose runs got both inspections (here:
		// one with no run of its own); its report is written all the same.
		if _, stderr, code := runCLI(t, "run", "--no-cache", "--shard", fmt.Sprintf("%d/8", i), "-o", p, "--inspections", saved); code > 1 {
			t.Fatalf("shard %d: exit %d: %s", i, code, stderr)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), "shard_scope: own") {
			t.Fatalf("shard %d does not say it read its own runs only", i)
		}
		shards = append(shards, p)
	}
	if stderr, code := runCLIPrinted(t, append([]string{"merge"}, shards...)...); code != 2 || !strings.Contains(stderr, "need at least") {
		t.Errorf("merge of a sample under the minimum: exit %d: %s", code, stderr)
	}
	if stderr, code := runCLIPrinted(t, "run", "--no-cache", "--inspections", saved); code != 2 || !strings.Contains(stderr, "need at least") {
		t.Errorf("the unsharded run of that sample: exit %d: %s", code, stderr)
	}

	saved = savedWithCosts(t, 40)
	shards = shards[:0]
	for i := 1; i <= 2; i++ {
		p := filepath.Join(dir, fmt.Sprintf("big-%d.yaml", i))
		if _, stderr, code := runCLI(t, "run", "--no-cache", "--shard", fmt.Sprintf("%d/2", i), "-o", p, "--inspections", saved); code != 0 {
			t.Fatalf("shard %d: exit %d: %s", i, code, stderr)
		}
		shards = append(shards, p)
	}
	b, err := os.ReadFile(shards[1])
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(b), "content_hash: ", "content_hash: 0", 1)
	if err := os.WriteFile(shards[1], []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	if stderr, code := runCLIPrinted(t, append([]string{"merge"}, shards...)...); code != 2 || !strings.Contains(stderr, "not the ones its inputs.content_hash names") {
		t.Errorf("merge of an edited own-runs shard: exit %d: %q", code, stderr)
	}
}

// Own-runs shards of a file in several layouts (the run id first or not,
// spaces, escapes, metadata that conflicts between a run's lines and so
// warns on the run) merge to the unsharded report, byte for byte.
func TestOwnRunsShardsOfMixedLinesMergeExactly(t *testing.T) {
	var b strings.Builder
	verdicts := []string{"pass", "partial", "fail"}
	for i := range 60 {
		id, sys := fmt.Sprintf("run-%02d", i), []string{"alpha", "beta", "gamma"}[i%3]
		light := fmt.Sprintf(`{"run_id":%q,"system":%q,"depth":"light","runtime_fidelity":%d,"task_effectiveness":%d,"verdict":%q,"metadata":{"task":"t%d"}}`,
			id, sys, i%101, (i*7)%101, verdicts[i%3], i%5)
		deep := fmt.Sprintf(`{"depth": "deep", "system": %q, "run_id": %q, "runtime_fidelity": %d, "task_effectiveness": %d, "verdict": %q, "summary": "says \"run_id\": \u00e9"}`,
			sys, id, (i*3)%101, (i*11)%101, verdicts[(i/2)%3])
		if i%4 == 0 { // a conflicting metadata value: a warning on the run
			deep = strings.TrimSuffix(deep, "}") + fmt.Sprintf(`, "metadata": {"task": "other%d"}}`, i)
		}
		b.WriteString(light + "\n" + deep + "\n")
	}
	saved := filepath.Join(t.TempDir(), "mixed.jsonl")
	if err := os.WriteFile(saved, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	whole, stderr, code := runCLI(t, "run", "--no-cache", "--by", "task", "--inspections", saved)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(whole, "read_in_part: 15") {
		t.Fatalf("the unsharded report does not count the 15 runs with warnings:\n%.3000s", whole)
	}
	dir := t.TempDir()
	var shards []string
	for i := 1; i <= 4; i++ {
		p := filepath.Join(dir, fmt.Sprintf("shard-%d.yaml", i))
		if _, stderr, code := runCLI(t, "run", "--no-cache", "--by", "task", "--shard", fmt.Sprintf("%d/4", i), "-o", p, "--inspections", saved); code != 0 {
			t.Fatalf("shard %d: exit %d: %s", i, code, stderr)
		}
		shards = append(shards, p)
	}
	merged, stderr, code := runCLI(t, append([]string{"merge"}, shards...)...)
	if code != 0 {
		t.Fatalf("merge: exit %d: %s", code, stderr)
	}
	if merged != whole {
		w, m := strings.Split(whole, "\n"), strings.Split(merged, "\n")
		for i := range min(len(w), len(m)) {
			if w[i] != m[i] {
				t.Fatalf("merged report differs from the unsharded one at line %d:\n unsharded: %s\n merged:    %s", i+1, w[i], m[i])
			}
		}
		t.Fatalf("merged report differs in length: %d lines, unsharded %d", len(m), len(w))
	}
}
