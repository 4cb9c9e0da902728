package builtin

import (
	"context"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/evalcal/evalcal/inspection"
	"github.com/evalcal/evalcal/sampler"
)

// check is one inspection in progress.
type check struct {
	ctx     context.Context
	run     inspection.Run
	dir     *sampler.RunDir
	depth   inspection.Depth
	flags   []inspection.Flag
	bytes   int64
	logName string
	man     sampler.Manifest
	log     sampler.Log
	// outputs maps each service to the outputs it should publish.
	outputs map[string][]string
	// present holds the published outputs found, by manifest key.
	present   map[string]bool
	completed map[string]bool
	errored   map[string]bool
	skipped   map[string]bool
	recovered map[string]bool
}

func newCheck(ctx context.Context, run inspection.Run, depth inspection.Depth) *check {
	set := func(xs []string) map[string]bool {
		m := map[string]bool{}
		for _, x := range xs {
			m[x] = true
		}
		return m
	}
	c := &check{ctx: ctx, run: run, depth: depth,
		completed: set(run.ServicesCompleted), errored: set(run.ServicesErrored), skipped: set(run.ServicesSkipped),
		recovered: map[string]bool{}, present: map[string]bool{}, outputs: map[string][]string{}}
	for _, p := range run.BindingsPresent {
		c.present[sampler.PublishedKey(p)] = true
	}
	return c
}

func (c *check) flag(id, description, evidence string) {
	c.flags = append(c.flags, inspection.Flag{ID: id, Severity: deductions[id].severity, Description: description, Evidence: evidence})
}

// inspect performs the checks of c.depth in a fixed order.
func (c *check) inspect() error {
	if err := c.ctx.Err(); err != nil {
		return err
	}
	dir, err := sampler.OpenRunDir(c.run.Path)
	if err != nil {
		return fmt.Errorf("run directory %s is not readable: %v", c.run.Path, err)
	}
	defer dir.Close()
	c.dir = dir
	c.logName = dir.LogFile()
	c.loadManifest()
	if c.depth == inspection.Deep && c.logName != "" {
		lg, err := dir.ParseLog(c.ctx, c.logName)
		if cerr := c.ctx.Err(); cerr != nil {
			return cerr
		}
		c.bytes += lg.Bytes
		if err != nil {
			c.flag(inspection.FlagLogUnreadable, "the log could not be read to the end: "+err.Error(), c.logName)
		}
		c.log = lg
	}
	c.checkOutcome()
	c.checkRecovery()
	c.checkMissingBindings()
	c.checkErrorFiles()
	if c.depth == inspection.Light {
		return c.checkEmptyOutputsLight()
	}
	c.checkOrder()
	c.checkUnhandledErrors()
	return c.checkOutputsDeep()
}

func (c *check) loadManifest() {
	man, err := c.dir.LoadManifest(c.ctx, c.run.Era)
	if err != nil {
		c.flag(inspection.FlagManifestBroken, err.Error(), man.File)
	}
	if man.File != "" {
		if fi, err := c.dir.Stat(man.File); err == nil {
			c.bytes += fi.Size()
		}
	}
	c.man = man
	for _, o := range man.Outputs {
		c.outputs[o.Service] = append(c.outputs[o.Service], o.Path)
	}
	if len(man.Services) == 0 && c.run.Era == inspection.EraStateMDv1 {
		// Without a readable program, a v1 service owes bindings/{name}.md.
		for _, s := range c.run.ServicesDeclared {
			c.outputs[s] = append(c.outputs[s], "bindings/"+s+".md")
		}
	}
}

func (c *check) completedRun() bool { return c.run.Status == inspection.StatusCompleted }

// logEvidence is the log file with a line when the deep pass read one.
func (c *check) logEvidence(line int) string {
	if c.logName == "" {
		return "(no log)"
	}
	if line > 0 {
		return fmt.Sprintf("%s:%d", c.logName, line)
	}
	return c.logName
}

func (c *check) checkOutcome() {
	switch c.run.Status {
	case inspection.StatusFailed:
		msg, line := "", 0
		if t := c.log.Terminator; t != nil {
			msg, line = t.Message, t.Line
		}
		d := "the log ends in ---error"
		if c.log.Terminator == nil && c.depth == inspection.Deep {
			d = "the log has no terminator and its front matter says the run failed"
		}
		if msg != "" {
			d += ": " + msg
		}
		c.flag(inspection.FlagRunFailed, d, c.logEvidence(line))
	case inspection.StatusIncomplete:
		c.flag(inspection.FlagRunIncomplete, "the log has neither ---end nor ---error: the run stopped or is still running", c.logEvidence(c.log.Lines))
	}
}

// missingOf lists the outputs of service s that are not present.
func (c *check) missingOf(s string) []string {
	var miss []string
	for _, p := range c.outputs[s] {
		if !c.present[p] {
			miss = append(miss, p)
		}
	}
	return miss
}

// checkRecovery marks (deep only) services that errored and then
// completed with all their outputs: the error was handled.
func (c *check) checkRecovery() {
	if c.depth != inspection.Deep {
		return
	}
	for s := range c.errored {
		if c.completed[s] && len(c.missingOf(s)) == 0 {
			c.recovered[s] = true
		}
	}
}

// checkMissingBindings flags services whose declared outputs are absent.
// Only services that should have published are considered: on a run that
// completed every declared service (deep excuses a service the log marks
// skipped by design), on other runs the services that completed.
func (c *check) checkMissingBindings() {
	services := make([]string, 0, len(c.outputs))
	for s := range c.outputs {
		services = append(services, s)
	}
	sort.Strings(services)
	for _, s := range services {
		owed := c.completed[s] || c.completedRun()
		if c.depth == inspection.Deep && c.skipped[s] && !c.completed[s] {
			owed = false
		}
		miss := c.missingOf(s)
		if !owed || len(miss) == 0 {
			continue
		}
		why := "was declared"
		if c.completed[s] {
			why = "completed"
		}
		c.flag(inspection.FlagMissingBinding, fmt.Sprintf("service %s %s but %d of its %d outputs are missing", s, why, len(miss), len(c.outputs[s])),
			strings.Join(miss, ", "))
	}
}

func errorFileService(p string) string {
	if d := path.Dir(p); d != "." {
		return path.Base(d)
	}
	return ""
}

// checkErrorFiles flags __error.md files; deep leaves out those of
// services that recovered.
func (c *check) checkErrorFiles() {
	for _, p := range c.run.ErrorFiles {
		s := errorFileService(p)
		if c.recovered[s] {
			continue
		}
		c.flag(inspection.FlagErrorFile, fmt.Sprintf("service %s left %s", s, sampler.ErrorFileName), p+":1")
	}
}

func (c *check) checkEmptyOutputsLight() error {
	for _, p := range c.run.BindingsPresent {
		if err := c.ctx.Err(); err != nil {
			return err
		}
		fi, err := c.dir.Stat(p)
		if err == nil && !fi.Mode().IsRegular() {
			err = fmt.Errorf("%s: %w", p, sampler.ErrNotRegular)
		}
		if err != nil {
			c.flag(inspection.FlagOutputUnreadable, err.Error(), p)
			continue
		}
		if fi.Size() == 0 {
			c.flag(inspection.FlagEmptyOutput, "the output is 0 bytes", p)
		}
	}
	return nil
}

// checkOrder compares the first appearance of each service in the log
// with its first step in the manifest's order: a service that appears
// after one the manifest orders later ran out of order. One flag per
// out-of-order service.
func (c *check) checkOrder() {
	if len(c.man.Order) == 0 {
		return
	}
	rank := map[string]int{}
	for i, step := range c.man.Order {
		for _, s := range step {
			if _, ok := rank[s]; !ok {
				rank[s] = i
			}
		}
	}
	maxRank, maxSvc := -1, ""
	// Summaries come in order of each service's first event.
	for _, s := range sampler.ServiceSummaries(c.log) {
		r, ok := rank[s.Service]
		if !ok {
			continue
		}
		if r < maxRank {
			c.flag(inspection.FlagOrderMismatch, fmt.Sprintf("the log runs %s after %s, but the manifest (%s) orders %s first",
				s.Service, maxSvc, c.manifestStep(r), s.Service), c.logEvidence(s.First))
			continue
		}
		if r > maxRank {
			maxRank, maxSvc = r, s.Service
		}
	}
}

func (c *check) manifestStep(r int) string {
	if r < len(c.man.OrderLines) && c.man.OrderLines[r] > 0 {
		return fmt.Sprintf("%s:%d", c.man.File, c.man.OrderLines[r])
	}
	return fmt.Sprintf("%s step %d", c.man.File, r+1)
}

// checkUnhandledErrors flags, on a run whose log says it completed, a
// service that errored (✗ in the log or an error file) and did not
// recover: the error was neither handled nor surfaced as a failed run.
func (c *check) checkUnhandledErrors() {
	if !c.completedRun() {
		return
	}
	lines := map[string]int{}
	for _, s := range sampler.ServiceSummaries(c.log) {
		if s.Error > 0 {
			lines[s.Service] = s.Error
		}
	}
	for _, s := range c.run.ServicesErrored {
		if c.recovered[s] {
			continue
		}
		ev := c.logEvidence(lines[s])
		if lines[s] == 0 {
			for _, p := range c.run.ErrorFiles {
				if errorFileService(p) == s {
					ev = p + ":1"
					break
				}
			}
		}
		c.flag(inspection.FlagUnhandledError, fmt.Sprintf("service %s errored and did not recover, yet the run ended with ---end", s), ev)
	}
}

func (c *check) inspection() inspection.Inspection {
	if c.flags == nil {
		c.flags = []inspection.Flag{}
	}
	sortFlags(c.flags)
	rf, te := score(c.flags, c.depth)
	verdict := inspection.Verdict(c.completedRun(), rf, te, c.flags)
	return inspection.Inspection{
		RunID: c.run.ID, System: c.run.System, Depth: c.depth,
		RuntimeFidelity: rf, TaskEffectiveness: te,
		Services: c.services(), Flags: c.flags, Verdict: verdict,
		Summary: summary(c.run, c.depth, c.flags, rf, te, verdict),
		Cost:    inspection.Cost{Tokens: c.bytes / 4},
	}
}

// services lists every declared or seen service with its status:
// recovered (deep), errored, completed, skipped or not-run.
func (c *check) services() []inspection.Service {
	all := map[string]bool{}
	for _, list := range [][]string{c.run.ServicesDeclared, c.run.ServicesCompleted, c.run.ServicesErrored, c.run.ServicesSkipped} {
		for _, s := range list {
			all[s] = true
		}
	}
	names := make([]string, 0, len(all))
	for s := range all {
		names = append(names, s)
	}
	sort.Strings(names)
	out := make([]inspection.Service, 0, len(names))
	for _, s := range names {
		st := "not-run"
		switch {
		case c.recovered[s]:
			st = "recovered"
		case c.errored[s]:
			st = "errored"
		case c.completed[s]:
			st = "completed"
		case c.skipped[s]:
			st = "skipped"
		}
		out = append(out, inspection.Service{Name: s, Status: st})
	}
	return out
}
