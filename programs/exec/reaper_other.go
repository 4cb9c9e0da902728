//go:build !linux

package execinspector

import "context"

// launcher starts programs directly in their own process group: there is
// no reaper outside Linux.
type launcher struct{}

func newLauncher() *launcher { return &launcher{} }

func (*launcher) spawn(ctx context.Context, s spawnSpec) (spawnResult, error) {
	return spawnDirect(ctx, s)
}

func (*launcher) close() error { return nil }

func (*launcher) release() {}
