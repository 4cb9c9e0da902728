package report

import (
	"bytes"
	"testing"
)

// ValidateAgainstSchema validates a JSON document against the committed
// report schema.
func ValidateAgainstSchema(t *testing.T, b []byte) error {
	t.Helper()
	return compileSchema(t).Validate(instance(t, b))
}

// FastAgrees decodes every comparisons and sample.runs line of the runs
// file b with the fast decoders and with encoding/json (checkFast), and
// returns how many lines the fast decoders took and how many they left.
func FastAgrees(t *testing.T, b []byte) (took, left int) {
	t.Helper()
	for len(b) > 0 {
		end := bytes.IndexByte(b, '\n')
		if end < 0 {
			end = len(b) - 1
		}
		line := b[:end+1]
		b = b[end+1:]
		name, _, item, ok := splitRunsLine(line)
		if !ok {
			t.Fatalf("not a runs file line: %q", line)
		}
		var fast bool
		switch name {
		case "comparisons":
			fast = checkFast(t, item, fastComparison)
		case "sample.runs":
			fast = checkFast(t, item, fastSampleRun)
		default:
			continue
		}
		if fast {
			took++
		} else {
			left++
		}
	}
	return took, left
}
