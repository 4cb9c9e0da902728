package runner

import (
	"io"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// progress is a progress bar over inspections, or nothing.
type progress struct {
	bar *progressbar.ProgressBar
}

// newProgress returns a bar of total steps drawn on w when w is a
// terminal, and a silent one otherwise (nil, a file, a pipe, a buffer):
// logs and CI output stay clean.
func newProgress(w io.Writer, total int) progress {
	if !isTerminal(w) || total == 0 {
		return progress{}
	}
	return progress{bar: progressbar.NewOptions(total,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription("evalcal: inspecting"),
		progressbar.OptionShowCount(),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionClearOnFinish(),
	)}
}

// isTerminal reports whether w is an *os.File open on a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && f != nil && term.IsTerminal(int(f.Fd()))
}

// add counts one inspection done (had, failed or cached). The bar is safe
// for concurrent use; a write error on the terminal is not worth failing
// the audit for.
func (p progress) add() {
	if p.bar != nil {
		_ = p.bar.Add(1)
	}
}

// finish clears the bar.
func (p progress) finish() {
	if p.bar != nil {
		_ = p.bar.Finish()
	}
}
