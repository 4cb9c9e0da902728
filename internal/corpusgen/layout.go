package corpusgen

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
)

// files is a run directory being built: relative slash path -> content.
type files map[string]string

// layout returns the files of the run in its era's layout, with the
// planted defects and invalidity applied.
func (ru *run) layout() (files, error) {
	f := files{}
	var err error
	switch ru.sp.era {
	case 1:
		ru.layoutEra1(f)
	case 2:
		ru.layoutEra2(f)
	case 3:
		err = ru.layoutEra3(f)
	case 4:
		err = ru.layoutEra4(f)
	default:
		err = fmt.Errorf("corpusgen: run %s: unknown era %d", ru.id, ru.sp.era)
	}
	if err != nil {
		return nil, err
	}
	switch ru.sp.invalid {
	case invalidNoBindings:
		for p := range f {
			if strings.HasPrefix(p, "bindings/") {
				delete(f, p)
			}
		}
	case invalidNoLog:
		delete(f, "state.md")
	case invalidNoSource:
		for p := range f {
			if p == "root.prose.md" || p == "forme.manifest.json" || strings.HasPrefix(p, "sources/") {
				delete(f, p)
			}
		}
	}
	return f, nil
}

// bindingPath is where node id publishes output o in eras 2 and 3.
func (ru *run) bindingPath(id string, o output) string {
	if ru.sp.era == 1 {
		return "bindings/" + ru.name(id) + ".md"
	}
	if ru.sp.era == 4 {
		return "world-model/" + id + "/" + o.name + "." + o.ext
	}
	return "bindings/" + id + "/" + o.name + "." + o.ext
}

// envelope wraps a Markdown binding body the way OpenProse bindings are
// written: a title, kind, the source statement, a rule, the body. An
// empty body (DefectEmptyOutput) gives an empty file.
func envelope(title, kind, service, stmt, body string) string {
	if body == "" {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\nkind: %s\n", title, kind)
	if service != "" {
		fmt.Fprintf(&b, "service: %s\n", service)
	}
	fmt.Fprintf(&b, "\nsource:\n```prose\n%s\n```\n\n---\n\n%s", stmt, body)
	return b.String()
}

func callerBinding(c callerInput) string {
	return fmt.Sprintf("# %s\n\nkind: input\nsource: caller\n\n---\n\n%s\n", c.name, c.value)
}

// --- era 1: program.prose + state.md + bindings/{name}.md ---

func (ru *run) layoutEra1(f files) {
	f["program.prose"] = ru.programProse()
	f["state.md"] = ru.logText()
	last := ru.sys.lastNode()
	for _, n := range ru.sys.nodes {
		if !ru.published(n.id) {
			continue
		}
		o := n.outputs[0]
		body := ru.body[n.id+"/"+o.name]
		if o.ext == "json" && body != "" {
			body = "```json\n" + body + "```\n"
		}
		kind, kw := "let", "let"
		if n.id == last {
			kind, kw = "output", "output"
		}
		stmt := fmt.Sprintf("%s %s = session %q", kw, ru.name(n.id), n.desc)
		f["bindings/"+ru.name(n.id)+".md"] = envelope(ru.name(n.id), kind, "", stmt, body)
	}
}

// programProse is an era-1 program: inputs, one `let` per service, a
// `parallel:` block per parallel stage, the final `output`.
func (ru *run) programProse() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n# %s\n\n", ru.sys.name, ru.sys.purpose)
	for _, c := range ru.sys.callers {
		fmt.Fprintf(&b, "input %s: %q\n", c.name, c.desc)
	}
	b.WriteString("\n")
	last := ru.sys.lastNode()
	for _, st := range ru.sys.stages {
		if len(st) > 1 {
			b.WriteString("parallel:\n")
			for _, id := range st {
				n := ru.sys.node(id)
				fmt.Fprintf(&b, "  %s = session %q\n", ru.name(id), n.desc)
				if n.optional {
					b.WriteString("    if: locales configured\n")
				}
			}
			b.WriteString("\n")
			continue
		}
		n := ru.sys.node(st[0])
		kw := "let"
		if n.id == last {
			kw = "output"
		}
		fmt.Fprintf(&b, "%s %s = session %q\n", kw, ru.name(n.id), n.desc)
		if ctx := ru.contextOf(n); ctx != "" {
			fmt.Fprintf(&b, "  context: %s\n", ctx)
		}
		b.WriteString("\n")
	}
	return b.String()
}

func (ru *run) contextOf(n node) string {
	var names []string
	for _, d := range n.deps {
		names = append(names, ru.name(d))
	}
	switch len(names) {
	case 0:
		return ""
	case 1:
		return names[0]
	default:
		return "{ " + strings.Join(names, ", ") + " }"
	}
}

// --- era 2: program.md + manifest.md + state.md + services/ + workspace/ + bindings/ ---

func (ru *run) layoutEra2(f files) {
	f["program.md"] = ru.programMD("program")
	f["manifest.md"] = ru.manifestMD()
	f["state.md"] = ru.logText()
	ru.serviceFiles(f, "services/%s.md")
	ru.publishBindings(f)
	for _, n := range ru.sys.nodes {
		if ru.state[n.id] == stateFailed {
			f["workspace/"+n.id+"/notes.md"] = fmt.Sprintf("# %s: attempt notes\n\n%s.\n\n%s\n", n.id, capitalize(ru.sys.errMsg), paragraph(ru.r, ru.sys.vocab, 2))
		}
	}
}

// programMD is the Markdown program (era 2) or root.prose.md (eras 3, 4).
func (ru *run) programMD(kind string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "---\nname: %s\nkind: %s\n---\n\n# %s\n\n%s\n\n### Requires\n\n", ru.sys.name, kind, ru.sys.name, ru.sys.purpose)
	for _, c := range ru.sys.callers {
		fmt.Fprintf(&b, "- `%s`: %s\n", c.name, c.desc)
	}
	last := ru.sys.node(ru.sys.lastNode())
	fmt.Fprintf(&b, "\n### Ensures\n\n- `%s`: from `%s`\n\n### Services\n\n", last.outputs[0].name, last.id)
	for _, n := range ru.sys.nodes {
		fmt.Fprintf(&b, "- `%s`\n", n.id)
	}
	b.WriteString("\n### Execution\n\n")
	for i, st := range ru.sys.stages {
		if len(st) > 1 {
			fmt.Fprintf(&b, "%d. parallel: %s\n", i+1, strings.Join(st, ", "))
		} else {
			fmt.Fprintf(&b, "%d. %s\n", i+1, st[0])
		}
	}
	return b.String()
}

func (ru *run) serviceFiles(f files, pattern string) {
	for _, n := range ru.sys.nodes {
		var b strings.Builder
		fmt.Fprintf(&b, "---\nname: %s\nkind: service\n---\n\n# %s\n\n%s.\n\n### Requires\n\n", n.id, n.id, n.desc)
		for _, in := range n.inputs {
			fmt.Fprintf(&b, "- `%s`: from caller\n", in)
		}
		for _, d := range n.deps {
			fmt.Fprintf(&b, "- `%s`: from `%s`\n", ru.sys.node(d).outputs[0].name, d)
		}
		b.WriteString("\n### Ensures\n\n")
		for _, o := range n.outputs {
			fmt.Fprintf(&b, "- `%s`: %s\n", o.name, strings.ToLower(o.displayTitle()))
		}
		if n.id == ru.sys.errNode {
			fmt.Fprintf(&b, "\n### Errors\n\n- `%s`: %s\n", ru.sys.errName, ru.sys.errMsg)
		}
		fmt.Fprintf(&b, "\n### Strategy\n\n- %s\n- %s\n", sentence(ru.r, ru.sys.vocab), sentence(ru.r, ru.sys.vocab))
		f[fmt.Sprintf(pattern, n.id)] = b.String()
	}
}

func (o output) displayTitle() string {
	if o.title != "" {
		return o.title
	}
	return strings.ReplaceAll(o.name, "_", " ") + " (JSON)"
}

// publishBindings writes caller bindings and, for every node that
// published, its workspace copy and its public binding (eras 2 and 3).
func (ru *run) publishBindings(f files) {
	for _, c := range ru.sys.callers {
		f["bindings/caller/"+c.name+".md"] = callerBinding(c)
	}
	for _, n := range ru.sys.nodes {
		if ru.state[n.id] != stateOK {
			continue
		}
		for _, o := range n.outputs {
			body := ru.body[n.id+"/"+o.name]
			f["workspace/"+n.id+"/"+o.name+"."+o.ext] = body
			if !ru.published(n.id) {
				continue
			}
			if o.ext == "md" {
				stmt := fmt.Sprintf("%s = session %q", o.name, n.desc)
				body = envelope(n.id+"/"+o.name, "output", n.id, stmt, body)
			}
			f[ru.bindingPath(n.id, o)] = body
		}
	}
}

func (ru *run) manifestMD() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Manifest: %s\n\nGenerated by Forme at %s\nSource: programs/%s.md\n\n---\n\n## Caller Interface\n\nrequires:\n", ru.sys.name, ru.ts(ru.start), ru.sys.name)
	for _, c := range ru.sys.callers {
		fmt.Fprintf(&b, "- %s (from user): %s\n", c.name, c.desc)
	}
	last := ru.sys.node(ru.sys.lastNode())
	fmt.Fprintf(&b, "\nreturns:\n- %s (from %s): %s\n\n---\n\n## Graph\n", last.outputs[0].name, last.id, strings.ToLower(last.outputs[0].displayTitle()))
	for _, n := range ru.sys.nodes {
		fmt.Fprintf(&b, "\n### %s\n\nsource: services/%s.md\nworkspace: workspace/%s/\n\ninputs:", n.id, n.id, n.id)
		if len(n.inputs)+len(n.deps) == 0 {
			b.WriteString(" (none)\n")
		} else {
			b.WriteString("\n")
		}
		for _, in := range n.inputs {
			fmt.Fprintf(&b, "  %s <- bindings/caller/%s.md\n", in, in)
		}
		for _, d := range n.deps {
			o := ru.sys.node(d).outputs[0]
			fmt.Fprintf(&b, "  %s <- %s\n", o.name, ru.bindingPath(d, o))
		}
		b.WriteString("\noutputs:\n")
		for _, o := range n.outputs {
			fmt.Fprintf(&b, "  %s -> workspace/%s/%s.%s\n  (public) %s -> %s\n", o.name, n.id, o.name, o.ext, o.name, ru.bindingPath(n.id, o))
		}
		if n.id == ru.sys.errNode {
			fmt.Fprintf(&b, "\nerrors:\n  %s: %s\n", ru.sys.errName, ru.sys.errMsg)
		}
	}
	b.WriteString("\n---\n\n## Execution Order\n\nPinned execution (author-specified):\n\n")
	for i, st := range ru.sys.stages {
		deps := ru.stageDeps(st)
		if len(st) > 1 {
			fmt.Fprintf(&b, "%d. parallel: %s (depends on: %s)\n", i+1, strings.Join(st, ", "), deps)
		} else {
			fmt.Fprintf(&b, "%d. %s (depends on: %s)\n", i+1, st[0], deps)
		}
	}
	b.WriteString("\n## Warnings\n\n")
	warned := false
	for _, n := range ru.sys.nodes {
		if n.optional {
			fmt.Fprintf(&b, "- %s is optional and may be skipped\n", n.id)
			warned = true
		}
	}
	if !warned {
		b.WriteString("(none)\n")
	}
	return b.String()
}

// stageDeps lists the upstream nodes of a stage, "caller" for none.
func (ru *run) stageDeps(st []string) string {
	var deps []string
	seen := map[string]bool{}
	for _, id := range st {
		for _, d := range ru.sys.node(id).deps {
			if !seen[d] {
				seen[d] = true
				deps = append(deps, d)
			}
		}
	}
	if len(deps) == 0 {
		return "caller"
	}
	return strings.Join(deps, ", ")
}

// --- era 3: root.prose.md + forme.manifest.json + vm.log.md + sources/ + workspace/ + bindings/ ---

type formeIO struct {
	Name         string `json:"name"`
	From         string `json:"from"`
	SourceNodeID string `json:"sourceNodeId"`
	SourceOutput string `json:"sourceOutput"`
	Path         string `json:"path"`
}

type formeOut struct {
	Name          string `json:"name"`
	WorkspacePath string `json:"workspacePath"`
	BindingPath   string `json:"bindingPath"`
	Public        bool   `json:"public"`
}

type formeNode struct {
	ID            string     `json:"id"`
	SourcePath    string     `json:"sourcePath"`
	WorkspacePath string     `json:"workspacePath"`
	Inputs        []formeIO  `json:"inputs"`
	Outputs       []formeOut `json:"outputs"`
	Errors        []string   `json:"errors"`
	Delegates     []string   `json:"delegates"`
}

type formeCallerField struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Source      string `json:"source,omitempty"`
}

type formeManifest struct {
	ID         string `json:"id"`
	SystemName string `json:"systemName"`
	SourcePath string `json:"sourcePath"`
	Caller     struct {
		Requires []formeCallerField `json:"requires"`
		Returns  []formeCallerField `json:"returns"`
	} `json:"caller"`
	Graph          []formeNode `json:"graph"`
	ExecutionOrder []struct {
		NodeID    string   `json:"nodeId"`
		DependsOn []string `json:"dependsOn"`
	} `json:"executionOrder"`
	Environment []string `json:"environment"`
	Warnings    []string `json:"warnings"`
}

func (ru *run) formeManifest() (string, error) {
	var m formeManifest
	m.ID, m.SystemName, m.SourcePath = ru.sys.name, ru.sys.name, "root.prose.md"
	for _, c := range ru.sys.callers {
		m.Caller.Requires = append(m.Caller.Requires, formeCallerField{Name: c.name, Description: c.desc})
	}
	last := ru.sys.node(ru.sys.lastNode())
	m.Caller.Returns = []formeCallerField{{Name: last.outputs[0].name, Source: last.id}}
	for _, n := range ru.sys.nodes {
		fn := formeNode{ID: n.id, SourcePath: "sources/" + n.id + ".prose.md", WorkspacePath: "workspace/" + n.id + "/",
			Inputs: []formeIO{}, Outputs: []formeOut{}, Errors: []string{}, Delegates: []string{}}
		for _, in := range n.inputs {
			fn.Inputs = append(fn.Inputs, formeIO{in, "caller", "caller", in, "bindings/caller/" + in + ".md"})
		}
		for _, d := range n.deps {
			o := ru.sys.node(d).outputs[0]
			fn.Inputs = append(fn.Inputs, formeIO{o.name, "service", d, o.name, ru.bindingPath(d, o)})
		}
		for _, o := range n.outputs {
			fn.Outputs = append(fn.Outputs, formeOut{o.name, "workspace/" + n.id + "/" + o.name + "." + o.ext, ru.bindingPath(n.id, o), true})
		}
		if n.id == ru.sys.errNode {
			fn.Errors = append(fn.Errors, ru.sys.errName)
		}
		m.Graph = append(m.Graph, fn)
	}
	for _, st := range ru.sys.stages {
		for _, id := range st {
			deps := append(append([]string(nil), ru.sys.node(id).deps...), "caller")
			m.ExecutionOrder = append(m.ExecutionOrder, struct {
				NodeID    string   `json:"nodeId"`
				DependsOn []string `json:"dependsOn"`
			}{id, deps})
		}
	}
	m.Environment, m.Warnings = []string{}, []string{}
	for _, n := range ru.sys.nodes {
		if n.optional {
			m.Warnings = append(m.Warnings, n.id+" is optional and may be skipped")
		}
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return "", fmt.Errorf("corpusgen: run %s: forme manifest: %w", ru.id, err)
	}
	return string(b) + "\n", nil
}

func (ru *run) layoutEra3(f files) error {
	f["root.prose.md"] = ru.programMD("system")
	fm, err := ru.formeManifest()
	if err != nil {
		return err
	}
	f["forme.manifest.json"] = fm
	f["vm.log.md"] = ru.logText()
	ru.serviceFiles(f, "sources/%s.prose.md")
	ru.publishBindings(f)
	if id := ru.errorFileNode; id != "" {
		var b strings.Builder
		name := ru.sys.errName
		if ru.sp.has(DefectRecoveredError) {
			name = "RateLimited"
		}
		fmt.Fprintf(&b, "---\nerror: %s\nnode: %s\n---\n\n# %s: %s\n\n", name, id, id, name)
		if ru.sp.has(DefectRecoveredError) {
			b.WriteString("The first attempt was rate limited after 3 of 7 calls. " + paragraph(ru.r, ru.sys.vocab, 1) + "\n")
		} else {
			fmt.Fprintf(&b, "%s. %s\n\nDownstream services cannot satisfy their contracts without this output.\n", capitalize(ru.sys.errMsg), paragraph(ru.r, ru.sys.vocab, 2))
		}
		f["workspace/"+id+"/__error.md"] = b.String()
	}
	return nil
}

// --- era 4: compiled-intent.json + root.prose.md + vm.log.md + world-model/ + receipts/ ---

func sha(s string) string {
	h := sha256.Sum256([]byte(s))
	return "sha256:" + hex.EncodeToString(h[:])
}

type ciSource struct {
	Path string `json:"path"`
	Kind string `json:"kind"`
	Name string `json:"name"`
}

type ciNode struct {
	Node                string `json:"node"`
	ContractFingerprint string `json:"contract_fingerprint"`
	WakeSource          string `json:"wake_source"`
}

type ciEdge struct {
	Subscriber string `json:"subscriber"`
	Producer   string `json:"producer"`
	Facet      string `json:"facet"`
}

type compiledIntent struct {
	Kind     string     `json:"kind"`
	Version  int        `json:"version"`
	Name     string     `json:"name"`
	Root     string     `json:"root"`
	Sources  []ciSource `json:"sources"`
	Topology struct {
		Nodes       []ciNode `json:"nodes"`
		Edges       []ciEdge `json:"edges"`
		EntryPoints []string `json:"entry_points"`
		Acyclic     bool     `json:"acyclic"`
	} `json:"topology"`
	ExecutionOrder []string `json:"executionOrder"`
	Diagnostics    []string `json:"diagnostics"`
}

type receiptCost struct {
	Model    string `json:"model"`
	Provider string `json:"provider"`
	Tokens   struct {
		Fresh  int `json:"fresh"`
		Reused int `json:"reused"`
	} `json:"tokens"`
}

type receiptError struct {
	Name    string `json:"name"`
	Message string `json:"message"`
}

type receipt struct {
	Schema              string        `json:"schema"`
	Node                string        `json:"node"`
	Status              string        `json:"status"`
	ContentHash         string        `json:"content_hash"`
	ContractFingerprint string        `json:"contract_fingerprint"`
	InputFingerprints   []string      `json:"input_fingerprints"`
	Prev                *string       `json:"prev"`
	At                  string        `json:"at"`
	Cost                receiptCost   `json:"cost"`
	Error               *receiptError `json:"error,omitempty"`
	Reason              string        `json:"reason,omitempty"`
}

type published struct {
	Node        string `json:"node"`
	Version     string `json:"version"`
	PublishedAt string `json:"published_at"`
	Outputs     []struct {
		Name   string `json:"name"`
		Path   string `json:"path"`
		SHA256 string `json:"sha256"`
	} `json:"outputs"`
}

func (ru *run) compiledIntent() (string, error) {
	var ci compiledIntent
	ci.Kind, ci.Version, ci.Name, ci.Root = "openprose.compiled-intent", 2, ru.sys.name, "root.prose.md"
	ci.Sources = []ciSource{{"root.prose.md", "system", ru.sys.name}}
	for _, n := range ru.sys.nodes {
		ci.Sources = append(ci.Sources, ciSource{"root.prose.md#" + n.id, "responsibility", n.id})
		wake := "input"
		if len(n.deps) == 0 {
			wake = "self"
			ci.Topology.EntryPoints = append(ci.Topology.EntryPoints, n.id)
		}
		ci.Topology.Nodes = append(ci.Topology.Nodes, ciNode{n.id, sha(ru.sys.name + "/" + n.id + "/" + n.desc), wake})
		for _, d := range n.deps {
			ci.Topology.Edges = append(ci.Topology.Edges, ciEdge{n.id, d, ru.sys.node(d).outputs[0].name})
		}
	}
	ci.Topology.Acyclic = true
	for _, st := range ru.sys.stages {
		ci.ExecutionOrder = append(ci.ExecutionOrder, st...)
	}
	ci.Diagnostics = []string{}
	b, err := json.MarshalIndent(ci, "", "  ")
	if err != nil {
		return "", fmt.Errorf("corpusgen: run %s: compiled intent: %w", ru.id, err)
	}
	return string(b) + "\n", nil
}

func (ru *run) layoutEra4(f files) error {
	ci, err := ru.compiledIntent()
	if err != nil {
		return err
	}
	f["compiled-intent.json"] = ci
	f["root.prose.md"] = ru.programMD("system")
	f["vm.log.md"] = ru.logText()
	version := map[string]string{}
	for _, st := range ru.sys.stages {
		for _, id := range st {
			n := ru.sys.node(id)
			if ru.state[id] == stateNotReached {
				continue
			}
			var p published
			p.Node, p.PublishedAt = id, ru.ts(ru.finished[id])
			all := ""
			for _, o := range n.outputs {
				body := ru.body[id+"/"+o.name]
				all += body
				if ru.published(id) {
					path := ru.bindingPath(id, o)
					f[path] = body
					p.Outputs = append(p.Outputs, struct {
						Name   string `json:"name"`
						Path   string `json:"path"`
						SHA256 string `json:"sha256"`
					}{o.name, path, sha(body)})
				}
			}
			version[id] = sha(id + all)
			p.Version = version[id]
			if ru.published(id) {
				b, err := json.MarshalIndent(p, "", "  ")
				if err != nil {
					return fmt.Errorf("corpusgen: run %s: published %s: %w", ru.id, id, err)
				}
				f["world-model/"+id+"/published.json"] = string(b) + "\n"
			}
			lines, err := ru.receipts(n, version)
			if err != nil {
				return err
			}
			f["receipts/"+id+".jsonl"] = lines
		}
	}
	return nil
}

// receipts is node n's receipts file: one JSON receipt a line, a chain
// of two (the first superseded) for the first node of a featMultipleReceipts run.
func (ru *run) receipts(n node, version map[string]string) (string, error) {
	rc := receipt{Schema: "openprose.receipt", Node: n.id, ContractFingerprint: "contract:" + n.id + "@v1",
		InputFingerprints: []string{}, At: ru.ts(ru.finished[n.id])}
	for _, d := range n.deps {
		if v := version[d]; v != "" {
			rc.InputFingerprints = append(rc.InputFingerprints, v)
		}
	}
	rc.Cost.Model, rc.Cost.Provider = "claude-sonnet", "anthropic"
	switch ru.state[n.id] {
	case stateOK:
		rc.Status, rc.ContentHash = "rendered", version[n.id]
		rc.Cost.Tokens.Fresh, rc.Cost.Tokens.Reused = 200+ru.r.IntN(4000), ru.r.IntN(2000)
	case stateFailed:
		rc.Status, rc.ContentHash = "failed", sha("")
		rc.Error = &receiptError{ru.sys.errName, ru.sys.errMsg}
		rc.Cost.Tokens.Fresh = 100 + ru.r.IntN(900)
	default:
		rc.Status, rc.ContentHash, rc.Reason = "skipped", sha(""), "upstream did not render"
		rc.Cost.Model, rc.Cost.Provider = "none", "none"
	}
	var out []receipt
	if ru.sp.has(featMultipleReceipts) && len(n.deps) == 0 {
		first := rc
		first.ContentHash = sha("superseded " + n.id)
		first.At = ru.ts(ru.start)
		prev := first.ContentHash
		rc.Prev = &prev
		out = append(out, first)
	}
	out = append(out, rc)
	var b strings.Builder
	for _, x := range out {
		line, err := json.Marshal(x)
		if err != nil {
			return "", fmt.Errorf("corpusgen: run %s: receipt %s: %w", ru.id, n.id, err)
		}
		b.Write(line)
		b.WriteString("\n")
	}
	return b.String(), nil
}
