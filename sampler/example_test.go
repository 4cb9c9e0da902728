package sampler_test

import (
	"fmt"
	"strings"

	"github.com/evalcal/evalcal/sampler"
)

func ExampleParseLog() {
	const log = `# run:20260417-152853-710f25 bug
1-> [input] request ✓
2-> ∥start fetch,auth
2a-> fetch ✓ (3 pages)
2b-> auth ✗ NoToken
2-> ∥done
---error 2026-04-17T15:32:00Z auth.NoToken
`
	l, err := sampler.ParseLog(strings.NewReader(log))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(l.RunID, l.Program, l.Status())
	for _, ev := range sampler.ServiceEvents(l) {
		fmt.Printf("line %d: %s %s %s%s\n", ev.Line, ev.Index, ev.Service, ev.Outcome, ev.Annotation+ev.Error)
	}
	// Output:
	// 20260417-152853-710f25 bug failed
	// line 4: 2a fetch ok3 pages
	// line 5: 2b auth errorNoToken
}
