package importers

import (
	"context"

	"github.com/evalcal/evalcal/inspection"
	"github.com/evalcal/evalcal/programs/spec"
)

// InspectKind is the spec kind "inspect:LOG[#SCORER][?OPTIONS]": an
// inspect_ai log (see LoadInspectWith and ParseSelector).
func InspectKind() spec.Kind {
	k := sourceKind(inspectDialect, "inspect:LOG[#SCORER][?OPTIONS]", LoadInspectWith)
	k.Dir = true // a log directory (LoadInspect)
	return k
}

// PromptfooKind is the spec kind "promptfoo:FILE[#ASSERTION][?OPTIONS]":
// a promptfoo results file (see LoadPromptfooWith and ParseSelector).
func PromptfooKind() spec.Kind {
	return sourceKind(promptfooDialect, "promptfoo:FILE[#ASSERTION][?OPTIONS]", LoadPromptfooWith)
}

// loader reads one tool's results file.
type loader func(ctx context.Context, path, selector string, opts Options) (*Source, []inspection.Run, error)

// sourceKind is the kind of an importer, named by its dialect: its
// selector and options are checked before any work, and its file brings
// the runs.
func sourceKind(d Dialect, usage string, load loader) spec.Kind {
	return spec.Kind{Name: d.Name, Usage: usage,
		Check: func(arg string) error {
			_, sel := SplitSpec(arg)
			_, _, err := ParseSelector(d, sel)
			return err
		},
		Open: func(ctx context.Context, arg string, _ spec.Env) (spec.Opened, error) {
			path, sel := SplitSpec(arg)
			sel, mapping, err := ParseSelector(d, sel)
			if err != nil {
				return spec.Opened{}, err
			}
			src, runs, err := load(ctx, path, sel, mapping)
			if err != nil {
				return spec.Opened{}, err
			}
			return spec.Opened{Inspector: src, Runs: runs, Imported: true}, nil
		},
		File: func(arg string) string {
			path, _ := SplitSpec(arg)
			return path
		},
	}
}
