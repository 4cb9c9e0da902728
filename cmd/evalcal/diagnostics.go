package main

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/evalcal/evalcal/forecast"
)

// listedOnStderr is how many items of a kind (warnings, bad lines,
// failures) stderr lists; the document lists them all.
const listedOnStderr = 5

// maxItemWidth cuts a listed item (an inspector's stderr can be 2 KB) to
// one line of at most this many bytes.
const maxItemWidth = 240

// summarise prints, when total > 0, a count line and the first
// listedOnStderr items, each on its own line:
//
//	evalcal: 12 bad lines (the first 5; the document lists them all under bad_lines):
//	evalcal:   f.jsonl:3: confidence: must be a number in [0, 1], got 1.5
//
// kind is the singular noun ("bad line"; the plural adds an s) and where
// the document's key holding all of them. total may exceed len(items) (a
// document that lists only the first of many).
func summarise(w io.Writer, total int, kind, where string, items []string) {
	if total <= 0 {
		return
	}
	noun := kind
	if total != 1 {
		noun += "s"
	}
	switch {
	case total > listedOnStderr || total > len(items):
		fmt.Fprintf(w, "evalcal: %d %s (the first %d; the document lists them under %s):\n", total, noun, min(listedOnStderr, len(items)), where)
	default:
		fmt.Fprintf(w, "evalcal: %d %s:\n", total, noun)
	}
	for i := 0; i < len(items) && i < listedOnStderr; i++ {
		fmt.Fprintf(w, "evalcal:   %s\n", oneLine(items[i]))
	}
}

// oneLine folds s onto one line (runs of white space, newlines included,
// become one space) and cuts it to maxItemWidth bytes, marking the cut
// with "...".
func oneLine(s string) string {
	line := strings.Join(strings.Fields(s), " ")
	if len(line) > maxItemWidth {
		cut := maxItemWidth
		for cut > 0 && !utf8.RuneStart(line[cut]) {
			cut--
		}
		line = line[:cut] + " ..."
	}
	return line
}

// badLineItems formats bad lines as file:line: field: error.
func badLineItems(bad []forecast.BadLine) []string {
	items := make([]string, 0, min(len(bad), listedOnStderr))
	for i := 0; i < len(bad) && i < listedOnStderr; i++ {
		b := bad[i]
		switch {
		case b.Field != "":
			items = append(items, fmt.Sprintf("%s:%d: %s: %s", b.File, b.Line, b.Field, b.Error))
		default:
			items = append(items, fmt.Sprintf("%s:%d: %s", b.File, b.Line, b.Error))
		}
	}
	return items
}
