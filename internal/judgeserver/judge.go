package judgeserver

import (
	"bufio"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The judge models the server knows.
const (
	// ModelMini is lenient and coarse: it starts below 100, deducts less,
	// calls missing bindings and empty outputs warnings, misses truncated
	// and most placeholder outputs, and rounds its scores to tens.
	ModelMini = "judge-mini"
	// ModelLarge is strict and fine-grained: it reads outputs for
	// placeholders, cut-off text and unparseable JSON, and tells a
	// recovered error from an unhandled one.
	ModelLarge = "judge-large"
)

// Models lists the known models, sorted.
var Models = []string{ModelMini, ModelLarge}

// runView is what the packed run message (programs/llm's layout) shows.
type runView struct {
	depth   string
	listing []listed
	files   map[string]shownFile
	logName string
}

type listed struct {
	path string
	size int64
	mark string // "", "cut", "not shown", "binary"
}

type shownFile struct {
	content string
	cut     bool
}

var (
	fileHeader = regexp.MustCompile(`^===== (.+?) \((\d+) bytes(; cut by evalcal[^)]*)?\)(: binary, not shown)? ===== (\[fence [0-9a-f]{16}\])$`)
	fenceNote  = regexp.MustCompile(`lines that end with the tag (\[fence [0-9a-f]{16}\])`)
	listLine   = regexp.MustCompile(`^- (.+?) (\d+)(?: \[(cut|not shown|binary)\])?$`)
)

// parseRunMessage reads the run message: the "Depth:" line, the file
// listing and the framed file contents. It never fails: what it cannot
// read is absent from the view.
func parseRunMessage(msg string) runView {
	v := runView{files: map[string]shownFile{}}
	sc := bufio.NewScanner(strings.NewReader(msg))
	sc.Buffer(make([]byte, 64<<10), maxBody)
	inListing := false
	var cur string
	var curCut bool
	var body strings.Builder
	// tag is the message's fence tag (programs/llm fenceTag): only frame
	// lines ending with it are frames, as the prompt tells a judge.
	tag := ""
	for sc.Scan() {
		line := sc.Text()
		if cur != "" {
			if line == "===== end "+cur+" ===== "+tag {
				v.files[cur] = shownFile{content: body.String(), cut: curCut}
				cur = ""
				body.Reset()
				continue
			}
			body.WriteString(line)
			body.WriteByte('\n')
			continue
		}
		switch {
		case strings.HasPrefix(line, "Depth: ") && v.depth == "":
			v.depth = strings.TrimSpace(strings.TrimPrefix(line, "Depth: "))
		case strings.HasPrefix(line, "Files in the run directory"):
			inListing = true
		case inListing && line == "":
			inListing = false
		case inListing:
			if m := listLine.FindStringSubmatch(line); m != nil {
				size, _ := strconv.ParseInt(m[2], 10, 64)
				v.listing = append(v.listing, listed{path: m[1], size: size, mark: m[3]})
			}
		case tag == "" && fenceNote.MatchString(line):
			tag = fenceNote.FindStringSubmatch(line)[1]
		default:
			if m := fileHeader.FindStringSubmatch(line); m != nil && m[4] == "" && tag != "" && m[5] == tag {
				cur, curCut = m[1], m[3] != ""
			}
		}
	}
	for _, n := range []string{"state.md", "vm.log.md"} {
		if _, ok := v.files[n]; ok {
			v.logName = n
			break
		}
	}
	return v
}

// finding is one flag with what it costs each model.
type finding struct {
	id, description, evidence string
	severity                  string
}

// status of a run from its log.
const (
	statusCompleted  = "completed"
	statusFailed     = "failed"
	statusIncomplete = "incomplete"
	statusUnknown    = "unknown"
)

var marker = regexp.MustCompile(`^\s*\d+[a-z]?\s*(?:→|->)\s*(\S+)\s*(✓|✗|∅)`)

type logFacts struct {
	status   string
	services [][2]string // name, status, in log order
	errors   []string    // ✗ lines
}

func readLog(log string, shown bool) logFacts {
	f := logFacts{status: statusUnknown}
	if !shown {
		return f
	}
	f.status = statusIncomplete
	seen := map[string]int{}
	for _, line := range strings.Split(log, "\n") {
		t := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(t, "---end"):
			f.status = statusCompleted
		case strings.HasPrefix(t, "---error"):
			f.status = statusFailed
		}
		m := marker.FindStringSubmatch(line)
		if m == nil || strings.HasPrefix(m[1], "∥") {
			continue
		}
		st := map[string]string{"✓": "completed", "✗": "failed", "∅": "skipped"}[m[2]]
		if m[2] == "✗" {
			f.errors = append(f.errors, t)
		}
		if i, ok := seen[m[1]]; ok {
			f.services[i][1] = st // a later marker (a retry) wins
			continue
		}
		seen[m[1]] = len(f.services)
		f.services = append(f.services, [2]string{m[1], st})
	}
	return f
}

// deductions per flag id: runtime, task points for the strict model; the
// lenient one takes 70% of them.
var deductions = map[string][2]float64{
	"run-failed":          {50, 40},
	"run-incomplete":      {50, 40},
	"log-unreadable":      {40, 20},
	"error-file":          {35, 15},
	"unhandled-error":     {30, 10},
	"missing-binding":     {20, 35},
	"empty-output":        {10, 25},
	"placeholder-output":  {0, 35},
	"truncated-output":    {0, 25},
	"binding-unparseable": {15, 20},
	"recovered-error":     {5, 0},
}

var placeholder = regexp.MustCompile(`(?i)\b(TODO|TBD|FIXME)\b|lorem ipsum|<placeholder>`)

// inspect judges a run view as model would: deterministic, from the
// content only. (long: the fake judge's rules, one after the other in the
// order they add findings, which the tests' expected flags follow.)
func inspect(model string, v runView, salt uint64) map[string]any {
	strict := model == ModelLarge
	logFile, logShown := v.files[v.logName]
	lf := readLog(logFile.content, logShown)
	var fs []finding
	add := func(id, sev, desc, ev string) {
		fs = append(fs, finding{id: id, severity: sev, description: desc, evidence: ev})
	}
	warnOrCrit := func() string {
		if strict {
			return "critical"
		}
		return "warning"
	}
	switch lf.status {
	case statusFailed:
		add("run-failed", "critical", "the run failed", v.logName+": ---error")
	case statusIncomplete:
		add("run-incomplete", "critical", "the run did not finish", v.logName+": no ---end or ---error")
	case statusUnknown:
		add("log-unreadable", "critical", "no run log was shown", "state.md / vm.log.md")
	}
	// Error files: the strict model forgives a recovered one.
	for _, l := range v.listing {
		if !strings.HasSuffix(l.path, "__error.md") {
			continue
		}
		svc := serviceOf(l.path)
		recovered := lf.status == statusCompleted && serviceStatus(lf, svc) == "completed"
		switch {
		case strict && recovered:
			add("recovered-error", "info", "a service failed and recovered", l.path)
		default:
			add("error-file", "critical", "a service left an error file", l.path)
		}
	}
	// Missing bindings of a completed run, from the listing: the lenient
	// model also expects one from skipped services.
	if lf.status == statusCompleted && hasBindingDirs(v.listing) {
		for _, s := range lf.services {
			want := s[1] == "completed" || (!strict && s[1] == "skipped")
			if want && !hasBinding(v.listing, s[0]) {
				add("missing-binding", warnOrCrit(), "service "+s[0]+" has no binding", "no bindings/"+s[0]+" or world-model/"+s[0])
			}
		}
	}
	for _, l := range v.listing {
		if l.size == 0 && isOutput(l.path) {
			add("empty-output", warnOrCrit(), "an output is empty", l.path+" (0 bytes)")
		}
	}
	// Substance, from the shown outputs (deep depth).
	paths := make([]string, 0, len(v.files))
	for p := range v.files {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	for _, p := range paths {
		f := v.files[p]
		if !isOutput(p) {
			continue
		}
		if m := placeholder.FindString(f.content); m != "" && (strict || strings.EqualFold(m, "lorem ipsum")) {
			add("placeholder-output", warnOrCrit(), "an output is a placeholder", fmt.Sprintf("%s: %q", p, m))
			continue
		}
		if !strict || f.cut || strings.TrimSpace(f.content) == "" {
			continue
		}
		if strings.HasSuffix(p, ".json") {
			if !json.Valid([]byte(f.content)) && !strings.HasSuffix(p, ".jsonl") {
				add("binding-unparseable", "warning", "a JSON output does not parse", p)
			}
			continue
		}
		if cutOff(f.content) {
			add("truncated-output", "warning", "an output stops mid-sentence", p)
		}
	}

	rf, te := 100.0, 100.0
	if !strict {
		rf, te = 96, 92
	}
	for _, f := range fs {
		d := deductions[f.id]
		if !strict {
			d[0], d[1] = d[0]*0.7, d[1]*0.7
		}
		rf -= d[0]
		te -= d[1]
	}
	// Deterministic jitter: the judge is not a formula.
	rf += float64(int(salt%7)) - 3
	te += float64(int(salt/7%7)) - 3
	if !strict {
		rf, te = math.Round(rf/10)*10, math.Round(te/10)*10
	}
	rf, te = clamp(rf, 0, 100), clamp(te, 0, 100)
	if v.depth == "light" {
		rf, te = math.Min(rf, 85), math.Min(te, 80)
	}
	verdict := "partial"
	critical := slices.ContainsFunc(fs, func(f finding) bool { return f.severity == "critical" })
	switch {
	case lf.status != statusCompleted || rf < 40 || te < 40:
		verdict = "fail"
	case rf >= 70 && te >= 70 && !critical:
		verdict = "pass"
	}
	flags := make([]map[string]any, 0, len(fs))
	for _, f := range fs {
		flags = append(flags, map[string]any{"id": f.id, "severity": f.severity, "description": f.description, "evidence": f.evidence})
	}
	services := make([]map[string]any, 0, len(lf.services))
	for _, s := range lf.services {
		services = append(services, map[string]any{"name": s[0], "status": s[1]})
	}
	return map[string]any{
		"runtime_fidelity":   rf,
		"task_effectiveness": te,
		"services":           services,
		"flags":              flags,
		"verdict":            verdict,
		"summary":            fmt.Sprintf("%s at %s depth: the run %s; %d finding(s).", model, orUnknown(v.depth), lf.status, len(fs)),
	}
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

func clamp(x, lo, hi float64) float64 { return math.Max(lo, math.Min(hi, x)) }

// isOutput: a binding, workspace or world-model file, not a receipt, a
// published index or an error file.
func isOutput(p string) bool {
	if strings.HasSuffix(p, "__error.md") || strings.HasSuffix(p, "published.json") {
		return false
	}
	for _, d := range []string{"bindings/", "workspace/", "world-model/"} {
		if strings.HasPrefix(p, d) && !strings.HasPrefix(p, "bindings/caller/") {
			return true
		}
	}
	return false
}

func serviceOf(p string) string {
	parts := strings.Split(p, "/")
	if len(parts) >= 3 {
		return parts[1]
	}
	return ""
}

func serviceStatus(lf logFacts, name string) string {
	for _, s := range lf.services {
		if s[0] == name {
			return s[1]
		}
	}
	return ""
}

func hasBindingDirs(ls []listed) bool {
	return slices.ContainsFunc(ls, func(l listed) bool {
		return strings.HasPrefix(l.path, "bindings/") || strings.HasPrefix(l.path, "world-model/")
	})
}

// hasBinding: a file bindings/NAME.*, bindings/NAME/..., or
// world-model/NAME/...
func hasBinding(ls []listed, name string) bool {
	return slices.ContainsFunc(ls, func(l listed) bool {
		for _, d := range []string{"bindings/", "world-model/"} {
			rest, ok := strings.CutPrefix(l.path, d)
			if !ok {
				continue
			}
			first, _, _ := strings.Cut(rest, "/")
			if first == name || strings.TrimSuffix(first, ".md") == name || strings.TrimSuffix(first, ".json") == name {
				return true
			}
		}
		return false
	})
}

// cutOff: text whose last line (not a heading) ends on a letter, a digit
// or a comma: it stops mid-sentence.
func cutOff(s string) bool {
	t := strings.TrimRight(s, " \t\n")
	if t == "" {
		return false
	}
	last := strings.TrimSpace(t[strings.LastIndexByte(t, '\n')+1:])
	if strings.HasPrefix(last, "#") || strings.Contains(last, ": ") {
		return false
	}
	r, _ := utf8.DecodeLastRuneInString(t)
	return unicode.IsLetter(r) || unicode.IsDigit(r) || r == ','
}

// salt is a deterministic number from the run message and the model.
func salt(model, msg string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(model))
	h.Write([]byte{0})
	h.Write([]byte(msg))
	return h.Sum64()
}
