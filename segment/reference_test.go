package segment

import (
	"encoding/json"
	"math"
	"os"
	"testing"

	"github.com/evalcal/evalcal/inspection"
)

// The reference values come from testdata/reference/segment_ref.py
// (statsmodels proportion_confint, cohens_kappa, test_proportions_2indep
// and multipletests; scipy's binomtest; PPI++ written in numpy with lambda
// found by a numerical minimiser), run once on the fixture runs.json that
// the same script draws with known answers; each value carries its tool
// and call.

type refValue struct {
	Value float64 `json:"value"`
	Call  string  `json:"call"`
}

type refRate struct {
	Method  string     `json:"method"`
	Percent float64    `json:"percent"`
	SE      float64    `json:"se"`
	CI95    [2]float64 `json:"ci95"`
	Call    string     `json:"call"`
}

type refSlice struct {
	Value        string `json:"value"`
	N            int    `json:"n"`
	NLight       int    `json:"n_light"`
	Matches      int    `json:"matches"`
	Tested       bool   `json:"tested"`
	Wilson95     struct{ Value [2]float64 }
	Simultaneous struct{ Value [2]float64 }   `json:"simultaneous95"`
	KappaLinear  struct{ Value, SE refValue } `json:"kappa_linear"`
	Leniency     struct {
		B, C int
		P    struct{ Value *float64 }
	}
	LightRate refRate `json:"light_rate"`
	DeepRate  refRate `json:"deep_rate"`
}

type refDiff struct {
	Points float64    `json:"points"`
	SE     float64    `json:"se"`
	CI95   [2]float64 `json:"ci95"`
	P      float64    `json:"p"`
	PHolm  float64    `json:"p_holm"`
	Call   string     `json:"call"`
}

type refField struct {
	Field       string     `json:"field"`
	Runs        int        `json:"runs"`
	Missing     int        `json:"missing"`
	Tested      int        `json:"tested"`
	Slices      []refSlice `json:"slices"`
	Comparisons []struct {
		A, B              string
		Deep, Light       refDiff
		OrderWrong        bool `json:"order_wrong"`
		SignificanceWrong bool `json:"significance_wrong"`
	} `json:"comparisons"`
}

func loadFixture(t *testing.T) []Run {
	t.Helper()
	data, err := os.ReadFile("testdata/reference/runs.json")
	if err != nil {
		t.Fatal(err)
	}
	var raw []struct {
		ID           string          `json:"id"`
		System       string          `json:"system"`
		Metadata     json.RawMessage `json:"metadata"`
		LightVerdict string          `json:"light_verdict"`
		DeepVerdict  *string         `json:"deep_verdict"`
		Forecast     float64         `json:"forecast"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	runs := make([]Run, 0, len(raw))
	for _, r := range raw {
		md, _, err := inspection.MetadataFromJSON(r.Metadata)
		if err != nil {
			t.Fatal(err)
		}
		run := Run{ID: r.ID, System: r.System, Metadata: md, LightVerdict: r.LightVerdict, Forecast: r.Forecast}
		if r.DeepVerdict != nil {
			run.DeepVerdict = *r.DeepVerdict
		}
		runs = append(runs, run)
	}
	return runs
}

func near(t *testing.T, what string, got *float64, want, tol float64) {
	t.Helper()
	if got == nil {
		t.Errorf("%s: null, want %.12g", what, want)
		return
	}
	if math.Abs(*got-want) > tol {
		t.Errorf("%s = %.12g, want %.12g (diff %.3g)", what, *got, want, *got-want)
	}
}

func TestSlicesAndComparisonsMatchTheReference(t *testing.T) {
	data, err := os.ReadFile("testdata/reference/segment_values.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref struct{ Fields []refField }
	if err := json.Unmarshal(data, &ref); err != nil {
		t.Fatal(err)
	}
	got := Compute(loadFixture(t), []string{"system", "task"})
	if len(got) != len(ref.Fields) {
		t.Fatalf("%d fields, want %d", len(got), len(ref.Fields))
	}
	const tol, ppiTol = 1e-9, 1e-6 // PPI++'s lambda comes from a minimiser (xatol 1e-12)
	for fi, rf := range ref.Fields {
		g := got[fi]
		if g.Field != rf.Field || g.Runs != rf.Runs || g.Missing != rf.Missing || g.Tested != rf.Tested || len(g.Slices) != len(rf.Slices) {
			t.Fatalf("field %s: runs %d missing %d tested %d slices %d, want %+v", g.Field, g.Runs, g.Missing, g.Tested, len(g.Slices), rf)
		}
		for si, rs := range rf.Slices {
			s := g.Slices[si]
			name := rf.Field + "=" + rs.Value
			if s.Value != rs.Value || s.N != rs.N || s.NLight != rs.NLight || s.Matches != rs.Matches || s.Tested != rs.Tested {
				t.Errorf("%s: %+v, want %+v", name, s, rs)
				continue
			}
			if !rs.Tested {
				if s.Wilson95 != nil || s.DeepPassRate != nil || s.Reason == "" {
					t.Errorf("%s: untested slice has figures or no reason: %+v", name, s)
				}
				continue
			}
			near(t, name+" wilson lower", &s.Wilson95.Lower, rs.Wilson95.Value[0], tol)
			near(t, name+" wilson upper", &s.Wilson95.Upper, rs.Wilson95.Value[1], tol)
			near(t, name+" simultaneous lower", &s.Simultaneous95.Lower, rs.Simultaneous.Value[0], tol)
			near(t, name+" simultaneous upper", &s.Simultaneous95.Upper, rs.Simultaneous.Value[1], tol)
			near(t, name+" kappa", &s.KappaLinear.Value, rs.KappaLinear.Value.Value, tol)
			near(t, name+" kappa se", &s.KappaLinear.SE, rs.KappaLinear.SE.Value, tol)
			if s.Leniency.LightPassDeepNot != rs.Leniency.B || s.Leniency.DeepPassLightNot != rs.Leniency.C {
				t.Errorf("%s: leniency %+v, want b %d c %d", name, s.Leniency, rs.Leniency.B, rs.Leniency.C)
			}
			if rs.Leniency.P.Value != nil {
				near(t, name+" mcnemar p", s.Leniency.McNemarP, *rs.Leniency.P.Value, tol)
			}
			for _, r := range []struct {
				side string
				got  *Rate
				want refRate
			}{{"light", s.LightPassRate, rs.LightRate}, {"deep", s.DeepPassRate, rs.DeepRate}} {
				tl := tol
				if r.want.Method == MethodPPI {
					tl = ppiTol
				}
				if r.side == "deep" && r.got.Method != r.want.Method {
					t.Errorf("%s deep method %s, want %s", name, r.got.Method, r.want.Method)
				}
				near(t, name+" "+r.side+" rate", r.got.Percent, r.want.Percent, tl)
				near(t, name+" "+r.side+" se", r.got.SE, r.want.SE, tl)
				near(t, name+" "+r.side+" lower", &r.got.CI95.Lower, r.want.CI95[0], tl)
				near(t, name+" "+r.side+" upper", &r.got.CI95.Upper, r.want.CI95[1], tl)
			}
		}
		if len(g.Comparisons) != len(rf.Comparisons) {
			t.Fatalf("field %s: %d comparisons, want %d", rf.Field, len(g.Comparisons), len(rf.Comparisons))
		}
		nWrong := 0
		for ci, rc := range rf.Comparisons {
			c := g.Comparisons[ci]
			name := rf.Field + " " + rc.A + " vs " + rc.B
			if c.A != rc.A || c.B != rc.B || c.OrderWrong != rc.OrderWrong || c.SignificanceWrong != rc.SignificanceWrong {
				t.Errorf("%s: %+v, want %+v", name, c, rc)
			}
			if rc.OrderWrong || rc.SignificanceWrong {
				nWrong++
			}
			for _, d := range []struct {
				side string
				got  Difference
				want refDiff
			}{{"deep", c.Deep, rc.Deep}, {"light", c.Light, rc.Light}} {
				near(t, name+" "+d.side+" points", d.got.Points, d.want.Points, ppiTol)
				near(t, name+" "+d.side+" se", d.got.SE, d.want.SE, ppiTol)
				near(t, name+" "+d.side+" lower", &d.got.CI95.Lower, d.want.CI95[0], ppiTol)
				near(t, name+" "+d.side+" upper", &d.got.CI95.Upper, d.want.CI95[1], ppiTol)
				near(t, name+" "+d.side+" p", d.got.P, d.want.P, ppiTol)
				near(t, name+" "+d.side+" p holm", d.got.PHolm, d.want.PHolm, ppiTol)
			}
		}
		if len(g.Misjudged) != nWrong {
			t.Errorf("field %s: misjudged %q, want %d pairs", rf.Field, g.Misjudged, nWrong)
		}
	}
}

// The planted answer: deep ranks alpha above gamma, significantly; light,
// lenient on gamma, ranks them the other way.
func TestThePlantedOrderIsCaught(t *testing.T) {
	got := Compute(loadFixture(t), []string{"system"})[0]
	for _, c := range got.Comparisons {
		if c.A == "alpha" && c.B == "gamma" {
			if !c.OrderWrong || !c.Deep.Significant || *c.Deep.Points <= 0 || *c.Light.Points >= 0 {
				t.Errorf("alpha vs gamma: %+v", c)
			}
			return
		}
	}
	t.Error("no alpha vs gamma comparison")
}
