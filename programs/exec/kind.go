package execinspector

import (
	"context"

	"github.com/evalcal/evalcal/programs/spec"
)

// Kind is the spec kind "exec:COMMAND".
func Kind() spec.Kind {
	return spec.Kind{Name: "exec", Usage: "exec:COMMAND",
		Open: func(_ context.Context, command string, _ spec.Env) (spec.Opened, error) {
			in, err := New(command)
			if err != nil {
				return spec.Opened{}, err
			}
			return spec.Opened{Inspector: in}, nil
		},
	}
}
