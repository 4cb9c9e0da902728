package sampler

import (
	"bufio"
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"sort"
	"strings"

	"github.com/evalcal/evalcal/inspection"
)

// Manifest is what a run's manifest declares, whatever its era:
// manifest.md (state-md-v2), forme.manifest.json (vmlog-forme),
// compiled-intent.json (reactor), or the `let`/`output` statements of
// program.prose (state-md-v1, which has no manifest).
type Manifest struct {
	// File is the manifest's path relative to the run directory.
	File string `yaml:"file" json:"file"`
	// System is the declared system or program name, "" if none.
	System string `yaml:"system,omitempty" json:"system,omitempty"`
	// Services are the declared services, sorted.
	Services []string `yaml:"services" json:"services"`
	// Outputs are the published outputs the services should leave,
	// sorted by path (slash-separated, relative to the run directory).
	Outputs []Output `yaml:"outputs" json:"outputs"`
	// Order is the declared execution order: each step is a set of
	// services that may run in any order among themselves (a parallel
	// group); nil when the manifest declares no order.
	Order [][]string `yaml:"order,omitempty" json:"order,omitempty"`
	// OrderLines are the manifest line numbers of Order's steps (0 for
	// JSON manifests), for evidence.
	OrderLines []int `yaml:"order_lines,omitempty" json:"order_lines,omitempty"`
}

// Output is one published output a service should write.
type Output struct {
	Service string `yaml:"service" json:"service"`
	Path    string `yaml:"path" json:"path"`
}

// maxManifestBytes bounds what is read of one manifest file (and of
// receipts.json); a longer one is an error, not read.
const maxManifestBytes = 16 << 20

// LoadManifest reads the manifest of the run directory dir written in era;
// see RunDir.LoadManifest.
func LoadManifest(dir string, era inspection.Era) (Manifest, error) {
	d, err := OpenRunDir(dir)
	if err != nil {
		return Manifest{Services: []string{}, Outputs: []Output{}}, err
	}
	defer d.Close()
	return d.LoadManifest(context.Background(), era)
}

// LoadManifest reads the run's manifest written in era: manifest.md,
// forme.manifest.json, compiled-intent.json (else compile/topology.json)
// or program.prose. A run without a manifest file gives an empty Manifest
// and a nil error. A manifest that is not a regular file (a pipe, a
// directory), that a symlink leads to from outside the run, or that is
// larger than 16 MiB is not read: the Manifest is empty (File "") and the
// error says why. An unparseable manifest is an error naming the file
// (and the line for manifest.md and JSON syntax errors).
func (d *RunDir) LoadManifest(ctx context.Context, era inspection.Era) (Manifest, error) {
	switch era {
	case inspection.EraStateMDv2:
		return loadManifestMD(ctx, d, "manifest.md")
	case inspection.EraVMLogForme:
		return loadFormeJSON(ctx, d, "forme.manifest.json")
	case inspection.EraReactor:
		return loadCompiledIntent(ctx, d)
	case inspection.EraStateMDv1:
		return loadProgramProse(ctx, d, "program.prose")
	}
	return Manifest{Services: []string{}, Outputs: []Output{}}, nil
}

// readManifestFile reads a whole manifest-sized file of the run.
func readManifestFile(ctx context.Context, d *RunDir, name string) ([]byte, error) {
	b, whole, err := d.ReadFile(ctx, name, maxManifestBytes)
	if err != nil {
		return nil, err
	}
	if !whole {
		return nil, fmt.Errorf("sampler: read %s: larger than %d bytes, not read", d.full(name), maxManifestBytes)
	}
	return b, nil
}

// readCapped reads a manifest; ok is false (and err nil) when it does not
// exist.
func readCapped(ctx context.Context, d *RunDir, name string) (b []byte, ok bool, err error) {
	b, err = readManifestFile(ctx, d, name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return b, true, nil
}

var (
	mdTitleRE    = regexp.MustCompile(`^#\s+Manifest:\s*(.+?)\s*$`)
	mdSectionRE  = regexp.MustCompile(`^##\s+(.+?)\s*$`)
	mdServiceRE  = regexp.MustCompile(`^###\s+(.+?)\s*$`)
	mdPublicRE   = regexp.MustCompile(`^\s*\(public\)\s*\S+\s*(?:->|→)\s*(\S+)`)
	mdOrderRE    = regexp.MustCompile(`^\s*\d+\.\s+(.+?)\s*$`)
	dependsRE    = regexp.MustCompile(`\s*\((?:depends on|after)[^)]*\)`)
	vmActionRE   = regexp.MustCompile(`^\[(?i:vm[ -]action)\]`)
	nameTokenRE  = regexp.MustCompile(`[A-Za-z0-9_][A-Za-z0-9_.-]*`)
	orderSplitRE = regexp.MustCompile(`,|->|→`)
	groupHeadRE  = regexp.MustCompile(`^(?i:parallel|loop(?:\([^)]*\))?)\s*:\s*`)
	proseAssign  = regexp.MustCompile(`^\s*(?:(?:let|const|output)\s+)?([A-Za-z_][A-Za-z0-9_-]*)\s*=\s*(?:session|agent|run|call|do|parallel|resume)\b`)
	proseOutputs = regexp.MustCompile(`^\s*(?:let|const|output)\s+([A-Za-z_][A-Za-z0-9_-]*)\s*=`)
)

// loadManifestMD reads a Markdown Forme manifest: `# Manifest: name`,
// `### service` headings under `## Graph` with `(public) x -> path` outputs,
// and a numbered `## Execution Order` list whose items may be
// `parallel: a, b`, `loop(...): a -> b`, `name — note (depends on: ...)` or
// `[VM action] X` (skipped).
func loadManifestMD(ctx context.Context, d *RunDir, name string) (Manifest, error) {
	m := Manifest{Services: []string{}, Outputs: []Output{}}
	b, ok, err := readCapped(ctx, d, name)
	if err != nil || !ok {
		return m, err
	}
	m.File = name
	var section, service string
	declared := map[string]bool{}
	type step struct {
		line  int
		names []string
	}
	var steps []step
	sc := bufio.NewScanner(strings.NewReader(string(b)))
	sc.Buffer(make([]byte, 64*1024), maxManifestBytes)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if mm := mdTitleRE.FindStringSubmatch(line); mm != nil && m.System == "" {
			m.System = mm[1]
			continue
		}
		if mm := mdSectionRE.FindStringSubmatch(line); mm != nil && !strings.HasPrefix(line, "###") {
			section = strings.ToLower(mm[1])
			service = ""
			continue
		}
		switch {
		case section == "graph":
			if mm := mdServiceRE.FindStringSubmatch(line); mm != nil {
				service = firstWord(mm[1])
				if service != "" && !declared[service] {
					declared[service] = true
					m.Services = append(m.Services, service)
				}
				continue
			}
			if mm := mdPublicRE.FindStringSubmatch(line); mm != nil && service != "" {
				m.Outputs = append(m.Outputs, Output{Service: service, Path: path.Clean(mm[1])})
			}
		case strings.HasPrefix(section, "execution order"):
			if mm := mdOrderRE.FindStringSubmatch(line); mm != nil {
				if names := orderItemNames(mm[1]); len(names) > 0 {
					steps = append(steps, step{n, names})
				}
			}
		}
	}
	if err := sc.Err(); err != nil {
		return m, fmt.Errorf("sampler: read %s: %w", d.full(name), err)
	}
	// Only declared services take part in the order: "[VM action]" and
	// notes are not services.
	for _, s := range steps {
		var keep []string
		for _, nm := range s.names {
			if declared[nm] {
				keep = append(keep, nm)
			}
		}
		if len(keep) > 0 {
			m.Order = append(m.Order, keep)
			m.OrderLines = append(m.OrderLines, s.line)
		}
	}
	sortManifest(&m)
	return m, nil
}

// orderItemNames reads the services of one execution-order item. A
// parallel item gives all its names in one step; a loop's body gives its
// names in sequence but, being one item, as one step.
func orderItemNames(item string) []string {
	if vmActionRE.MatchString(item) {
		return nil
	}
	item = dependsRE.ReplaceAllString(item, "")
	item = groupHeadRE.ReplaceAllString(item, "")
	var names []string
	for _, part := range orderSplitRE.Split(item, -1) {
		// "linus — scope", "linus review": the service is the first token.
		if tok := nameTokenRE.FindString(part); tok != "" {
			names = append(names, tok)
		}
	}
	return names
}

type formeManifest struct {
	ID         string `json:"id"`
	SystemName string `json:"systemName"`
	Graph      []struct {
		ID      string `json:"id"`
		Outputs []struct {
			Name        string `json:"name"`
			BindingPath string `json:"bindingPath"`
			Public      *bool  `json:"public"`
		} `json:"outputs"`
	} `json:"graph"`
	ExecutionOrder []struct {
		NodeID string `json:"nodeId"`
	} `json:"executionOrder"`
}

// loadFormeJSON reads forme.manifest.json: graph[].id are the services,
// their public outputs' bindingPath the outputs, executionOrder[].nodeId
// the order (one service a step). Unknown keys are ignored.
func loadFormeJSON(ctx context.Context, d *RunDir, name string) (Manifest, error) {
	m := Manifest{Services: []string{}, Outputs: []Output{}}
	b, ok, err := readCapped(ctx, d, name)
	if err != nil || !ok {
		return m, err
	}
	m.File = name
	var fm formeManifest
	if err := json.Unmarshal(b, &fm); err != nil {
		return m, jsonError(d.full(name), b, err)
	}
	m.System = fm.SystemName
	if m.System == "" {
		m.System = fm.ID
	}
	seen := map[string]bool{}
	for _, node := range fm.Graph {
		if node.ID == "" || seen[node.ID] {
			continue
		}
		seen[node.ID] = true
		m.Services = append(m.Services, node.ID)
		for _, o := range node.Outputs {
			if o.BindingPath != "" && (o.Public == nil || *o.Public) {
				m.Outputs = append(m.Outputs, Output{Service: node.ID, Path: path.Clean(o.BindingPath)})
			}
		}
	}
	for _, e := range fm.ExecutionOrder {
		if e.NodeID != "" {
			m.Order = append(m.Order, []string{e.NodeID})
			m.OrderLines = append(m.OrderLines, 0)
		}
	}
	sortManifest(&m)
	return m, nil
}

type compiledIntent struct {
	Name    string `json:"name"`
	Sources []struct {
		Name string `json:"name"`
		Kind string `json:"kind"`
	} `json:"sources"`
	Topology struct {
		Nodes []struct {
			Node string `json:"node"`
		} `json:"nodes"`
		Edges []struct {
			Subscriber string `json:"subscriber"`
			Producer   string `json:"producer"`
		} `json:"edges"`
	} `json:"topology"`
	ExecutionOrder []string `json:"executionOrder"`
}

// loadCompiledIntent reads compiled-intent.json (or, failing that, the
// harness's compile/topology.json): topology.nodes[].node are the
// services, each publishing world-model/{node}/published.json. The order
// is executionOrder when given, else the topology's levels (a node runs
// after every producer it subscribes to; nodes of one level form a step).
func loadCompiledIntent(ctx context.Context, d *RunDir) (Manifest, error) {
	m := Manifest{Services: []string{}, Outputs: []Output{}}
	var ci compiledIntent
	for _, name := range []string{"compiled-intent.json", "compile/topology.json"} {
		b, ok, err := readCapped(ctx, d, name)
		if err != nil {
			return m, err
		}
		if !ok {
			continue
		}
		if name == "compile/topology.json" {
			err = json.Unmarshal(b, &ci.Topology)
		} else {
			err = json.Unmarshal(b, &ci)
		}
		if err != nil {
			return m, jsonError(d.full(name), b, err)
		}
		m.File = name
		break
	}
	if m.File == "" {
		return m, nil
	}
	m.System = ci.Name
	seen := map[string]bool{}
	add := func(n string) {
		if n != "" && !seen[n] {
			seen[n] = true
			m.Services = append(m.Services, n)
			m.Outputs = append(m.Outputs, Output{Service: n, Path: "world-model/" + n + "/published.json"})
		}
	}
	for _, n := range ci.Topology.Nodes {
		add(n.Node)
	}
	if len(m.Services) == 0 {
		for _, s := range ci.Sources {
			add(s.Name)
		}
	}
	if len(ci.ExecutionOrder) > 0 {
		for _, n := range ci.ExecutionOrder {
			m.Order = append(m.Order, []string{n})
			m.OrderLines = append(m.OrderLines, 0)
		}
	} else {
		m.Order = topologyLevels(m.Services, ci.Topology.Edges)
		for range m.Order {
			m.OrderLines = append(m.OrderLines, 0)
		}
	}
	sortManifest(&m)
	return m, nil
}

// topologyLevels groups nodes by their longest producer chain; a cycle
// leaves its nodes out of the order rather than looping.
func topologyLevels(nodes []string, edges []struct {
	Subscriber string `json:"subscriber"`
	Producer   string `json:"producer"`
}) [][]string {
	level := map[string]int{}
	for _, n := range nodes {
		level[n] = 0
	}
	// Bellman-Ford style relaxation, at most len(nodes) rounds.
	for round := 0; round <= len(nodes); round++ {
		changed := false
		for _, e := range edges {
			lp, okp := level[e.Producer]
			ls, oks := level[e.Subscriber]
			if okp && oks && ls < lp+1 {
				level[e.Subscriber] = lp + 1
				changed = true
			}
		}
		if !changed {
			break
		}
		if round == len(nodes) {
			return nil // a cycle: no order can be stated
		}
	}
	var out [][]string
	for _, n := range nodes {
		for len(out) <= level[n] {
			out = append(out, nil)
		}
		out[level[n]] = append(out[level[n]], n)
	}
	for _, s := range out {
		sort.Strings(s)
	}
	return out
}

// loadProgramProse reads the services of a state-md-v1 program: every
// `let|const|output NAME =` and every `NAME = session ...` (parallel
// branches), each publishing bindings/{NAME}.md.
func loadProgramProse(ctx context.Context, d *RunDir, name string) (Manifest, error) {
	m := Manifest{Services: []string{}, Outputs: []Output{}}
	b, ok, err := readCapped(ctx, d, name)
	if err != nil || !ok {
		return m, err
	}
	m.File = name
	seen := map[string]bool{}
	sc := bufio.NewScanner(strings.NewReader(string(b)))
	sc.Buffer(make([]byte, 64*1024), maxManifestBytes)
	for sc.Scan() {
		line := sc.Text()
		mm := proseOutputs.FindStringSubmatch(line)
		if mm == nil {
			mm = proseAssign.FindStringSubmatch(line)
		}
		if mm != nil && !seen[mm[1]] {
			seen[mm[1]] = true
			m.Services = append(m.Services, mm[1])
			m.Outputs = append(m.Outputs, Output{Service: mm[1], Path: "bindings/" + mm[1] + ".md"})
		}
	}
	if err := sc.Err(); err != nil {
		return m, fmt.Errorf("sampler: read %s: %w", d.full(name), err)
	}
	sortManifest(&m)
	return m, nil
}

// jsonError names the file, and the line for a syntax error.
func jsonError(p string, b []byte, err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) && se.Offset <= int64(len(b)) {
		line := 1 + bytes.Count(b[:se.Offset], []byte("\n"))
		return fmt.Errorf("sampler: parse %s:%d: %w", p, line, err)
	}
	return fmt.Errorf("sampler: parse %s: %w", p, err)
}

func sortManifest(m *Manifest) {
	sort.Strings(m.Services)
	sort.Slice(m.Outputs, func(i, j int) bool {
		if m.Outputs[i].Path != m.Outputs[j].Path {
			return m.Outputs[i].Path < m.Outputs[j].Path
		}
		return m.Outputs[i].Service < m.Outputs[j].Service
	})
}

// hexNodeName decodes a reactor world-models/<hex(node)> directory name;
// a name that is not hex is returned as is.
func hexNodeName(s string) string {
	b, err := hex.DecodeString(s)
	if err != nil || len(b) == 0 {
		return s
	}
	for _, c := range b {
		if c < 0x20 || c > 0x7e {
			return s
		}
	}
	return string(b)
}
