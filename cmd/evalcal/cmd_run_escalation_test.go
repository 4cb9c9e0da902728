package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalcal/evalcal/report"
	"github.com/evalcal/evalcal/report/reportio"
)

// countCalls reads the calls testdata/inspectors/counting.sh logged, by
// depth and run id.
func countCalls(t *testing.T, path string) map[string]map[string]int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]int{"light": {}, "deep": {}}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		depth, id, _ := strings.Cut(line, " ")
		out[depth][id]++
	}
	return out
}

// End to end: calibrate with --target-agreement, save the escalation
// section, apply it with --escalate: light runs on every run, deep only
// on the runs the saved threshold escalates (counted by the inspector
// itself), each final verdict is deep's there and light's elsewhere, and
// a gate reads the section.
func TestRunEscalateCallsDeepOnlyBelowTheSavedThreshold(t *testing.T) {
	root := repoRoot(t)
	t.Chdir(root)
	dir := t.TempDir()
	calls := filepath.Join(dir, "calls.txt")
	t.Setenv("EVALCAL_TEST_CALLS", calls)
	insp := "exec:sh " + filepath.Join(root, "testdata/inspectors/counting.sh") + " {depth}"

	// Calibrate: every run at both depths.
	calib := filepath.Join(dir, "calibration.yaml")
	_, stderr, code := runCLI(t, "run", "--no-cache", "--quiet", "--allow-homogeneous", "--inspector", insp,
		"--target-agreement", "0.9", "--risk", "0.2", "-o", calib, "testdata/runs")
	if code != 0 {
		t.Fatalf("calibrate: exit %d: %s", code, stderr)
	}
	cal, err := reportio.ReadReport(calib)
	if err != nil {
		t.Fatal(err)
	}
	e := cal.Escalation
	if e == nil || !e.Met || e.Threshold == nil || e.Coverage.Runs == 0 || e.Escalated.Runs == 0 {
		t.Fatalf("calibration did not split the runs: %+v", e)
	}
	n := len(countCalls(t, calls)["deep"])
	if n != len(cal.Comparisons) {
		t.Fatalf("calibration: deep called on %d runs, %d comparisons", n, len(cal.Comparisons))
	}
	// Light's confidence per run, from the calibration (both depths).
	conf := map[string]bool{} // run id -> escalated under the threshold
	for _, c := range cal.Comparisons {
		m := min(c.Light.RuntimeFidelity, c.Light.TaskEffectiveness)
		d := min(abs(m-40), abs(m-70))
		switch {
		case m < 40:
			d = 40 - m
		case m >= 70:
			d = m - 70
		}
		conf[c.RunID] = d < *e.Threshold
	}

	// Apply the saved report's section: a fresh count.
	if err := os.Remove(calls); err != nil {
		t.Fatal(err)
	}
	casc := filepath.Join(dir, "cascade.yaml")
	_, stderr, code = runCLI(t, "run", "--no-cache", "--quiet", "--allow-homogeneous", "--inspector", insp,
		"--escalate", calib, "--require", "escalation.escalated.percent <= 100", "-o", casc, "testdata/runs")
	if code != 0 {
		t.Fatalf("cascade: exit %d: %s", code, stderr)
	}
	got := countCalls(t, calls)
	wantDeep := 0
	for id, esc := range conf {
		if got["light"][id] != 1 {
			t.Errorf("run %s: %d light calls", id, got["light"][id])
		}
		want := 0
		if esc {
			want, wantDeep = 1, wantDeep+1
		}
		if got["deep"][id] != want {
			t.Errorf("run %s: %d deep calls, want %d", id, got["deep"][id], want)
		}
	}
	rep, err := reportio.ReadReport(casc)
	if err != nil {
		t.Fatal(err)
	}
	ce := rep.Escalation
	if ce == nil || ce.Mode != report.EscalationCascade || ce.Escalated.Runs != wantDeep || len(ce.Runs) != len(conf) {
		t.Fatalf("cascade section %+v; want %d escalated of %d", ce, wantDeep, len(conf))
	}
	if ce.Guarantee.CalibrationN != len(cal.Comparisons) || ce.Guarantee.TargetAgreementPercent != 90 || ce.Guarantee.Risk != 0.2 {
		t.Errorf("guarantee not carried: %+v", ce.Guarantee)
	}
	deepVerdict := map[string]string{}
	for _, c := range cal.Comparisons {
		deepVerdict[c.RunID] = c.DeepVerdict
	}
	for _, r := range ce.Runs {
		want := r.LightVerdict
		if conf[r.RunID] {
			want = deepVerdict[r.RunID]
		}
		if r.FinalVerdict != want || (r.DecidedBy == "deep") != conf[r.RunID] {
			t.Errorf("run %s: decided by %s, final %s; want %s", r.RunID, r.DecidedBy, r.FinalVerdict, want)
		}
	}
	if len(rep.Gates) != 1 || !rep.Gates[0].Pass {
		t.Errorf("gates %+v", rep.Gates)
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

func TestRunEscalationFlagsAreChecked(t *testing.T) {
	t.Chdir(repoRoot(t))
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--target-agreement", "1.2"}, "--target-agreement must be in (0, 1)"},
		{[]string{"--target-agreement", "0.9", "--risk", "0"}, "--risk must be in (0, 1)"},
		{[]string{"--risk", "0.2"}, "--risk needs --target-agreement"},
		{[]string{"--confidence", "unanimity"}, "--confidence needs --target-agreement"},
		{[]string{"--target-agreement", "0.9", "--confidence", "vibes"}, "unknown confidence source"},
		{[]string{"--target-agreement", "0.9", "--escalate", "x.yaml"}, "not both"},
		{[]string{"--escalate", "x.yaml", "--deep-sample", "3"}, "--escalate chooses the runs deep inspects"},
		{[]string{"--escalate", "testdata/run/twelve.golden"}, "testdata/run/twelve.golden: field mode: want calibrate or cascade"},
	} {
		var out, errb bytes.Buffer
		err := run(context.Background(), append(append([]string{"run"}, c.args...), "testdata/runs"), &out, &errb)
		if exitCode(err) != 2 || err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: exit %d, error %v; want 2 and %q", c.args, exitCode(err), err, c.want)
		}
	}
}

// FuzzReadEscalation: any file --escalate is given is either refused
// with an error or read into a policy that can be applied; never a panic.
func FuzzReadEscalation(f *testing.F) {
	f.Add([]byte("mode: calibrate\nsource: score-distance\nmet: true\nthreshold: 12\nguarantee:\n  target_agreement_percent: 90\n  risk: 0.1\n  calibration_n: 60\n"))
	f.Add([]byte("escalation:\n  mode: cascade\n  source: unanimity\n  met: false\n  threshold: null\n  guarantee: {target_agreement_percent: 80, risk: 0.2, calibration_n: 5}\n"))
	f.Add([]byte(`{"escalation": {"mode": "calibrate", "source": "probability", "met": true, "threshold": 0.93, "guarantee": {"target_agreement_percent": 95, "risk": 0.05, "calibration_n": 400}}}`))
	f.Add([]byte("mode: calibrate\nthreshold: .nan\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		path := filepath.Join(t.TempDir(), "e.yaml")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		in, err := readEscalation(path)
		if err != nil {
			return
		}
		p := in.Policy
		if in.Mode != report.EscalationCascade || p == nil || p.Met != (p.Threshold != nil) || !(in.TargetAgreement > 0 && in.TargetAgreement < 1) || !(in.Risk > 0 && in.Risk < 1) {
			t.Fatalf("accepted %q as %+v (policy %+v)", b, in, p)
		}
	})
}
