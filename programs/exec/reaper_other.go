//go:build !linux

package execinspector

import (
	"context"
	"os/exec"
)

// command returns the command for one call: the program in its own
// process group (there is no reaper outside Linux).
func command(ctx context.Context, prog string, argv []string) *exec.Cmd {
	return groupCommand(ctx, prog, argv)
}
