package main

import "github.com/evalcal/evalcal/runner"

// openJudge builds an LLM judge (wired when programs/llm lands).
func openJudge(provider, model, flag string, o *runOptions) (runner.Inspector, error) {
	return nil, usageErrorf("run: --%s %s:%s: LLM judges are not built into this evalcal", flag, provider, model)
}
