package corpusgen

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"
)

// Node states in a generated run.
const (
	stateOK         = "ok"
	stateFailed     = "failed"
	stateSkipped    = "skipped"
	stateNotReached = "not-reached"
)

// run is one planned run made concrete: its id, its times, what happened
// to each node, and the content of each output.
type run struct {
	sp    spec
	sys   system
	id    string
	r     *rand.Rand
	start time.Time
	end   time.Time
	loc   *time.Location
	// state and finished are per node.
	state    map[string]string
	finished map[string]time.Time
	// logStages is the order the log reports the stages in.
	logStages [][]string
	// body is the content of each output of each OK node, keyed
	// node+"/"+output name.
	body map[string]string
	// defect targets: the node whose binding is missing, whose output is
	// empty / placeholder / truncated, and that left an __error.md.
	missingNode, emptyNode, placeholderNode, truncatedNode, errorFileNode string
	notes                                                                 []string
}

// eraBase is the first day runs of an era are dated from; the eras are
// months apart like the real layouts were.
func eraBase(era int) time.Time {
	switch era {
	case 1:
		return time.Date(2026, 1, 12, 8, 0, 0, 0, time.UTC)
	case 2:
		return time.Date(2026, 3, 2, 8, 0, 0, 0, time.UTC)
	case 3:
		return time.Date(2026, 5, 18, 8, 0, 0, 0, time.UTC)
	default:
		return time.Date(2026, 7, 6, 8, 0, 0, 0, time.UTC)
	}
}

// newRun realises plan entry index of sp from its own random stream
// (PCG seeded by the corpus seed and the index), so one run's content
// does not depend on any other run.
func newRun(seed uint64, index int, sp spec) (*run, error) {
	sys, ok := systemNamed(sp.system)
	if !ok {
		return nil, fmt.Errorf("corpusgen: plan entry %d: unknown system %q", index, sp.system)
	}
	r := rand.New(rand.NewPCG(seed, uint64(index)+1))
	start := eraBase(sp.era).Add(time.Duration(index)*10*time.Hour + time.Duration(r.IntN(6*3600))*time.Second)
	ru := &run{
		sp: sp, sys: sys, r: r, start: start, loc: time.UTC,
		state:    map[string]string{},
		finished: map[string]time.Time{},
		body:     map[string]string{},
	}
	if sp.has(featTZOffset) {
		ru.loc = time.FixedZone("", -3*3600)
	}
	// Real runs name their directory in the VM's local time.
	ru.id = fmt.Sprintf("%s-%06x", start.In(ru.loc).Format("20060102-150405"), r.Uint32()&0xffffff)
	ru.planStates()
	ru.planOrder()
	ru.planTimes()
	ru.planBodies()
	return ru, nil
}

func (ru *run) stageIndex(id string) int {
	for i, st := range ru.sys.stages {
		for _, n := range st {
			if n == id {
				return i
			}
		}
	}
	return -1
}

// planStates decides each node's fate from the outcome: a failed run
// fails at the system's error node and skips everything after it; an
// incomplete run stops about half way (or right after its header).
func (ru *run) planStates() {
	errStage := ru.stageIndex(ru.sys.errNode)
	stop := len(ru.sys.stages) / 2
	if ru.sp.has(featHeaderOnly) {
		stop = 0
	}
	for si, st := range ru.sys.stages {
		for _, id := range st {
			s := stateOK
			switch {
			case ru.sp.outcome == outcomeFailed && si == errStage && id == ru.sys.errNode:
				s = stateFailed
			case ru.sp.outcome == outcomeFailed && si > errStage:
				s = stateSkipped
			case ru.sp.outcome == outcomeIncomplete && si >= stop:
				s = stateNotReached
			case ru.sys.node(id).optional && ru.sp.has(featSkippedOptional):
				s = stateSkipped
			}
			ru.state[id] = s
		}
	}
}

// planOrder is the manifest order, except for DefectOrderMismatch, where
// the last two consecutive single-node stages are swapped: every node
// still runs and succeeds, but a node runs before one it depends on.
func (ru *run) planOrder() {
	ru.logStages = append([][]string(nil), ru.sys.stages...)
	if !ru.sp.has(DefectOrderMismatch) {
		return
	}
	for i := len(ru.logStages) - 2; i >= 0; i-- {
		if len(ru.logStages[i]) == 1 && len(ru.logStages[i+1]) == 1 {
			a, b := ru.logStages[i][0], ru.logStages[i+1][0]
			ru.logStages[i], ru.logStages[i+1] = ru.logStages[i+1], ru.logStages[i]
			ru.notes = append(ru.notes, fmt.Sprintf("log runs %s before %s; the manifest orders %s first", b, a, a))
			return
		}
	}
}

func (ru *run) planTimes() {
	t := ru.start
	for _, st := range ru.logStages {
		for _, id := range st {
			if ru.state[id] == stateNotReached {
				continue
			}
			t = t.Add(time.Duration(20+ru.r.IntN(380)) * time.Second)
			ru.finished[id] = t
		}
	}
	ru.end = t.Add(time.Duration(5+ru.r.IntN(30)) * time.Second)
}

// middleNode is the first node of the middle stage: an intermediate
// service whose loss a checker must notice.
func (ru *run) middleNode() string { return ru.sys.stages[len(ru.sys.stages)/2][0] }

// planBodies writes the content of every output of every OK node and
// plants the content defects.
func (ru *run) planBodies() {
	last := ru.sys.lastNode()
	for _, d := range ru.sp.defects {
		switch d {
		case DefectMissingBinding:
			ru.missingNode = ru.middleNode()
		case DefectEmptyOutput:
			ru.emptyNode = ru.middleNode()
		case DefectPlaceholder:
			ru.placeholderNode = last
		case DefectTruncated:
			ru.truncatedNode = last
		case DefectErrorFile:
			ru.errorFileNode = ru.sys.errNode
		case DefectRecoveredError:
			ru.errorFileNode = ru.sys.errNode
		case DefectSkippedUnbound:
			for _, n := range ru.sys.nodes {
				if n.optional {
					ru.notes = append(ru.notes, n.id+" skipped by design (optional); it has no binding")
				}
			}
		}
	}
	for _, n := range ru.sys.nodes {
		if ru.state[n.id] != stateOK {
			continue
		}
		for i, o := range n.outputs {
			key := n.id + "/" + o.name
			target := outputTarget(ru.sp.size, o.bulk)
			var b string
			if o.ext == "json" {
				b = jsonRecords(ru.r, ru.sys.vocab, o.fields, target)
			} else {
				b = markdownDoc(ru.r, ru.sys.vocab, o.title, target)
			}
			if i == 0 {
				switch n.id {
				case ru.placeholderNode:
					b = placeholderBody(ru.sp.flavour, o.title, o.fields, o.ext == "json")
					ru.notes = append(ru.notes, fmt.Sprintf("%s output %s is a %q placeholder", n.id, o.name, ru.sp.flavour))
				case ru.truncatedNode:
					b = truncateMidSentence(b)
					ru.notes = append(ru.notes, fmt.Sprintf("%s output %s stops mid-sentence", n.id, o.name))
				case ru.emptyNode:
					b = ""
					ru.notes = append(ru.notes, fmt.Sprintf("%s output %s is empty (0 bytes)", n.id, o.name))
				}
			}
			ru.body[key] = b
		}
	}
	if ru.missingNode != "" {
		ru.notes = append(ru.notes, ru.missingNode+" completed (✓ in the log) but published no binding")
	}
	if ru.errorFileNode != "" {
		if ru.sp.has(DefectRecoveredError) {
			ru.notes = append(ru.notes, ru.errorFileNode+" left __error.md from a first attempt, then succeeded on retry")
		} else {
			ru.notes = append(ru.notes, ru.errorFileNode+" failed and left workspace/"+ru.errorFileNode+"/__error.md")
		}
	}
}

// ts formats a time in the run's zone, RFC 3339.
func (ru *run) ts(t time.Time) string { return t.In(ru.loc).Format(time.RFC3339) }

// name is how a node is named in this run's era: era 1 binds snake_case
// names, later eras keep the service ids.
func (ru *run) name(id string) string {
	if ru.sp.era == 1 {
		return strings.ReplaceAll(id, "-", "_")
	}
	return id
}

// annotation is the text after ✓ for a node: a count read from its
// output, or a retry note for a recovered error.
func (ru *run) annotation(id string) string {
	if id == ru.errorFileNode && ru.sp.has(DefectRecoveredError) {
		return " (retry 2/2 after RateLimited)"
	}
	if !ru.sp.has(featAnnotations) {
		return ""
	}
	n := ru.sys.node(id)
	if len(n.outputs) == 0 {
		return ""
	}
	o := n.outputs[0]
	b := ru.body[id+"/"+o.name]
	if o.ext == "json" {
		return fmt.Sprintf(" (%d records)", strings.Count(b, "\n  {"))
	}
	return fmt.Sprintf(" (%d sections, %d bytes)", strings.Count(b, "\n## "), len(b))
}

// published reports whether node id published its outputs.
func (ru *run) published(id string) bool {
	return ru.state[id] == stateOK && id != ru.missingNode
}
