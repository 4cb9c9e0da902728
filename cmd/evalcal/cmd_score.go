package main

import (
	"context"
	"errors"
	"io"
)

// cmdScore is a placeholder until the command lands; it fails loudly.
func cmdScore(_ context.Context, _ []string, _, _ io.Writer) error {
	return errors.New("score: not implemented yet")
}
