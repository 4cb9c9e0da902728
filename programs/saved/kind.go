package saved

import (
	"context"

	"github.com/evalcal/evalcal/inspection"
	"github.com/evalcal/evalcal/programs/spec"
)

// Kind is the spec kind "saved:FILE": saved inspections, which bring
// their runs.
//
// One file on both sides (--inspections) hides its coverage, so that a
// run with no deep line is a failed inspection, not a run left out of a
// deep subset. A file on one side only is keyed in the cache by its
// content ("saved:" and 16 hex digits of Fingerprint), since its runs
// come from discovery and an older file's labels must never be served.
func Kind() spec.Kind {
	return spec.Kind{Name: "saved", Usage: "saved:FILE",
		Open: func(ctx context.Context, path string, env spec.Env) (spec.Opened, error) {
			load := LoadContext
			switch {
			case env.Member != nil && env.MemberOnly:
				load = func(ctx context.Context, path string) (*Inspector, []inspection.Run, error) {
					return LoadMembers(ctx, path, env.Member)
				}
			case env.Member != nil:
				load = func(ctx context.Context, path string) (*Inspector, []inspection.Run, error) {
					return LoadShard(ctx, path, env.Member)
				}
			}
			sv, runs, err := load(ctx, path)
			if err != nil {
				return spec.Opened{}, err
			}
			o := inspection.Override{Identity: "saved:" + sv.Fingerprint()[:16]}
			if env.Both {
				o = inspection.Override{Hide: inspection.CapCoverage}
			}
			return spec.Opened{Inspector: inspection.Wrap(sv, o), Runs: runs}, nil
		},
		File: func(path string) string { return path },
	}
}
