package advisor

import (
	"strconv"
	"strings"
)

// Source is the kind of inspector on one side. It decides how a change to
// light is phrased: a check in code, a criterion in a judge's prompt, a
// scorer or its thresholds, a labelling guideline.
type Source string

// The kinds of inspector (README.md, "Inspectors"). SourceUnknown, for a
// side whose spec is not known (a report written before specs were
// recorded), gets phrasing that assumes none of the others.
const (
	SourceUnknown  Source = ""
	SourceBuiltin  Source = "builtin"   // builtin: evalcal's structural checks
	SourceScript   Source = "script"    // exec:COMMAND
	SourceJudge    Source = "llm-judge" // openai:MODEL, anthropic:MODEL
	SourceImported Source = "imported"  // inspect:LOG, promptfoo:FILE: another tool's scorer
	SourceSaved    Source = "saved"     // saved:FILE: human labels or saved inspections
)

// SourceOf is the kind of inspector a spec names, by its prefix (the spec
// forms of --light, --deep and --inspector).
func SourceOf(spec string) Source {
	kind, _, _ := strings.Cut(spec, ":")
	switch kind {
	case "builtin":
		return SourceBuiltin
	case "exec":
		return SourceScript
	case "openai", "anthropic":
		return SourceJudge
	case "inspect", "promptfoo":
		return SourceImported
	case "saved":
		return SourceSaved
	}
	return SourceUnknown
}

// side is one inspector as the rules phrase a change to it.
type side struct {
	src  Source
	spec string
}

// name is how the advice names light: "light's script (exec:...)".
func (s side) name() string {
	switch s.src {
	case SourceBuiltin:
		return "the builtin light inspector"
	case SourceScript:
		return "light's script (" + s.spec + ")"
	case SourceJudge:
		return "light's judge prompt (--light-prompt; " + s.spec + ")"
	case SourceImported:
		return "light's scorer (" + s.spec + ")"
	case SourceSaved:
		return "the process that wrote light's labels (" + s.spec + ")"
	}
	return "the light eval"
}

// catchFlag is the change that makes light detect a flag deep raises.
func (s side) catchFlag(flag string) string {
	switch s.src {
	case SourceBuiltin:
		return "add a structural light check that detects " + quote(flag) + " (the condition deep's evidence points to), so light flags it and lowers its scores accordingly"
	case SourceJudge:
		return "add to " + s.name() + " a criterion for " + quote(flag) + " (the condition deep's evidence points to): tell the judge to raise that flag and score lower when it holds"
	case SourceImported:
		return "change " + s.name() + " so that it fails or scores lower the samples showing " + quote(flag) + " (the condition deep's evidence points to)"
	}
	return "make " + s.name() + " detect " + quote(flag) + " (the condition deep's evidence points to), flag it and lower its scores accordingly"
}

// stricter is the change that makes light catch what (what deep finds).
func (s side) stricter(what string) string {
	switch s.src {
	case SourceBuiltin:
		return "add structural checks to the light eval that catch " + what + ", and lower light's score caps where those checks fail"
	case SourceJudge:
		return "add criteria to " + s.name() + " that catch " + what + ", and tell the judge to score lower when they fail"
	case SourceImported:
		return "make " + s.name() + " catch " + what + ", or raise its pass threshold (pass= in the spec)"
	}
	return "make " + s.name() + " catch " + what + " and score lower where it does"
}

// looser is the change that makes light stop holding runs to what.
func (s side) looser(what string) string {
	switch s.src {
	case SourceBuiltin:
		return "relax " + what
	case SourceImported:
		return "relax " + s.name() + " on " + what + ", or lower its pass threshold (pass= in the spec)"
	}
	return "relax " + what + " in " + s.name()
}

func quote(s string) string { return strconv.Quote(s) }

// reviewSplits is what to review on runs whose verdicts split.
func (s side) reviewSplits() string {
	switch s.src {
	case SourceBuiltin:
		return "review the light checks that set the scores near the 40 and 70 verdict thresholds on these runs, and add the checks deep used to decide"
	case SourceJudge:
		return "read deep's and light's summaries of these runs and add to " + s.name() + " the criteria deep used to decide"
	case SourceImported:
		return "compare the two scorers on these samples: change " + s.name() + " or move its verdict thresholds (pass= and fail= in the spec)"
	}
	return "review how " + s.name() + " reaches its verdicts on these runs, and add the criteria deep used to decide"
}

// systemFix is what a system's runs need when light misreads them.
func (s side) systemFix() string {
	switch s.src {
	case SourceBuiltin, SourceScript:
		return "the checks they need"
	case SourceJudge:
		return "the criteria they need in " + s.name()
	case SourceImported:
		return "a scorer that fits them"
	}
	return "the checks or rubric they need"
}

// harderRuns is the change that makes a sample on which everything agrees
// tell the sides apart.
func (s side) harderRuns() string {
	switch s.src {
	case SourceBuiltin, SourceScript:
		return "add adversarial and edge-case runs (planted defects, truncated logs, placeholder outputs) to strengthen the calibration"
	case SourceJudge:
		return "add runs that are hard to judge (outputs that look complete but are wrong, steps that fail late, instructions half followed) to strengthen the calibration"
	case SourceImported:
		return "add samples the two scorers are likely to score differently (borderline and partly correct answers) to the eval's dataset"
	}
	return "add adversarial and borderline runs to strengthen the calibration"
}

// passBar is the change that moves light's bar for a pass: up when light
// is lenient, down when strict.
func (s side) passBar(raise bool) string {
	switch {
	case raise && s.src == SourceImported:
		return "raise light's bar for a pass: raise its pass threshold (pass= in the spec) or make " + s.name() + " stricter"
	case raise && s.src == SourceJudge:
		return "raise light's bar for a pass in " + s.name() + ": tell the judge to pass a run only when it meets the criteria deep applies"
	case raise:
		return "raise light's bar for a pass: pass a run only when it meets the criteria deep applies"
	case s.src == SourceImported:
		return "lower light's bar for a pass: lower its pass threshold (pass= in the spec) or relax " + s.name()
	case s.src == SourceJudge:
		return "lower light's bar for a pass in " + s.name() + ": drop or relax the criteria deep does not hold runs to"
	}
	return "lower light's bar for a pass: drop or relax the light criteria deep does not hold runs to"
}

// cutsChange phrases new verdict cuts for light: for an imported scorer,
// the spec with pass= and fail= on the scorer's value (evalcal reads it as
// 100 x value, README.md "Importing"); for an LLM judge, the rule to give
// its verdict by; otherwise builtin, the rule itself.
func (s side) cutsChange(c Cuts, builtin string) string {
	switch s.src {
	case SourceImported:
		return "take light's verdict from its score with the cuts " + s.spec + " → " + withThresholds(s.spec, c) +
			" (" + strings.TrimPrefix(builtin, "set light's verdict from its score min(runtime_fidelity, task_effectiveness): ") + ")"
	case SourceJudge:
		return "tell the judge in " + s.name() + " to give its verdict by its scores: " +
			strings.TrimPrefix(builtin, "set light's verdict from its score ")
	}
	return builtin
}

// withThresholds is an inspect: or promptfoo: spec with the verdict
// thresholds of c (pass=, and fail= unless promptfoo's has no partial),
// replacing any the spec gave; the other options are kept. Options follow
// the last "?" after the "#" (importers.ParseSelector).
func withThresholds(spec string, c Cuts) string {
	kind, _, _ := strings.Cut(spec, ":")
	opts := "pass=" + fraction(c.PassAt)
	if !(kind == "promptfoo" && c.FailBelow == c.PassAt) {
		opts += ",fail=" + fraction(c.FailBelow)
	}
	head, sel, ok := strings.Cut(spec, "#")
	if !ok {
		return spec + "#?" + opts
	}
	i := strings.LastIndexByte(sel, '?')
	if i < 0 {
		return head + "#" + sel + "?" + opts
	}
	var kept []string
	for _, item := range strings.Split(sel[i+1:], ",") {
		if k, _, _ := strings.Cut(item, "="); item != "" && k != "pass" && k != "fail" {
			kept = append(kept, item)
		}
	}
	return head + "#" + sel[:i+1] + strings.Join(append(kept, opts), ",")
}

// fraction writes a cut on the 0-100 score as a value in [0, 1], to at
// most 4 decimals.
func fraction(cut float64) string {
	return strings.TrimSuffix(strings.TrimRight(strconv.FormatFloat(cut/100, 'f', 4, 64), "0"), ".")
}
