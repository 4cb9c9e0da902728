package builtin

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/evalcal/evalcal/inspection"
	"github.com/evalcal/evalcal/sampler"
)

// TestInspectAgreesWithCorpusManifest checks every bundled run against what
// the corpus generator planted (MANIFEST.json: light_sees, deep_sees and
// verdicts), which is written independently of this inspector.
func TestInspectAgreesWithCorpusManifest(t *testing.T) {
	root := filepath.Join("..", "..", "testdata", "runs")
	b, err := os.ReadFile(filepath.Join(root, "MANIFEST.json"))
	if err != nil {
		t.Skip(err)
	}
	var m struct {
		Runs []struct {
			ID           string
			Valid        bool
			Outcome      string
			Invalid      string
			LightSees    []string `json:"light_sees"`
			DeepSees     []string `json:"deep_sees"`
			LightVerdict string   `json:"light_verdict"`
			DeepVerdict  string   `json:"deep_verdict"`
		} `json:"runs"`
	}
	json.Unmarshal(b, &m)
	in := New()
	for _, e := range m.Runs {
		r, err := sampler.Describe(filepath.Join(root, e.ID))
		if err != nil {
			t.Fatal(err)
		}
		if r.Valid != e.Valid || (e.Valid && string(r.Status) != e.Outcome) {
			t.Errorf("%s: valid %v status %s; want %v %s (%s / %s)", e.ID, r.Valid, r.Status, e.Valid, e.Outcome, r.Invalid, e.Invalid)
		}
		if !r.Valid {
			continue
		}
		for _, d := range []inspection.Depth{inspection.Light, inspection.Deep} {
			insp, err := in.Inspect(context.Background(), r, d)
			if err != nil {
				t.Fatal(err)
			}
			ids := map[string]bool{}
			for _, f := range insp.Flags {
				ids[f.ID] = true
			}
			var got []string
			for id := range ids {
				got = append(got, id)
			}
			sort.Strings(got)
			want, wv := e.LightSees, e.LightVerdict
			if d == inspection.Deep {
				want, wv = e.DeepSees, e.DeepVerdict
			}
			sort.Strings(want)
			if strings.Join(got, ",") != strings.Join(want, ",") || insp.Verdict != wv {
				t.Errorf("%s %s: got %v %s want %v %s\n%s", e.ID, d, got, insp.Verdict, want, wv, fmt.Sprint(insp.Flags))
			}
		}
	}
}
