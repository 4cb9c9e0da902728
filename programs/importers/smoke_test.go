package importers

import (
	"context"
	"fmt"
	"testing"

	"github.com/evalcal/evalcal/runner"
)

func TestSmoke(t *testing.T) {
	for _, f := range []string{"2025-05-12T20-28-13-04-00_popularity.json", "log_formats.json", "log_tool_call_error.json", "custom.eval", "log_formats.eval", "log_read_sample.eval", "mmlu-summary-choices.eval"} {
		src, runs, err := LoadInspect(context.Background(), "../../../shared/inspect-samples/"+f, "")
		fmt.Println("==", f, err)
		if err != nil {
			continue
		}
		fmt.Println(src.Identity(), src.Unattributed())
		for _, r := range runs {
			insp, err := src.Inspect(context.Background(), r, runner.Deep)
			fmt.Printf("%+v\n  %+v %v\n", r, insp, err)
		}
	}
}
