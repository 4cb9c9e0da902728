package sampler

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/evalcal/evalcal/inspection"
	"github.com/google/go-cmp/cmp"
)

func TestParseLogReadsEveryMarker(t *testing.T) {
	const in = "# run:20260101-000000-abc123 demo.prose\n" +
		"program: ~/progs/demo.md\n" +
		"\n" +
		"Some narrative text, 1. not a marker → really.\n" +
		"1-> [input] request ✓\n" +
		"2→ fetch ✓ (3 pages)\n" +
		"3→ ∥start a,b\n" +
		"3a→ a ✓\n" +
		"3b-> b ✗ Timeout after 30s\n" +
		"3→ ∥done\n" +
		"4→ [vm-action] EnterWorktree ✓ (worktree: x)\n" +
		"5→ #2 linus (review) ✓\n" +
		"6→ report ∅ skipped\n" +
		"7→ loop:1/50\n" +
		"---end 2026-01-01T00:10:00-03:00\n" +
		"---end 2026-01-01T00:11:00Z\n"
	got, err := ParseLog(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	want := Log{
		RunID: "20260101-000000-abc123", Program: "demo.prose",
		Meta: map[string]string{"program": "~/progs/demo.md"},
		Events: []Event{
			{Line: 5, Index: "1", Kind: KindInput, Name: "request", Service: "request", Outcome: OutcomeOK},
			{Line: 6, Index: "2", Name: "fetch", Service: "fetch", Outcome: OutcomeOK, Annotation: "3 pages"},
			{Line: 7, Index: "3", Name: "∥start", Outcome: OutcomeParallelStart, Branches: []string{"a", "b"}},
			{Line: 8, Index: "3a", Name: "a", Service: "a", Outcome: OutcomeOK},
			{Line: 9, Index: "3b", Name: "b", Service: "b", Outcome: OutcomeError, Error: "Timeout after 30s"},
			{Line: 10, Index: "3", Name: "∥done", Outcome: OutcomeParallelDone},
			{Line: 11, Index: "4", Kind: KindVMAction, Name: "EnterWorktree", Service: "EnterWorktree", Outcome: OutcomeOK, Annotation: "worktree: x"},
			{Line: 12, Index: "5", Iteration: "2", Name: "linus (review)", Service: "linus", Outcome: OutcomeOK},
			{Line: 13, Index: "6", Name: "report", Service: "report", Outcome: OutcomeSkipped, Error: "skipped"},
			{Line: 14, Index: "7", Name: "loop:1/50", Service: "loop:1/50", Outcome: OutcomeNote},
		},
		// Inputs, VM actions, parallel brackets and notes are not service
		// events; the rest, by first line.
		Services: []ServiceSummary{
			{Service: "fetch", First: 6, OK: 6}, {Service: "a", First: 8, OK: 8},
			{Service: "b", First: 9, Error: 9}, {Service: "linus", First: 12, OK: 12},
			{Service: "report", First: 13, Skipped: 13},
		},
		Terminator: &Terminator{Line: 15, Status: inspection.StatusCompleted, Timestamp: "2026-01-01T00:10:00-03:00"},
		Lines:      16,
		Bytes:      int64(len(in)),
		Warnings: []string{
			`line 14: marker without an outcome: "loop:1/50"`,
			"line 16: repeated terminator (first on line 15)",
		},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("ParseLog mismatch (-want +got):\n%s", d)
	}
	if got.Status() != inspection.StatusCompleted {
		t.Errorf("Status = %q, want completed", got.Status())
	}
}

func TestParseLogStatusFollowsTerminator(t *testing.T) {
	cases := []struct {
		name, in string
		want     inspection.Status
		msg      string
	}{
		{"end", "# run:x p\n1→ a ✓\n---end 2026-01-01T00:00:00Z\n", inspection.StatusCompleted, ""},
		{"error", "# run:x p\n1→ a ✗ Boom\n---error 2026-01-01T00:00:00Z a.Boom failed hard\n", inspection.StatusFailed, "a.Boom failed hard"},
		{"neither", "# run:x p\n1→ a ✓\n", inspection.StatusIncomplete, ""},
		{"empty", "", inspection.StatusIncomplete, ""},
		{"header only, no newline", "# run:x p", inspection.StatusIncomplete, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l, err := ParseLog(strings.NewReader(c.in))
			if err != nil {
				t.Fatal(err)
			}
			if l.Status() != c.want {
				t.Errorf("Status = %q, want %q", l.Status(), c.want)
			}
			if c.msg != "" && l.Terminator.Message != c.msg {
				t.Errorf("Message = %q, want %q", l.Terminator.Message, c.msg)
			}
		})
	}
}

func TestParseLogReadsFrontMatterAndNarrativeHeadings(t *testing.T) {
	const in = "---\nrun_id: r1\nsystem: sys\nstatus: failed\nnested: {a: 1}\n---\n\n# vm.log\n\n" +
		"### tool-picker — completed\n\n- did things\n\n### searcher — failed (AllCallsFailed)\n\n### dedup — skipped\n"
	l, err := ParseLog(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"run_id": "r1", "system": "sys", "status": "failed"}
	if d := cmp.Diff(want, l.FrontMatter); d != "" {
		t.Errorf("front matter (-want +got):\n%s", d)
	}
	wantNarr := []Event{
		{Line: 10, Kind: KindNarrative, Name: "tool-picker", Service: "tool-picker", Outcome: OutcomeOK},
		{Line: 14, Kind: KindNarrative, Name: "searcher", Service: "searcher", Outcome: OutcomeError, Error: "AllCallsFailed"},
		{Line: 16, Kind: KindNarrative, Name: "dedup", Service: "dedup", Outcome: OutcomeSkipped},
	}
	if d := cmp.Diff(wantNarr, l.Narrative); d != "" {
		t.Errorf("narrative (-want +got):\n%s", d)
	}
	if d := cmp.Diff(wantNarr, ServiceEvents(l)); d != "" {
		t.Errorf("ServiceEvents falls back to the narrative (-want +got):\n%s", d)
	}
	if l.Status() != inspection.StatusIncomplete {
		t.Errorf("front matter must not set the log's own status; got %q", l.Status())
	}
}

func TestParseLogWarnsOnBrokenFrontMatterAndBadUTF8(t *testing.T) {
	in := "---\nkey: [unclosed\n---\n1→ a\xff ✓\n"
	l, err := ParseLog(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Events) != 1 || l.Events[0].Service != "a\uFFFD" {
		t.Errorf("events = %+v, want one event for a\\uFFFD", l.Events)
	}
	joined := strings.Join(l.Warnings, "\n")
	for _, w := range []string{"line 1: front matter is not YAML", "line 4: invalid UTF-8"} {
		if !strings.Contains(joined, w) {
			t.Errorf("warnings %q lack %q", joined, w)
		}
	}
}

func TestParseLogSkipsTheTailOfAnOverLongLine(t *testing.T) {
	var b bytes.Buffer
	b.WriteString("# run:x p\n1→ ")
	b.WriteString(strings.Repeat("z", MaxLogLine+10))
	b.WriteString(" ✓\n2→ after ✓\n---end T\n")
	l, err := ParseLog(&b)
	if err != nil {
		t.Fatal(err)
	}
	if l.Lines != 4 || l.Status() != inspection.StatusCompleted {
		t.Errorf("Lines=%d Status=%q, want 4 completed", l.Lines, l.Status())
	}
	if n := len(l.Events); n != 2 || l.Events[1].Service != "after" {
		t.Errorf("events = %d, want 2 ending with after", n)
	}
	if len(l.Warnings) == 0 || !strings.Contains(l.Warnings[0], "line 2: longer than") {
		t.Errorf("warnings = %q, want an over-long line warning on line 2", l.Warnings)
	}
}

func TestParseLogWarnsOnEventsAfterTerminatorAndTruncation(t *testing.T) {
	l, err := ParseLog(strings.NewReader("1→ a ✓\n---end T\n2→ b ✓\n3→ c"))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"line 3: event after the terminator on line 2",
		"line 4: event after the terminator on line 2",
		`line 4: marker without an outcome: "c"`,
	}
	if d := cmp.Diff(want, l.Warnings); d != "" {
		t.Errorf("warnings (-want +got):\n%s", d)
	}
	l, _ = ParseLog(strings.NewReader("1→ a ✓\n2→ b"))
	if got := l.Warnings[len(l.Warnings)-1]; got != "line 2: log ends without a newline (truncated?)" {
		t.Errorf("last warning = %q", got)
	}
}

func TestParseLogCapsWarnings(t *testing.T) {
	l, err := ParseLog(strings.NewReader(strings.Repeat("1→ odd\n", 200)))
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Warnings) != maxWarnings+1 || l.Warnings[maxWarnings] != "150 more warnings not listed" {
		t.Errorf("got %d warnings ending %q", len(l.Warnings), l.Warnings[len(l.Warnings)-1])
	}
}

func TestParseLogReturnsReadErrorWithLine(t *testing.T) {
	boom := errors.New("disk gone")
	r := io.MultiReader(strings.NewReader("1→ a ✓\n2→ b ✓\n"), iotest.ErrReader(boom))
	l, err := ParseLog(r)
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), "line 3") {
		t.Fatalf("err = %v, want disk gone at line 3", err)
	}
	if len(l.Events) != 2 {
		t.Errorf("events read before the failure = %d, want 2", len(l.Events))
	}
}

func FuzzParseLog(f *testing.F) {
	for _, s := range []string{
		"# run:x p\n1→ a ✓\n---end T\n",
		"---\na: b\n---\n1-> [input] x ✓ (y)\n3→ ∥start a,b\n3a→ a ✗ E\n3→ ∥done\n---error T m\n",
		"4→ node ∅ skipped\n---end\n---end\n",
		"\xff\xfe→→✓✗∅\r\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		l, err := ParseLog(bytes.NewReader(in))
		if err != nil {
			t.Fatalf("ParseLog on a bytes reader failed: %v", err)
		}
		if l.Bytes != int64(len(in)) {
			t.Errorf("Bytes = %d, want %d", l.Bytes, len(in))
		}
		if want := bytes.Count(in, []byte("\n")); l.Lines < want || l.Lines > want+1 {
			t.Errorf("Lines = %d for %d newlines", l.Lines, want)
		}
		prev := 0
		for _, ev := range l.Events {
			if ev.Line <= prev || ev.Line > l.Lines {
				t.Errorf("event line %d out of order (prev %d, lines %d)", ev.Line, prev, l.Lines)
			}
			prev = ev.Line
		}
		switch l.Status() {
		case inspection.StatusCompleted, inspection.StatusFailed, inspection.StatusIncomplete:
		default:
			t.Errorf("status %q", l.Status())
		}
		if l.EventsDropped == 0 && l.NarrativeDropped == 0 && l.ServicesDropped == 0 {
			if d := cmp.Diff(summariesByHand(l), ServiceSummaries(l)); d != "" {
				t.Errorf("summaries disagree with the events (-by hand +summaries):\n%s", d)
			}
		}
	})
}
