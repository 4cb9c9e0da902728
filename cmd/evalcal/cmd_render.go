package main

import (
	"context"
	"errors"
	"io"
)

// cmdRender is a placeholder until the command lands; it fails loudly.
func cmdRender(_ context.Context, _ []string, _, _ io.Writer) error {
	return errors.New("render: not implemented yet")
}
