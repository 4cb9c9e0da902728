package pairwise

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/evalcal/evalcal/internal/lines"
)

// eachLine calls each with every non-blank line of r (named name in
// messages) and its number from 1. A line longer than lim.Line is recorded
// in *bad and skipped; each records its own bad lines. The error is for the
// file as a whole: unreadable, longer than lim.File, or ctx cancelled
// (checked every 4,096 lines).
func eachLine(ctx context.Context, r io.Reader, name string, lim Limits, bad *[]BadLine, each func(n int, raw []byte)) error {
	lr := lines.NewReader(r, lim.Line, lim.File)
	for n := 1; ; n++ {
		if n%4096 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		raw, long, err := lr.Next()
		switch {
		case errors.Is(err, io.EOF):
			return nil
		case errors.Is(err, lines.ErrFileTooLong):
			return fmt.Errorf("pairwise: %s: longer than %d bytes (at line %d)", name, lim.File, n)
		case err != nil:
			return fmt.Errorf("pairwise: reading %s: %w", name, err)
		case long:
			*bad = append(*bad, BadLine{File: name, Line: n, Error: fmt.Sprintf("line longer than %d bytes", lim.Line)})
		case strings.TrimSpace(string(raw)) != "":
			each(n, raw)
		}
	}
}
