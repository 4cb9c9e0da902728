package main

import (
	"context"
	"errors"
	"io"
)

// cmdCalls is a placeholder until the command lands; it fails loudly.
func cmdCalls(_ context.Context, _ []string, _, _ io.Writer) error {
	return errors.New("calls: not implemented yet")
}
