package lines

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// Lines come back without their newline, a long one cut to the limit
// and flagged, the byte-order mark dropped at the start only, the last
// line with or without a newline, and the file limit counts every byte.
func TestReader(t *testing.T) {
	in := "\uFEFFone\n" + strings.Repeat("x", 200_000) + "\n\n\uFEFFtwo\nlast"
	type got struct {
		line string
		long bool
	}
	var lines []got
	r := NewReader(iotest.HalfReader(strings.NewReader(in)), 100_000, int64(len(in)))
	for {
		line, long, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, got{string(line), long})
	}
	want := []got{{"one", false}, {strings.Repeat("x", 100_000), true}, {"", false}, {"\uFEFFtwo", false}, {"last", false}}
	if len(lines) != len(want) {
		t.Fatalf("%d lines, want %d", len(lines), len(want))
	}
	for i := range want {
		if lines[i] != want[i] {
			t.Errorf("line %d: %q (long %v), want %.20q (long %v)", i+1, lines[i].line[:min(20, len(lines[i].line))], lines[i].long, want[i].line, want[i].long)
		}
	}
	r = NewReader(strings.NewReader(in), 100_000, int64(len(in))-1)
	for {
		_, _, err := r.Next()
		if errors.Is(err, ErrFileTooLong) {
			break
		}
		if err != nil {
			t.Fatalf("want ErrFileTooLong, got %v", err)
		}
	}
}

// TestReaderStart checks that Start gives where each line is in the file:
// the bytes at Start are the line, after a byte-order mark, across
// "\r\n" endings and lines longer than the reader's buffer.
func TestReaderStart(t *testing.T) {
	in := "\uFEFFone\r\n" + strings.Repeat("y", 150_000) + "\n\n  two \nlast"
	r := NewReader(iotest.OneByteReader(strings.NewReader(in)), 1<<20, int64(len(in)))
	n := 0
	for {
		line, _, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		n++
		at := int(r.Start())
		if got := in[at : at+len(line)]; got != string(line) {
			t.Errorf("line %d: the file at Start %d holds %.20q, the line is %.20q", n, at, got, line)
		}
	}
	if n != 5 {
		t.Fatalf("%d lines, want 5", n)
	}
	if r := NewReader(strings.NewReader("\uFEFFx"), 10, 10); true {
		if _, _, err := r.Next(); err != nil || r.Start() != 3 {
			t.Errorf("after a byte-order mark: Start %d (err %v), want 3", r.Start(), err)
		}
	}
}
