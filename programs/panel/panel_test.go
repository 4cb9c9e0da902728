package panel

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/evalcal/evalcal/inspection"
	execinspector "github.com/evalcal/evalcal/programs/exec"
)

// TestMain keeps race-enabled exec reapers from sleeping a second at exit
// (see programs/exec/main_test.go).
func TestMain(m *testing.M) {
	if _, set := os.LookupEnv("GORACE"); !set {
		os.Setenv("GORACE", "atexit_sleep_ms=0")
	}
	os.Exit(m.Run())
}

func TestParseSpec(t *testing.T) {
	cases := []struct {
		spec    string
		members []string
		agg     string
	}{
		{"builtin,openai:gpt-5-mini,anthropic:claude", []string{"builtin", "openai:gpt-5-mini", "anthropic:claude"}, Majority},
		{"builtin,builtin?agg=median", []string{"builtin", "builtin"}, Median},
		{"[exec:sh j.sh a,b],builtin?agg=majority", []string{"exec:sh j.sh a,b", "builtin"}, Majority},
		{`exec:sh j.sh a\,b,builtin`, []string{"exec:sh j.sh a,b", "builtin"}, Majority},
		{"[exec:x [y] z],builtin", []string{"exec:x [y] z", "builtin"}, Majority},
		// A member's own options stay the member's.
		{"inspect:a.eval?scorer=x,builtin", []string{"inspect:a.eval?scorer=x", "builtin"}, Majority},
		{`builtin,exec:echo \?agg=median`, []string{"builtin", "exec:echo ?agg=median"}, Majority},
	}
	for _, c := range cases {
		m, agg, err := ParseSpec(c.spec)
		if err != nil || !slices.Equal(m, c.members) || agg != c.agg {
			t.Errorf("ParseSpec(%q) = %q, %q, %v; want %q, %q", c.spec, m, agg, err, c.members, c.agg)
		}
	}
	for _, bad := range []string{"builtin", "builtin,", ",builtin", "[builtin,builtin", "builtin],x", `builtin,x\`, "a,b?agg=mean?agg=x,"} {
		if _, _, err := ParseSpec(bad); err == nil {
			t.Errorf("ParseSpec(%q) accepted", bad)
		}
	}
}

// FuzzParseSpec: no panic, and every member it returns is not empty.
func FuzzParseSpec(f *testing.F) {
	for _, s := range []string{"a,b", "[a,b],c?agg=median", `a\,b,c`, "[[a]],b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, _, err := ParseSpec(s)
		if err != nil {
			return
		}
		if len(m) < 2 {
			t.Fatalf("%q: %d members", s, len(m))
		}
		for _, x := range m {
			if strings.TrimSpace(x) == "" {
				t.Fatalf("%q: empty member", s)
			}
		}
	})
}

// panelOf builds a panel of judge.sh members with the given scores
// ("error" fails the call).
func panelOf(t *testing.T, agg string, scores ...string) *Inspector {
	t.Helper()
	var ms []inspection.Inspector
	for _, s := range scores {
		e, err := execinspector.New("sh testdata/judge.sh " + s)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = e.Close() })
		ms = append(ms, e)
	}
	p, err := New(agg, ms)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestPanelVerdicts(t *testing.T) {
	run := inspection.Run{ID: "r1", Path: t.TempDir(), System: "s"}
	cases := []struct {
		name, agg string
		scores    []string
		verdict   string
		rf        float64
		usd       float64
	}{
		{"majority", Majority, []string{"90", "80", "10"}, inspection.VerdictPass, 60, 0.003},
		{"majority tie goes to the stricter", Majority, []string{"90", "10"}, inspection.VerdictFail, 50, 0.002},
		{"three-way tie goes to fail", Majority, []string{"90", "55", "10"}, inspection.VerdictFail, 155.0 / 3, 0.003},
		{"abstention: the others decide", Majority, []string{"90", "error", "80"}, inspection.VerdictPass, 85, 0.002},
		{"abstention never passes a tie", Majority, []string{"90", "error", "10"}, inspection.VerdictFail, 50, 0.002},
		{"median", Median, []string{"90", "55", "10"}, inspection.VerdictPartial, 55, 0.003},
		{"median of two is their mean", Median, []string{"90", "60", "error"}, inspection.VerdictPass, 75, 0.002},
		{"median of scores, not of verdicts", Median, []string{"72", "30", "71", "20"}, inspection.VerdictPartial, 50.5, 0.004},
	}
	for _, c := range cases {
		p := panelOf(t, c.agg, c.scores...)
		got, err := p.Inspect(context.Background(), run, inspection.Light)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got.Verdict != c.verdict || got.RuntimeFidelity != c.rf || got.TaskEffectiveness != c.rf {
			t.Errorf("%s: verdict %s rf %v te %v, want %s %v", c.name, got.Verdict, got.RuntimeFidelity, got.TaskEffectiveness, c.verdict, c.rf)
		}
		if d := got.Cost.USD - c.usd; d > 1e-12 || d < -1e-12 {
			t.Errorf("%s: cost $%v, want the members' sum $%v", c.name, got.Cost.USD, c.usd)
		}
		if got.RunID != "r1" || got.Depth != inspection.Light || !strings.HasPrefix(got.Summary, "panel "+c.agg) {
			t.Errorf("%s: %+v", c.name, got)
		}
		// The members' own verdicts, in order, an error abstaining: the
		// summary lists them and Votes carries them (the vote split).
		if len(got.Votes) != len(c.scores) || !strings.HasSuffix(got.Summary, ": "+strings.Join(got.Votes, ", ")) {
			t.Errorf("%s: votes %q, summary %q", c.name, got.Votes, got.Summary)
		}
		for i, sc := range c.scores {
			if (sc == "error") != (got.Votes[i] == "abstained") {
				t.Errorf("%s: member %d scored %s, voted %q", c.name, i+1, sc, got.Votes[i])
			}
		}
	}
}

func TestPanelFailsWhenEveryMemberFails(t *testing.T) {
	p := panelOf(t, Majority, "error", "error")
	_, err := p.Inspect(context.Background(), inspection.Run{ID: "r", Path: t.TempDir()}, inspection.Deep)
	if err == nil || !strings.Contains(err.Error(), "every member failed") {
		t.Fatalf("err = %v", err)
	}
}

func TestIdentity(t *testing.T) {
	a := panelOf(t, Majority, "90", "10").Identity()
	b := panelOf(t, Median, "90", "10").Identity()
	c := panelOf(t, Majority, "10", "90").Identity()
	if a == b || a == c || !strings.HasPrefix(a, "panel/1:majority:") {
		t.Errorf("identities %q %q %q", a, b, c)
	}
	if a != panelOf(t, Majority, "90", "10").Identity() {
		t.Error("identity not stable")
	}
}
