package saved_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/evalcal/evalcal/inspection"
	"github.com/evalcal/evalcal/programs/saved"
)

// longLine is an inspection of run r1 at depth deep whose summary makes
// it n bytes long; run_id and depth come first when idFirst.
func longLine(n int, idFirst bool) string {
	head, tail := `{"run_id":"r1","depth":"deep","summary":"`, `","runtime_fidelity":1,"task_effectiveness":1,"verdict":"pass"}`
	if !idFirst {
		head, tail = `{"summary":"`, `","run_id":"r1","depth":"deep","runtime_fidelity":1,"task_effectiveness":1,"verdict":"pass"}`
	}
	return head + strings.Repeat("a", n-len(head)-len(tail)) + tail
}

// Issue 13.7: one line over the limit failed the whole file with
// "bufio.Scanner: token too long". It must fail only its own line.
func TestAnOverLongLineFailsOnlyItsLine(t *testing.T) {
	light2 := strings.ReplaceAll(light1, `"r1"`, `"r2"`)
	for _, idFirst := range []bool{true, false} {
		path := writeFile(t, light0, deep0, light1, longLine(saved.MaxLineBytes+1<<20, idFirst), light2)
		in, runs, err := saved.Load(path)
		if err != nil {
			t.Fatalf("Load: %v", err)
		}
		if len(runs) != 3 {
			t.Fatalf("runs %d, want r0, r1, r2", len(runs))
		}
		for _, c := range []struct {
			run   int
			depth inspection.Depth
		}{{0, inspection.Light}, {0, inspection.Deep}, {1, inspection.Light}, {2, inspection.Light}} {
			if _, err := in.Inspect(context.Background(), runs[c.run], c.depth); err != nil {
				t.Errorf("%s %s: %v", runs[c.run].ID, c.depth, err)
			}
		}
		want := path + ":4: line longer than 16777216 bytes"
		_, err = in.Inspect(context.Background(), runs[1], inspection.Deep)
		if idFirst {
			// The first 16 MiB still name the run and depth.
			if !inspection.IsPermanent(err) || !strings.Contains(err.Error(), want) {
				t.Errorf("r1 deep: %v, want a permanent error %q", err, want)
			}
		} else if u := in.Unattributed(); len(u) != 1 || !strings.Contains(u[0], strings.TrimPrefix(want, "saved: ")) {
			t.Errorf("unattributed %q, want line 4 too long", u)
		}
	}
}

// /dev/zero is one endless line: the file limit stops it, in bounded
// memory.
func TestEndlessInputIsAFileErrorWithMemoryBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("reads saved.MaxFileBytes of /dev/zero")
	}
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	_, _, err := saved.Load("/dev/zero")
	el := time.Since(start)
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("/dev/zero: longer than %d bytes", int64(saved.MaxFileBytes))) {
		t.Errorf("err = %v, want the file limit", err)
	}
	// Live memory is one cut line (16 MiB); growing it by append
	// allocates about five times that in all.
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 128<<20 {
		t.Errorf("allocated %d MiB, want about 5 x the 16 MiB line limit", alloc>>20)
	}
	if el > 30*time.Second {
		t.Errorf("took %v", el)
	}
}

// Issue 11.4: a UTF-8 byte-order mark at the start of the file is
// accepted and changes nothing, content hashes included; one elsewhere,
// or a UTF-16 one, is an error that says "byte-order mark".
func TestByteOrderMark(t *testing.T) {
	_, plain, err := saved.Load(writeFile(t, light1, deep1))
	if err != nil {
		t.Fatal(err)
	}
	_, withBOM, err := saved.Load(writeFile(t, "\ufeff"+light1, deep1))
	if err != nil {
		t.Fatalf("a leading byte-order mark: %v", err)
	}
	if len(withBOM) != 1 || withBOM[0].ContentHash != plain[0].ContentHash {
		t.Errorf("runs %+v, want the run without the mark %+v", withBOM, plain)
	}
	for name, lines := range map[string][]string{
		"joined files": {light1, "\ufeff" + deep1},
		"utf-16":       {"\xff\xfe{\x00}\x00"},
	} {
		in, runs, err := saved.Load(writeFile(t, lines...))
		var msgs []string
		if err != nil {
			msgs = append(msgs, err.Error())
		} else {
			msgs = append(msgs, in.Unattributed()...)
			for _, r := range runs {
				if _, err := in.Inspect(context.Background(), r, inspection.Deep); err != nil {
					msgs = append(msgs, err.Error())
				}
			}
		}
		if !strings.Contains(strings.Join(msgs, "\n"), "byte-order mark") {
			t.Errorf("%s: messages %q, want one saying byte-order mark", name, msgs)
		}
	}
}

func TestDirectoryIsRefused(t *testing.T) {
	if _, _, err := saved.Load(t.TempDir()); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("err = %v, want 'is a directory'", err)
	}
}

// A named pipe is read once its writer comes, and a pipe whose writer
// never comes is given up as soon as the context ends.
func TestNamedPipe(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "inspections.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	go func() {
		time.Sleep(100 * time.Millisecond) // the reader opens first
		_ = os.WriteFile(fifo, []byte(light1+"\n"+deep1+"\n"), 0o600)
	}()
	_, runs, err := saved.Load(fifo)
	if err != nil || len(runs) != 1 {
		t.Fatalf("runs %+v, err %v; want r1 through the pipe", runs, err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, _, err = saved.LoadContext(ctx, fifo)
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 2*time.Second {
		t.Errorf("no writer: err %v after %v, want the deadline at once", err, time.Since(start))
	}
}

// A writer that opens the pipe and then stalls: the read is given up when
// the context ends.
func TestStalledPipeHonoursTheContext(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "inspections.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	done := make(chan struct{})
	defer close(done)
	go func() {
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		defer w.Close()
		_, _ = w.WriteString(light1 + "\n")
		<-done
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, _, err := saved.LoadContext(ctx, fifo)
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 2*time.Second {
		t.Errorf("err %v after %v, want the deadline", err, time.Since(start))
	}
}
