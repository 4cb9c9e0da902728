package sampler

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sort"
	"strings"
	"testing"

	"github.com/evalcal/evalcal/inspection"
	"github.com/google/go-cmp/cmp"
)

// longLog is a log of n service events over 50 services (service_k first
// appears on line k+2, errors on every 7th event), with a narrative
// heading every 1,000 lines.
func longLog(n int) []byte {
	var b bytes.Buffer
	b.WriteString("# run:20260101-000000-abcdef bench\n")
	for i := 1; i <= n; i++ {
		mark := "✓ (note " + fmt.Sprint(i) + ")"
		if i%7 == 0 {
			mark = "✗ Boom"
		}
		fmt.Fprintf(&b, "%d→ service_%d %s\n", i, (i-1)%50, mark)
		if i%1000 == 0 {
			fmt.Fprintf(&b, "### narr_%d — completed\n", i%3)
		}
	}
	b.WriteString("---end 2026-01-01T00:00:00Z\n")
	return b.Bytes()
}

// liveHeap is the live heap after a full collection.
func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// Issue 13.9: a log cost about 1 KB of memory per event line (a 65 MB
// state.md took 3 GB). What a Log keeps must not grow with the log.
func TestParseLogMemoryDoesNotGrowWithTheLog(t *testing.T) {
	if testing.Short() {
		t.Skip("parses a 12 MB log")
	}
	data := longLog(400_000)
	before := liveHeap()
	l, err := ParseLog(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	retained := int64(liveHeap()) - int64(before)
	runtime.KeepAlive(l)
	runtime.KeepAlive(data) // live in both measurements
	// Kept: 10,000 events and their lines (about 3 MB), 50 summaries.
	// Before streaming: 400,000 events, over 100 MB.
	t.Logf("a %d MB log of %d events keeps %.1f MB", len(data)>>20, 400_000, float64(retained)/(1<<20))
	if retained > 12<<20 {
		t.Errorf("a %d MB log keeps %d MB", len(data)>>20, retained>>20)
	}
	if len(l.Events) != MaxLogEvents || l.EventsDropped != 400_000-MaxLogEvents || l.Lines != 400_000+400+2 {
		t.Errorf("events kept %d dropped %d lines %d", len(l.Events), l.EventsDropped, l.Lines)
	}
	if l.Status() != inspection.StatusCompleted {
		t.Errorf("status %s: the terminator after the dropped events was lost", l.Status())
	}
	// Every service's summary, worked out from longLog's rule: the line
	// of event i is i+1 plus one per narrative heading before it.
	line := func(i int) int { return i + 1 + (i-1)/1000 }
	var want []ServiceSummary
	for k := range 50 {
		s := ServiceSummary{Service: fmt.Sprintf("service_%d", k), First: line(k + 1), OK: line(k + 1)}
		for i := k + 1; ; i += 50 {
			if i%7 == 0 {
				s.Error = line(i)
				break
			}
		}
		if (k+1)%7 == 0 { // the first event is an error; the first OK is 50 events on
			s.OK = line(k + 1 + 50)
		}
		want = append(want, s)
	}
	if d := cmp.Diff(want, l.Services); d != "" {
		t.Errorf("service summaries (-want +got):\n%s", d)
	}
	if n := len(l.NarrativeServices); n != 3 {
		t.Errorf("narrative services %d, want 3", n)
	}
	// The headings after events 1000, 2000 and 3000 name services no
	// marker mentions: ServiceSummaries adds them in line order.
	for i, k := range []int{1, 2, 0} {
		e := 1000 * (i + 1)
		want = append(want, ServiceSummary{Service: fmt.Sprintf("narr_%d", k), First: line(e) + 1, OK: line(e) + 1})
	}
	sort.SliceStable(want, func(i, j int) bool { return want[i].First < want[j].First })
	if d := cmp.Diff(want, ServiceSummaries(l)); d != "" {
		t.Errorf("ServiceSummaries (-want +got):\n%s", d)
	}
}

func TestParseLogBoundsServicesNamesAndQuotes(t *testing.T) {
	var b strings.Builder
	for i := range MaxLogServices + 10 {
		fmt.Fprintf(&b, "%d→ s%d ✓\n", i+1, i)
	}
	fmt.Fprintf(&b, "%d→ %s ✓\n", MaxLogServices+11, strings.Repeat("x", MaxServiceName+1))
	fmt.Fprintf(&b, "%d→ %s\n", MaxLogServices+12, strings.Repeat("y", 100_000))
	l, err := ParseLog(strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Services) != MaxLogServices || l.ServicesDropped != 11 {
		t.Errorf("services %d dropped %d, want %d and 11", len(l.Services), l.ServicesDropped, MaxLogServices)
	}
	for _, w := range l.Warnings {
		if len(w) > 400 {
			t.Errorf("warning of %d bytes: quotes are not clipped", len(w))
		}
	}
}

func TestParseLogStopsAtItsByteLimit(t *testing.T) {
	in := "1→ a ✓\n2→ b ✓\n---end T\n"
	l, err := parseLog(strings.NewReader(in), 10)
	if err != nil {
		t.Fatal(err)
	}
	if l.Bytes != 10 || l.Status() != inspection.StatusIncomplete || !strings.Contains(strings.Join(l.Warnings, "\n"), "longer than 10 bytes") {
		t.Errorf("bytes %d status %s warnings %q", l.Bytes, l.Status(), l.Warnings)
	}
	l, err = parseLog(strings.NewReader(in), int64(len(in)))
	if err != nil || l.Status() != inspection.StatusCompleted || len(l.Warnings) != 0 {
		t.Errorf("a log of exactly the limit: %v %s %q", err, l.Status(), l.Warnings)
	}
}

// summariesByHand aggregates ServiceEvents as the summaries are defined,
// for logs short enough to keep every event.
func summariesByHand(l Log) []ServiceSummary {
	index := map[string]int{}
	var out []ServiceSummary
	for _, ev := range ServiceEvents(l) {
		i, ok := index[ev.Service]
		if !ok {
			i = len(out)
			index[ev.Service] = i
			out = append(out, ServiceSummary{Service: ev.Service, First: ev.Line})
		}
		s := &out[i]
		switch {
		case ev.Outcome == OutcomeOK && s.OK == 0:
			s.OK = ev.Line
		case ev.Outcome == OutcomeError && s.Error == 0:
			s.Error = ev.Line
		case ev.Outcome == OutcomeSkipped && s.Skipped == 0:
			s.Skipped = ev.Line
		}
	}
	return out
}

// ServiceSummaries, built while streaming, agree with aggregating the
// kept events whenever every event is kept.
func TestServiceSummariesAgreeWithServiceEvents(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 9))
	names := []string{"a", "b", "c", "d"}
	marks := []string{"✓", "✗ E", "∅ skipped", "", "✓ (x)"}
	for trial := range 500 {
		var b strings.Builder
		for i := range 1 + rng.IntN(30) {
			switch rng.IntN(6) {
			case 0:
				fmt.Fprintf(&b, "### %s — %s\n", names[rng.IntN(4)], []string{"completed", "failed (X)", "skipped"}[rng.IntN(3)])
			case 1:
				fmt.Fprintf(&b, "%d→ [input] %s ✓\n", i, names[rng.IntN(4)])
			case 2:
				fmt.Fprintf(&b, "%d→ ∥start a,b\n", i)
			default:
				fmt.Fprintf(&b, "%d→ %s %s\n", i, names[rng.IntN(4)], marks[rng.IntN(len(marks))])
			}
		}
		l, err := ParseLog(strings.NewReader(b.String()))
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(summariesByHand(l), ServiceSummaries(l)); d != "" {
			t.Fatalf("trial %d, log:\n%s\n(-by hand +summaries):\n%s", trial, b.String(), d)
		}
	}
}
