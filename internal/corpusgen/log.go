package corpusgen

import (
	"fmt"
	"strings"
)

// logText writes the run's log (state.md or vm.log.md): a header, the
// event markers of docs/DESIGN.md in log order, and the terminator, with the
// format variety the run's features ask for.
func (ru *run) logText() string {
	var b strings.Builder
	ru.logHeader(&b)
	if ru.sp.has(featHeaderOnly) {
		return b.String()
	}
	arrow := "→"
	if ru.sp.has(featASCIIArrows) {
		arrow = "->"
	}
	n := 1
	line := func(idx, text string) { fmt.Fprintf(&b, "%s%s %s\n", idx, arrow, text) }
	if ru.sp.has(featInputMarkers) {
		for _, c := range ru.sys.callers {
			ann := ""
			if ru.sp.has(featAnnotations) {
				ann = " (" + c.value + ")"
			}
			line(fmt.Sprint(n), "[input] "+c.name+" ✓"+ann)
			n++
		}
	}
	if ru.sp.has(featVMAction) {
		line(fmt.Sprint(n), "[vm-action] EnterWorktree ✓ (worktree: triage-"+ru.id[len(ru.id)-6:]+")")
		n++
	}
	for si, st := range ru.logStages {
		if ru.state[st[0]] == stateNotReached {
			if ru.sp.has(featCutMidLine) {
				nm := ru.name(st[0])
				fmt.Fprintf(&b, "%d%s %s", n, arrow, nm[:(len(nm)+1)/2])
			}
			break
		}
		if ru.sp.has(featLoopMarkers) && si == 1 {
			ru.loopMarkers(&b, n, arrow, st[0])
		}
		if len(st) > 1 && !ru.allSkipped(st) {
			names := make([]string, len(st))
			for i, id := range st {
				names[i] = ru.name(id)
			}
			line(fmt.Sprint(n), "∥start "+strings.Join(names, ","))
			for i, id := range st {
				line(fmt.Sprintf("%d%c", n, 'a'+i), ru.name(id)+" "+ru.outcomeText(id))
			}
			line(fmt.Sprint(n), "∥done")
			n++
		} else {
			for _, id := range st {
				line(fmt.Sprint(n), ru.name(id)+" "+ru.outcomeText(id))
				n++
			}
		}
		if ru.sp.has(featNarrative) {
			for _, id := range st {
				ru.narrative(&b, id)
			}
		}
	}
	if ru.sp.has(featVMAction) && ru.sp.outcome == outcomeCompleted {
		line(fmt.Sprint(n), "[vm-action] ExitWorktree ✓")
	}
	ru.logTerminator(&b)
	out := b.String()
	if ru.sp.has(featNoTrailingNL) {
		out = strings.TrimSuffix(out, "\n")
	}
	return out
}

func (ru *run) allSkipped(st []string) bool {
	for _, id := range st {
		if ru.state[id] != stateSkipped {
			return false
		}
	}
	return true
}

func (ru *run) outcomeText(id string) string {
	switch ru.state[id] {
	case stateFailed:
		return "✗ " + ru.sys.errName
	case stateSkipped:
		if ru.sys.node(id).optional && ru.sp.has(featAnnotations) {
			return "∅ skipped (optional, nothing to do)"
		}
		return "∅ skipped"
	default:
		return "✓" + ru.annotation(id)
	}
}

func (ru *run) logHeader(b *strings.Builder) {
	fm := ru.sp.has(featFrontMatter)
	if fm {
		status, ended := "completed", ru.ts(ru.end)
		switch ru.sp.outcome {
		case outcomeFailed:
			status = "failed"
		case outcomeIncomplete:
			status, ended = "running", ""
		}
		fmt.Fprintf(b, "---\nrun_id: %s\nsystem: %s\nstarted_at: %s\n", ru.id, ru.sys.name, ru.ts(ru.start))
		if ended != "" {
			fmt.Fprintf(b, "ended_at: %s\n", ended)
		}
		fmt.Fprintf(b, "status: %s\n", status)
		if ru.sp.outcome == outcomeFailed {
			fmt.Fprintf(b, "error: %s.%s\n", ru.sys.errNode, ru.sys.errName)
		}
		b.WriteString("---\n\n")
	}
	switch {
	case ru.sp.era == 1:
		fmt.Fprintf(b, "# run:%s %s.prose\n", ru.id, ru.sys.name)
		if !ru.sp.has(featNoBlank) {
			b.WriteString("\n")
		}
	case ru.sp.era == 2:
		fmt.Fprintf(b, "# run:%s %s\nprogram: programs/%s.md\n\n", ru.id, ru.sys.name, ru.sys.name)
	case fm:
		fmt.Fprintf(b, "# vm.log — %s run %s\n\n", ru.sys.name, ru.id)
		b.WriteString("## Phase 0 — Forme wiring\n\n")
		fmt.Fprintf(b, "- Loaded root: `root.prose.md` (`kind: system`).\n")
		fmt.Fprintf(b, "- Resolved %d services; execution order: %s.\n", len(ru.sys.nodes), ru.orderSummary())
		if ru.sp.era == 3 {
			b.WriteString("- Copied service sources to `sources/`; emitted `forme.manifest.json`.\n")
		} else {
			b.WriteString("- Compiled intent loaded from `compiled-intent.json`; world model at `world-model/`.\n")
		}
		b.WriteString("- " + sentence(ru.r, ru.sys.vocab) + "\n\n")
		if !ru.sp.has(featHeaderOnly) {
			b.WriteString("## Phase 1 — Execution\n\n")
		}
	case ru.sp.era == 3:
		fmt.Fprintf(b, "# run:%s %s\n\nroot: src/%s.prose.md\n\n", ru.id, ru.sys.name, ru.sys.name)
	default:
		fmt.Fprintf(b, "# run:%s %s\n\nruntime: reactor\nroot: root.prose.md\n\n", ru.id, ru.sys.name)
	}
}

// orderSummary is the manifest order as `a → b → c`, parallel stages in
// braces.
func (ru *run) orderSummary() string {
	parts := make([]string, len(ru.sys.stages))
	for i, st := range ru.sys.stages {
		if len(st) > 1 {
			parts[i] = "{" + strings.Join(st, ", ") + "}"
		} else {
			parts[i] = st[0]
		}
	}
	return "`" + strings.Join(parts, " → ") + "`"
}

// loopMarkers writes the loop / iteration / commit lines real era-1 logs
// carry around a repeated step; they are markers outside the spec.
func (ru *run) loopMarkers(b *strings.Builder, n int, arrow, id string) {
	nm := ru.name(id)
	for it := 1; it <= 2; it++ {
		fmt.Fprintf(b, "%d%s loop:%d/3\n", n, arrow, it)
		fmt.Fprintf(b, "%d%s #%d %s_pass%d ✓\n", n, arrow, it, nm, it)
		fmt.Fprintf(b, "%d%s commit:%s-%d %07x\n", n, arrow, nm, it, ru.r.Uint32()&0xfffffff)
	}
	fmt.Fprintf(b, "%d%s exit_condition: clusters stable\n", n, arrow)
}

// narrative writes a prose section about one node, as VM logs mix
// markers with narration.
func (ru *run) narrative(b *strings.Builder, id string) {
	word := map[string]string{stateOK: "completed", stateFailed: "failed", stateSkipped: "skipped"}[ru.state[id]]
	if word == "" {
		return
	}
	fmt.Fprintf(b, "\n### %s — %s", id, word)
	if ru.state[id] == stateFailed {
		fmt.Fprintf(b, " (%s)", ru.sys.errName)
	}
	b.WriteString("\n\n")
	n := ru.sys.node(id)
	if len(n.inputs)+len(n.deps) > 0 {
		fmt.Fprintf(b, "- Inputs: %s.\n", strings.Join(append(append([]string(nil), n.inputs...), n.deps...), ", "))
	}
	switch ru.state[id] {
	case stateOK:
		b.WriteString("- " + sentence(ru.r, ru.sys.vocab) + "\n")
		for _, o := range n.outputs {
			fmt.Fprintf(b, "- Output: `%s`.\n", ru.bindingPath(id, o))
		}
	case stateFailed:
		fmt.Fprintf(b, "- %s.\n", capitalize(ru.sys.errMsg))
	case stateSkipped:
		b.WriteString("- Upstream did not produce its inputs; nothing written.\n")
	}
	b.WriteString("\n")
}

func (ru *run) logTerminator(b *strings.Builder) {
	switch ru.sp.outcome {
	case outcomeCompleted:
		if ru.sp.has(featNarrative) && ru.sp.has(featFrontMatter) {
			b.WriteString("## Phase 2 — Run close\n\n- Final status: `completed`.\n\n")
		}
		fmt.Fprintf(b, "---end %s\n", ru.ts(ru.end))
		if ru.sp.has(featRepeatedEnd) {
			fmt.Fprintf(b, "---end %s\n", ru.ts(ru.end.Add(47e9)))
		}
	case outcomeFailed:
		if ru.sp.has(featNarrative) && ru.sp.has(featFrontMatter) {
			fmt.Fprintf(b, "## Phase 2 — Run close\n\n- Final status: `failed` (%s.%s propagated).\n\n", ru.sys.errNode, ru.sys.errName)
		}
		fmt.Fprintf(b, "---error %s %s.%s: %s\n", ru.ts(ru.end), ru.sys.errNode, ru.sys.errName, ru.sys.errMsg)
	}
}
