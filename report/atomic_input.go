package report

import (
	"errors"
	"fmt"
	"os"
)

// ErrOutputIsInput is returned (wrapped) by CheckOutputNotInput.
var ErrOutputIsInput = errors.New("output file is also an input")

// CheckOutputNotInput returns an error wrapping ErrOutputIsInput when the
// output path names the same file as one of the inputs, by any path
// (relative or absolute, through symbolic or hard links): writing it
// would replace the input (issue 13.20: `score -o f.jsonl f.jsonl`). An
// output that does not exist yet or is not a regular file (a device,
// a pipe: /dev/stdout and /dev/stdin may be one terminal), an input that
// does not exist, and "-" (stdout/stdin) are no conflict. Call it before
// any work.
func CheckOutputNotInput(output string, inputs ...string) error {
	if output == "" || output == "-" {
		return nil
	}
	out, err := os.Stat(output)
	if err != nil || !out.Mode().IsRegular() {
		return nil
	}
	for _, in := range inputs {
		if in == "" || in == "-" {
			continue
		}
		if fi, err := os.Stat(in); err == nil && os.SameFile(out, fi) {
			return fmt.Errorf("%w: -o %s is the input %s", ErrOutputIsInput, output, in)
		}
	}
	return nil
}
