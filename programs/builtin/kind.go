package builtin

import (
	"context"

	"github.com/evalcal/evalcal/programs/spec"
)

// Kind is the spec kind "builtin" (no argument).
func Kind() spec.Kind {
	return spec.Kind{Name: "builtin", Usage: "builtin",
		Open: func(context.Context, string, spec.Env) (spec.Opened, error) {
			return spec.Opened{Inspector: New()}, nil
		},
	}
}
