//go:build linux

package inputfile

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

func fifo(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "pipe")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skip(err)
	}
	return p
}

func readAll(t *testing.T, ctx context.Context, path string) (string, error) {
	t.Helper()
	f, stop, err := Open(ctx, path)
	if err != nil {
		return "", err
	}
	defer stop()
	defer f.Close()
	b, err := io.ReadAll(f)
	return string(b), ReadError(ctx, err)
}

// A writer that wrote and left while Open was looking at the pipe is not
// lost. Here the writer comes and goes before Open, while another reader
// keeps the pipe's data alive: Open must read it rather than wait for a
// writer that is gone (the close-and-reopen Open did before hung here, and
// did so by chance when a fast writer beat its second open).
func TestOpenReadsWhatAWriterLeftBeforeIt(t *testing.T) {
	p := fifo(t)
	keep, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer keep.Close()
	w, err := os.OpenFile(p, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write([]byte("left behind")); err != nil {
		t.Fatal(err)
	}
	w.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	got, err := readAll(t, ctx, p)
	if err != nil || got != "left behind" {
		t.Fatalf("read %q, %v; want what the writer left", got, err)
	}
}

// With no writer yet, Open waits for one, and reads all it writes.
func TestOpenWaitsForAWriter(t *testing.T) {
	p := fifo(t)
	go func() {
		time.Sleep(100 * time.Millisecond)
		w, err := os.OpenFile(p, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		w.Write([]byte("first "))
		time.Sleep(50 * time.Millisecond)
		w.Write([]byte("second"))
		w.Close()
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	got, err := readAll(t, ctx, p)
	if err != nil || got != "first second" {
		t.Fatalf("read %q, %v", got, err)
	}
}

// A writer that opens and closes without writing gives an empty input,
// not a wait.
func TestOpenEmptyWriter(t *testing.T) {
	p := fifo(t)
	go func() {
		if w, err := os.OpenFile(p, os.O_WRONLY, 0); err == nil {
			w.Close()
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	got, err := readAll(t, ctx, p)
	if err != nil || got != "" {
		t.Fatalf("read %q, %v; want an empty input", got, err)
	}
}

// No writer ever: the end of ctx ends the wait, promptly.
func TestOpenWithoutWriterEndsWithContext(t *testing.T) {
	p := fifo(t)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := readAll(t, ctx, p)
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 2*time.Second {
		t.Fatalf("err %v after %v; want the context's end within 2 s", err, time.Since(start))
	}
}

// Many fast writers racing Open: every input is read whole, none hangs.
func TestOpenRacingFastWriters(t *testing.T) {
	for i := 0; i < 200; i++ {
		p := fifo(t)
		go func() {
			if w, err := os.OpenFile(p, os.O_WRONLY, 0); err == nil {
				w.Write([]byte("x"))
				w.Close()
			}
		}()
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		got, err := readAll(t, ctx, p)
		cancel()
		if err != nil || got != "x" {
			t.Fatalf("try %d: read %q, %v", i, got, err)
		}
	}
}
