package main

import (
	"fmt"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/evalcal/evalcal/internal/judgeserver"
)

// A --max-cost budget of half what the whole job costs (measured by
// running it unbudgeted first) on the bundled judge server gets about half
// the runs judged, and never spends more than the budget (issue 28, item
// 5): calls reserve from what finished calls cost, not their worst case (a
// 32k-token prompt, a repair and twice the longest answer, plus 25%:
// about 12 times what a deep call costs here).
func TestBudgetOfHalfTheJobJudgesAboutHalfTheRuns(t *testing.T) {
	t.Chdir(repoRoot(t))
	judgeServer(t, judgeserver.Options{})
	dir := t.TempDir()
	sides := []string{"--no-cache", "--quiet", "--light", "openai:judge-mini", "--deep", "openai:judge-large",
		"--price", "judge-mini=0.15/0.6", "--price", "judge-large=2.5/10/0.25"}
	full := filepath.Join(dir, "full.yaml")
	if _, stderr, code := runCLI(t, append(append([]string{"run"}, sides...), "-o", full, "testdata/runs")...); code != 0 {
		t.Fatalf("unbudgeted run: exit %d\n%s", code, stderr)
	}
	whole := readReport(t, full)
	job := *whole.Cost.Light.USD + *whole.Cost.Deep.USD
	runs := whole.SampleSize
	budget := job / 2
	for _, jobs := range []int{1, 4} {
		out := filepath.Join(dir, fmt.Sprintf("half-%d.yaml", jobs))
		_, stderr, code := runCLI(t, append(append([]string{"run"}, sides...), "--jobs", strconv.Itoa(jobs),
			"--max-cost", strconv.FormatFloat(budget, 'f', -1, 64), "-o", out, "testdata/runs")...)
		if code != exitBudget {
			t.Fatalf("--jobs %d: exit %d, want %d\n%s", jobs, code, exitBudget, stderr)
		}
		r := readReport(t, out)
		spent := *r.Cost.Light.USD + *r.Cost.Deep.USD
		share := float64(r.SampleSize) / float64(runs)
		t.Logf("--jobs %d: job $%.4f, budget $%.4f, spent $%.4f, %d of %d runs judged (%.0f%%)", jobs, job, budget, spent, r.SampleSize, runs, 100*share)
		if spent > budget {
			t.Errorf("--jobs %d: spent $%v of a $%v budget", jobs, spent, budget)
		}
		if spent < 0.8*budget {
			t.Errorf("--jobs %d: spent $%v of a $%v budget, want at least 80%% of it", jobs, spent, budget)
		}
		// Which runs fit depends on the order calls finish in at --jobs 4: a
		// large run skipped near the end leaves room for smaller ones, so
		// the share of runs sits a little above the share of cost (48-57%
		// measured over repeated runs).
		if share < 0.40 || share > 0.60 {
			t.Errorf("--jobs %d: %d of %d runs judged (%.0f%%) on half the job's cost, want about half (40-60%%)", jobs, r.SampleSize, runs, 100*share)
		}
	}
}
