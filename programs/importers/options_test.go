package importers

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/evalcal/evalcal/inspection"
	"github.com/google/go-cmp/cmp"
)

func ptr(x float64) *float64 { return &x }

// The selector's options: what is accepted, and every refusal names the
// option at fault.
func TestParseSelector(t *testing.T) {
	for _, c := range []struct {
		kind, sel, name string
		want            Options
		text            string // Options.String
	}{
		{"inspect", "match", "match", Options{}, ""},
		{"inspect", "match?", "match", Options{}, ""},
		{"inspect", "s.acc?max=10", "s.acc", Options{Max: 10}, "max=10"},
		{"inspect", "match?P=0,N=0.5,max=10", "match", Options{Values: map[string]float64{"P": 0, "N": 0.5}, Max: 10}, "N=0.5,P=0,max=10"},
		{"inspect", "?pass=0.6,fail=0.2", "", Options{Pass: ptr(0.6), Fail: ptr(0.2)}, "fail=0.2,pass=0.6"},
		{"inspect", "?pass=0.5", "", Options{Pass: ptr(0.5)}, "pass=0.5"}, // fail stays 0.4
		{"inspect", "?correct=1,wrong=0", "", Options{Values: map[string]float64{"correct": 1, "wrong": 0}}, "correct=1,wrong=0"},
		{"inspect", "why?? ", "why?", Options{}, ""}, // a name holding "?" takes a trailing one
		// Values named like an option, or like the prefix, take the prefix.
		{"inspect", "v?value.pass=1,value.fail=0,pass=0.5", "v", Options{Values: map[string]float64{"pass": 1, "fail": 0}, Pass: ptr(0.5)}, "pass=0.5,value.fail=0,value.pass=1"},
		{"inspect", "v?value.value.x=1,value.C=0.5", "v", Options{Values: map[string]float64{"value.x": 1, "C": 0.5}}, "C=0.5,value.value.x=1"},
		{"promptfoo", "llm-rubric?pass=0.8", "llm-rubric", Options{Pass: ptr(0.8)}, "pass=0.8"},
		{"promptfoo", "?pass=0.8,fail=0.3", "", Options{Pass: ptr(0.8), Fail: ptr(0.3)}, "fail=0.3,pass=0.8"},
	} {
		sel := strings.TrimSuffix(c.sel, " ")
		name, opts, err := ParseSelector(dialectOf(c.kind), sel)
		if err != nil || name != c.name || opts.String() != c.text {
			t.Errorf("%s %q: %q %q %v; want %q %q", c.kind, sel, name, opts.String(), err, c.name, c.text)
		}
		if d := cmp.Diff(c.want, opts); d != "" {
			t.Errorf("%s %q: options (-want +got):\n%s", c.kind, sel, d)
		}
		// The identity's text reads back as the same options.
		if _, back, err := ParseSelector(dialectOf(c.kind), "x?"+opts.String()); err != nil || cmp.Diff(opts, back) != "" {
			t.Errorf("%s %q: %q reads back as %+v, %v", c.kind, sel, opts.String(), back, err)
		}
	}
	for _, c := range []struct{ kind, sel, says string }{
		{"inspect", "m?max", `option "max": want KEY=VALUE`},
		{"inspect", "m?=1", `option "=1": want KEY=VALUE`},
		{"inspect", "m?P=0,", `option "": want KEY=VALUE`},
		{"inspect", "m?max=0", `option "max=0": max must be above 0`},
		{"inspect", "m?max=-10", `option "max=-10"`},
		{"inspect", "m?max=ten", `option "max=ten": "ten" is not a finite number`},
		{"inspect", "m?max=Inf", `option "max=Inf"`},
		{"inspect", "m?P=NaN", `option "P=NaN"`},
		{"inspect", "m?P=2", `option "P=2": a string value maps to a number in [0, 1]`},
		{"inspect", "m?P=0,P=1", `option "P=1": P is given twice`},
		{"inspect", "m?P=0,value.P=1", `option "value.P=1": the value "P" is mapped twice`},
		{"inspect", "m?pass=7", `option "pass=7": pass is a threshold on the mapped value, in [0, 1]`},
		{"inspect", "m?fail=-0.1", `option "fail=-0.1"`},
		{"inspect", "m?pass=0.3", "fail=0.4 is above pass=0.3"}, // the default fail
		{"inspect", "m?pass=0.5,fail=0.6", "fail=0.6 is above pass=0.5"},
		{"promptfoo", "a?max=10", `promptfoo: option "max=10": promptfoo scores are in [0, 1] already`},
		{"promptfoo", "a?C=1", `promptfoo: option "C=1": promptfoo results have no string values to map`},
		{"promptfoo", "a?fail=0.3", `promptfoo: option "fail=0.3": give pass= too`},
		{"promptfoo", "a?pass=0.3,fail=0.5", "fail=0.5 is above pass=0.3"},
	} {
		if _, _, err := ParseSelector(dialectOf(c.kind), c.sel); err == nil || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s %q: error %v, want it to say %q", c.kind, c.sel, err, c.says)
		}
	}
}

// The options' mapping, value by value, on one-sample logs: string
// overrides before the default mapping, max= on numbers only, thresholds.
func TestInspectMappingOverrides(t *testing.T) {
	cases := []struct {
		value, options string
		verdict        string
		score          float64
		flag           string
		err            string
	}{
		{`"P"`, "P=0", "fail", 0, "", ""},
		{`"P"`, "P=0.8", "pass", 80, "", ""},
		{`"C"`, "P=0", "pass", 100, "", ""}, // other values keep the default
		{`"N"`, "N=0.5", "partial", 50, FlagNoAnswer, ""},
		{`"yes"`, "yes=0.6", "partial", 60, "", ""},
		{`"Yes"`, "yes=0.6", "pass", 100, "", ""}, // matched exactly: the default's "Yes"
		{`"correct"`, "correct=1,wrong=0", "pass", 100, "", ""},
		{`"maybe"`, "correct=1", "", 0, "", `"maybe" is not C, P, I, N, yes, no, true, false or a number: map it with inspect:LOG#SCORER?maybe=x`},
		{`7`, "max=10", "pass", 70, "", ""},
		{`6.9`, "max=10", "partial", 69, "", ""},
		{`3.9`, "max=10", "fail", 39, "", ""},
		{`10`, "max=10", "pass", 100, "", ""},
		{`0`, "max=10", "fail", 0, "", ""},
		{`"7"`, "max=10", "pass", 70, "", ""},   // a number written as a string
		{`true`, "max=10", "pass", 100, "", ""}, // booleans are not divided
		{`"C"`, "max=10", "pass", 100, "", ""},
		{`11`, "max=10", "", 0, "", "11 is outside [0, 10] (max=10)"},
		{`-1`, "max=10", "", 0, "", "-1 is outside [0, 10]"},
		{`7`, "", "", 0, "", "7 is outside [0, 1]: for scores on another scale give max=, e.g. inspect:LOG#SCORER?max=10"},
		{`0.5`, "pass=0.5", "pass", 50, "", ""},
		{`0.49`, "pass=0.5", "partial", 49, "", ""},
		{`0.39`, "pass=0.5", "fail", 39, "", ""},
		{`0.2`, "fail=0.1", "partial", 20, "", ""},
		{`0.09`, "fail=0.1", "fail", 9, "", ""},
		{`0.6`, "pass=0.6,fail=0.6", "pass", 60, "", ""},
		{`0.59`, "pass=0.6,fail=0.6", "fail", 59, "", ""},
		{`"P"`, "P=0.65,pass=0.65", "pass", 65, "", ""},
		{`8`, "max=10,pass=0.9", "partial", 80, "", ""}, // thresholds apply after max=
	}
	for _, c := range cases {
		t.Run(c.value+"?"+c.options, func(t *testing.T) {
			log := writeFile(t, "l.json", logJSON("t", 1, sample("1", 1, `{"s": {"value": `+c.value+`}}`)))
			name, opts, err := ParseSelector(inspectDialect, "s?"+c.options)
			if err != nil {
				t.Fatal(err)
			}
			src, _, err := LoadInspectWith(context.Background(), log, name, opts)
			if err != nil {
				t.Fatal(err)
			}
			insp, err := src.Inspect(context.Background(), inspection.Run{ID: "1"}, inspection.Light)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Errorf("error %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var flags []string
			for _, f := range insp.Flags {
				flags = append(flags, f.ID)
			}
			if insp.Verdict != c.verdict || insp.RuntimeFidelity != c.score || insp.TaskEffectiveness != c.score ||
				strings.Join(flags, ",") != c.flag {
				t.Errorf("%s %v/%v flags %v, want %s %v flag %q", insp.Verdict, insp.RuntimeFidelity, insp.TaskEffectiveness, flags, c.verdict, c.score, c.flag)
			}
			if err := inspection.CheckInspection(insp); err != nil {
				t.Error(err)
			}
		})
	}
}

// A dict entry (SCORER.KEY) is mapped under the options too, and a
// sample with an error still fails whatever they say.
func TestInspectOverridesReachDictEntriesAndKeepErrorsFailing(t *testing.T) {
	log := writeFile(t, "l.json", logJSON("t", 1,
		sample("1", 1, `{"s": {"value": {"rubric": 8, "acc": "P"}}}`),
		`    {"id": 2, "epoch": 1, "scores": {"s": {"value": {"rubric": 10, "acc": "C"}}}, "error": {"message": "boom", "traceback": "", "traceback_ansi": ""}}`))
	for _, c := range []struct {
		sel     string
		verdict [2]string
		score   [2]float64
	}{
		{"s.rubric?max=10", [2]string{"pass", "fail"}, [2]float64{80, 100}},
		{"s.acc?P=1", [2]string{"pass", "fail"}, [2]float64{100, 100}},
	} {
		name, opts, err := ParseSelector(inspectDialect, c.sel)
		if err != nil {
			t.Fatal(err)
		}
		src, runs, err := LoadInspectWith(context.Background(), log, name, opts)
		if err != nil {
			t.Fatal(err)
		}
		got := inspectAll(t, src, runs)
		for k, id := range []string{"1", "2"} {
			if got[id].Verdict != c.verdict[k] || got[id].RuntimeFidelity != c.score[k] {
				t.Errorf("%s sample %s: %s %v, want %s %v", c.sel, id, got[id].Verdict, got[id].RuntimeFidelity, c.verdict[k], c.score[k])
			}
		}
	}
}

// The options are part of the identity (the cache key), in one canonical
// form; without options the identity is what it was.
func TestInspectIdentityNamesTheOptions(t *testing.T) {
	log := writeFile(t, "l.json", logJSON("t", 1, sample("1", 1, `{"s": {"value": "P"}}`)))
	ids := map[string]string{}
	for _, sel := range []string{"s", "s?", "s?P=0,max=10", "s?max=10,P=0", "s?max=10.0,P=0.0", "s?P=0"} {
		name, opts, err := ParseSelector(inspectDialect, sel)
		if err != nil {
			t.Fatal(err)
		}
		src, _, err := LoadInspectWith(context.Background(), log, name, opts)
		if err != nil {
			t.Fatal(err)
		}
		if src.Selector() != "s" {
			t.Errorf("%s: selector %q", sel, src.Selector())
		}
		ids[sel] = src.Identity()
	}
	plain, _, err := LoadInspect(context.Background(), log, "s")
	if err != nil {
		t.Fatal(err)
	}
	if ids["s"] != plain.Identity() || ids["s?"] != plain.Identity() || !strings.HasSuffix(plain.Identity(), "#s") {
		t.Errorf("no options: %q %q, LoadInspect %q", ids["s"], ids["s?"], plain.Identity())
	}
	if want := plain.Identity() + "?P=0,max=10"; ids["s?P=0,max=10"] != want || ids["s?max=10,P=0"] != want || ids["s?max=10.0,P=0.0"] != want {
		t.Errorf("identities %v, want %q for each spelling", ids, want)
	}
	if ids["s?P=0"] == ids["s?P=0,max=10"] || ids["s?P=0"] == plain.Identity() {
		t.Errorf("different options share an identity: %v", ids)
	}
}

// The shared real logs hold C and I only; each sample's value is read by
// the test from the log itself and mapped by the tables below, worked by
// hand from the options.
func TestInspectSharedLogsUnderOverrides(t *testing.T) {
	type want struct {
		verdict string
		score   float64
	}
	tables := []struct {
		options string
		table   map[string]want
	}{
		// C and I moved to the middle: both partial (0.45 >= the default fail 0.4).
		{"C=0.6,I=0.45", map[string]want{"C": {"partial", 60}, "I": {"partial", 45}}},
		// The same values with the thresholds moved onto them.
		{"C=0.6,I=0.45,pass=0.6,fail=0.46", map[string]want{"C": {"pass", 60}, "I": {"fail", 45}}},
		// An override of one value leaves the other to the default mapping.
		{"I=0.3,fail=0.35", map[string]want{"C": {"pass", 100}, "I": {"fail", 30}}},
	}
	logs := []struct{ file, scorer string }{
		{"2025-05-12T20-28-13-04-00_popularity.json", "match"},
		{"custom.eval", "model_graded_fact"},
		{"log_formats.eval", "match"},
		{"mmlu-summary-choices.eval", "choice"},
	}
	for _, l := range logs {
		path := sharedLog(t, l.file)
		hand := readHand(t, path)
		for _, tb := range tables {
			name, opts, err := ParseSelector(inspectDialect, l.scorer+"?"+tb.options)
			if err != nil {
				t.Fatal(err)
			}
			src, runs, err := LoadInspectWith(context.Background(), path, name, opts)
			if err != nil {
				t.Fatal(err)
			}
			if len(runs) != len(hand) || !strings.HasSuffix(src.Identity(), "#"+l.scorer+"?"+opts.String()) {
				t.Fatalf("%s: %d runs for %d samples, identity %q", l.file, len(runs), len(hand), src.Identity())
			}
			counted, got := map[string]int{}, map[string]int{}
			for _, s := range hand {
				v, _ := s.Scores[l.scorer].Value.(string)
				w, ok := tb.table[v]
				if !ok {
					t.Fatalf("%s: value %q is not in the table", l.file, v)
				}
				counted[w.verdict]++
				id := fmt.Sprint(s.ID)
				insp, err := src.Inspect(context.Background(), inspection.Run{ID: id}, inspection.Deep)
				if err != nil {
					t.Fatal(err)
				}
				if insp.Verdict != w.verdict || insp.RuntimeFidelity != w.score {
					t.Errorf("%s?%s sample %s (%s): %s %v, want %s %v", l.file, tb.options, id, v, insp.Verdict, insp.RuntimeFidelity, w.verdict, w.score)
				}
				got[insp.Verdict]++
			}
			if d := cmp.Diff(counted, got); d != "" {
				t.Errorf("%s?%s: verdict counts (-hand +importer):\n%s", l.file, tb.options, d)
			}
		}
	}
}

// promptfoo with pass= takes the verdict from the score; the scores, the
// error result and the grader failure are as without it. The fixture's
// scores are those TestPromptfooSelections works out by hand.
func TestPromptfooPassThreshold(t *testing.T) {
	errFlag := outcome{"fail", 0, FlagRunError, ""}
	for _, c := range []struct {
		sel  string
		want map[string]outcome
	}{
		// Overall scores 0.95, 0.65, 0.40, error, 1, 0: promptfoo failed 0.65.
		{"?pass=0.5", map[string]outcome{
			"test0-prompt0": {"pass", 95, "", ""}, "test0-prompt1": {"pass", 65, "", ""},
			"test1-prompt0": {"fail", 40, "", ""}, "test1-prompt1": errFlag,
			"test2-prompt0": {"pass", 100, "", ""}, "test2-prompt1": {"fail", 0, "", ""}}},
		{"?pass=0.9,fail=0.4", map[string]outcome{
			"test0-prompt0": {"pass", 95, "", ""}, "test0-prompt1": {"partial", 65, "", ""},
			"test1-prompt0": {"partial", 40, "", ""}, "test1-prompt1": errFlag,
			"test2-prompt0": {"pass", 100, "", ""}, "test2-prompt1": {"fail", 0, "", ""}}},
		// llm-rubric scores 0.9, 0.3, 0.8 (promptfoo passed it), error, 1, grader error.
		{"llm-rubric?pass=0.85", map[string]outcome{
			"test0-prompt0": {"pass", 90, "", ""}, "test0-prompt1": {"fail", 30, "", ""},
			"test1-prompt0": {"fail", 80, "", ""}, "test1-prompt1": errFlag,
			"test2-prompt0": {"pass", 100, "", ""},
			"test2-prompt1": {err: "the grader failed, so there is no verdict"}}},
	} {
		t.Run(c.sel, func(t *testing.T) {
			name, opts, err := ParseSelector(promptfooDialect, c.sel)
			if err != nil {
				t.Fatal(err)
			}
			src, runs, err := LoadPromptfooWith(context.Background(), twoAssertions, name, opts)
			if err != nil {
				t.Fatal(err)
			}
			if want := "#" + name + "?" + opts.String(); !strings.HasSuffix(src.Identity(), want) {
				t.Errorf("identity %q, want it to end with %q", src.Identity(), want)
			}
			for _, r := range runs {
				w := c.want[r.ID]
				insp, err := src.Inspect(context.Background(), r, inspection.Light)
				if w.err != "" {
					if err == nil || !strings.Contains(err.Error(), w.err) {
						t.Errorf("%s: error %v, want %q", r.ID, err, w.err)
					}
					continue
				}
				if err != nil {
					t.Fatalf("%s: %v", r.ID, err)
				}
				flag := ""
				if len(insp.Flags) > 0 {
					flag = insp.Flags[0].ID
				}
				if insp.Verdict != w.verdict || insp.RuntimeFidelity != w.score || flag != w.flag {
					t.Errorf("%s: %s %v %q, want %s %v %q", r.ID, insp.Verdict, insp.RuntimeFidelity, flag, w.verdict, w.score, w.flag)
				}
			}
		})
	}
}

// dialectOf is the dialect of the importer kind ("inspect" or
// "promptfoo").
func dialectOf(kind string) Dialect {
	return map[string]Dialect{"inspect": inspectDialect, "promptfoo": promptfooDialect}[kind]
}
