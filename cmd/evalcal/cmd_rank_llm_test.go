package main

import (
	"bytes"
	"context"
	"math"
	"strings"
	"testing"

	"github.com/evalcal/evalcal/internal/judgeserver"
	"github.com/evalcal/evalcal/rank"
)

// TestRankLLMJudgesAndAPanel ranks two LLM judges and a panel of both
// against a third through the bundled judge server: one request a run for
// deep and for each judge (the panel's members are the candidates'
// memos), each candidate's cost is its calibration's, and the panel's is
// the sum of its members'.
func TestRankLLMJudgesAndAPanel(t *testing.T) {
	t.Chdir(repoRoot(t))
	s := judgeServer(t, judgeserver.Options{})
	stdout, stderr, code := runCLI(t, "rank", "--no-cache", "--quiet", "--sample", "8", "--format", "json",
		"--deep", "openai:judge-large", "--light", "mini=openai:judge-mini", "--light", "claude=anthropic:judge-mini",
		"--light", "jury=panel:openai:judge-mini,anthropic:judge-mini",
		"--price", "judge-mini=0.15/0.6", "--price", "judge-large=2.5/10", "testdata/runs")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if got := s.Requests(); got != 3*8 {
		t.Errorf("%d requests, want 24 (deep, mini and claude once a run; the panel none)", got)
	}
	doc := rankDoc(t, stdout)
	byName := map[string]rank.Candidate{}
	for _, c := range doc.Candidates {
		byName[c.Name] = c
	}
	mini, claude, jury := byName["mini"], byName["claude"], byName["jury"]
	if mini.Cost.USDPer1k == nil || claude.Cost.USDPer1k == nil || jury.Cost.USDPer1k == nil || *mini.Cost.USDPer1k <= 0 {
		t.Fatalf("costs %+v %+v %+v", mini.Cost, claude.Cost, jury.Cost)
	}
	// The three figures are each rounded to 6 significant digits (the
	// precision rule), so the panel's may differ from the sum of its
	// members' by the three roundings: 1.5 units of the 6th digit.
	sum := *mini.Cost.USDPer1k + *claude.Cost.USDPer1k
	if tol := 1.5 * math.Pow(10, math.Floor(math.Log10(sum))-5); math.Abs(*jury.Cost.USDPer1k-sum) > tol {
		t.Errorf("panel $%v per 1k runs, members' sum $%v", *jury.Cost.USDPer1k, sum)
	}
	if !strings.HasPrefix(jury.Identity, "panel/1:majority:") || len(jury.Panel.Members) != 2 {
		t.Errorf("jury %+v", jury)
	}
}

// TestRankMaxCostIsOneBudget: --max-cost is one budget over every
// candidate and deep; when it stops calls, rank exits 4.
func TestRankMaxCostIsOneBudget(t *testing.T) {
	t.Chdir(repoRoot(t))
	judgeServer(t, judgeserver.Options{})
	args := []string{"rank", "--no-cache", "--quiet", "--deep", "openai:judge-large", "--light", "mini=openai:judge-mini",
		"--light", "claude=anthropic:judge-mini", "--price", "judge-mini=1/4", "--price", "judge-large=10/40", "--max-cost", "0.5", "testdata/runs"}
	var out, errb bytes.Buffer
	err := run(context.Background(), args, &out, &errb)
	printError(&errb, err)
	if code := exitCode(err); code != 4 || !strings.Contains(errb.String(), "--max-cost budget") {
		t.Errorf("exit %d: %s", code, errb.String())
	}
	// Without a price for a billed model the budget cannot be kept.
	err = run(context.Background(), []string{"rank", "--no-cache", "--quiet", "--deep", "openai:judge-large", "--light", "mini=openai:judge-mini",
		"--light", "b=builtin", "--price", "judge-large=10/40", "--max-cost", "1", "testdata/runs"}, &out, &errb)
	if code := exitCode(err); code != 2 {
		t.Errorf("unpriced model under --max-cost: exit %d (%v)", code, err)
	}
}
