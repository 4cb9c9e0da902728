package runner

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/evalcal/evalcal/inspection"
)

// fakeClock is a clock a test moves by hand.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newFakeClock() *fakeClock {
	return &fakeClock{t: time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)}
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func lines(s string) []string {
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// The issue's example line, worked by hand: 40 of 92 done is 43.47%,
// printed 43%; 12 s for 40 gives 12 x 52 / 40 = 15.6 s to go, printed 16s.
func TestPlainProgressLineMatchesTheIssueExample(t *testing.T) {
	clock := newFakeClock()
	var buf bytes.Buffer
	p := &plainProgress{w: &buf, total: 92, now: clock.now, start: clock.now()}
	p.done, p.failed, p.cached = 40, 2, 10
	clock.advance(12 * time.Second)
	p.print(clock.now(), true)
	want := "evalcal: progress 40/92 inspections (43%), 2 failed, 10 from cache, 12s elapsed, ETA 16s\n"
	if buf.String() != want {
		t.Errorf("got  %q\nwant %q", buf.String(), want)
	}
}

// One inspection a second: lines come at each tenth (done = ceil(k x 92
// / 10) for k = 1..9: 10, 19, 28, 37, 46, 56, 65, 74, 83), never twice
// for one tenth, and finish adds the final line without an ETA.
func TestPlainProgressPrintsEachTenthAndAFinalLine(t *testing.T) {
	clock := newFakeClock()
	var buf bytes.Buffer
	p := newProgressWith(&buf, 92, false, clock.now)
	if p.plain == nil || p.bar != nil {
		t.Fatal("a non-terminal writer must get plain lines")
	}
	for i := 1; i <= 92; i++ {
		clock.advance(time.Second)
		p.add(i%10 == 0, i%23 == 0) // 9 cached, 4 failed
	}
	p.finish()
	got := lines(buf.String())
	wantDone := []int{10, 19, 28, 37, 46, 56, 65, 74, 83}
	if len(got) != len(wantDone)+1 {
		t.Fatalf("%d lines, want %d:\n%s", len(got), len(wantDone)+1, buf.String())
	}
	for i, d := range wantDone {
		prefix := fmt.Sprintf("evalcal: progress %d/92 inspections (%d%%), ", d, 100*d/92)
		elapsed := fmt.Sprintf(", %s elapsed, ETA ", time.Duration(d)*time.Second)
		if !strings.HasPrefix(got[i], prefix) || !strings.Contains(got[i], elapsed) {
			t.Errorf("line %d = %q, want prefix %q and %q", i, got[i], prefix, elapsed)
		}
	}
	// Line for done = 46 (46 s): ETA 46 x 46 / 46 = 46 s; cached are the
	// multiples of 10 up to 46 (4), failed the multiples of 23 (2).
	if want := "evalcal: progress 46/92 inspections (50%), 2 failed, 4 from cache, 46s elapsed, ETA 46s"; got[4] != want {
		t.Errorf("line 4 = %q, want %q", got[4], want)
	}
	if want := "evalcal: progress 92/92 inspections (100%), 4 failed, 9 from cache, 1m32s elapsed"; got[len(got)-1] != want {
		t.Errorf("final line = %q, want %q", got[len(got)-1], want)
	}
	// finish is idempotent and later adds are ignored.
	p.finish()
	p.add(false, false)
	if n := len(lines(buf.String())); n != len(got) {
		t.Errorf("%d lines after a second finish and a late add, want %d", n, len(got))
	}
}

// Slow inspections: when a tenth takes longer than 30 s, a line comes at
// the first inspection done 30 s or more after the previous line.
func TestPlainProgressPrintsEvery30SecondsWhenSlow(t *testing.T) {
	clock := newFakeClock()
	var buf bytes.Buffer
	p := newProgressWith(&buf, 1000, false, clock.now)
	// 1000 inspections: a tenth is 100. Ten seconds each: lines at the
	// 3rd (30 s), 6th (60 s) and 9th (90 s).
	for i := 0; i < 10; i++ {
		clock.advance(10 * time.Second)
		p.add(false, false)
	}
	got := lines(buf.String())
	if len(got) != 3 {
		t.Fatalf("%d lines, want 3:\n%s", len(got), buf.String())
	}
	for i, d := range []int{3, 6, 9} {
		prefix := fmt.Sprintf("evalcal: progress %d/1000 inspections (0%%), 0 failed, 0 from cache, %s elapsed, ETA ", d, time.Duration(10*d)*time.Second)
		if !strings.HasPrefix(got[i], prefix) {
			t.Errorf("line %d = %q, want prefix %q", i, got[i], prefix)
		}
	}
	// 3 done in 30 s: 997 to go at 10 s each is 9970 s = 2h46m10s.
	if !strings.HasSuffix(got[0], "ETA 2h46m10s") {
		t.Errorf("line 0 = %q, want ETA 2h46m10s", got[0])
	}
}

func TestProgressIsSilentOnANilWriterOrNoWork(t *testing.T) {
	clock := newFakeClock()
	p := newProgressWith(nil, 10, false, clock.now)
	if p.bar != nil || p.plain != nil {
		t.Error("a nil writer must be silent")
	}
	p.add(true, true) // must not panic
	p.finish()
	var buf bytes.Buffer
	p = newProgressWith(&buf, 0, false, clock.now)
	p.add(false, false)
	p.finish()
	if buf.Len() != 0 {
		t.Errorf("no work printed %q", buf.String())
	}
}

func TestProgressOnATerminalIsABarNotLines(t *testing.T) {
	var buf bytes.Buffer
	p := newProgressWith(&buf, 4, true, time.Now)
	if p.bar == nil || p.plain != nil {
		t.Fatal("a terminal must get the bar")
	}
	for i := 0; i < 4; i++ {
		p.add(false, false)
	}
	p.finish()
	if strings.Contains(buf.String(), "evalcal: progress") {
		t.Errorf("plain lines on a terminal: %q", buf.String())
	}
}

func TestPlainProgressCountsConcurrentAdds(t *testing.T) {
	clock := newFakeClock()
	var buf bytes.Buffer
	p := newProgressWith(&buf, 800, false, clock.now)
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 100; i++ {
				clock.advance(time.Millisecond)
				p.add(i%2 == 0, i%5 == 0)
			}
		}()
	}
	wg.Wait()
	p.finish()
	got := lines(buf.String())
	if want := "evalcal: progress 800/800 inspections (100%), 160 failed, 400 from cache, 1s elapsed"; got[len(got)-1] != want {
		t.Errorf("final line = %q, want %q", got[len(got)-1], want)
	}
	if len(got) != 10 {
		t.Errorf("%d lines, want 9 tenths and the final one", len(got))
	}
}

// Run feeds the progress: on a writer that is not a terminal (a buffer, a
// file) it ends with the final plain line counting failures and cache
// hits; a nil writer stays silent.
func TestRunWritesPlainProgressToANonTerminal(t *testing.T) {
	cache, err := OpenCache(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	failOdd := func(_ context.Context, run inspection.Run, depth inspection.Depth, _ int) (inspection.Inspection, error) {
		if run.ID == "run-001" && depth == inspection.Deep {
			return inspection.Inspection{}, inspection.Permanent(fmt.Errorf("no deep for %s", run.ID))
		}
		return alwaysGood(context.Background(), run, depth, 0)
	}
	file, err := os.CreateTemp(t.TempDir(), "progress")
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	var first, second bytes.Buffer
	// The rerun finds the 5 good inspections in the cache and fails the
	// deep one of run-001 again.
	for _, w := range []io.Writer{&first, &second, file} {
		opts := testOptions()
		opts.Cache, opts.Retries, opts.Progress = cache, 0, w
		if _, err := Run(context.Background(), makeRuns(3), &fakeInspector{id: "f", answer: failOdd}, opts); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(file.Name())
	if err != nil {
		t.Fatal(err)
	}
	for i, got := range []string{first.String(), second.String(), string(data)} {
		ls := lines(got)
		want := []string{"evalcal: progress 6/6 inspections (100%), 1 failed, 0 from cache, ",
			"evalcal: progress 6/6 inspections (100%), 1 failed, 5 from cache, ",
			"evalcal: progress 6/6 inspections (100%), 1 failed, 5 from cache, "}[i]
		if len(ls) == 0 || !strings.HasPrefix(ls[len(ls)-1], want) {
			t.Errorf("writer %d: final line of %q, want prefix %q", i, got, want)
		}
	}
	opts := testOptions()
	opts.Progress = nil
	if _, err := Run(context.Background(), makeRuns(3), &fakeInspector{id: "f", answer: alwaysGood}, opts); err != nil {
		t.Fatal(err)
	}
}
