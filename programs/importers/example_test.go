package importers_test

import (
	"context"
	"fmt"

	"github.com/evalcal/evalcal/inspection"
	"github.com/evalcal/evalcal/programs/importers"
)

// A promptfoo results file, one assertion as the judge: each test on each
// prompt is a run; the grader that failed is an inspection that fails.
func ExampleLoadPromptfoo() {
	ctx := context.Background()
	src, runs, err := importers.LoadPromptfoo(ctx, "testdata/promptfoo/two-assertions.json", "llm-rubric")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(src.Identity()[:10], src.Selector())
	for _, r := range runs {
		insp, err := src.Inspect(ctx, r, inspection.Deep)
		if err != nil {
			fmt.Printf("%s %s: no verdict\n", r.ID, r.System)
			continue
		}
		fmt.Printf("%s %s: %s %.0f\n", r.ID, r.System, insp.Verdict, insp.TaskEffectiveness)
	}
	// Output:
	// promptfoo: llm-rubric
	// test0-prompt0 openai:gpt-4o-mini: pass 90
	// test0-prompt1 small-local: fail 30
	// test1-prompt0 openai:gpt-4o-mini: pass 80
	// test1-prompt1 small-local: fail 0
	// test2-prompt0 openai:gpt-4o-mini: pass 100
	// test2-prompt1 small-local: no verdict
}

// The spec after "inspect:" or "promptfoo:" names the file and the
// scorer or assertion.
func ExampleSplitSpec() {
	fmt.Println(importers.SplitSpec("logs/x.eval#model_graded_fact"))
	fmt.Println(importers.SplitSpec("results.json"))
	// Output:
	// logs/x.eval model_graded_fact
	// results.json
}
