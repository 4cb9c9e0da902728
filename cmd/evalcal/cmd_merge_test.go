package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalcal/evalcal/calibrate"
	"github.com/evalcal/evalcal/report/reportio"
)

// shardReports runs the corpus as n shards and returns the report paths.
func shardReports(t *testing.T, n int, extra ...string) []string {
	t.Helper()
	dir := t.TempDir()
	var paths []string
	for i := 1; i <= n; i++ {
		p := filepath.Join(dir, "shard"+string(rune('0'+i))+".yaml")
		args := append([]string{"run", "--no-cache", "--shard", string(rune('0'+i)) + "/" + string(rune('0'+n)), "-o", p}, extra...)
		if _, stderr, code := runCLI(t, append(args, "testdata/runs")...); code != 0 {
			t.Fatalf("shard %d: exit %d: %s", i, code, stderr)
		}
		paths = append(paths, p)
	}
	return paths
}

func TestMergedShardsEqualOneUnshardedRun(t *testing.T) {
	t.Chdir(repoRoot(t))
	whole, stderr, code := runCLI(t, "run", "--no-cache", "testdata/runs")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, n := range []int{2, 3, 7} {
		paths := shardReports(t, n)
		// Shards in any order merge to the same bytes.
		paths[0], paths[len(paths)-1] = paths[len(paths)-1], paths[0]
		merged, stderr, code := runCLI(t, append([]string{"merge"}, paths...)...)
		if code != 0 {
			t.Fatalf("merge of %d: exit %d: %s", n, code, stderr)
		}
		if merged != whole {
			os.WriteFile(filepath.Join(t.TempDir(), "merged.yaml"), []byte(merged), 0o644)
			t.Errorf("%d shards merged differ from the unsharded report", n)
		}
	}
}

func TestShardReportCoversOnlyItsRuns(t *testing.T) {
	t.Chdir(repoRoot(t))
	paths := shardReports(t, 3)
	data, err := os.ReadFile(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	rep, err := reportio.ParseReport(data)
	if err != nil {
		t.Fatal(err)
	}
	// Membership is by hash of the run id (calibrate.ShardOf); the shard
	// lists its own sampled runs only, not the whole sample.
	mine := 0
	for _, r := range rep.Sample.Runs {
		if calibrate.ShardOf(r.ID, 3) == 1 {
			mine++
		}
	}
	s := string(data)
	if rep.Inputs.Shard != "1/3" || rep.SampleSize != mine || mine == 0 || mine != len(rep.Sample.Runs) ||
		mine >= rep.Sample.Composition.Sampled || !strings.Contains(s, "evalcal merge") {
		t.Errorf("shard 1/3 report: shard %q, %d runs compared, %d listed of a sample of %d: want its %d runs only and the merge warning",
			rep.Inputs.Shard, rep.SampleSize, len(rep.Sample.Runs), rep.Sample.Composition.Sampled, mine)
	}
}

func TestMergeRefusesIncompleteOrMixedShards(t *testing.T) {
	t.Chdir(repoRoot(t))
	three := shardReports(t, 3)
	otherSeed := shardReports(t, 3, "--seed", "2", "--sample", "20")
	whole := filepath.Join(t.TempDir(), "whole.yaml")
	if _, _, code := runCLI(t, "run", "--no-cache", "-o", whole, "testdata/runs"); code != 0 {
		t.Fatal("whole run failed")
	}
	tests := []struct {
		name  string
		files []string
		msg   string
	}{
		{"missing shard", three[:2], "shard 3/3 is missing"},
		{"shard twice", []string{three[0], three[0], three[1], three[2]}, "given twice"},
		{"not a shard", []string{whole}, "not a shard report"},
		{"other job", []string{three[0], otherSeed[1], three[2]}, "not shards of one job"},
		{"no such file", []string{"testdata/none.yaml"}, "none.yaml"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			err := run(context.Background(), append([]string{"merge"}, tt.files...), &out, &errb)
			if code := exitCode(err); code != 2 || out.Len() != 0 {
				t.Fatalf("exit %d stdout %d bytes, want exit 2 and no output; err %v", code, out.Len(), err)
			}
			if !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("error %q does not say %q", err, tt.msg)
			}
		})
	}
	if _, _, code := runCLI(t, "merge"); code != 2 {
		t.Errorf("merge without files: exit %d, want 2", code)
	}
}

func TestShardFlagIsValidated(t *testing.T) {
	for _, bad := range []string{"0/3", "4/3", "1/0", "x/2", "2", "1/2/3"} {
		if _, _, code := runCLI(t, "run", "--shard", bad, "testdata/runs"); code != 2 {
			t.Errorf("--shard %s: exit %d, want 2", bad, code)
		}
	}
}

// Warnings derived from the sample (an oversized --sample, rejected saved
// lines) must survive sharding: merge recomputes them from the report.
func TestMergeKeepsSampleWarningsExact(t *testing.T) {
	t.Chdir(repoRoot(t))
	good, err := os.ReadFile("testdata/inspections/twelve.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	saved := filepath.Join(t.TempDir(), "saved.jsonl")
	if err := os.WriteFile(saved, append(good, []byte("{\"depth\": \"light\"}\n")...), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, input := range [][]string{
		{"--sample", "100", "testdata/runs"},
		{"--sample", "100", "--inspections", saved},
	} {
		whole, stderr, code := runCLI(t, append([]string{"run", "--no-cache"}, input...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", input, code, stderr)
		}
		dir := t.TempDir()
		var shards []string
		for _, s := range []string{"1/2", "2/2"} {
			p := filepath.Join(dir, strings.ReplaceAll(s, "/", "-")+".yaml")
			if _, stderr, code := runCLI(t, append([]string{"run", "--no-cache", "--shard", s, "-o", p}, input...)...); code != 0 {
				t.Fatalf("shard %s: exit %d: %s", s, code, stderr)
			}
			shards = append(shards, p)
		}
		merged, stderr, code := runCLI(t, append([]string{"merge"}, shards...)...)
		if code != 0 {
			t.Fatalf("merge: exit %d: %s", code, stderr)
		}
		if merged != whole {
			t.Errorf("%v: merged shards differ from the unsharded report", input)
		}
		if !strings.Contains(whole, "asked for more runs") {
			t.Errorf("%v: the oversized-sample warning is missing", input)
		}
	}
}
