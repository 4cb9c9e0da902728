package forecast

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// bigInput has n lines spanning several parse batches, with bad, blank
// and unresolved lines scattered through it.
func bigInput(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		switch {
		case i%997 == 0:
			b.WriteString("{not json\n")
		case i%1009 == 0:
			b.WriteString("\n")
		case i%1013 == 0:
			fmt.Fprintf(&b, `{"id":"f%d","agent":"a","confidence":0.5}`+"\n", i)
		default:
			fmt.Fprintf(&b, `{"id":"f%d","agent":"a%d","confidence":0.%02d,"outcome":%d}`+"\n", i, i%7, i%100, i%2)
		}
	}
	return b.String()
}

func readAllParallel(t *testing.T, in string, strict bool) ([]Forecast, JSONLResult, error) {
	t.Helper()
	var got []Forecast
	res, err := ReadJSONL(context.Background(), strings.NewReader(in), "in.jsonl", JSONLOptions{Strict: strict, MaxListed: 1 << 20},
		func(f Forecast) error { got = append(got, f); return nil })
	return got, res, err
}

func TestParallelParsingEqualsSequential(t *testing.T) {
	in := bigInput(max(3*parseBatchLines, 12_000) + 123)
	prev := runtime.GOMAXPROCS(1)
	seqF, seqRes, seqErr := readAllParallel(t, in, false)
	runtime.GOMAXPROCS(4)
	parF, parRes, parErr := readAllParallel(t, in, false)
	runtime.GOMAXPROCS(prev)
	if seqErr != nil || parErr != nil {
		t.Fatalf("errors: %v, %v", seqErr, parErr)
	}
	if d := cmp.Diff(seqF, parF); d != "" {
		t.Errorf("forecasts differ (-sequential +parallel):\n%s", d)
	}
	if d := cmp.Diff(seqRes, parRes); d != "" {
		t.Errorf("results differ (-sequential +parallel):\n%s", d)
	}
	if seqRes.BadCount == 0 || seqRes.Unresolved == 0 || len(seqF) < 12000 {
		t.Errorf("input did not exercise bad and unresolved lines: %+v", seqRes)
	}
}

func TestParallelStrictStopsAtTheFirstBadLineInOrder(t *testing.T) {
	in := bigInput(3 * parseBatchLines)
	prev := runtime.GOMAXPROCS(4)
	defer runtime.GOMAXPROCS(prev)
	_, _, err := readAllParallel(t, in, true)
	var le *LineError
	if !errors.As(err, &le) || le.Line != 997 {
		t.Fatalf("strict error %v, want the bad line 997", err)
	}
}

func TestParallelParsingStopsWhenTheCallbackFails(t *testing.T) {
	prev := runtime.GOMAXPROCS(4)
	defer runtime.GOMAXPROCS(prev)
	stop := errors.New("stop")
	n := 0
	_, err := ReadJSONL(context.Background(), strings.NewReader(bigInput(5*parseBatchLines)), "in", JSONLOptions{},
		func(Forecast) error {
			n++
			if n == 5000 {
				return stop
			}
			return nil
		})
	if !errors.Is(err, stop) || n != 5000 {
		t.Errorf("err %v after %d calls, want stop after 5000", err, n)
	}
}
