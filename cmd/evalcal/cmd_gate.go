package main

import (
	"context"
	"errors"
	"io"
)

// cmdGate is a placeholder until the command lands; it fails loudly.
func cmdGate(_ context.Context, _ []string, _, _ io.Writer) error {
	return errors.New("gate: not implemented yet")
}
