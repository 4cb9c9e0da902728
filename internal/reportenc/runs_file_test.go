package reportenc_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"testing"

	. "github.com/evalcal/evalcal/internal/reportenc"
	"github.com/evalcal/evalcal/report/reporttest"
)

// The runs file is encoded on every CPU a chunk of lines at a time and
// written in order: whatever GOMAXPROCS, the bytes are the same, every
// line is one item, in the listings' order, and its description counts
// them. 5,000 runs make several chunks a listing.
func TestWriteRunsFileIsTheSameOnAnyNumberOfCPUs(t *testing.T) {
	r := reporttest.Large(5000)
	var want []byte
	for _, procs := range []int{1, 2, 7} {
		prev := runtime.GOMAXPROCS(procs)
		var b bytes.Buffer
		rf, err := WriteRunsFile(context.Background(), &b, r)
		runtime.GOMAXPROCS(prev)
		if err != nil {
			t.Fatal(err)
		}
		if want == nil {
			want = b.Bytes()
		} else if !bytes.Equal(b.Bytes(), want) {
			t.Fatalf("GOMAXPROCS=%d: the runs file differs from GOMAXPROCS=1's", procs)
		}
		lines, sections := 0, map[string]int{}
		var prevID string
		sc := bufio.NewScanner(bytes.NewReader(b.Bytes()))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var l struct {
				Section string          `json:"section"`
				Item    json.RawMessage `json:"item"`
			}
			if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
				t.Fatalf("line %d: %v", lines+1, err)
			}
			if l.Section == "comparisons" {
				var c struct {
					RunID string `json:"run_id"`
				}
				if err := json.Unmarshal(l.Item, &c); err != nil || c.RunID <= prevID {
					t.Fatalf("line %d: comparison %s after %s (%v): out of order", lines+1, c.RunID, prevID, err)
				}
				prevID = c.RunID
			}
			lines++
			sections[l.Section]++
		}
		if rf.Lines != lines || fmt.Sprint(rf.Sections) != fmt.Sprint(sections) || rf.Bytes != int64(b.Len()) {
			t.Errorf("GOMAXPROCS=%d: described %d lines %v %d bytes; the file has %d %v %d", procs, rf.Lines, rf.Sections, rf.Bytes, lines, sections, b.Len())
		}
		if sections["comparisons"] != 5000 {
			t.Errorf("%d comparisons, want 5000", sections["comparisons"])
		}
	}
}
