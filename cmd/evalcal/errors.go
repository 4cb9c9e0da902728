package main

import (
	"context"
	"errors"
	"flag"
	"fmt"

	"github.com/evalcal/evalcal/sampler"
)

// Exit codes (DESIGN.md; published in the README).
const (
	exitOK          = 0
	exitFailed      = 1
	exitUsage       = 2
	exitGate        = 3
	exitInterrupted = 130
)

// exitError carries the exit code an error should end the process with.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// usageErrorf is a usage error: bad flags or arguments (exit 2).
func usageErrorf(format string, a ...any) error {
	return &exitError{code: exitUsage, err: fmt.Errorf(format, a...)}
}

// inputError marks err as bad input (exit 2): a file that cannot be read
// or parsed, a sample that cannot be calibrated.
func inputError(err error) error {
	if err == nil {
		return nil
	}
	return &exitError{code: exitUsage, err: err}
}

// gateError marks err as an unmet gate (exit 3).
func gateError(err error) error {
	if err == nil {
		return nil
	}
	return &exitError{code: exitGate, err: err}
}

// exitCode maps an error to the process exit code. It is the one place
// where exit codes are decided.
func exitCode(err error) int {
	var ee *exitError
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return exitOK
	case errors.Is(err, context.Canceled):
		return exitInterrupted
	case errors.As(err, &ee):
		return ee.code
	case errors.Is(err, sampler.ErrInsufficientRuns), errors.Is(err, sampler.ErrHomogeneousSample):
		return exitUsage
	}
	return exitFailed
}
