package panel

import (
	"context"

	"github.com/evalcal/evalcal/inspection"
	"github.com/evalcal/evalcal/programs/spec"
)

// Kind is the spec kind "panel:SPEC,SPEC[,...][?agg=majority|median]": a
// jury of member inspectors (any other kind) as one inspector. Its
// members are checked by the registry (spec.Kind.Members) and opened by
// the command (spec.Env.Open), so one spec used twice is one inspector.
func Kind() spec.Kind {
	return spec.Kind{Name: "panel", Usage: "panel:SPEC,SPEC[,...][?agg=majority|median]",
		Check: func(arg string) error {
			_, _, err := ParseSpec(arg)
			return err
		},
		Members: func(arg string) ([]string, error) {
			members, _, err := ParseSpec(arg)
			return members, err
		},
		Open: func(ctx context.Context, arg string, env spec.Env) (spec.Opened, error) {
			specs, agg, err := ParseSpec(arg)
			if err != nil {
				return spec.Opened{}, err
			}
			members := make([]inspection.Inspector, 0, len(specs))
			for _, s := range specs {
				in, err := env.Open(s)
				if err != nil {
					return spec.Opened{}, err
				}
				members = append(members, in)
			}
			p, err := New(agg, members)
			if err != nil {
				return spec.Opened{}, err
			}
			return spec.Opened{Inspector: p}, nil
		},
	}
}
