package render

import (
	"fmt"
	"strings"

	"github.com/evalcal/evalcal/report"
)

func disagreementSection(r *report.Report, capped bool) section {
	s := section{ID: "disagreements", Heading: "Disagreements"}
	if len(r.Disagreements) == 0 {
		s.Blocks = append(s.Blocks, block{Text: "None: light and deep agree on every run."})
		return s
	}
	t := table{Header: []string{"run", "system", "type", "light", "deep", "light RF/TE", "deep RF/TE", "deep only", "light only", "both"}}
	for i, c := range r.Disagreements {
		if capped && i == MarkdownDisagreementRows {
			break
		}
		typ := ""
		if c.DisagreementType != nil {
			typ = string(*c.DisagreementType)
		}
		t.Rows = append(t.Rows, []string{c.RunID, c.System, typ, c.LightVerdict, c.DeepVerdict,
			fmtRunScore(c.Light.RuntimeFidelity) + "/" + fmtRunScore(c.Light.TaskEffectiveness),
			fmtRunScore(c.Deep.RuntimeFidelity) + "/" + fmtRunScore(c.Deep.TaskEffectiveness),
			strings.Join(c.FlagOverlap.DeepOnly, ", "), strings.Join(c.FlagOverlap.LightOnly, ", "), strings.Join(c.FlagOverlap.Both, ", ")})
	}
	s.Blocks = append(s.Blocks, block{Table: &t})
	if n := len(r.Disagreements) - len(t.Rows); n > 0 {
		s.Blocks = append(s.Blocks, block{Text: fmt.Sprintf("%d more disagreements are listed in the YAML and HTML reports.", n)})
	}
	return s
}

// cappedNote says how many rows a capped Markdown table left out.
func cappedNote(left int, what string) block {
	return block{Text: fmt.Sprintf("%d more %s are listed in the YAML and HTML reports.", left, what)}
}

func lightOnlySection(runs []report.LightOnlyRun, capped bool) section {
	s := section{ID: "light-only", Heading: headingLightOnly, Blocks: []block{
		{Text: fmt.Sprintf("%d runs were inspected at light depth only (not in the deep subset); the estimate uses them, the agreement figures do not.", len(runs))}}}
	if len(runs) == 0 {
		return s
	}
	t := table{Header: []string{"run", "system", "light verdict", "light RF/TE"}}
	for i, lr := range runs {
		if capped && i == MarkdownDisagreementRows {
			break
		}
		t.Rows = append(t.Rows, []string{lr.RunID, lr.System, lr.LightVerdict, fmtRunScore(lr.Light.RuntimeFidelity) + "/" + fmtRunScore(lr.Light.TaskEffectiveness)})
	}
	s.Blocks = append(s.Blocks, block{Table: &t})
	if n := len(runs) - len(t.Rows); n > 0 {
		s.Blocks = append(s.Blocks, cappedNote(n, "light-only runs"))
	}
	return s
}

func inclusionSection(inc []report.Inclusion, capped bool) section {
	s := section{ID: "inclusion", Heading: "Deep inclusion probabilities"}
	t := table{Header: []string{"run", "probability of a deep inspection", "deep inspected"}}
	for i, in := range inc {
		if capped && i == MarkdownDisagreementRows {
			break
		}
		t.Rows = append(t.Rows, []string{in.RunID, optStat(in.Pi, "unknown"), map[bool]string{true: "yes", false: "no"}[in.Deep]})
	}
	s.Blocks = append(s.Blocks, block{Table: &t})
	if n := len(inc) - len(t.Rows); n > 0 {
		s.Blocks = append(s.Blocks, cappedNote(n, "inclusion probabilities"))
	}
	return s
}

func repeatsSection(reps []report.RunRepeats, capped bool) section {
	s := section{ID: "repeats", Heading: "Repeated inspections"}
	t := table{Header: []string{"run", "light verdicts (RF/TE)", "deep verdicts (RF/TE)"}}
	side := func(rs []report.Repeat) string {
		var parts []string
		for _, r := range rs {
			parts = append(parts, r.Verdict+" ("+fmtRunScore(r.Scores.RuntimeFidelity)+"/"+fmtRunScore(r.Scores.TaskEffectiveness)+")")
		}
		return strings.Join(parts, ", ")
	}
	for i, rr := range reps {
		if capped && i == MarkdownDisagreementRows {
			break
		}
		t.Rows = append(t.Rows, []string{rr.RunID, side(rr.Light), side(rr.Deep)})
	}
	s.Blocks = append(s.Blocks, block{Table: &t})
	if n := len(reps) - len(t.Rows); n > 0 {
		s.Blocks = append(s.Blocks, cappedNote(n, "runs' repeats"))
	}
	return s
}

func failureSection(r *report.Report) section {
	s := section{ID: "failures", Heading: headingFailures}
	if len(r.Failures) == 0 {
		s.Blocks = append(s.Blocks, block{Text: "None: every inspection succeeded."})
		return s
	}
	t := table{Header: []string{"run", "depth", "attempts", "reason"}}
	for _, f := range r.Failures {
		t.Rows = append(t.Rows, []string{f.RunID, string(f.Depth), fmtCount(f.Attempts), f.Reason})
	}
	s.Blocks = append(s.Blocks, block{Text: "The report is partial: the statistics cover only the runs both depths inspected."}, block{Table: &t})
	return s
}

func invalidSection(inv []report.Invalid) section {
	s := section{ID: "invalid", Heading: headingInvalid}
	if len(inv) == 0 {
		s.Blocks = append(s.Blocks, block{Text: "None: every run found was valid."})
		return s
	}
	t := table{Header: []string{"run", "path", "reason"}}
	for _, in := range inv {
		t.Rows = append(t.Rows, []string{in.ID, in.Path, in.Reason})
	}
	s.Blocks = append(s.Blocks, block{Text: "These runs were found but not sampled: they lack what a run needs to be inspected."}, block{Table: &t})
	return s
}

func readInPartSection(runs []report.SampleRun) section {
	s := section{ID: "read-in-part", Heading: headingReadInPart}
	t := table{Header: []string{"run", "system", "what could not be read"}}
	for _, r := range runs {
		for _, w := range r.Warnings {
			t.Rows = append(t.Rows, []string{r.ID, r.System, w})
		}
	}
	if len(t.Rows) == 0 {
		s.Blocks = append(s.Blocks, block{Text: "None: every sampled run was read in full."})
		return s
	}
	s.Blocks = append(s.Blocks, block{Text: "These runs were sampled and inspected, but part of them could not be read; each was described as far as it goes."}, block{Table: &t})
	return s
}

func inputsSection(r *report.Report) section {
	in := r.Inputs
	items := []string{
		"generated by: " + r.GeneratedBy + " (schema_version " + fmtCount(r.SchemaVersion) + ")",
		"inspector: " + in.Inspector,
	}
	if in.Light.Spec != "" || in.Deep.Spec != "" {
		items = append(items, "light: "+sideText(in.Light), "deep: "+sideText(in.Deep))
	}
	items = append(items, "seed: "+fmt.Sprint(in.Seed), "content hash: "+in.ContentHash)
	if in.Repeat > 1 {
		items = append(items, fmt.Sprintf("repeats: each side inspected each run %d times", in.Repeat))
	}
	if d := in.DeepSubset; d != nil {
		items = append(items, fmt.Sprintf("deep subset: %s policy, %s runs expected of %d; %s", d.Policy, fmtStat(d.Expected), d.Sampled, d.HowChosen))
	}
	if in.Cluster != "" {
		items = append(items, "runs clustered by: "+in.Cluster)
	}
	if in.Shard != "" {
		shard := "shard: " + in.Shard
		if in.ShardSource != "" {
			shard += " from " + in.ShardSource
		}
		items = append(items, shard+" (statistics cover this shard only; evalcal merge combines the shards)")
	}
	if len(in.Paths) > 0 {
		items = append(items, "paths: "+strings.Join(in.Paths, ", "))
	}
	if in.Inspections != "" {
		items = append(items, "inspections: "+in.Inspections)
	}
	return section{ID: "reproducibility", Heading: "Reproducibility", Blocks: []block{
		{Items: items},
		{Text: "Command line (the same inputs and flags give a byte-identical report):"},
		{Code: commandLine("run", in.CommandLine)},
	}}
}

func sideText(s report.Side) string {
	if s.Identity == "" || s.Identity == s.Spec {
		return s.Spec
	}
	return s.Spec + " (identity " + s.Identity + ")"
}

// evalcalCommands are the subcommands a recorded command line may start
// with; one that starts with none of them ran the default given to
// commandLine.
var evalcalCommands = map[string]bool{"run": true, "merge": true, "score": true, "calls": true, "gate": true,
	"rank": true, "drift": true, "anchor": true, "plan": true, "position": true, "render": true}

// commandLine writes a recorded command line as one line a POSIX shell
// runs as it was: "evalcal", the subcommand (cmd unless args name one),
// and each argument quoted where the shell would split or expand it. A
// recorded line that starts with the program's name ("evalcal run ...",
// as run records it) is not given the name and the subcommand again.
func commandLine(cmd string, args []string) string {
	if len(args) > 0 && args[0] == "evalcal" {
		args = args[1:]
	}
	words := []string{"evalcal"}
	if len(args) == 0 || !evalcalCommands[args[0]] {
		words = append(words, cmd)
	}
	for _, a := range args {
		words = append(words, shellQuote(a))
	}
	return strings.Join(words, " ")
}

// shellQuote quotes s for a POSIX shell: as it is when every byte is
// safe (letters, digits and @%+=:,./_-), else in single quotes, each
// single quote written as '\”. The empty string is ”.
func shellQuote(s string) string {
	if s == "" {
		return "''"
	}
	safe := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("@%+=:,./_-", c) >= 0) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
