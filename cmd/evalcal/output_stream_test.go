package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/evalcal/evalcal/report"
	"github.com/evalcal/evalcal/report/reportio"
)

// streamFixture is the saved report of the twelve bundled inspections.
func streamFixture(t *testing.T) *report.Report {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot(t), "testdata", "run", "twelve.golden"))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := reportio.ParseReport(data)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// The streamed document is byte for byte the one the in-memory renderers
// write, in every format, to a file and to stdout.
func TestStreamedReportEqualsTheRenderedOne(t *testing.T) {
	rep := streamFixture(t)
	dir := t.TempDir()
	for format, render := range renderFormats {
		want, err := render(rep)
		if err != nil {
			t.Fatal(err)
		}
		o := outputOptions{Path: filepath.Join(dir, "r."+format), Format: format}
		if err := o.stream(io.Discard, reportEncoder(context.Background(), format, rep)); err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		got, err := os.ReadFile(o.Path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: the streamed file differs from the rendered document (%d vs %d bytes)", format, len(got), len(want))
		}
		var stdout bytes.Buffer
		o.Path = ""
		if err := o.stream(&stdout, reportEncoder(context.Background(), format, rep)); err != nil {
			t.Fatalf("%s to stdout: %v", format, err)
		}
		if !bytes.Equal(stdout.Bytes(), want) {
			t.Errorf("%s: the streamed stdout differs from the rendered document", format)
		}
	}
}

// A failing or interrupted encoding leaves the -o file as it was and no
// temporary file behind.
func TestStreamFailureLeavesTheFileAsItWas(t *testing.T) {
	rep := streamFixture(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "r.yaml")
	if err := os.WriteFile(path, []byte("yesterday\n"), 0o640); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	boom := errors.New("boom")
	for name, encode := range map[string]func(io.Writer) error{
		"interrupted yaml": reportEncoder(ctx, "yaml", rep),
		"interrupted json": reportEncoder(ctx, "json", rep),
		"interrupted html": reportEncoder(ctx, "html", rep),
		"failed midway": func(w io.Writer) error {
			_, _ = w.Write([]byte(strings.Repeat("partial\n", 20000)))
			return boom
		},
	} {
		o := outputOptions{Path: path}
		err := o.stream(io.Discard, encode)
		if err == nil {
			t.Errorf("%s: no error", name)
		}
		if strings.HasPrefix(name, "interrupted") && !errors.Is(err, context.Canceled) {
			t.Errorf("%s: %v, want context.Canceled (exit 130)", name, err)
		}
		if got, _ := os.ReadFile(path); string(got) != "yesterday\n" {
			t.Errorf("%s: the file became %.40q", name, got)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 1 {
			t.Errorf("%s: %d entries in the directory, want the file alone", name, len(entries))
		}
	}
}

// A streamed -o file follows report.WriteFileAtomic's rules: the same
// files, modes, links and errors come out of the same sandbox, whichever
// writes.
func TestStreamedFileFollowsWriteFileAtomicRules(t *testing.T) {
	old := syscall.Umask(0o027)
	defer syscall.Umask(old)
	type sandbox func(t *testing.T, dir string) string // returns the -o path
	cases := map[string]sandbox{
		"new file": func(t *testing.T, dir string) string { return filepath.Join(dir, "r.yaml") },
		"existing 0600": func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "r.yaml")
			mustWrite(t, p, 0o600)
			return p
		},
		"existing 0664 under umask 027": func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "r.yaml")
			mustWrite(t, p, 0o600)
			if err := os.Chmod(p, 0o664); err != nil {
				t.Fatal(err)
			}
			return p
		},
		"link chain": func(t *testing.T, dir string) string {
			mustWrite(t, filepath.Join(dir, "real.yaml"), 0o644)
			mustLink(t, "real.yaml", filepath.Join(dir, "l1"))
			mustLink(t, filepath.Join(dir, "l1"), filepath.Join(dir, "l2"))
			return filepath.Join(dir, "l2")
		},
		"dangling link": func(t *testing.T, dir string) string {
			mustLink(t, "later.yaml", filepath.Join(dir, "l"))
			return filepath.Join(dir, "l")
		},
		"link loop": func(t *testing.T, dir string) string {
			mustLink(t, "b", filepath.Join(dir, "a"))
			mustLink(t, "a", filepath.Join(dir, "b"))
			return filepath.Join(dir, "a")
		},
		"directory": func(t *testing.T, dir string) string {
			if err := os.Mkdir(filepath.Join(dir, "d"), 0o755); err != nil {
				t.Fatal(err)
			}
			return filepath.Join(dir, "d")
		},
		"missing directory": func(t *testing.T, dir string) string { return filepath.Join(dir, "no", "r.yaml") },
		"device": func(t *testing.T, dir string) string {
			mustLink(t, os.DevNull, filepath.Join(dir, "null"))
			return filepath.Join(dir, "null")
		},
	}
	doc := []byte(strings.Repeat("document\n", 10000))
	for name, setup := range cases {
		ref, got := t.TempDir(), t.TempDir()
		refErr := report.WriteFileAtomic(setup(t, ref), doc)
		o := outputOptions{Path: setup(t, got)}
		gotErr := o.stream(io.Discard, func(w io.Writer) error { _, err := w.Write(doc); return err })
		if (refErr == nil) != (gotErr == nil) {
			t.Errorf("%s: WriteFileAtomic err %v, streamed err %v", name, refErr, gotErr)
		}
		if r, g := describeTree(t, ref), describeTree(t, got); r != g {
			t.Errorf("%s: trees differ\nWriteFileAtomic:\n%s\nstreamed:\n%s", name, r, g)
		}
	}
}

func mustWrite(t *testing.T, p string, mode fs.FileMode) {
	t.Helper()
	if err := os.WriteFile(p, []byte("old\n"), mode); err != nil {
		t.Fatal(err)
	}
}

func mustLink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

// describeTree lists dir's entries: name, type and mode, link target or
// content length.
func describeTree(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		b.WriteString(rel + " " + fi.Mode().String())
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			b.WriteString(" -> " + strings.TrimPrefix(target, dir))
		case fi.Mode().IsRegular():
			data, _ := os.ReadFile(p)
			b.WriteString(" " + strings.Repeat("#", len(data)/9000) + " " + string(data[:min(len(data), 9)]))
		}
		b.WriteString("\n")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// Writing to stdout: a short write and a closed stdout are errors that
// name stdout; a closed stdout still exits 1.
func TestStreamToStdoutReportsShortAndClosedWrites(t *testing.T) {
	o := outputOptions{}
	write := func(w io.Writer) error { _, err := w.Write([]byte("document")); return err }
	if err := o.stream(shortWriter{}, write); !errors.Is(err, io.ErrShortWrite) || !strings.Contains(err.Error(), "write stdout") {
		t.Errorf("short write: %v", err)
	}
	if err := o.stream(closedWriter{}, write); !errors.Is(err, errStdoutClosed) || exitCode(err) != exitFailed {
		t.Errorf("closed stdout: %v (exit %d), want errStdoutClosed and exit 1", err, exitCode(err))
	}
}

type shortWriter struct{}

func (shortWriter) Write(p []byte) (int, error) { return len(p) / 2, nil }
