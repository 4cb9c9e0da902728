package importers

import (
	"encoding/json"
	"fmt"

	"github.com/evalcal/evalcal/inspection"
)

// runMetadata reads a sample's or result's metadata object into the run's
// metadata (inspection.MetadataFromJSON), named name in the warnings
// ("metadata", "vars"): a nested value is left out, a value that is not an
// object is left out whole, each with a warning for the run. It never
// fails: metadata is never a reason to lose a run.
func runMetadata(name string, raw json.RawMessage) (inspection.Metadata, []string) {
	md, skipped, err := inspection.MetadataFromJSON(raw)
	if err != nil {
		return nil, []string{fmt.Sprintf("%s: %v: skipped", name, err)}
	}
	var warn []string
	for _, s := range skipped {
		if name == "metadata" {
			warn = append(warn, s.String())
			continue
		}
		warn = append(warn, fmt.Sprintf("%s.%s is %s; metadata values are strings, numbers or booleans: skipped", name, s.Field, s.Why))
	}
	return md, warn
}

// resultMetadata is a promptfoo result's metadata: its test's `vars` and
// its `metadata` (which promptfoo fills from the test's metadata and the
// provider's response), the latter winning a field both give.
func resultMetadata(vars, meta json.RawMessage) (inspection.Metadata, []string) {
	mv, warn := runMetadata("vars", vars)
	mm, w := runMetadata("metadata", meta)
	warn = append(warn, w...)
	out, _ := inspection.MergeMetadata(mm, mv)
	return out, warn
}
