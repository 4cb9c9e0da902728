package reportenc_test

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"testing"

	. "github.com/evalcal/evalcal/internal/reportenc"
	"github.com/evalcal/evalcal/internal/testutil"
	"github.com/evalcal/evalcal/report/reporttest"

	"gopkg.in/yaml.v3"
)

// TestEncoderPeakMemory measures the encoders on a run report of 20,000
// runs and a score document of 200,000 groups (score --by id): the old
// way (yaml.v3's Encoder over the whole document, json.MarshalIndent)
// against WriteYAML and WriteJSON to a writer and EncodeYAML/EncodeJSON
// into memory. It reports (the figures depend on the machine) and asserts
// that streaming YAML peaks under 1/10 of yaml.v3. Run with
// EVALCAL_ENCODE_MEMORY=1 (a few minutes); yaml.v3 on the score document
// needs about 14 GB and runs only with EVALCAL_ENCODE_MEMORY=old.
func TestEncoderPeakMemory(t *testing.T) {
	mode := os.Getenv("EVALCAL_ENCODE_MEMORY")
	if testing.Short() || mode == "" {
		t.Skip("set EVALCAL_ENCODE_MEMORY=1 to measure (slow)")
	}
	docs := []struct {
		name    string
		v       func() any
		oldYAML bool
	}{
		{"run report, 20000 runs", func() any { return reporttest.Large(20000) }, true},
		{"score --by id, 200000 groups", func() any { return LargeScoreDocument(t, 200000) }, mode == "old"},
	}
	for _, d := range docs {
		v := d.v()
		var size int
		encoders := []struct {
			name string
			f    func() error
		}{
			{"yaml.v3 Encoder into memory (old EncodeYAML)", func() error {
				var buf bytes.Buffer
				enc := yaml.NewEncoder(&buf)
				enc.SetIndent(2)
				if err := enc.Encode(v); err != nil {
					return err
				}
				size = buf.Len()
				return enc.Close()
			}},
			{"EncodeYAML (into memory)", func() error { b, err := EncodeYAML(v); size = len(b); return err }},
			{"WriteYAML to a writer", func() error { return WriteYAML(io.Discard, v) }},
			{"json.MarshalIndent (old EncodeJSON)", func() error { b, err := json.MarshalIndent(v, "", "  "); size = len(b); return err }},
			{"EncodeJSON (into memory)", func() error { b, err := EncodeJSON(v); size = len(b); return err }},
			{"WriteJSON to a writer", func() error { return WriteJSON(io.Discard, v) }},
		}
		var oldYAML, streamYAML uint64
		for i, enc := range encoders {
			if i == 0 && !d.oldYAML {
				continue
			}
			probe, err := testutil.PeakHeap(enc.f)
			peak, elapsed := probe.Above(), probe.Elapsed
			if err != nil {
				t.Fatalf("%s, %s: %v", d.name, enc.name, err)
			}
			switch i {
			case 0:
				oldYAML = peak
			case 2:
				streamYAML = peak
			}
			t.Logf("%-30s %-46s peak heap %8.1f MB  %6.2f s  (document %.1f MB)", d.name, enc.name,
				float64(peak)/(1<<20), elapsed.Seconds(), float64(size)/(1<<20))
		}
		if oldYAML > 0 && streamYAML*10 > oldYAML {
			t.Errorf("%s: WriteYAML peak %d bytes is not under 1/10 of yaml.v3's %d", d.name, streamYAML, oldYAML)
		}
	}
}
