package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/evalcal/evalcal/sampler"
)

// Exit codes (docs/DESIGN.md; published in the README and in every command's
// help).
const (
	exitOK          = 0
	exitFailed      = 1
	exitUsage       = 2
	exitGate        = 3
	exitBudget      = 4
	exitInterrupted = 130
)

// exitCodesHelp is the exit-code line every command's help ends with.
const exitCodesHelp = "Exit codes: 0 ok, 1 the work failed (no run compared, nothing scored, output not written),\n" +
	"2 usage or input error, 3 a gate was not met, 4 stopped by the --max-cost budget, 130 interrupted."

// errNothingScored is matched (errors.Is) by the error of a command whose
// input gave nothing to score: an empty file, every line bad, a --by field
// no line has (score), no counted call (calls), no candidate (gate). The
// document is still written; the exit code is 1.
var errNothingScored = errors.New("nothing scored")

// errStdoutClosed is the error of writing a document to a stdout that the
// shell closed (evalcal ... >&-).
var errStdoutClosed = errors.New("stdout is closed")

// exitError carries the exit code an error should end the process with,
// and an optional hint line printed after the message.
type exitError struct {
	code int
	err  error
	hint string
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// usageErrorf is a usage error: bad flags or arguments (exit 2).
func usageErrorf(format string, a ...any) error {
	return &exitError{code: exitUsage, err: fmt.Errorf(format, a...)}
}

// usageErrorHint is a usage error with a hint line.
func usageErrorHint(hint string, format string, a ...any) error {
	return &exitError{code: exitUsage, err: fmt.Errorf(format, a...), hint: hint}
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

// budgetError marks err as a stop by the --max-cost budget (exit 4; the
// partial report was written).
func budgetError(err error) error {
	if err == nil {
		return nil
	}
	return &exitError{code: exitBudget, err: err}
}

// hintOf returns the hint of the outermost exitError in err's chain, or "".
func hintOf(err error) string {
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.hint
	}
	return ""
}

// exitCode maps an error to the process exit code. It is the one place
// where exit codes are decided: nil is 0, a cancelled context 130 (it
// wins over any code it is wrapped in: Ctrl-C is what happened), an
// exitError its code, insufficient-runs and homogeneous-sample 2, and
// everything else 1.
func exitCode(err error) int {
	var ee *exitError
	switch {
	case err == nil:
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
