package main

import (
	"context"
	"errors"
	"io"
)

// cmdRun is a placeholder until the command lands; it fails loudly.
func cmdRun(_ context.Context, _ []string, _, _ io.Writer) error {
	return errors.New("run: not implemented yet")
}
