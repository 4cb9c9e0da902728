package calibrate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/evalcal/evalcal/escalate"
	execinspector "github.com/evalcal/evalcal/programs/exec"
	"github.com/evalcal/evalcal/report"
)

func calibrateEscalation(a float64) *report.EscalationInputs {
	return &report.EscalationInputs{Mode: report.EscalationCalibrate, TargetAgreement: a, Risk: 0.1}
}

// On the bundled corpus the section is computed from the comparisons:
// its counts are the comparisons' own, and merged shards give the same
// section as one run (Fill recomputes it from the per-run data).
func TestEscalationSectionOnTheBundledCorpus(t *testing.T) {
	cfg := builtinConfig()
	cfg.Escalation = calibrateEscalation(0.8)
	rep := mustRun(t, cfg)
	e := rep.Escalation
	if e == nil || e.Mode != report.EscalationCalibrate || e.Source != string(escalate.SourceScoreDistance) || e.Unit != "points" {
		t.Fatalf("escalation = %+v", e)
	}
	if e.Guarantee.CalibrationN != len(rep.Comparisons) || e.Guarantee.MinCovered != 11 {
		t.Errorf("guarantee %+v; want n %d and 11 runs at least (0.8^11 <= 0.1)", e.Guarantee, len(rep.Comparisons))
	}
	// Recount the chosen threshold's coverage and agreement by hand.
	if e.Met {
		covered, agree := 0, 0
		for _, c := range rep.Comparisons {
			conf, err := escalate.Confidence(escalate.SourceScoreDistance, escalate.Evidence{Verdict: c.LightVerdict,
				Scores: []float64{c.Light.RuntimeFidelity, c.Light.TaskEffectiveness}}, escalate.DefaultCuts)
			if err != nil {
				t.Fatal(err)
			}
			if conf >= *e.Threshold {
				covered++
				if c.VerdictMatch {
					agree++
				}
			}
		}
		if e.Coverage.Runs != covered || e.Agreement.Runs != agree || e.Agreement.N != covered {
			t.Errorf("coverage %+v agreement %+v; recounted %d covered, %d agree", e.Coverage, e.Agreement, covered, agree)
		}
		if *e.Agreement.GuaranteedLowerPercent < 80 {
			t.Errorf("guaranteed lower bound %v under the target", *e.Agreement.GuaranteedLowerPercent)
		}
	} else if e.Reason == "" || e.Needed == nil {
		t.Errorf("not met without a reason or a plan: %+v", e)
	}
	t.Logf("bundled corpus, A = 0.8: met %v, threshold %v, coverage %+v, reason %q", e.Met, e.Threshold, e.Coverage, e.Reason)

	var shards []*report.Report
	for i := 1; i <= 3; i++ {
		c := builtinConfig()
		c.Escalation = calibrateEscalation(0.8)
		c.ShardIndex, c.ShardCount = i, 3
		shards = append(shards, mustRun(t, c))
	}
	merged, err := Merge(shards, []string{"a", "b", "c"}, Finish{})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(rep.Escalation, merged.Escalation, cmpopts.EquateEmpty()); d != "" {
		t.Errorf("merged escalation differs (-whole +merged):\n%s", d)
	}
}

// A cascade inspects deep exactly on the runs whose light confidence is
// under the threshold, and each run's final verdict is light's above it
// and deep's below.
func TestCascadeInspectsDeepOnlyBelowTheThreshold(t *testing.T) {
	thr := 20.0
	cfg := builtinConfig()
	cfg.Escalation = &report.EscalationInputs{Mode: report.EscalationCascade, TargetAgreement: 0.8, Risk: 0.1,
		Policy: &report.EscalationPolicy{File: "saved.yaml", Source: string(escalate.SourceScoreDistance), Met: true, Threshold: &thr, CalibrationN: 100}}
	rep := mustRun(t, cfg)
	e := rep.Escalation
	if e == nil || e.Mode != report.EscalationCascade || len(e.Runs) != len(rep.Comparisons)+len(rep.LightOnly) {
		t.Fatalf("escalation %+v with %d comparisons and %d light-only runs", e, len(rep.Comparisons), len(rep.LightOnly))
	}
	deep := map[string]string{}
	for _, c := range rep.Comparisons {
		deep[c.RunID] = c.DeepVerdict
	}
	escalated := 0
	for _, r := range e.Runs {
		if r.Confidence == nil {
			t.Fatalf("run %s has no confidence", r.RunID)
		}
		below := *r.Confidence < thr
		_, gotDeep := deep[r.RunID]
		if below != gotDeep || (r.DecidedBy == report.DecidedByDeep) != below {
			t.Errorf("run %s: confidence %v, deep inspected %v, decided by %s", r.RunID, *r.Confidence, gotDeep, r.DecidedBy)
		}
		want := r.LightVerdict
		if below {
			want = deep[r.RunID]
			escalated++
		}
		if r.FinalVerdict != want {
			t.Errorf("run %s: final %s, want %s", r.RunID, r.FinalVerdict, want)
		}
	}
	if escalated == 0 || escalated == len(e.Runs) || e.Escalated.Runs != escalated {
		t.Errorf("%d of %d escalated (section says %d): the threshold should split the corpus", escalated, len(e.Runs), e.Escalated.Runs)
	}
	if !strings.Contains(e.Guarantee.Statement, "carried from the calibration") {
		t.Errorf("statement %q", e.Guarantee.Statement)
	}
}

// End to end with an exec: inspector that counts its calls: a cascade
// calls deep exactly on the runs whose light confidence (the distance of
// light's score from the verdict cut) is under the threshold, once each.
func TestCascadeWithExecInspectorCallsDeepOnlyBelowTheThreshold(t *testing.T) {
	calls := filepath.Join(t.TempDir(), "calls.txt")
	t.Setenv("EVALCAL_TEST_CALLS", calls)
	script, err := filepath.Abs("../testdata/inspectors/counting.sh")
	if err != nil {
		t.Fatal(err)
	}
	insp, err := execinspector.New("sh " + script + " {depth}")
	if err != nil {
		t.Fatal(err)
	}
	defer insp.Close()
	thr := 12.0
	cfg := builtinConfig()
	cfg.Light, cfg.Deep, cfg.LightSpec, cfg.DeepSpec = insp, insp, "exec", "exec"
	cfg.Sample.AllowHomogeneous = true
	cfg.Escalation = &report.EscalationInputs{Mode: report.EscalationCascade, TargetAgreement: 0.9, Risk: 0.1,
		Policy: &report.EscalationPolicy{File: "e.yaml", Source: string(escalate.SourceScoreDistance), Met: true, Threshold: &thr, CalibrationN: 60}}
	rep := mustRun(t, cfg)

	b, err := os.ReadFile(calls)
	if err != nil {
		t.Fatal(err)
	}
	light, deep := map[string]int{}, map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		depth, id, _ := strings.Cut(line, " ")
		map[string]map[string]int{"light": light, "deep": deep}[depth][id]++
	}
	// Light on every run once; deep once on exactly the runs under the
	// threshold, recomputed here from light's score with the 40/70 cuts.
	wantDeep := 0
	for id, n := range light {
		if n != 1 {
			t.Errorf("run %s: %d light calls", id, n)
		}
		score := float64(cksumMod101(id))
		d := min(abs(score-40), abs(score-70))
		if score < 40 {
			d = 40 - score
		} else if score >= 70 {
			d = score - 70
		}
		if d < thr {
			wantDeep++
			if deep[id] != 1 {
				t.Errorf("run %s (score %v, distance %v): %d deep calls, want 1", id, score, d, deep[id])
			}
		} else if deep[id] != 0 {
			t.Errorf("run %s (score %v, distance %v): %d deep calls, want 0", id, score, d, deep[id])
		}
	}
	if len(light) != len(rep.Sample.Runs) || wantDeep == 0 || wantDeep == len(light) {
		t.Fatalf("%d runs inspected light of %d sampled, %d below the threshold: the corpus should split", len(light), len(rep.Sample.Runs), wantDeep)
	}
	if e := rep.Escalation; e.Escalated.Runs != wantDeep || e.Coverage.Runs != len(light)-wantDeep {
		t.Errorf("section: escalated %+v coverage %+v; want %d escalated", e.Escalated, e.Coverage, wantDeep)
	}
	// Deep fails the runs light scores 60-79: those below the threshold
	// end failed (deep's verdict), those at or above keep light's.
	for _, r := range rep.Escalation.Runs {
		score := cksumMod101(r.RunID)
		want := r.LightVerdict
		if r.DecidedBy == report.DecidedByDeep && score >= 60 && score < 80 {
			want = "fail"
		}
		if r.FinalVerdict != want {
			t.Errorf("run %s (score %d, decided by %s): final %s, want %s", r.RunID, score, r.DecidedBy, r.FinalVerdict, want)
		}
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// cksumMod101 is POSIX cksum's CRC of s, mod 101, as counting.sh computes.
func cksumMod101(s string) uint32 {
	var crc uint32
	update := func(b byte) {
		crc ^= uint32(b) << 24
		for range 8 {
			if crc&0x80000000 != 0 {
				crc = crc<<1 ^ 0x04c11db7
			} else {
				crc <<= 1
			}
		}
	}
	for i := 0; i < len(s); i++ {
		update(s[i])
	}
	for n := len(s); n > 0; n >>= 8 {
		update(byte(n))
	}
	return ^crc % 101
}

// Under --repeat K the cascade's selection sees light's repeats: builtin
// is unanimous on every run (unanimity 1), so a threshold of 0.9 sends no
// run to deep; without the repeats the source would be missing and every
// run would go to deep.
func TestCascadeByUnanimitySeesTheRepeats(t *testing.T) {
	thr := 0.9
	cfg := builtinConfig()
	cfg.Runner.Repeat = 2
	cfg.Escalation = &report.EscalationInputs{Mode: report.EscalationCascade, TargetAgreement: 0.9, Risk: 0.1,
		Policy: &report.EscalationPolicy{File: "e.yaml", Source: string(escalate.SourceUnanimity), Met: true, Threshold: &thr, CalibrationN: 50}}
	rep := mustRun(t, cfg)
	if len(rep.Comparisons) != 0 || rep.Escalation.Escalated.Runs != 0 || rep.Escalation.Coverage.Runs != len(rep.Sample.Runs) {
		t.Fatalf("%d runs got deep, section %+v / %+v; want none", len(rep.Comparisons), rep.Escalation.Escalated, rep.Escalation.Coverage)
	}
	for _, r := range rep.Escalation.Runs {
		if r.Confidence == nil || *r.Confidence != 1 {
			t.Fatalf("run %s: unanimity %v, want 1", r.RunID, r.Confidence)
		}
	}
}
