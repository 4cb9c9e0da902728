package saved

import (
	"bytes"
	"testing"
)

// The arena's copies hold what was copied after the source changes and
// after later copies (appending to one does not write into the next),
// across blocks and for lines longer than a quarter block; an empty line
// is copied as empty, not nil.
func TestArenaCopies(t *testing.T) {
	var a arena
	var want, got [][]byte
	for i := range 3000 {
		n := (i * 37) % 900
		if i%1000 == 999 {
			n = arenaBlock/4 + 1
		}
		src := bytes.Repeat([]byte{byte(i)}, n)
		c := a.copy(src)
		clear(src)
		want, got = append(want, bytes.Repeat([]byte{byte(i)}, n)), append(got, c)
		if i > 0 {
			_ = append(got[i-1], 'x') // must not write into c
		}
	}
	for i := range want {
		if !bytes.Equal(got[i], want[i]) {
			t.Fatalf("copy %d: %d bytes differ from what was copied", i, len(got[i]))
		}
	}
	if c := a.copy(nil); c == nil || len(c) != 0 {
		t.Errorf("copy(nil) = %v, want an empty non-nil slice", c)
	}
}
