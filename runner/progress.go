package runner

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// Plain progress lines (a writer that is not a terminal: CI logs, files,
// pipes) are printed when another tenth of the inspections is done or
// when plainEvery has passed since the last line, whichever comes first,
// and once more by finish.
const plainEvery = 30 * time.Second

// progress reports inspections done: a bar on a terminal, plain lines on
// any other writer, nothing on a nil writer or for no work. Its methods
// are safe for concurrent use and never fail the audit: a write error is
// ignored.
type progress struct {
	bar   *progressbar.ProgressBar
	plain *plainProgress
}

// newProgress returns the progress of total inspections drawn on w: a bar
// when w is a terminal, plain lines (see plainProgress) when w is any
// other non-nil writer, and nothing when w is nil or total is 0.
func newProgress(w io.Writer, total int) progress {
	return newProgressWith(w, total, isTerminal(w), time.Now)
}

// newProgressWith is newProgress with the terminal test and the clock
// given, so that tests can drive both.
func newProgressWith(w io.Writer, total int, terminal bool, now func() time.Time) progress {
	if w == nil || total <= 0 {
		return progress{}
	}
	if !terminal {
		start := now()
		return progress{plain: &plainProgress{w: w, total: total, now: now, start: start, last: start}}
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

// add counts one inspection done: served from the cache (cached), or
// given up after its last attempt (failed), or had from the inspector.
func (p progress) add(cached, failed bool) {
	switch {
	case p.bar != nil:
		_ = p.bar.Add(1)
	case p.plain != nil:
		p.plain.add(cached, failed)
	}
}

// finish clears the bar, or prints the final plain line.
func (p progress) finish() {
	switch {
	case p.bar != nil:
		_ = p.bar.Finish()
	case p.plain != nil:
		p.plain.finish()
	}
}

// plainProgress prints lines such as
//
//	evalcal: progress 40/92 inspections (43%), 2 failed, 10 from cache, 12s elapsed, ETA 16s
//
// The percentage is floor(100 done / total). ETA is elapsed x (total -
// done) / done, rounded to the second; it is left out before the first
// inspection is done and in the final line. Durations are rounded to the
// second (time.Duration's format: 1m12s).
type plainProgress struct {
	w     io.Writer
	total int
	now   func() time.Time

	mu                   sync.Mutex
	start, last          time.Time
	done, failed, cached int
	tenths               int // tenths of total reached at the last line
	finished             bool
}

func (p *plainProgress) add(cached, failed bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.finished {
		return
	}
	p.done++
	if cached {
		p.cached++
	}
	if failed {
		p.failed++
	}
	now := p.now()
	tenths := 10 * p.done / p.total
	// The last inspection is left to finish, which prints the final line.
	if p.done < p.total && (tenths > p.tenths || now.Sub(p.last) >= plainEvery) {
		p.tenths, p.last = tenths, now
		p.print(now, true)
	}
}

func (p *plainProgress) finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.finished {
		return
	}
	p.finished = true
	p.print(p.now(), false)
}

// print writes one line; the caller holds mu.
func (p *plainProgress) print(now time.Time, withETA bool) {
	elapsed := now.Sub(p.start)
	line := fmt.Sprintf("evalcal: progress %d/%d inspections (%d%%), %d failed, %d from cache, %s elapsed",
		p.done, p.total, 100*p.done/p.total, p.failed, p.cached, elapsed.Round(time.Second))
	if withETA && p.done > 0 {
		eta := time.Duration(float64(elapsed) * float64(p.total-p.done) / float64(p.done))
		line += fmt.Sprintf(", ETA %s", eta.Round(time.Second))
	}
	_, _ = io.WriteString(p.w, line+"\n")
}
